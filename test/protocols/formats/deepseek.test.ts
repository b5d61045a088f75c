import { describe, expect, it } from 'vitest';
import { deepseekFormat, deepseekProtocol } from '../../../src/protocols/deepseek/index.ts';
import {
  callsIn,
  errorsIn,
  itKeepsTheStreamInvariants,
  itStaysLinear,
  partsOf,
  reasoningIn,
  textIn,
} from './json-format-checks.ts';

const deepseek = deepseekProtocol();

const v3 = (name: string, json: string, bar = '｜') =>
  `<${bar}tool▁call▁begin${bar}>function<${bar}tool▁sep${bar}>${name}\n\`\`\`json\n${json}\n\`\`\`<${bar}tool▁call▁end${bar}>`;
const v31 = (name: string, json: string) =>
  `<｜tool▁call▁begin｜>${name}<｜tool▁sep｜>${json}<｜tool▁call▁end｜>`;
const section = (...calls: string[]) =>
  `<｜tool▁calls▁begin｜>${calls.join('')}<｜tool▁calls▁end｜>`;

describe('deepseek', () => {
  it('reads V3/R1 calls with fenced JSON after R1 reasoning (llama.cpp, vLLM)', () => {
    const parts = partsOf(
      deepseek,
      `<think>I'm\nthinking</think>\n\nLet me check.${section(v3('get_weather', '{"city": "Tokyo", "days": 2}'), v3('search', '{"query": "hotels"}'))}`,
    );
    expect(reasoningIn(parts)).toBe("I'm\nthinking");
    expect(callsIn(parts)).toEqual([
      { name: 'get_weather', input: { city: 'Tokyo', days: 2 } },
      { name: 'search', input: { query: 'hotels' } },
    ]);
    expect(textIn(parts).trim()).toBe('Let me check.');
  });

  it('reads V3.1 calls (name, separator, bare JSON) with text before', () => {
    const parts = partsOf(
      deepseek,
      `CONTENT${section(v31('get_weather', '{"city": "Paris"}'), v31('search', '{"query": "x"}'))}`,
    );
    expect(callsIn(parts)).toEqual([
      { name: 'get_weather', input: { city: 'Paris' } },
      { name: 'search', input: { query: 'x' } },
    ]);
    expect(textIn(parts)).toBe('CONTENT');
  });

  it("reads R1's <｜tool▁calls｜> without a call opener, and ASCII bars with an end-of-sentence token (Ollama)", () => {
    expect(
      callsIn(
        partsOf(
          deepseek,
          '<｜tool▁calls｜>function<｜tool▁sep｜>get_weather\n```json\n{"city": "Oslo"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
        ),
      ),
    ).toEqual([{ name: 'get_weather', input: { city: 'Oslo' } }]);
    const parts = partsOf(
      deepseek,
      `<|tool▁calls▁begin|>${v3('get_weather', '{"city": "Tokyo"}', '|')}<|tool▁calls▁end|><|end▁of▁sentence|>`,
    );
    expect(callsIn(parts)).toEqual([{ name: 'get_weather', input: { city: 'Tokyo' } }]);
    expect(textIn(parts)).toBe('');
  });

  it('does not read a call mentioned inside reasoning', () => {
    const parts = partsOf(
      deepseek,
      `<think>It starts with ${section(v31('get_weather', '{"city": "A"}'))}</think>ok`,
    );
    expect(callsIn(parts)).toEqual([]);
    expect(textIn(parts)).toBe('ok');
  });

  it('keeps an undeclared tool as text and a tool named like the type word', () => {
    const unknown = section(v31('launch', '{}'));
    expect(textIn(partsOf(deepseek, unknown))).toContain('launch');
    expect(callsIn(partsOf(deepseek, unknown))).toEqual([]);
    const functionTool = { name: 'function_x', inputSchema: { type: 'object' } };
    expect(
      callsIn(partsOf(deepseek, section(v31('function_x', '{"a": 1}')), { tools: [functionTool] })),
    ).toEqual([{ name: 'function_x', input: { a: 1 } }]);
  });

  it('reports a cut-off or interrupted call and never runs it', () => {
    const cut = partsOf(
      deepseek,
      `<｜tool▁calls▁begin｜>${v31('get_weather', '{"city": "To').replace(/<｜tool▁call▁end｜>$/, '')}`,
    );
    expect(callsIn(cut)).toEqual([]);
    expect(errorsIn(cut).map((error) => error.code)).toEqual(['incomplete-call']);
    const interrupted = partsOf(
      deepseek,
      `<｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Oslo"}`,
      {
        interrupted: true,
      },
    );
    expect(callsIn(interrupted)).toEqual([]);
  });

  it('types values by the schema', () => {
    expect(
      callsIn(partsOf(deepseek, section(v31('get_weather', '{"city": "Oslo", "days": "4"}')))),
    ).toEqual([{ name: 'get_weather', input: { city: 'Oslo', days: 4 } }]);
  });

  it('prompts in V3.1 by default and in V3 when asked', () => {
    const tools = [
      { name: 'get_weather', description: 'Weather', inputSchema: { type: 'object' } },
    ];
    expect(deepseek.formatTools(tools)).toContain('### get_weather\nDescription: Weather');
    const old = deepseekProtocol({ version: 'v3' });
    expect(old.formatToolCall({ toolName: 'get_weather', input: { city: 'A' } })).toBe(
      section(v3('get_weather', '{"city":"A"}')),
    );
    expect(deepseek.formatToolResponse({ toolName: 'get_weather', output: 'sunny' })).toBe(
      // The text as it is, as DeepSeek's template writes it (its own openers broken).
      '<｜tool▁output▁begin｜>sunny<｜tool▁output▁end｜>',
    );
    expect(deepseekFormat.toolNamesIn?.(section(v3('fly', '{}'), v31('swim', '{}')))).toEqual([
      'fly',
      'swim',
    ]);
  });

  itKeepsTheStreamInvariants(deepseek, [
    '<｜tool▁calls▁begin｜>',
    '<｜tool▁calls▁end｜>',
    '<｜tool▁call▁begin｜>',
    '<｜tool▁call▁end｜>',
    '<｜tool▁sep｜>',
    '<｜tool▁calls｜>',
    'function',
    '<|tool▁call▁begin|>',
    '<｜end▁of▁sentence｜>',
  ]);
  itKeepsTheStreamInvariants(deepseekProtocol({ version: 'v3' }), ['```json\n', '\n```']);

  itStaysLinear(
    deepseek,
    (index) => section(v31('get_weather', `{"city": "c${index}"}`)),
    (argument) => section(v31('write_file', `{"path": "a", "content": "${argument}"}`)),
  );
});

describe('deepseek V3.2 DSML', () => {
  const dsml = (body: string) => `<｜DSML｜function_calls>\n${body}\n</｜DSML｜function_calls>`;

  it('reads DSML invokes, typing non-string parameters by the schema', () => {
    const parts = partsOf(
      deepseek,
      `<think>Plan.</think>Checking.\n\n${dsml('<｜DSML｜invoke name="get_weather">\n<｜DSML｜parameter name="city" string="true">Oslo</｜DSML｜parameter>\n<｜DSML｜parameter name="days" string="false">3</｜DSML｜parameter>\n</｜DSML｜invoke>\n<｜DSML｜invoke name="search">\n<｜DSML｜parameter name="query" string="true">a < b</｜DSML｜parameter>\n</｜DSML｜invoke>')}`,
    );
    expect(reasoningIn(parts)).toBe('Plan.');
    expect(callsIn(parts)).toEqual([
      { name: 'get_weather', input: { city: 'Oslo', days: 3 } },
      { name: 'search', input: { query: 'a < b' } },
    ]);
    expect(textIn(parts).trim()).toBe('Checking.');
  });

  it('keeps an undeclared DSML invoke as text and reports a cut-off one', () => {
    const unknown = dsml('<｜DSML｜invoke name="fly">\n</｜DSML｜invoke>');
    expect(callsIn(partsOf(deepseek, unknown))).toEqual([]);
    const cut = partsOf(
      deepseek,
      '<｜DSML｜function_calls>\n<｜DSML｜invoke name="get_weather">\n<｜DSML｜parameter name="city" string="true">Os',
    );
    expect(callsIn(cut)).toEqual([]);
    expect(errorsIn(cut).map((error) => error.code)).toEqual(['incomplete-call']);
  });

  it('prompts and renders history in DSML when asked', () => {
    const v32 = deepseekProtocol({ version: 'v3.2' });
    expect(v32.formatTools([{ name: 'get_weather', inputSchema: { type: 'object' } }])).toContain(
      '<functions>\n{"name":"get_weather","parameters":{"type":"object"}}\n</functions>',
    );
    expect(v32.formatToolCall({ toolName: 'get_weather', input: { city: 'A', days: 2 } })).toBe(
      dsml(
        '<｜DSML｜invoke name="get_weather">\n<｜DSML｜parameter name="city" string="true">A</｜DSML｜parameter>\n<｜DSML｜parameter name="days" string="false">2</｜DSML｜parameter>\n</｜DSML｜invoke>',
      ),
    );
  });

  itKeepsTheStreamInvariants(deepseekProtocol({ version: 'v3.2' }), [
    '<｜DSML｜function_calls>',
    '</｜DSML｜function_calls>',
    '<｜DSML｜invoke name="get_weather">',
    '</｜DSML｜invoke>',
    '<｜DSML｜parameter name="city" string="true">',
    '</｜DSML｜parameter>',
  ]);
});
