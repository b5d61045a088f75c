/**
 * GigaChat 3.5's GCML calls. Vectors from vLLM's `tests/tool_parsers/test_gigachat35_tool_parser.py`.
 */
import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../../src/index.ts';
import {
  gigachatGcmlFormat,
  gigachatGcmlSpec,
} from '../../../src/protocols/formats/gigachat-gcml.ts';
import { defineFormat } from '../../../src/protocols/spec/define.ts';
import {
  cityWeatherTool,
  describeFamilyChecks,
  familyReaders,
  timezoneTool,
} from './family-checks.ts';

const protocol = defineFormat(gigachatGcmlSpec);

const typed: ToolDefinition = { name: 'typed', inputSchema: { type: 'object' } };
const tools = [cityWeatherTool, timezoneTool, typed];

const invoke = (name: string, parameters: string) =>
  `<｜GCML｜invoke name="${name}">${parameters}</｜GCML｜invoke>`;
const parameter = (key: string, string: boolean, value: string) =>
  `<｜GCML｜parameter name="${key}" string="${string}">${value}</｜GCML｜parameter>`;
const block = (invokes: string) => `<｜GCML｜tool_calls>${invokes}</｜GCML｜tool_calls>`;

const MARKUP = [
  '</｜GCML｜parameter>',
  '<｜GCML｜parameter',
  '</｜GCML｜invoke>',
  '</｜GCML｜tool_calls>',
  '<｜GCML｜invoke',
];
const WRAPPERS = [...MARKUP, '<｜GCML｜tool_calls>', '<|GCML|'];
const { read } = familyReaders(protocol, WRAPPERS, tools);

describe('gigachat-gcml', () => {
  it('reads one call, and parallel calls in one block', () => {
    const weather = invoke('get_weather', parameter('city', true, 'Tokyo'));
    expect(read(block(weather)).calls).toEqual([['get_weather', { city: 'Tokyo' }]]);
    expect(
      read(
        `Checking.\n\n${block(`${weather}\n${invoke('get_time', parameter('timezone', true, 'Asia/Tokyo'))}`)}`,
      ),
    ).toEqual({
      calls: [
        ['get_weather', { city: 'Tokyo' }],
        ['get_time', { timezone: 'Asia/Tokyo' }],
      ],
      text: 'Checking.\n\n',
      reasoning: '',
      errors: [],
    });
  });

  it('reads string="false" values as JSON and string="true" values as written', () => {
    const text = block(
      invoke(
        'typed',
        parameter('string_field', false, '"hello"') +
          parameter('int', false, '7') +
          parameter('float', false, '3.5') +
          parameter('bool', false, 'true') +
          parameter('nothing', false, 'null') +
          parameter('list', false, '[1, 2, 3]') +
          parameter('object', false, '{"nested": true}') +
          parameter('raw', true, 'line 1\\n"quoted"'),
      ),
    );
    expect(read(text).calls).toEqual([
      [
        'typed',
        {
          string_field: 'hello',
          int: 7,
          float: 3.5,
          bool: true,
          nothing: null,
          list: [1, 2, 3],
          object: { nested: true },
          raw: 'line 1\\n"quoted"',
        },
      ],
    ]);
  });

  it('reads the template layout, with reasoning before', () => {
    const text =
      '<think>Weather first.</think>\n\n<｜GCML｜tool_calls>\n<｜GCML｜invoke name="get_weather">\n<｜GCML｜parameter name="city" string="true">Tokyo</｜GCML｜parameter>\n</｜GCML｜invoke>\n</｜GCML｜tool_calls>';
    expect(read(text)).toEqual({
      calls: [['get_weather', { city: 'Tokyo' }]],
      text: '\n\n',
      reasoning: 'Weather first.',
      errors: [],
    });
  });

  it('runs no call from a block cut off or empty, and reports the cut-off one with its raw text', () => {
    const cut = '<｜GCML｜tool_calls><｜GCML｜invoke name="get_weather">';
    expect(read(cut, true)).toMatchObject({
      calls: [],
      errors: [{ code: 'incomplete-call', raw: cut }],
    });
    expect(read('<｜GCML｜tool_calls></｜GCML｜tool_calls>')).toMatchObject({
      calls: [],
      errors: [],
    });
    const broken = '<｜GCML｜tool_calls><｜GCML｜invoke name="get_weather\n</｜GCML｜tool_calls>';
    expect(read(broken).errors.map((error) => error.code)).toEqual(['malformed-call']);
  });

  it('reads the ASCII bar, and leaves an undeclared tool as text', () => {
    expect(
      read(
        '<|GCML|tool_calls><|GCML|invoke name="get_weather"><|GCML|parameter name="city" string="true">Oslo</|GCML|parameter></|GCML|invoke></|GCML|tool_calls>',
      ).calls,
    ).toEqual([['get_weather', { city: 'Oslo' }]]);
    const undeclared = block(invoke('shell', parameter('c', true, 'ls')));
    expect(read(undeclared)).toMatchObject({ calls: [], text: undeclared });
  });

  it('writes results as function_response elements', () => {
    expect(
      protocol.formatToolResponse([
        { toolName: 'get_weather', output: 'sunny' },
        { toolName: 'get_time', output: '12:00' },
      ]),
    ).toBe(
      '<function_response name="get_weather">sunny</function_response>\n<function_response name="get_time">12:00</function_response>',
    );
    expect(gigachatGcmlSpec.models).toContain('gigachat3.5');
  });
});

describeFamilyChecks({
  entry: gigachatGcmlFormat,
  protocol,
  modelIds: { chosen: ['ai-sage/gigachat3.5-10b'], notChosen: ['ai-sage/gigachat3-10b-a1.8b'] },
  markup: MARKUP,
  wrappers: WRAPPERS,
  rawValueLimits: MARKUP,
});
