/**
 * The pythonic format (Llama 3.2 and 4, LFM2, Olmo 3): outputs these models write, as vLLM's,
 * llama.cpp's and Ollama's parsers and bug reports show them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonText } from '../../../src/core/parse-json.ts';
import type { ToolDefinition } from '../../../src/index.ts';
import { pythonicFormat, pythonicProtocol } from '../../../src/protocols/pythonic/index.ts';
import { callsOf, contentAtEverySplit, TOOLS } from '../helpers.ts';
import { itIsChunkInvariantOnItsMarkup } from './json-format-checks.ts';

const pythonic = pythonicProtocol();
const registerUser: ToolDefinition = {
  name: 'register_user',
  inputSchema: {
    type: 'object',
    properties: { name: { type: 'string' }, age: { type: 'integer' } },
    required: ['name'],
  },
};
const tools = [...TOOLS, registerUser];
const options = { tools };

describe('outputs of the pythonic families', () => {
  it.each([
    [
      'Llama 3.2 list',
      "[get_weather(city='San Francisco', unit='celsius'), register_user(name='Doe', age=9)]",
      2,
    ],
    ['Llama 4 tokens', "<|python_start|>[get_weather(city='LA',unit='celsius')]<|python_end|>", 1],
    ['Llama 4 without its end token', "<|python_start|>[get_weather(city='LA'), get_weather()]", 2],
    ['Llama 4 without brackets', '<|python_start|>get_weather(city="LA")<|python_end|>', 1],
    ['LFM2 list', "<|tool_call_start|>[get_weather(city='Paris')]<|tool_call_end|>Checking.", 1],
    [
      'LFM2 JSON',
      '<|tool_call_start|>[{"name": "get_weather", "arguments": {"city": "Paris"}}]<|tool_call_end|>',
      1,
    ],
    [
      'Olmo 3 lines',
      "<function_calls>\nget_weather(city='New York', unit='celsius')\nregister_user(name='A')\n</function_calls>",
      2,
    ],
    ['reasoning first', "<think>The user wants weather.</think>[get_weather(city='Oslo')]", 1],
  ])('%s', (_label, text, count) => {
    const content = contentAtEverySplit(pythonic, text, options);
    expect(content.filter((part) => (part as { type: string }).type === 'tool-call')).toHaveLength(
      count,
    );
    expect(content.filter((part) => (part as { type: string }).type === 'error')).toEqual([]);
  });

  it('types values by the schema: a string age becomes an integer', () => {
    expect(callsOf(pythonic, "[register_user(name='Doe', age='37')]", tools)).toEqual([
      { toolName: 'register_user', input: { name: 'Doe', age: 37 } },
    ]);
  });

  it('a list naming undeclared functions only is text', () => {
    const text = "[get_events(location='Singapore')]";
    expect(contentAtEverySplit(pythonic, text, options)).toEqual([{ type: 'text', text }]);
  });

  it('LFM2 JSON split between its bracket and its brace reads the same', () => {
    const text =
      '<|tool_call_start|>[ \n{"name": "get_weather", "arguments": {"city": "Paris"}}]<|tool_call_end|>';
    expect(contentAtEverySplit(pythonic, text, options)).toEqual([
      { type: 'tool-call', toolName: 'get_weather', input: '{"city":"Paris"}' },
    ]);
  });

  it('a malformed call in markup is reported with its raw text', () => {
    const content = contentAtEverySplit(pythonic, '<|python_start|>[foo(x=1])]<|python_end|>', {
      tools: [...tools, { name: 'foo', inputSchema: { type: 'object' } }],
    });
    expect(content[0]).toMatchObject({ type: 'error', error: { code: 'malformed-call' } });
  });

  it('a cut-off call is never run', () => {
    const content = contentAtEverySplit(
      pythonic,
      "<|tool_call_start|>[get_weather(city='Par",
      options,
      {
        interrupted: true,
      },
    );
    expect(content).toEqual([
      expect.objectContaining({
        type: 'error',
        error: expect.objectContaining({ code: 'incomplete-call' }),
      }),
      { type: 'text', text: "<|tool_call_start|>[get_weather(city='Par" },
    ]);
  });
});

describe('prompt and history', () => {
  it.each(['llama3.2', 'llama4', 'lfm2', 'olmo3'] as const)(
    '%s: formatToolCall reads back to the same calls',
    (promptStyle) => {
      const protocol = pythonicProtocol({ promptStyle });
      const key = fc.stringMatching(/^[a-z_][a-z0-9_]{0,8}$/);
      fc.assert(
        fc.property(
          fc.array(fc.dictionary(key, fc.jsonValue()), { minLength: 1, maxLength: 3 }),
          (inputs) => {
            const calls = inputs.map((input) => ({ toolName: 'f', input }));
            const text = protocol.formatToolCall(calls);
            const read = callsOf(protocol, text, [{ name: 'f', inputSchema: {} }]);
            expect(read.map((call) => call.input)).toEqual(parseJsonText(JSON.stringify(inputs)));
          },
        ),
        { numRuns: 100 },
      );
    },
  );

  it('teaches the format as the chat templates do', () => {
    expect(pythonicProtocol().formatTools(tools)).toContain('Respond in the format [func_name1(');
    expect(pythonicProtocol({ promptStyle: 'lfm2' }).formatTools(tools)).toContain(
      '<|tool_list_start|>',
    );
    expect(pythonicProtocol({ promptStyle: 'olmo3' }).formatTools(tools)).toContain(
      '<function_calls>',
    );
    expect(
      pythonicProtocol({ promptStyle: 'llama3.2' }).formatToolResponse({
        toolName: 'f',
        output: 'ok',
      }),
    ).toBe('{"name":"f","output":"ok"}');
  });

  it('the registry entry matches the families by model id', () => {
    for (const id of [
      'llama3.2:3b',
      'meta-llama/llama-3.2-3b-instruct',
      'llama4:scout',
      'lfm2:1.2b',
      'olmo-3-7b',
    ]) {
      expect(
        pythonicFormat.models.some((pattern) => pattern.test(id)),
        id,
      ).toBe(true);
    }
    expect(pythonicFormat.models.some((pattern) => pattern.test('llama3.1:8b'))).toBe(false);
  });
});

describe('invariants', () => {
  const fragments = [
    '[',
    ']',
    '(',
    ')',
    ',',
    '=',
    "'",
    '"',
    '"""',
    '\\',
    'get_weather',
    'city',
    'x',
    ' ',
    '\n',
    '1',
    'True',
    '{',
    '}',
    ':',
    '<|python_start|>',
    '<|python_end|>',
    '<|tool_call_start|>',
    '<|tool_call_end|>',
    '<function_calls>',
    '</function_calls>',
    '<think>',
    '</think>',
    'b',
  ];

  itIsChunkInvariantOnItsMarkup(pythonic, fragments, options.tools);
});
