import { describe, expect, it } from 'vitest';
import { mistralFormat, mistralProtocol } from '../../../src/protocols/mistral/index.ts';
import {
  callsIn,
  errorsIn,
  itKeepsTheStreamInvariants,
  itStaysLinear,
  partsOf,
  reasoningIn,
  textIn,
} from './json-format-checks.ts';

const mistral = mistralProtocol();

describe('mistral: tokenizers before v11', () => {
  it('reads a [TOOL_CALLS] batch, with ids and arguments before the name (vLLM, llama.cpp)', () => {
    const parts = partsOf(
      mistral,
      '[TOOL_CALLS] [{"arguments": {"city": "Oslo"}, "name": "get_weather", "id": "a1b2c3d4e"}, {"name": "search", "arguments": {"query": "x"}}]',
    );
    expect(callsIn(parts)).toEqual([
      { name: 'get_weather', input: { city: 'Oslo' } },
      { name: 'search', input: { query: 'x' } },
    ]);
    expect(textIn(parts)).toBe('');
  });

  it("drops Ollama's closing [/TOOL_CALLS] and keeps text around the calls", () => {
    const parts = partsOf(
      mistral,
      'Let me check.[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Oslo"}}][/TOOL_CALLS]\nDone.',
    );
    expect(callsIn(parts)).toEqual([{ name: 'get_weather', input: { city: 'Oslo' } }]);
    expect(textIn(parts)).toBe('Let me check.\nDone.');
  });

  it('reads the array without its token when the server stripped it', () => {
    const parts = partsOf(mistral, '[{"name": "get_weather", "arguments": {"city": "Oslo"}}]');
    expect(callsIn(parts)).toEqual([{ name: 'get_weather', input: { city: 'Oslo' } }]);
  });

  it('keeps a bare array naming an undeclared tool, or that is only data, as text', () => {
    const data = '[{"name": "Ada", "age": 36}] and [{"name": "nope", "arguments": {}}]';
    const parts = partsOf(mistral, data);
    expect(callsIn(parts)).toEqual([]);
    expect(errorsIn(parts)).toEqual([]);
  });

  it('drops [TOOL_CALLS] that no call follows, and finds the list after junk (vLLM)', () => {
    expect(textIn(partsOf(mistral, '[TOOL_CALLS] not json at all'))).toBe(' not json at all');
    const parts = partsOf(
      mistral,
      '[TOOL_CALLS]  junk [{"name": "get_weather", "arguments": {"city": "Oslo"}}] trail',
    );
    expect(callsIn(parts)).toEqual([{ name: 'get_weather', input: { city: 'Oslo' } }]);
    expect(textIn(parts)).toBe('  junk  trail');
  });

  it('runs none of the calls of an array cut before its ], and reports the whole array', () => {
    const closed =
      '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Oslo"}}, {"name": "search", "arguments": {"query": "x"}}';
    for (const [text, interrupted] of [
      [`${closed}, {"name": "get_weather", "argu`, false],
      [`${closed}, {"name": "get_weather", "arguments": {"city": "Ro`, false],
      [closed, true],
      [closed.slice('[TOOL_CALLS]'.length), true],
      [`${closed.slice('[TOOL_CALLS]'.length)}, {"name`, false],
    ] as const) {
      const parts = partsOf(mistral, text, { interrupted });
      expect(callsIn(parts)).toEqual([]);
      const errors = errorsIn(parts);
      expect(errors.map((error) => error.code)).toEqual(['incomplete-call']);
      expect(errors[0]!.raw).toBe(text);
      expect(textIn(parts)).toBe(text);
    }
  });

  it('runs the calls of an array whose ] came, or whose output ended with only ] missing', () => {
    const array =
      '[{"name": "get_weather", "arguments": {"city": "Oslo"}}, {"name": "search", "arguments": {"query": "x"}}';
    for (const text of [`[TOOL_CALLS]${array}] Done.`, `[TOOL_CALLS]${array}`]) {
      expect(callsIn(partsOf(mistral, text))).toHaveLength(2);
    }
  });

  it('repairs loose JSON and types values by the schema', () => {
    const parts = partsOf(
      mistral,
      "[TOOL_CALLS][{'name': 'get_weather', 'arguments': {'city': 'Oslo', 'days': '3',}}]",
    );
    expect(callsIn(parts)).toEqual([{ name: 'get_weather', input: { city: 'Oslo', days: 3 } }]);
  });
});

describe('mistral: tokenizers v11 and later', () => {
  it('reads NAME[ARGS]{…} calls, one per [TOOL_CALLS], after [THINK] reasoning (llama.cpp)', () => {
    const parts = partsOf(
      mistral,
      '[THINK]Two calls.[/THINK][TOOL_CALLS]get_weather[ARGS]{"city": "Oslo"}[TOOL_CALLS]search[ARGS]{"query": "q"}',
    );
    expect(reasoningIn(parts)).toBe('Two calls.');
    expect(callsIn(parts)).toEqual([
      { name: 'get_weather', input: { city: 'Oslo' } },
      { name: 'search', input: { query: 'q' } },
    ]);
  });

  it('runs a [TOOL_CALLS] call written before [/THINK]: a special token is never a mention', () => {
    const call = '[TOOL_CALLS]get_weather[ARGS]{"city": "Oslo"}';
    const parts = partsOf(mistral, `[THINK]I need the weather.${call}[/THINK]It is mild.`);
    expect(parts.map((part) => part.type)).toEqual(['reasoning', 'tool-call', 'text']);
    expect(reasoningIn(parts)).toBe('I need the weather.');
    expect(callsIn(parts)).toEqual([{ name: 'get_weather', input: { city: 'Oslo' } }]);
    // A bare array in reasoning is the model's thinking, as before.
    const bare = '[{"name": "get_weather", "arguments": {"city": "Oslo"}}]';
    expect(callsIn(partsOf(mistral, `[THINK]Maybe ${bare}.[/THINK]No.`))).toEqual([]);
  });

  it('reads [CALL_ID] and the form without [ARGS] that vLLM decodes (Mistral Small 3.2)', () => {
    const parts = partsOf(
      mistral,
      'hi{hi[TOOL_CALLS]get_weather[CALL_ID]a1b2c3d4e[ARGS]{"city": "Oslo"}[TOOL_CALLS]write_file{"path": "a", "content": "{}"}',
    );
    expect(callsIn(parts)).toEqual([
      { name: 'get_weather', input: { city: 'Oslo' } },
      { name: 'write_file', input: { path: 'a', content: '{}' } },
    ]);
    expect(textIn(parts)).toBe('hi{hi');
  });

  it('reads a call at the start of the output whose tokens the server stripped', () => {
    expect(callsIn(partsOf(mistral, 'get_weather{"city": "Oslo"}'))).toEqual([
      { name: 'get_weather', input: { city: 'Oslo' } },
    ]);
    expect(callsIn(partsOf(mistral, 'get_weather{city} is a template'))).toEqual([]);
    expect(textIn(partsOf(mistral, 'get_weather{city} is a template'))).toBe(
      'get_weather{city} is a template',
    );
  });

  it('keeps a call to an undeclared tool as text', () => {
    const parts = partsOf(mistral, '[TOOL_CALLS]launch[ARGS]{"when": "now"}');
    expect(callsIn(parts)).toEqual([]);
    expect(textIn(parts)).toBe('[TOOL_CALLS]launch[ARGS]{"when": "now"}');
  });

  it('never runs a call cut off in its arguments, and keeps its raw text', () => {
    const text = '[TOOL_CALLS]write_file[ARGS]{"path": "a.txt", "content": "hel';
    const parts = partsOf(mistral, text);
    expect(callsIn(parts)).toEqual([]);
    expect(errorsIn(parts)[0]).toMatchObject({ code: 'incomplete-call', raw: text });
    expect(
      callsIn(
        partsOf(mistral, '[TOOL_CALLS]get_weather[ARGS]{"city": "Oslo"}', { interrupted: true }),
      ),
    ).toEqual([{ name: 'get_weather', input: { city: 'Oslo' } }]);
  });

  it('reports a call that ended after its name, before its arguments', () => {
    const parts = partsOf(mistral, '[TOOL_CALLS]get_weather');
    expect(callsIn(parts)).toEqual([]);
    expect(errorsIn(parts)[0]).toMatchObject({ code: 'incomplete-call', toolName: 'get_weather' });
  });

  it('reports broken arguments after [ARGS] with their raw text', () => {
    const parts = partsOf(mistral, '[TOOL_CALLS]get_weather[ARGS]city=Oslo');
    expect(callsIn(parts)).toEqual([]);
    expect(errorsIn(parts).map((error) => error.raw)).toEqual([
      '[TOOL_CALLS]get_weather[ARGS]city=Oslo',
    ]);
  });
});

describe('mistral: prompts', () => {
  it('renders tools in [AVAILABLE_TOOLS] and history in each style, read back as calls', () => {
    const v11 = mistral.formatToolCall({
      toolName: 'get_weather',
      input: { city: 'Oslo' },
      toolCallId: 'call_0123456789',
    });
    expect(v11).toBe('[TOOL_CALLS]get_weather[CALL_ID]123456789[ARGS]{"city":"Oslo"}');
    const old = mistralProtocol({ style: 'pre-v11' });
    expect(old.formatToolCall({ toolName: 'get_weather', input: { city: 'Oslo' } })).toBe(
      '[TOOL_CALLS][{"name":"get_weather","arguments":{"city":"Oslo"}}]',
    );
    expect(
      mistral.formatToolResponse({
        toolName: 'get_weather',
        toolCallId: 'abc123456',
        output: 'Sunny',
      }),
    ).toBe('[TOOL_RESULTS]abc123456[TOOL_CONTENT]Sunny[/TOOL_RESULTS]');
    expect(
      old.formatToolResponse({ toolName: 'get_weather', toolCallId: 'abc123456', output: 'Sunny' }),
    ).toBe('[TOOL_RESULTS]{"content":"Sunny","call_id":"abc123456"}[/TOOL_RESULTS]');
    const prompt = mistral.formatTools([
      { name: 'get_weather', description: 'Weather', inputSchema: { type: 'object' } },
    ]);
    expect(
      prompt.startsWith('[AVAILABLE_TOOLS][{"type":"function","function":{"name":"get_weather"'),
    ).toBe(true);
    expect(prompt).toContain('[TOOL_CALLS]get_weather[ARGS]{}');
  });

  it('is chosen for Mistral model ids', () => {
    for (const id of [
      'mistral-small3.2',
      'mistral-nemo',
      'mistralai/devstral-small-2507',
      'magistral:24b',
      'ministral-8b',
      'codestral',
    ]) {
      expect(
        mistralFormat.models.some((pattern) => pattern.test(id)),
        id,
      ).toBe(true);
    }
  });
});

describe('mistral: invariants', () => {
  itKeepsTheStreamInvariants(mistral, [
    '[TOOL_CALLS]',
    '[/TOOL_CALLS]',
    '[ARGS]',
    '[CALL_ID]',
    '[THINK]',
    '[/THINK]',
    'a1b2c3d4e',
  ]);
  itStaysLinear(
    mistral,
    (index) => `[TOOL_CALLS]get_weather[ARGS]{"city": "c${index}"}`,
    (argument) => `[TOOL_CALLS]write_file[ARGS]{"path": "p", "content": "${argument}"}`,
  );
});
