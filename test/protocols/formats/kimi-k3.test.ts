/**
 * Kimi K3's XTML calls. Vectors from SGLang's `test/registered/function_call/test_kimik3_detector.py`
 * and the chat template (llama.cpp `models/templates/Kimi-K3.jinja`).
 */
import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../../src/index.ts';
import { kimiK3Format, kimiK3Spec } from '../../../src/protocols/formats/kimi-k3.ts';
import { defineFormat } from '../../../src/protocols/spec/define.ts';
import { weatherTool } from '../helpers.ts';
import { readAtEverySplit, taggedSpecChecks } from './tagged-spec-checks.ts';

const protocol = defineFormat(kimiK3Spec);
/** With thinking off the prompt opens the response element: the output starts with content. */
const noThinking = { startInReasoning: false } as const;

const python: ToolDefinition = {
  name: 'python',
  inputSchema: {
    type: 'object',
    properties: { code: { type: 'string' }, opts: { type: 'object' } },
  },
};
/** No schema for the values: the type attribute decides. */
const loose: ToolDefinition = { name: 'loose', inputSchema: { type: 'object' } };
const ampersand: ToolDefinition = { name: 'a&b', inputSchema: { type: 'object' } };
const tools = [python, loose, ampersand, weatherTool];

const call = (name: string, args: string, index = 1) =>
  `<|open|>call tool="${name}" index="${index}"<|sep|>${args}<|close|>call<|sep|>`;
const argument = (key: string, type: string, value: string) =>
  `<|open|>argument key="${key}" type="${type}"<|sep|>${value}<|close|>argument<|sep|>`;
const section = (calls: string) => `<|open|>tools<|sep|>${calls}<|close|>tools<|sep|>`;

describe('kimi-k3', () => {
  it('reads the detector test: content in its response element, a string and an object', () => {
    const text =
      '<|open|>response<|sep|>Let me run it.<|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool="python" index="1"<|sep|><|open|>argument key="code" type="string"<|sep|>print(1)<|close|>argument<|sep|><|open|>argument key="opts" type="object"<|sep|>{"a": 1}<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>';
    expect(readAtEverySplit(protocol, text, { tools, ...noThinking })).toEqual({
      calls: [['python', { code: 'print(1)', opts: { a: 1 } }]],
      text: 'Let me run it.',
      reasoning: '',
      errors: [],
    });
  });

  it('starts inside the think element the generation prompt opened', () => {
    const text = `Need to run code.<|close|>think<|sep|><|open|>response<|sep|>Running.<|close|>response<|sep|>${section(call('python', argument('code', 'string', 'x = 1')))}<|close|>message<|sep|><|end_of_msg|>`;
    expect(readAtEverySplit(protocol, text, { tools })).toEqual({
      calls: [['python', { code: 'x = 1' }]],
      text: 'Running.',
      reasoning: 'Need to run code.',
      errors: [],
    });
  });

  it('decodes attribute values, and keeps string values as written', () => {
    const text = section(
      call('a&amp;b', argument('say', 'string', 'say &quot;hi&quot; <b>&amp;</b>')),
    );
    expect(readAtEverySplit(protocol, text, { tools, ...noThinking }).calls).toEqual([
      ['a&b', { say: 'say &quot;hi&quot; <b>&amp;</b>' }],
    ]);
  });

  it('reads typed values as JSON, and JSON that does not read as the text', () => {
    const text = section(
      call(
        'loose',
        argument('n', 'number', '42') +
          argument('b', 'boolean', 'true') +
          argument('z', 'null', 'null') +
          argument('l', 'array', '[1, "x"]') +
          argument('bad', 'object', '{not json') +
          argument('s', 'string', '42'),
      ),
    );
    expect(readAtEverySplit(protocol, text, { tools, ...noThinking }).calls).toEqual([
      ['loose', { n: 42, b: true, z: null, l: [1, 'x'], bad: '{not json', s: '42' }],
    ]);
  });

  it('reads the arguments written as one JSON element, and reports one that is not an object', () => {
    const json = (body: string) =>
      section(call('python', `<|open|>json type="object"<|sep|>${body}<|close|>json<|sep|>`));
    expect(
      readAtEverySplit(protocol, json('{"code": "print(2)", "opts": {"b": [1]}}'), {
        tools,
        ...noThinking,
      }).calls,
    ).toEqual([['python', { code: 'print(2)', opts: { b: [1] } }]]);
    const notObject = json('[1, 2]');
    expect(readAtEverySplit(protocol, notObject, { tools, ...noThinking })).toMatchObject({
      calls: [],
      errors: [{ code: 'malformed-call' }],
    });
  });

  it('reads several calls, and the complete calls of a section the output left open', () => {
    const two =
      call('python', argument('code', 'string', 'a')) +
      call('get_weather', argument('city', 'string', 'Oslo') + argument('days', 'number', '3'), 2);
    expect(
      readAtEverySplit(protocol, `<|open|>tools<|sep|>${two}`, { tools, ...noThinking }),
    ).toEqual({
      calls: [
        ['python', { code: 'a' }],
        ['get_weather', { city: 'Oslo', days: 3 }],
      ],
      text: '',
      reasoning: '',
      errors: [],
    });
  });

  it('reports a call cut off by the end of the output with its raw text, and runs nothing', () => {
    const text = '<|open|>tools<|sep|><|open|>call tool="python" index="1"<|sep|>';
    const read = readAtEverySplit(protocol, text, { tools, ...noThinking }, { interrupted: true });
    expect(read.calls).toEqual([]);
    expect(read.errors).toEqual([{ code: 'incomplete-call', raw: text }]);
    // Cut inside a value, the call is never complete, interrupted or not.
    const inValue = `${text}<|open|>argument key="code" type="string"<|sep|>pri`;
    expect(readAtEverySplit(protocol, inValue, { tools, ...noThinking })).toMatchObject({
      calls: [],
      errors: [{ code: 'incomplete-call', raw: inValue }],
    });
  });

  it('reports a broken call header with its raw text', () => {
    const text = '<|open|>tools<|sep|><|open|>call tool="python index="1"\n<|close|>tools<|sep|>';
    const read = readAtEverySplit(protocol, text, { tools, ...noThinking });
    expect(read.calls).toEqual([]);
    expect(read.errors.map((error) => error.code)).toEqual(['malformed-call']);
    expect(read.errors[0]!.raw).toContain('<|open|>call tool="python index="1"');
  });

  it('leaves a call of an undeclared tool as text, and the wrapper tokens out of the text', () => {
    const undeclared = section(call('shell', argument('c', 'string', 'ls')));
    expect(readAtEverySplit(protocol, undeclared, { tools, ...noThinking }).text).toBe(undeclared);
    const text = `<|open|>response<|sep|>Hi.<|close|>response<|sep|>${section(call('python', argument('code', 'string', '1')))}<|close|>message<|sep|><|end_of_msg|>`;
    expect(readAtEverySplit(protocol, text, { tools, ...noThinking }).text).toBe('Hi.');
  });

  it('writes calls, results and the tools section as the template renders them', () => {
    expect(
      protocol.formatToolCall({ toolName: 'python', input: { code: 'print(1)', opts: { a: 1 } } }),
    ).toBe(
      '<|open|>tools<|sep|><|open|>call tool="python" index="0"<|sep|><|open|>argument key="code" type="string"<|sep|>print(1)<|close|>argument<|sep|><|open|>argument key="opts" type="object"<|sep|>{"a":1}<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>',
    );
    expect(protocol.formatToolResponse({ toolName: 'python', output: '1' })).toBe(
      '<|open|>message role="tool" tool="python" index="0"<|sep|>1<|close|>message<|sep|><|end_of_msg|>',
    );
    expect(protocol.formatTools([weatherTool])).toContain(
      'Here are the available tools, described in JSONSchema.',
    );
    expect(kimiK3Spec.models).toContain('kimi-k3');
  });

  it('is registered for its model ids, and names the tools its calls use', () => {
    for (const id of ['moonshotai/kimi-k3-instruct']) {
      expect(
        kimiK3Format.models.some((pattern) => pattern.test(id)),
        id,
      ).toBe(true);
    }
    for (const id of ['moonshotai/kimi-k2-instruct']) {
      expect(
        kimiK3Format.models.some((pattern) => pattern.test(id)),
        id,
      ).toBe(false);
    }
    const written = kimiK3Format.create().formatToolCall([
      { toolName: 'get_weather', input: { city: 'Oslo' } },
      { toolName: 'write_file', input: { path: 'a', content: 'b' } },
    ]);
    expect(kimiK3Format.toolNamesIn!(written)).toEqual(['get_weather', 'write_file']);
  });
  describe('guarantees (thinking off)', () => {
    taggedSpecChecks(defineFormat({ ...kimiK3Spec, startInReasoning: false }), [
      '<|close|>argument<|sep|>',
      '<|open|>argument',
      '<|close|>call<|sep|>',
      '<|close|>tools<|sep|>',
      '<|open|>call',
      '<|sep|>',
      '<|open|>json type="object"<|sep|>',
      '<|close|>json<|sep|>',
    ]);
  });
});
