/**
 * Step-3's steptml calls. Vectors from vLLM's `tests/tool_parsers/test_step3_tool_parser.py`.
 */
import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../../src/index.ts';
import { step3Format, step3Spec } from '../../../src/protocols/formats/step3.ts';
import { defineFormat } from '../../../src/protocols/spec/define.ts';
import {
  cityWeatherTool,
  describeFamilyChecks,
  familyReaders,
  timezoneTool,
} from './family-checks.ts';

const protocol = defineFormat(step3Spec);

const refresh: ToolDefinition = { name: 'refresh', inputSchema: { type: 'object' } };
const editFile: ToolDefinition = {
  name: 'edit_file',
  inputSchema: {
    type: 'object',
    properties: {
      old_string: { type: 'string' },
      indent: { type: 'integer' },
      enabled: { type: 'boolean' },
    },
  },
};
const tools = [cityWeatherTool, timezoneTool, refresh, editFile];

const MARKUP = [
  '</steptml:parameter>',
  '<steptml:parameter',
  '</steptml:invoke>',
  '<｜tool_calls_end｜>',
  '<steptml:invoke',
  '<｜tool_call_begin｜>',
  '<｜tool_call_end｜>',
  'function<｜tool_sep｜>',
  'edit_file\n',
];
const WRAPPERS = [
  '<｜tool_calls_begin｜>',
  '<｜tool_calls_end｜>',
  '<｜tool_call_begin｜>',
  '<｜tool_call_end｜>',
  '<｜tool_sep｜>',
  '<steptml:invoke',
  '</steptml:invoke>',
  '<steptml:parameter',
  '</steptml:parameter>',
];
const { read } = familyReaders(protocol, WRAPPERS, tools);

const WEATHER =
  '<｜tool_call_begin｜><steptml:invoke name="get_weather"><steptml:parameter name="city">Tokyo</steptml:parameter></steptml:invoke><｜tool_call_end｜>';

describe('step3', () => {
  it('reads one call, parallel calls, and text around them', () => {
    expect(read(`<｜tool_calls_begin｜>${WEATHER}<｜tool_calls_end｜>`).calls).toEqual([
      ['get_weather', { city: 'Tokyo' }],
    ]);
    expect(
      read(
        `<｜tool_calls_begin｜>${WEATHER}<｜tool_sep｜><｜tool_call_begin｜><steptml:invoke name="get_time"><steptml:parameter name="timezone">Asia/Tokyo</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>`,
      ).calls,
    ).toEqual([
      ['get_weather', { city: 'Tokyo' }],
      ['get_time', { timezone: 'Asia/Tokyo' }],
    ]);
    expect(
      read(
        `Let me check the weather for you.\n\n<｜tool_calls_begin｜>${WEATHER}<｜tool_calls_end｜>\n\nI'll get that information.`,
      ),
    ).toEqual({
      calls: [['get_weather', { city: 'Tokyo' }]],
      text: "Let me check the weather for you.\n\n\n\nI'll get that information.",
      reasoning: '',
      errors: [],
    });
  });

  it('reads a call with no parameters', () => {
    expect(
      read(
        '<｜tool_calls_begin｜><｜tool_call_begin｜><steptml:invoke name="refresh"></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>',
      ).calls,
    ).toEqual([['refresh', {}]]);
  });

  it('reads the call type, a name repeated before the invoke, and typed values with white space', () => {
    expect(
      read(
        '<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜>edit_file\n<steptml:invoke name="edit_file"><steptml:parameter name="old_string">    if x:\n        return 1\n</steptml:parameter><steptml:parameter name="indent"> 4 </steptml:parameter><steptml:parameter name="enabled"> true </steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>',
      ).calls,
    ).toEqual([
      ['edit_file', { old_string: '    if x:\n        return 1\n', indent: 4, enabled: true }],
    ]);
  });

  it('runs nothing from a cut-off invoke and reports it with its raw text', () => {
    const cut = '<｜tool_calls_begin｜><｜tool_call_begin｜><steptml:invoke name="get_weather">';
    expect(read(cut, true)).toMatchObject({
      calls: [],
      errors: [{ code: 'incomplete-call', raw: cut }],
    });
    const undeclared =
      '<｜tool_calls_begin｜><｜tool_call_begin｜><steptml:invoke name="shell"><steptml:parameter name="c">ls</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>';
    expect(read(undeclared)).toMatchObject({ calls: [], text: undeclared });
  });

  it('writes calls as the parser reads them', () => {
    expect(protocol.formatToolCall({ toolName: 'get_weather', input: { city: 'Tokyo' } })).toBe(
      `<｜tool_calls_begin｜>${WEATHER.replace('<｜tool_call_begin｜>', '<｜tool_call_begin｜>function<｜tool_sep｜>')}<｜tool_calls_end｜>`,
    );
    expect(step3Spec.models).toContain('stepfun-ai/step3');
  });
});

describeFamilyChecks({
  entry: step3Format,
  protocol,
  modelIds: {
    chosen: ['stepfun-ai/step3', 'stepfun-ai/step3-fp8'],
    notChosen: ['stepfun-ai/step-3.5-flash', 'stepfun-ai/step3p5-flash'],
  },
  markup: MARKUP,
  wrappers: WRAPPERS,
  rawValueLimits: MARKUP,
});
