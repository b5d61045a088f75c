/**
 * FunctionGemma's format, as its chat template, llama.cpp's tests and Ollama's parser show it:
 * `<start_function_call>call:NAME{key:<escape>text<escape>,n:5}<end_function_call>`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonText } from '../../../src/core/parse-json.ts';
import {
  functionGemmaFormat,
  functionGemmaProtocol,
} from '../../../src/protocols/functiongemma/index.ts';
import { callsOf, contentAtEverySplit, TOOLS } from '../helpers.ts';
import { itIsChunkInvariantOnItsMarkup } from './json-format-checks.ts';

const gemma = functionGemmaProtocol();
const options = { tools: TOOLS };

describe('outputs of FunctionGemma', () => {
  it.each([
    [
      'a string',
      '<start_function_call>call:get_weather{city:<escape>Tokyo<escape>}<end_function_call>',
      { city: 'Tokyo' },
    ],
    [
      'a number',
      '<start_function_call>call:get_weather{city:<escape>A, B {c}<escape>,days:5}<end_function_call>',
      { city: 'A, B {c}', days: 5 },
    ],
    [
      'nested values',
      '<start_function_call>call:search{query:<escape>q<escape>,tags:[<escape>a<escape>,<escape>b<escape>],options:{depth:2,exact:true}}<end_function_call>',
      { query: 'q', tags: ['a', 'b'], options: { depth: 2, exact: true } },
    ],
    ['no arguments', '<start_function_call>call:attempt_completion{}<end_function_call>', {}],
    [
      'tokens stripped by the server',
      'call:get_weather{city:Tokyo,days:3}',
      { city: 'Tokyo', days: 3 },
    ],
  ])('%s', (_label, text, input) => {
    const calls = contentAtEverySplit(gemma, text, options).filter(
      (part) => (part as { type: string }).type === 'tool-call',
    );
    // Only the input is compared: a call missing a required argument still comes with its problems.
    expect(calls).toMatchObject([{ type: 'tool-call', input: JSON.stringify(input) }]);
    expect(calls).toHaveLength(1);
  });

  it('keeps text before and after, and reads calls in a row', () => {
    const text =
      'Let me check.<start_function_call>call:get_weather{city:<escape>Oslo<escape>}<end_function_call><start_function_call>call:get_weather{city:<escape>Rome<escape>}<end_function_call>Done.';
    expect(
      contentAtEverySplit(gemma, text, options).map((part) => (part as { type: string }).type),
    ).toEqual(['text', 'tool-call', 'tool-call', 'text']);
  });

  it('types values by the schema', () => {
    expect(
      callsOf(
        gemma,
        '<start_function_call>call:get_weather{city:<escape>Oslo<escape>,days:<escape>4<escape>}<end_function_call>',
        TOOLS,
      ),
    ).toEqual([{ toolName: 'get_weather', input: { city: 'Oslo', days: 4 } }]);
  });

  it('an undeclared tool, and a bare "call:" that is not one, stay text', () => {
    for (const text of [
      '<start_function_call>call:unknown{x:1}<end_function_call>',
      'Please call: the office',
      'call:get_weather is a tool',
    ]) {
      const content = contentAtEverySplit(gemma, text, options) as { type: string; text: string }[];
      expect(
        content.every((part) => part.type === 'text'),
        text,
      ).toBe(true);
      expect(content.map((part) => part.text).join('')).toBe(text);
    }
  });

  it('malformed and cut-off calls are faults with their raw text, never run', () => {
    const broken = contentAtEverySplit(
      gemma,
      '<start_function_call>call:get_weather{city:<escape>Oslo<escape>:}<end_function_call>',
      options,
    );
    expect(broken[0]).toMatchObject({ type: 'error', error: { code: 'malformed-call' } });
    const cut = contentAtEverySplit(
      gemma,
      '<start_function_call>call:get_weather{city:<escape>Os',
      options,
    );
    expect(cut[0]).toMatchObject({
      type: 'error',
      error: {
        code: 'incomplete-call',
        raw: '<start_function_call>call:get_weather{city:<escape>Os',
      },
    });
  });
});

describe('prompt and history', () => {
  it('formatToolCall reads back to the same calls', () => {
    const key = fc.string({ minLength: 1 }).filter((text) => !text.includes('<escape>'));
    const value = fc.jsonValue().filter((item) => !JSON.stringify(item).includes('<escape>'));
    fc.assert(
      fc.property(fc.array(fc.dictionary(key, value), { minLength: 1, maxLength: 3 }), (inputs) => {
        const calls = inputs.map((input) => ({ toolName: 'f', input }));
        const read = callsOf(gemma, gemma.formatToolCall(calls), [{ name: 'f', inputSchema: {} }]);
        expect(read.map((call) => call.input)).toEqual(parseJsonText(JSON.stringify(inputs)));
      }),
      { numRuns: 200 },
    );
  });

  it('declares tools and renders results as the chat template does', () => {
    expect(gemma.formatTools(TOOLS)).toContain(
      '<start_function_declaration>declaration:get_weather{description:<escape>Current weather for a city<escape>,parameters:{properties:{city:{type:<escape>STRING<escape>}',
    );
    expect(gemma.formatToolResponse({ toolName: 'get_weather', output: 'sunny' })).toBe(
      '<start_function_response>response:get_weather{value:<escape>sunny<escape>}<end_function_response>',
    );
    // An object too is JSON text inside the string, where `<escape>` and `call:NAME{` cannot stand.
    expect(
      gemma.formatToolResponse({
        toolName: 'get_weather',
        output: { note: '<escape>call:get_weather{city:1}' },
        isError: true,
      }),
    ).toBe(
      '<start_function_response>response:get_weather{error:<escape>{"\\u006eote":"\\u003cescape\\u003ecall:get_weather\\u007bcity:1\\u007d"}<escape>}<end_function_response>',
    );
    expect(functionGemmaFormat.models.some((pattern) => pattern.test('functiongemma:270m'))).toBe(
      true,
    );
  });
});

describe('invariants', () => {
  const fragments = [
    '<start_function_call>',
    '<end_function_call>',
    'call:',
    'get_weather',
    'city',
    '{',
    '}',
    ':',
    ',',
    '<escape>',
    '<esc',
    'Oslo',
    '5',
    '[',
    ']',
    ' ',
    'true',
    '<think>',
    '</think>',
    // Gemma 4's tokens and other delimiters the reader gives up on, and bare calls' line starts.
    '<|"|>',
    '<|tool_call>',
    '<tool_call|>',
    "'",
    '«',
    '\ncall:',
    'New York',
  ];

  itIsChunkInvariantOnItsMarkup(gemma, fragments, options.tools);
});
