/**
 * Solar Open 2's sentinel calls. Vectors from vLLM's
 * `tests/tool_parsers/test_solar_open2_tool_parser.py`.
 */
import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../../src/index.ts';
import { solarOpenFormat, solarOpenSpec } from '../../../src/protocols/formats/solar-open.ts';
import { defineFormat } from '../../../src/protocols/spec/define.ts';
import { cityWeatherTool, describeFamilyChecks, familyReaders } from './family-checks.ts';

const protocol = defineFormat(solarOpenSpec);

const search: ToolDefinition = {
  name: 'search',
  inputSchema: {
    type: 'object',
    properties: { query: { type: 'string' }, max_results: { type: 'integer' } },
  },
};
const searchText: ToolDefinition = {
  name: 'search_text',
  inputSchema: {
    type: 'object',
    properties: { query: { type: 'string' }, max_results: { type: 'string' } },
  },
};
const getTime: ToolDefinition = { name: 'get_time', inputSchema: { type: 'object' } };
const broken: ToolDefinition = {
  name: 'broken',
  inputSchema: { type: 'object', properties: { a: { type: 'string' } } },
};
const tools = [cityWeatherTool, search, searchText, getTime, broken];

const MARKUP = [
  '<|tool_arg:end|>',
  '<|tool_arg:start|>',
  '<|tool_arg:value|>',
  '<|tool_call:end|>',
  '<|tool_call:start|>',
];
const WRAPPERS = [...MARKUP, '<|think:start|>', '<|think:end|>'];
const { read } = familyReaders(protocol, WRAPPERS, tools);

const SEOUL =
  '<|tool_call:start|>get_weather\n<|tool_arg:start|>city<|tool_arg:value|>Seoul<|tool_arg:end|>\n<|tool_call:end|>';
const TOKYO = SEOUL.replace('Seoul', 'Tokyo');

describe('solar-open', () => {
  it('reads a call, with content before it, and two calls', () => {
    expect(read(SEOUL).calls).toEqual([['get_weather', { city: 'Seoul' }]]);
    expect(read(`Let me check the weather.${SEOUL}`)).toEqual({
      calls: [['get_weather', { city: 'Seoul' }]],
      text: 'Let me check the weather.',
      reasoning: '',
      errors: [],
    });
    expect(read(`I'll check both.${SEOUL}\n${TOKYO}`)).toMatchObject({
      calls: [
        ['get_weather', { city: 'Seoul' }],
        ['get_weather', { city: 'Tokyo' }],
      ],
      text: "I'll check both.\n",
    });
  });

  it('types values by the schema, and reads a call with no arguments', () => {
    const call = (name: string) =>
      `<|tool_call:start|>${name}\n<|tool_arg:start|>query<|tool_arg:value|>vLLM tutorial<|tool_arg:end|>\n<|tool_arg:start|>max_results<|tool_arg:value|>5<|tool_arg:end|>\n<|tool_call:end|>`;
    expect(read(call('search')).calls).toEqual([
      ['search', { query: 'vLLM tutorial', max_results: 5 }],
    ]);
    expect(read(call('search_text')).calls).toEqual([
      ['search_text', { query: 'vLLM tutorial', max_results: '5' }],
    ]);
    expect(read('<|tool_call:start|>get_time\n<|tool_call:end|>').calls).toEqual([
      ['get_time', {}],
    ]);
  });

  it('reads reasoning between its sentinels', () => {
    expect(
      read(`<|think:start|>I should use a tool<|think:end|>Sure, let me help.${SEOUL}`),
    ).toEqual({
      calls: [['get_weather', { city: 'Seoul' }]],
      text: 'Sure, let me help.',
      reasoning: 'I should use a tool',
      errors: [],
    });
  });

  it('recovers dropped closers at the next sentinel', () => {
    expect(
      read(
        `<|tool_call:start|>broken\n<|tool_arg:start|>a<|tool_arg:value|>oops<|tool_call:end|>${SEOUL}`,
      ).calls,
    ).toEqual([
      ['broken', { a: 'oops' }],
      ['get_weather', { city: 'Seoul' }],
    ]);
    expect(
      read(
        `<|tool_call:start|>broken\n<|tool_arg:start|>a<|tool_arg:value|>x<|tool_arg:end|>\n${SEOUL}`,
      ).calls,
    ).toEqual([
      ['broken', { a: 'x' }],
      ['get_weather', { city: 'Seoul' }],
    ]);
  });

  it('runs nothing from a call cut off in a value, and reports it with its raw text', () => {
    const cut = '<|tool_call:start|>search\n<|tool_arg:start|>query<|tool_arg:value|>Seo';
    // As vLLM leaves it: all text (and, here, reported).
    expect(read(`Let me check.${cut}`)).toEqual({
      calls: [],
      text: `Let me check.${cut}`,
      reasoning: '',
      errors: [{ code: 'incomplete-call', raw: cut }],
    });
    const undeclared =
      '<|tool_call:start|>shell\n<|tool_arg:start|>c<|tool_arg:value|>ls<|tool_arg:end|>\n<|tool_call:end|>';
    expect(read(undeclared)).toMatchObject({ calls: [], text: undeclared });
  });

  it('writes calls and results', () => {
    expect(protocol.formatToolCall({ toolName: 'get_weather', input: { city: 'Seoul' } })).toBe(
      SEOUL,
    );
    expect(protocol.formatToolResponse({ toolName: 'get_weather', output: 'sunny' })).toBe(
      '<|tool_response:start|>sunny<|tool_response:end|>',
    );
    expect(solarOpenSpec.models).toContain('solar-open2');
  });
});

describeFamilyChecks({
  entry: solarOpenFormat,
  protocol,
  modelIds: { chosen: ['upstage/solar-open2-100b'], notChosen: ['upstage/solar-pro-2'] },
  markup: MARKUP,
  wrappers: WRAPPERS,
  rawValueLimits: MARKUP,
});
