/**
 * LongCat's calls. JSON vectors from vLLM's `tests/tool_parsers/test_longcat_tool_parser.py`;
 * the tagged dialect from a multi-family parser test and reported real outputs.
 */
import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../../src/index.ts';
import { longcatFormat, longcatSpec } from '../../../src/protocols/formats/longcat.ts';
import { defineFormat } from '../../../src/protocols/spec/define.ts';
import { writeFileTool } from '../helpers.ts';
import {
  describeFamilyChecks,
  familyReaders,
  timezoneTool,
  VLLM_ESCAPED_ARGUMENTS,
  VLLM_TYPED_ARGUMENTS,
} from './family-checks.ts';

const protocol = defineFormat(longcatSpec);

const getWeather: ToolDefinition = {
  name: 'get_weather',
  inputSchema: {
    type: 'object',
    properties: { city: { type: 'string' }, days: { type: 'integer' } },
  },
};
const open: ToolDefinition = { name: 'func', inputSchema: { type: 'object' } };
const tools = [getWeather, timezoneTool, open, writeFileTool];

const WRAPPERS = [
  '<longcat_tool_call>',
  '</longcat_tool_call>',
  '<longcat_arg_key>',
  '</longcat_arg_key>',
  '<longcat_arg_value>',
  '</longcat_arg_value>',
];
const { read } = familyReaders(protocol, WRAPPERS, tools);

const WEATHER =
  '<longcat_tool_call>{"name": "get_weather", "arguments": {"city": "Tokyo"}}</longcat_tool_call>';

describe('longcat', () => {
  it('reads JSON calls, alone, in parallel and between text', () => {
    expect(read(WEATHER).calls).toEqual([['get_weather', { city: 'Tokyo' }]]);
    expect(
      read(
        `${WEATHER}\n<longcat_tool_call>{"name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}}</longcat_tool_call>`,
      ).calls,
    ).toEqual([
      ['get_weather', { city: 'Tokyo' }],
      ['get_time', { timezone: 'Asia/Tokyo' }],
    ]);
    expect(
      read(`Let me check the weather for you.\n${WEATHER}\nHere is the result.`),
    ).toMatchObject({
      calls: [['get_weather', { city: 'Tokyo' }]],
      text: 'Let me check the weather for you.\n\nHere is the result.',
    });
  });

  it('reads the template layout and pretty-printed JSON with every type and escapes', () => {
    const text =
      '<longcat_tool_call>\n{\n  "name": "func",\n  "arguments": {\n    "int_field": 42,\n    "float_field": 3.14,\n    "bool_field": true,\n    "null_field": null,\n    "array_field": ["a", "b", "c"],\n    "object_field": {"nested": "value"},\n    "empty_array": [],\n    "empty_object": {},\n    "quoted": "He said \\"hello\\"",\n    "path": "C:\\\\Users\\\\file.txt",\n    "newline": "line1\\nline2",\n    "unicode": "emoji: 🎉"\n  }\n}\n</longcat_tool_call>';
    expect(read(text).calls).toEqual([
      ['func', { ...VLLM_TYPED_ARGUMENTS, ...VLLM_ESCAPED_ARGUMENTS }],
    ]);
  });

  it('reads the tagged dialect, typing values by the schema', () => {
    expect(
      read(
        'Sure.<longcat_tool_call>get_weather<longcat_arg_key>city</longcat_arg_key><longcat_arg_value>Paris</longcat_arg_value><longcat_arg_key>days</longcat_arg_key><longcat_arg_value>3</longcat_arg_value></longcat_tool_call>',
      ),
    ).toEqual({
      calls: [['get_weather', { city: 'Paris', days: 3 }]],
      text: 'Sure.',
      reasoning: '',
      errors: [],
    });
    expect(
      read(
        '<longcat_tool_call>write_file\n<longcat_arg_key>path</longcat_arg_key>\n<longcat_arg_value>a.py</longcat_arg_value>\n<longcat_arg_key>content</longcat_arg_key>\n<longcat_arg_value>def f():\n    return 1\n</longcat_arg_value>\n</longcat_tool_call>',
      ).calls,
    ).toEqual([['write_file', { path: 'a.py', content: 'def f():\n    return 1\n' }]]);
  });

  it('runs nothing from malformed or cut-off markup, and reports it with its raw text', () => {
    const cut = '<longcat_tool_call>{"name": "func", "arguments": {';
    const cutRead = read(cut, true);
    expect(cutRead.calls).toEqual([]);
    expect(cutRead.errors.map((error) => error.raw)).toEqual([cut]);
    // Not JSON and no declared tool's name: text, as vLLM leaves it.
    const prose = 'Some text with <longcat_tool_call>invalid json';
    expect(read(prose)).toMatchObject({ calls: [], text: prose });
    const notObject =
      '<longcat_tool_call>{"name": "func", "arguments": "not a dict"}</longcat_tool_call>';
    // Arguments that are not an object: the call is reported with the schema's problem.
    const [call] = protocol
      .parseGeneratedText(notObject, { tools })
      .filter((part) => part.type === 'tool-call');
    expect(call?.problems?.map((problem) => problem.keyword)).toEqual(['type']);
  });

  it('writes calls and results', () => {
    expect(protocol.formatToolCall({ toolName: 'get_weather', input: { city: 'Oslo' } })).toBe(
      '<longcat_tool_call>\n{"name": "get_weather", "arguments": {"city":"Oslo"}}\n</longcat_tool_call>',
    );
    expect(protocol.formatToolResponse({ toolName: 'get_weather', output: 'sunny' })).toBe(
      '<longcat_tool_response>\nsunny\n</longcat_tool_response>',
    );
    expect(longcatSpec.models).toContain('longcat');
  });
});

describeFamilyChecks({
  entry: longcatFormat,
  protocol,
  variant: 'JSON, as written',
  modelIds: { chosen: ['meituan-longcat/longcat-flash-chat'], notChosen: ['qwen/qwen3-8b'] },
  markup: ['</longcat_tool_call>'],
  wrappers: WRAPPERS,
  outputs: ['<longcat_tool_call>{"city": "Oslo"}{"a": 1}'],
  rawValueLimits: ['</longcat_tool_call>'],
});

const TAGGED_MARKUP = [
  '</longcat_arg_value>',
  '<longcat_arg_key>',
  '</longcat_tool_call>',
  '<longcat_tool_call>',
];
describeFamilyChecks({
  entry: longcatFormat,
  protocol: defineFormat({
    ...longcatSpec,
    write: {
      form: 3,
      call: '<longcat_tool_call>{name}\n{arguments}</longcat_tool_call>',
      parameter:
        '<longcat_arg_key>{key}</longcat_arg_key>\n<longcat_arg_value>{value}</longcat_arg_value>\n',
    },
  }),
  variant: 'the tagged dialect',
  modelIds: { chosen: ['meituan-longcat/longcat-flash-chat'], notChosen: ['qwen/qwen3-8b'] },
  markup: TAGGED_MARKUP,
  wrappers: WRAPPERS,
  outputs: ['<longcat_tool_call>{"city": "Oslo"}{"city": "Oslo"}'],
  rawValueLimits: TAGGED_MARKUP,
});
