import { describe, expect, it } from 'vitest';
import { kimiK2Format, kimiK2Protocol } from '../../../src/protocols/kimi-k2/index.ts';
import {
  callsIn,
  errorsIn,
  itKeepsTheStreamInvariants,
  itStaysLinear,
  partsOf,
  reasoningIn,
  textIn,
} from './json-format-checks.ts';

const kimi = kimiK2Protocol();

const call = (id: string, json: string) =>
  `<|tool_call_begin|>${id}<|tool_call_argument_begin|>${json}<|tool_call_end|>`;
const section = (...calls: string[]) =>
  `<|tool_calls_section_begin|>${calls.join('')}<|tool_calls_section_end|>`;

describe('kimi-k2', () => {
  it('reads a section of calls between reasoning and text (llama.cpp, Kimi-K2-Thinking)', () => {
    const parts = partsOf(
      kimi,
      `<think>I'm\nthinking</think>Let me look.${section(call('functions.get_weather:0', '{"city": "Oslo", "days": 2}'), call('functions.search:1', '{"query": "rain"}'))}Done.`,
    );
    expect(reasoningIn(parts)).toBe("I'm\nthinking");
    expect(callsIn(parts)).toEqual([
      { name: 'get_weather', input: { city: 'Oslo', days: 2 } },
      { name: 'search', input: { query: 'rain' } },
    ]);
    expect(textIn(parts)).toBe('Let me look.Done.');
  });

  it('reads ids without `functions.`, a space before the argument token, and the singular section spelling (vLLM)', () => {
    const parts = partsOf(
      kimi,
      `No prefix. <|tool_call_section_begin|><|tool_call_begin|>get_weather:0 <|tool_call_argument_begin|>{"city": "Tokyo"}<|tool_call_end|><|tool_call_section_end|>`,
    );
    expect(callsIn(parts)).toEqual([{ name: 'get_weather', input: { city: 'Tokyo' } }]);
    expect(textIn(parts)).toBe('No prefix. ');
  });

  it('types arguments by the schema and attaches problems', () => {
    const parts = partsOf(
      kimi,
      section(call('functions.get_weather:0', '{"city": "Oslo", "days": "3"}')),
    );
    expect(callsIn(parts)).toEqual([{ name: 'get_weather', input: { city: 'Oslo', days: 3 } }]);
    const invalid = partsOf(kimi, section(call('functions.get_weather:0', '{"days": 3}')));
    const tool = invalid.find((part) => part.type === 'tool-call');
    expect(tool?.type === 'tool-call' && tool.problems?.length).toBeGreaterThan(0);
  });

  it('keeps a call to an undeclared tool, or an id that is not Kimi’s, as text', () => {
    const unknown = call('functions.launch_rocket:0', '{"when": "now"}');
    const parts = partsOf(kimi, `A ${unknown} B`);
    expect(callsIn(parts)).toEqual([]);
    expect(textIn(parts)).toBe(`A ${unknown} B`);
    const malformedId = call('functions.get_weather.0', '{"city": "Oslo"}');
    expect(callsIn(partsOf(kimi, section(malformedId)))).toEqual([]);
  });

  it('reports a cut-off call with its raw text and never runs it', () => {
    const text = `<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Os`;
    const parts = partsOf(kimi, text);
    expect(callsIn(parts)).toEqual([]);
    expect(errorsIn(parts).map((error) => error.code)).toEqual(['incomplete-call']);
    const interrupted = partsOf(
      kimi,
      `<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Oslo"}`,
      { interrupted: true },
    );
    expect(callsIn(interrupted)).toEqual([]);
  });

  it('reports broken JSON with its raw text and keeps the calls around it (vLLM)', () => {
    const parts = partsOf(
      kimi,
      section(
        call('functions.get_weather:0', '{"city": "Beijing", nonsense'),
        call('functions.search:1', '{"query": "Shanghai"}'),
      ),
    );
    expect(callsIn(parts)).toContainEqual({ name: 'search', input: { query: 'Shanghai' } });
    expect(errorsIn(parts)[0]?.raw).toContain('nonsense');
  });

  it('decodes arguments written double-encoded, a JSON string holding the object, once', () => {
    const encoded = JSON.stringify(JSON.stringify({ city: 'Oslo "Norway"', days: 2 }));
    const parts = partsOf(kimi, `Look.${section(call('functions.get_weather:0', ` ${encoded} `))}`);
    expect(callsIn(parts)).toEqual([
      { name: 'get_weather', input: { city: 'Oslo "Norway"', days: 2 } },
    ]);
    expect(textIn(parts)).toBe('Look.');
    expect(errorsIn(parts)).toEqual([]);
  });

  it('fails a call whose arguments are a string holding no object, as any malformed arguments', () => {
    for (const json of [
      '"Oslo"',
      '"[1, 2]"',
      JSON.stringify(JSON.stringify('Oslo')),
      '"{\\"city\\": "',
    ]) {
      const raw = call('functions.get_weather:0', json);
      const parts = partsOf(kimi, section(raw));
      expect(callsIn(parts)).toEqual([]);
      expect(errorsIn(parts)).toHaveLength(1);
      expect(errorsIn(parts)[0]!.raw).toBe(raw);
    }
  });

  describe('a section written before the reasoning closes (Kimi-K2-Thinking)', () => {
    const weather = section(call('functions.get_weather:0', '{"city": "Oslo"}'));

    it('runs its calls: special tokens are never a mention', () => {
      const parts = partsOf(kimi, `<think>I need the weather.${weather}</think>It is mild.`);
      expect(parts.map((part) => part.type)).toEqual(['reasoning', 'tool-call', 'text']);
      expect(reasoningIn(parts)).toBe('I need the weather.');
      expect(callsIn(parts)).toEqual([{ name: 'get_weather', input: { city: 'Oslo' } }]);
      expect(textIn(parts)).toBe('It is mild.');
    });

    it('goes on reasoning after the section, and runs each call once when it never closes', () => {
      const parts = partsOf(kimi, `<think>First.${weather}Then more.</think>Done.`);
      expect(parts.map((part) => part.type)).toEqual([
        'reasoning',
        'tool-call',
        'reasoning',
        'text',
      ]);
      expect(reasoningIn(parts)).toBe('First.Then more.');
      const open = partsOf(kimi, `<think>First.${weather}Then more.`);
      expect(callsIn(open)).toEqual([{ name: 'get_weather', input: { city: 'Oslo' } }]);
      expect(reasoningIn(open)).toBe('First.Then more.');
    });

    it('reports a broken call in reasoning, shown as reasoning, and never runs it', () => {
      const broken = section(call('functions.get_weather:0', '{"city": "Oslo", nonsense'));
      const parts = partsOf(kimi, `<think>Try.${broken}</think>`);
      expect(callsIn(parts)).toEqual([]);
      const [error] = errorsIn(parts);
      expect(error).toMatchObject({ code: 'malformed-call', inReasoning: true });
      expect(reasoningIn(parts)).toContain('nonsense');
      expect(textIn(parts)).toBe('');
    });
  });

  it('renders its own format for the prompt and history', () => {
    const tools = kimi.formatTools([
      { name: 'get_weather', description: 'Weather', inputSchema: { type: 'object' } },
    ]);
    expect(tools).toContain('"name":"get_weather"');
    expect(tools).toContain(
      '<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>',
    );
    expect(kimi.formatToolResponse([{ toolName: 'get_weather', output: { temp: 3 } }])).toBe(
      // Prompt-safe JSON: the first key starts with an escape, so no result reads as a call.
      '## Return of functions.get_weather:0\n{"\\u0074emp":3}',
    );
    expect(kimiK2Format.toolNamesIn?.(section(call('functions.fly:0', '{}')))).toEqual(['fly']);
  });

  itKeepsTheStreamInvariants(kimi, [
    '<|tool_calls_section_begin|>',
    '<|tool_calls_section_end|>',
    '<|tool_call_begin|>',
    '<|tool_call_argument_begin|>',
    '<|tool_call_end|>',
    'functions.get_weather:0',
    'functions.',
    ':0',
    '<think>',
    '</think>',
  ]);

  itStaysLinear(
    kimi,
    (index) => section(call(`functions.get_weather:${index}`, '{"city": "Oslo"}')),
    (argument) =>
      section(call('functions.write_file:0', `{"path": "a", "content": "${argument}"}`)),
  );
});
