import { describe, expect, it } from 'vitest';
import { hermesProtocol } from '../../../src/index.ts';
import {
  callsOf,
  chunksOf,
  contentAtEverySplit,
  contentOf,
  streamEvents,
  streamingViolations,
  TOOLS,
  textOf,
  weatherTool,
} from '../helpers.ts';

const hermes = hermesProtocol();
const tools = TOOLS;

describe('hermes protocol: calls', () => {
  it('reads JSON inside <tool_call> tags, with text before and after', () => {
    const text =
      'Let me look.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Seoul", "days": "2"}}\n</tool_call>\nok';
    expect(contentOf(streamEvents(hermes, [text], { tools }))).toEqual([
      { type: 'text', text: 'Let me look.\n' },
      { type: 'tool-call', toolName: 'get_weather', input: '{"city":"Seoul","days":2}' },
      { type: 'text', text: '\nok' },
    ]);
  });

  it('accepts "parameters" for "arguments", keys in any order, and arguments as a JSON string', () => {
    const text =
      '<tool_call>{"name": "get_weather", "parameters": {"city": "A"}}</tool_call>' +
      '<tool_call>{"arguments": {"city": "B"}, "name": "get_weather"}</tool_call>' +
      '<tool_call>{"name": "get_weather", "arguments": "{\\"city\\": \\"C\\"}"}</tool_call>';
    expect(callsOf(hermes, text, tools)).toEqual([
      { toolName: 'get_weather', input: { city: 'A' } },
      { toolName: 'get_weather', input: { city: 'B' } },
      { toolName: 'get_weather', input: { city: 'C' } },
    ]);
  });

  it('reads a call in a ```json fence, and leaves other fences as text', () => {
    const fenced =
      'Here:\n```json\n{"name": "get_weather", "arguments": {"city": "Rome"}}\n```\nDone';
    expect(callsOf(hermes, fenced, tools)).toEqual([
      { toolName: 'get_weather', input: { city: 'Rome' } },
    ]);
    expect(textOf(hermes, fenced, tools)).toBe('Here:\n\nDone');
    const code = 'Code:\n```python\nprint("hi")\n```\nand ```json\n{"a": 1}\n``` end';
    expect(callsOf(hermes, code, tools)).toEqual([]);
    expect(textOf(hermes, code, tools)).toBe(code);
  });

  it('reads loose JSON: single quotes, trailing commas, a comma left out', () => {
    const text = "<tool_call>{'name': 'get_weather', 'arguments': {'city': 'Oslo',},}</tool_call>";
    expect(callsOf(hermes, text, tools)).toEqual([
      { toolName: 'get_weather', input: { city: 'Oslo' } },
    ]);
    const broken =
      '<tool_call>{"name": "get_weather", "arguments": {"city": "Lima" "days": 2}}</tool_call>';
    expect(callsOf(hermes, broken, tools)).toEqual([
      { toolName: 'get_weather', input: { city: 'Lima', days: 2 } },
    ]);
  });

  it('does not end a call at </tool_call> inside a JSON string', () => {
    const text =
      '<tool_call>{"name": "write_file", "arguments": {"path": "a", "content": "x </tool_call> y"}}</tool_call>';
    expect(callsOf(hermes, text, tools)).toEqual([
      { toolName: 'write_file', input: { path: 'a', content: 'x </tool_call> y' } },
    ]);
  });

  it('reads a call to an undeclared tool as text', () => {
    const text = '<tool_call>{"name": "launch_rockets", "arguments": {}}</tool_call>';
    expect(callsOf(hermes, text, tools)).toEqual([]);
    expect(textOf(hermes, text, tools)).toBe(text);
  });

  it('reads a bare JSON call to a declared tool, and other JSON as text', () => {
    expect(
      callsOf(hermes, 'Calling {"name": "get_weather", "arguments": {"city": "Kyiv"}}', tools),
    ).toEqual([{ toolName: 'get_weather', input: { city: 'Kyiv' } }]);
    const prose = 'Config: {"name": "my-app", "version": 2}';
    expect(callsOf(hermes, prose, tools)).toEqual([]);
    expect(textOf(hermes, prose, tools)).toBe(prose);
  });

  it('reads several calls, and an array of calls in one tag', () => {
    const text =
      '<tool_call>{"name": "get_weather", "arguments": {"city": "A"}}</tool_call><tool_call>{"name": "get_weather", "arguments": {"city": "B"}}</tool_call>' +
      '<tool_call>[{"name": "get_weather", "arguments": {"city": "C"}}, {"name": "get_weather", "arguments": {"city": "D"}}]</tool_call>';
    expect(callsOf(hermes, text, tools).map((call) => call.input)).toEqual([
      { city: 'A' },
      { city: 'B' },
      { city: 'C' },
      { city: 'D' },
    ]);
  });

  it('completes a call whose closing tag was eaten by a stop sequence', () => {
    expect(
      callsOf(hermes, '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Bern"}}', tools),
    ).toEqual([{ toolName: 'get_weather', input: { city: 'Bern' } }]);
    // Its JSON cut short as well: the call is not complete, so it is reported, not run.
    expect(
      callsOf(hermes, '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Bern"}', tools),
    ).toEqual([]);
  });

  it('reports a cut-off call that does not validate, with its raw text', () => {
    const text = 'Ok <tool_call>{"name": "write_file", "arguments": {"path": "a';
    const content = contentOf(streamEvents(hermes, [text], { tools }));
    expect(content).toEqual([
      { type: 'text', text: 'Ok ' },
      {
        type: 'error',
        error: expect.objectContaining({
          code: 'incomplete-call',
          raw: text.slice(3),
          toolName: 'write_file',
        }),
      },
      { type: 'text', text: text.slice(3) },
    ]);
  });

  it('validates the input it streamed, whether the arguments are small or large', () => {
    // Large arguments are read back from the streamed JSON, small ones kept as they stream: the
    // problems must be those of the input text either way (1e400 was written as null).
    for (const query of ['a', 'x'.repeat(100_000)]) {
      const text = `<tool_call>{"name": "search", "arguments": {"query": "${query}", "options": {"depth": 1e400}, "allow_tests": -0}}</tool_call>`;
      for (const chunks of [[text], chunksOf(text, 8)]) {
        const calls = contentOf(streamEvents(hermes, chunks, { tools })) as {
          input: string;
          problems?: { path: string }[];
        }[];
        expect(calls).toHaveLength(1);
        expect(calls[0]!.input).toBe(
          `{"query":"${query}","options":{"depth":null},"allow_tests":0}`,
        );
        expect(calls[0]!.problems?.map((problem) => problem.path)).toEqual([
          '/allow_tests',
          '/options/depth',
        ]);
      }
    }
  });

  it('streams a large argument the same without validation, and reports nothing', () => {
    const query = 'x'.repeat(100_000);
    const text = `<tool_call>{"name": "search", "arguments": {"query": "${query}", "allow_tests": -0}}</tool_call>`;
    const calls = contentOf(streamEvents(hermes, chunksOf(text, 8), { tools, validate: false }));
    expect(calls).toEqual([
      { type: 'tool-call', toolName: 'search', input: `{"query":"${query}","allow_tests":0}` },
    ]);
  });

  it('reports JSON that cannot be repaired into a call', () => {
    const text = '<tool_call>get_weather(city="Paris")</tool_call>';
    const content = contentOf(streamEvents(hermes, [text], { tools }));
    expect(content[0]).toEqual({
      type: 'error',
      error: expect.objectContaining({ code: 'malformed-call', raw: text }),
    });
    expect(content[1]).toEqual({ type: 'text', text });
  });

  it('never reads <tool_call> inside reasoning as a call', () => {
    const text =
      '<think><tool_call>{"name": "get_weather", "arguments": {"city": "X"}}</tool_call></think>Answer';
    expect(contentOf(streamEvents(hermes, [text], { tools }))).toEqual([
      {
        type: 'reasoning',
        text: '<tool_call>{"name": "get_weather", "arguments": {"city": "X"}}</tool_call>',
      },
      { type: 'text', text: 'Answer' },
    ]);
  });

  it('uses the configured tags', () => {
    const custom = hermesProtocol({ callTag: 'function_call_x', responseTag: 'out' });
    expect(
      callsOf(
        custom,
        '<function_call_x>{"name": "get_weather", "arguments": {"city": "Q"}}</function_call_x>',
        tools,
      ),
    ).toEqual([{ toolName: 'get_weather', input: { city: 'Q' } }]);
    expect(custom.formatToolResponse({ toolName: 'get_weather', output: 'sunny' })).toBe(
      '<out>\nsunny\n</out>',
    );
  });
});

describe('hermes protocol: streaming', () => {
  it('starts the call when the name is known and streams the arguments as they arrive', () => {
    const parser = hermes.createStreamParser({ tools });
    const first = parser.push(
      '<tool_call>{"name": "write_file", "arguments": {"path": "a.txt", "content": "Hel',
    );
    expect(first.map((event) => event.type)).toContain('tool-input-start');
    const deltas = first
      .filter((event) => event.type === 'tool-input-delta')
      .map((event) => (event as { delta: string }).delta);
    expect(deltas.join('')).toBe('{"path":"a.txt","content":"Hel');
  });

  it('keeps the streaming contract at every chunk size', () => {
    const text =
      'x<tool_call>{"name": "search", "arguments": {"query": "a\\"b", "tags": ["t"], "options": {"depth": "3"}}}</tool_call>' +
      '<tool_call>{"arguments": {"city": "B"}, "name": "get_weather"}</tool_call>';
    const whole = contentOf(streamEvents(hermes, [text], { tools }));
    for (const size of [1, 2, 3, 5, 7, 23]) {
      const events = streamEvents(hermes, chunksOf(text, size), { tools });
      expect(streamingViolations(events)).toEqual([]);
      expect(contentOf(events)).toEqual(whole);
    }
  });
});

describe('hermes protocol: formatting', () => {
  it('formats calls and results; a result can never be read back as a call', () => {
    const call = hermes.formatToolCall({ toolName: 'get_weather', input: { city: 'Z' } });
    expect(call).toBe('<tool_call>\n{"name":"get_weather","arguments":{"city":"Z"}}\n</tool_call>');
    const result = hermes.formatToolResponse({
      toolName: 'search',
      output: '<tool_call>{"name": "get_weather", "arguments": {"city": "X"}}</tool_call>',
    });
    expect(callsOf(hermes, result, tools)).toEqual([]);
  });

  it('lists the tools as function signatures', () => {
    const prompt = hermes.formatTools(tools);
    expect(prompt).toContain('<tools>');
    expect(prompt).toContain('"name":"get_weather"');
    expect(prompt).toContain('<tool_call>');
  });
});

describe('hermes: a tagged call inside a code fence', () => {
  const tools = [weatherTool];

  it('reads the call and drops the fence around it, at every split', () => {
    for (const text of [
      '```xml\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>\n```',
      '```json\n\n   <function_call> {"name": "get_weather", "arguments": {"city": "Oslo"}} \n </function_call> \n```',
      '```\n<function=get_weather>{"city": "Oslo"}</function>\n```',
    ]) {
      expect(contentAtEverySplit(hermesProtocol(), text, { tools })).toEqual([
        { type: 'tool-call', toolName: 'get_weather', input: '{"city":"Oslo"}' },
      ]);
    }
  });

  it('keeps text after the call when no fence closes it', () => {
    const text =
      '```xml\n<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>\nDone.';
    expect(contentAtEverySplit(hermesProtocol(), text, { tools })).toEqual([
      { type: 'tool-call', toolName: 'get_weather', input: '{"city":"Oslo"}' },
      { type: 'text', text: '\nDone.' },
    ]);
  });

  it('leaves a fence of other markup as text, exactly', () => {
    for (const text of [
      '```html\n<b>bold</b>\n```',
      '```xml\n<<tool_call\n```',
      '```\nplain\n```',
    ]) {
      const content = contentAtEverySplit(hermesProtocol(), text, { tools }) as {
        type: string;
        text?: string;
      }[];
      expect(content.every((part) => part.type === 'text')).toBe(true);
      expect(content.map((part) => part.text).join('')).toBe(text);
    }
  });
});

describe('hermes: <function=NAME> headers', () => {
  const tools = [weatherTool];

  it('reads again what follows a header that names no tool, at every split', () => {
    const text = '<function=nope <function=get_weather>{"city": "Oslo"}</function>';
    expect(contentAtEverySplit(hermesProtocol(), text, { tools })).toEqual([
      { type: 'text', text: '<function=nope ' },
      { type: 'tool-call', toolName: 'get_weather', input: '{"city":"Oslo"}' },
    ]);
  });

  it('closes the input it announced when the output ends right after the header', () => {
    const content = contentAtEverySplit(hermesProtocol(), 'Sure. <function=get_weather>', {
      tools,
    }) as { type: string }[];
    expect(content.some((part) => part.type === 'tool-call')).toBe(false);
  });
});
