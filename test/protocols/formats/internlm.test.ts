/**
 * InternLM2 / Intern-S1. Vectors from vLLM's tests/tool_parsers/test_intern_s1_tool_parser.py
 * (spaced special tokens, `parameters`, two calls then text, malformed JSON), SGLang's
 * internlm_detector.py docstring, and the chat template's own rendering
 * (shared/conformance/chat-template-cases.json, internlm2.vllm).
 */
import { describe, expect, it } from 'vitest';
import { internlmFormat, internlmSpec } from '../../../src/protocols/formats/internlm.ts';
import { defineFormat } from '../../../src/protocols/spec/define.ts';
import {
  describeFamilyChecks,
  familyReaders,
  itBreaksABareCallOnlyWhereItOpensAResult,
  VLLM_ESCAPED_ARGUMENTS,
  VLLM_TYPED_ARGUMENTS,
} from './family-checks.ts';
import { callsIn, errorsIn, textIn } from './json-format-checks.ts';

const internlm = defineFormat(internlmSpec);
const WRAPPERS = ['<|action_start|>', '<|plugin|>', '<|action_end|>'];
const { parts: readParts } = familyReaders(internlm, WRAPPERS);

describe('internlm', () => {
  it('reads the spaced tokens and "parameters" the models write (vLLM intern-s1 tests)', () => {
    const parts = readParts(
      '<|action_start|> <|plugin|>\n{"name": "get_weather", "parameters": {"city": "Tokyo"}}\n<|action_end|>',
    );
    expect(callsIn(parts)).toEqual([{ name: 'get_weather', input: { city: 'Tokyo' } }]);
    expect(textIn(parts)).toBe('');
  });

  it('reads two calls and keeps the text after them, without the markup', () => {
    const parts = readParts(
      '<|action_start|><|plugin|>{"name": "get_weather", "parameters": {"city": "Tokyo"}}<|action_end|>\n<|action_start|><|plugin|>{"name": "search", "parameters": {"query": "Asia/Tokyo"}}<|action_end|>\nVisible answer.',
    );
    expect(callsIn(parts)).toEqual([
      { name: 'get_weather', input: { city: 'Tokyo' } },
      { name: 'search', input: { query: 'Asia/Tokyo' } },
    ]);
    expect(textIn(parts).trim()).toBe('Visible answer.');
  });

  it("reads the template's own rendering, text before the call kept (chat-template cases)", () => {
    const parts = readParts(
      'Let me check.<|action_start|><|plugin|>\n{"name": "get_weather", "arguments": {"city": "Oslo", "days": 3}}<|action_end|><|action_start|><|plugin|>\n{"name": "write_file", "arguments": {"path": "a.txt", "content": "<p class=\\"x\\">A & B</p>\\nÆØÅ"}}<|action_end|>',
    );
    expect(callsIn(parts)).toEqual([
      { name: 'get_weather', input: { city: 'Oslo', days: 3 } },
      { name: 'write_file', input: { path: 'a.txt', content: '<p class="x">A & B</p>\nÆØÅ' } },
    ]);
    expect(textIn(parts)).toBe('Let me check.');
  });

  it("reads SGLang's docstring example", () => {
    const parts = readParts(
      'What\'s the weather like?<|action_start|> <|plugin|>\n{"name": "get_weather", "parameters": {"city": "Tokyo"}}<|action_end|>',
    );
    expect(callsIn(parts)).toEqual([{ name: 'get_weather', input: { city: 'Tokyo' } }]);
    expect(textIn(parts)).toBe("What's the weather like?");
  });

  it('never runs malformed or cut-off JSON with arguments it did not write', () => {
    // vLLM: no call. Here the call's arguments are incomplete, so it is never a valid call.
    const malformed = readParts(
      '<|action_start|><|plugin|>{"name": "get_weather", "parameters": {<|action_end|>',
    );
    expect(
      malformed.filter((part) => part.type === 'tool-call' && part.problems === undefined),
    ).toEqual([]);
    const cut = readParts(
      '<|action_start|><|plugin|>{"name": "get_weather", "parameters": {"city": "Tok',
    );
    expect(callsIn(cut)).toEqual([]);
    expect(errorsIn(cut)[0]).toMatchObject({ code: 'incomplete-call' });
    expect(errorsIn(cut)[0]?.raw).toContain('{"name": "get_weather", "parameters": {"city": "Tok');
    const broken = readParts(
      '<|action_start|><|plugin|>{"name": "get_weather", "parameters": {"city": "Oslo" "days" 3}}<|action_end|>',
    );
    expect(callsIn(broken)).toEqual([]);
    expect(errorsIn(broken)[0]?.code).toBe('malformed-call');
  });

  // vLLM's tests/tool_parsers/test_internlm2_tool_parser.py (the common parser-test config).
  it("reads InternLM2's parser-test outputs: data types, escapes, empty arguments", () => {
    const tools = [
      { name: 'test_function', inputSchema: { type: 'object' } },
      { name: 'refresh', inputSchema: { type: 'object' } },
      { name: 'func', inputSchema: { type: 'object' } },
    ];
    expect(
      callsIn(
        readParts(
          '<|action_start|><|plugin|>{\n  "name": "test_function",\n  "parameters": {\n    "string_field": "hello",\n    "int_field": 42,\n    "float_field": 3.14,\n    "bool_field": true,\n    "null_field": null,\n    "array_field": ["a", "b", "c"],\n    "object_field": {"nested": "value"},\n    "empty_array": [],\n    "empty_object": {}\n  }\n}<|action_end|>',
          { tools },
        ),
      ),
    ).toEqual([
      {
        name: 'test_function',
        input: { string_field: 'hello', ...VLLM_TYPED_ARGUMENTS },
      },
    ]);
    expect(
      callsIn(
        readParts(
          '<|action_start|><|plugin|>{\n  "name": "test_function",\n  "parameters": {\n    "quoted": "He said \\"hello\\"",\n    "path": "C:\\\\Users\\\\file.txt",\n    "newline": "line1\\nline2",\n    "unicode": "emoji: 🎉"\n  }\n}<|action_end|>',
          { tools },
        ),
      ),
    ).toEqual([
      {
        name: 'test_function',
        input: VLLM_ESCAPED_ARGUMENTS,
      },
    ]);
    expect(
      callsIn(
        readParts('<|action_start|><|plugin|>{"name": "refresh", "parameters": {}}<|action_end|>', {
          tools,
        }),
      ),
    ).toEqual([{ name: 'refresh', input: {} }]);
    // Its malformed inputs: none is a valid call, none throws.
    for (const text of [
      '<|action_start|><|plugin|>{"name": "func", "parameters": {',
      '<|action_start|><|plugin|>{"name": "func", "parameters": "not a dict"}<|action_end|>',
      '<|action_start|><|plugin|>not json<|action_end|>',
      '<|action_start|><|plugin|>',
      '<|action_start|>{"name": "func"}',
    ]) {
      const parts = readParts(text, { tools });
      expect(
        parts.filter((part) => part.type === 'tool-call' && part.problems === undefined),
        text,
      ).toEqual([]);
    }
    // A tool the request did not offer is not called (vLLM's whitelist regression test).
    expect(
      callsIn(
        readParts(
          '<|action_start|><|plugin|>{"name": "delete_everything", "parameters": {"city": "Tokyo"}}<|action_end|>',
        ),
      ),
    ).toEqual([]);
  });

  it('leaves the code interpreter, calls in reasoning and undeclared tools as text', () => {
    const interpreter = '<|action_start|><|interpreter|>\nprint(1)\n<|action_end|>';
    expect(callsIn(readParts(interpreter))).toEqual([]);
    const thought = readParts(
      '<think>maybe <|action_start|><|plugin|>{"name": "get_weather", "parameters": {"city": "Oslo"}}<|action_end|></think>ok',
    );
    expect(callsIn(thought)).toEqual([]);
    const undeclared = readParts(
      '<|action_start|><|plugin|>{"name": "launch", "parameters": {}}<|action_end|>',
    );
    expect(callsIn(undeclared)).toEqual([]);
    expect(textIn(undeclared)).toContain('"launch"');
  });

  it('writes calls and the tools as the template does', () => {
    expect(internlm.formatToolCall({ toolName: 'get_weather', input: { city: 'Oslo' } })).toBe(
      '<|action_start|><|plugin|>\n{"name": "get_weather", "arguments": {"city":"Oslo"}}<|action_end|>',
    );
    const prompt = internlm.formatTools([{ name: 'get_weather', inputSchema: { type: 'object' } }]);
    expect(prompt).toContain('<|action_start|><|plugin|>');
    // The function objects as a JSON list, as the template's `system name=<|plugin|>` turn has them.
    expect(prompt).toContain('[{"name":"get_weather"');
  });
});

itBreaksABareCallOnlyWhereItOpensAResult(internlm);

describeFamilyChecks({
  entry: internlmFormat,
  protocol: internlm,
  modelIds: {
    chosen: [
      'internlm/internlm2_5-7b-chat',
      'internlm/internlm3-8b-instruct',
      'internlm/intern-s1-mini',
    ],
    notChosen: ['internvl3'],
  },
  markup: [
    '<|action_start|>',
    '<|plugin|>',
    ' <|plugin|>',
    '<|action_end|>',
    '<|interpreter|>',
    '"parameters"',
  ],
  wrappers: WRAPPERS,
  outputs: ['<|action_start|><|plugin|>\n{}{"a": 1}'],
  linear: {
    call: (index) =>
      `<|action_start|><|plugin|>\n{"name": "get_weather", "arguments": {"city": "c${index}"}}<|action_end|>`,
    bigCall: (argument) =>
      `<|action_start|><|plugin|>\n{"name": "write_file", "arguments": {"path": "p", "content": "${argument}"}}<|action_end|>`,
  },
});
