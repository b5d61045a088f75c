/**
 * Hunyuan Hy3 / Hy4 calls. Vectors from vLLM's `tests/tool_parsers/test_hy_v3_tool_parser.py`
 * and `test_hy_v4_tool_parser.py`.
 */
import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../../src/index.ts';
import { hunyuanHyFormat, hunyuanHySpec } from '../../../src/protocols/formats/hunyuan-hy.ts';
import { defineFormat } from '../../../src/protocols/spec/define.ts';
import { readAtEverySplit, taggedSpecChecks } from './tagged-spec-checks.ts';

const protocol = defineFormat(hunyuanHySpec);

const getWeather: ToolDefinition = {
  name: 'get_weather',
  inputSchema: {
    type: 'object',
    properties: { city: { type: 'string' }, date: { type: 'string' }, days: { type: 'integer' } },
  },
};
const getCurrentDate: ToolDefinition = {
  name: 'get_current_date',
  inputSchema: { type: 'object' },
};
const typed: ToolDefinition = {
  name: 'typed',
  inputSchema: {
    type: 'object',
    properties: {
      i: { type: 'integer' },
      b: { type: 'boolean' },
      n: { type: 'number' },
      arr: { type: 'array' },
      union: { type: ['string', 'object'] },
    },
  },
};
const tools = [getWeather, getCurrentDate, typed];

const read = (text: string, interrupted = false) =>
  readAtEverySplit(protocol, text, { tools }, { interrupted });

describe('hunyuan-hy', () => {
  it('reads Hy3: a call with no arguments, with arguments, with line breaks between tags', () => {
    expect(
      read('<tool_calls><tool_call>get_current_date<tool_sep></tool_call></tool_calls>').calls,
    ).toEqual([['get_current_date', {}]]);
    expect(
      read(
        '<tool_calls><tool_call>get_weather<tool_sep><arg_key>city</arg_key><arg_value>Beijing</arg_value><arg_key>date</arg_key><arg_value>2026-03-30</arg_value></tool_call></tool_calls>',
      ).calls,
    ).toEqual([['get_weather', { city: 'Beijing', date: '2026-03-30' }]]);
    expect(
      read(
        '<tool_calls>\n<tool_call>get_weather<tool_sep>\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n</tool_call>\n<tool_call>get_weather<tool_sep>\n<arg_key>city</arg_key>\n<arg_value>Hangzhou</arg_value>\n</tool_call>\n</tool_calls>',
      ).calls,
    ).toEqual([
      ['get_weather', { city: 'Beijing' }],
      ['get_weather', { city: 'Hangzhou' }],
    ]);
    expect(
      read(
        'Checking.<tool_calls>\n<tool_call>get_current_date<tool_sep>\n</tool_call>\n</tool_calls>',
      ),
    ).toEqual({ calls: [['get_current_date', {}]], text: 'Checking.', reasoning: '', errors: [] });
  });

  it('reads Hy4: suffixed tags, the name ended by the first tag', () => {
    expect(
      read(
        'sure!<tool_calls:opensource><tool_call:opensource>get_weather<arg_key:opensource>city</arg_key:opensource><arg_value:opensource>Beijing</arg_value:opensource><arg_key:opensource>days</arg_key:opensource><arg_value:opensource>3</arg_value:opensource></tool_call:opensource></tool_calls:opensource>',
      ),
    ).toEqual({
      calls: [['get_weather', { city: 'Beijing', days: 3 }]],
      text: 'sure!',
      reasoning: '',
      errors: [],
    });
    expect(
      read(
        '<tool_calls:opensource><tool_call:opensource>get_current_date</tool_call:opensource></tool_calls:opensource>',
      ).calls,
    ).toEqual([['get_current_date', {}]]);
    // A hash suffix, read from the block's opener.
    expect(
      read(
        '<tool_calls:6124c78e><tool_call:6124c78e>get_weather<arg_key:6124c78e>city</arg_key:6124c78e><arg_value:6124c78e>Oslo</arg_value:6124c78e></tool_call:6124c78e></tool_calls:6124c78e>',
      ).calls,
    ).toEqual([['get_weather', { city: 'Oslo' }]]);
  });

  it('is told from a JSON list after <tool_calls> (Hunyuan-A13B, Jamba) by the longest opener', () => {
    const shared = defineFormat({
      ...hunyuanHySpec,
      calls: [
        ...hunyuanHySpec.calls,
        { codec: 'json', open: '<tool_calls>', close: '</tool_calls>' },
      ],
    });
    for (const text of [
      '<tool_calls><tool_call>get_weather<tool_sep><arg_key>city</arg_key><arg_value>Oslo</arg_value></tool_call></tool_calls>',
      '<tool_calls>\n<tool_call>get_weather<tool_sep>\n<arg_key>city</arg_key>\n<arg_value>Oslo</arg_value>\n</tool_call>\n</tool_calls>',
      '<tool_calls:opensource><tool_call:opensource>get_weather<arg_key:opensource>city</arg_key:opensource><arg_value:opensource>Oslo</arg_value:opensource></tool_call:opensource></tool_calls:opensource>',
      '<tool_calls>[{"name": "get_weather", "arguments": {"city": "Oslo"}}]</tool_calls>',
    ]) {
      expect(readAtEverySplit(shared, text, { tools }), text).toEqual({
        calls: [['get_weather', { city: 'Oslo' }]],
        text: '',
        reasoning: '',
        errors: [],
      });
    }
  });

  it('types values by the schema', () => {
    const pair = (key: string, value: string) =>
      `<arg_key:opensource>${key}</arg_key:opensource><arg_value:opensource>${value}</arg_value:opensource>`;
    const call = (pairs: string) =>
      `<tool_calls:opensource><tool_call:opensource>typed${pairs}</tool_call:opensource></tool_calls:opensource>`;
    expect(
      read(
        call(
          pair('i', '-7') +
            pair('b', 'true') +
            pair('n', '1e3') +
            pair('arr', '["a", "b"]') +
            pair('union', '{"a": 1}'),
        ),
      ).calls,
    ).toEqual([['typed', { i: -7, b: true, n: 1000, arr: ['a', 'b'], union: { a: 1 } }]]);
    expect(read(call(pair('union', 'plain'))).calls).toEqual([['typed', { union: 'plain' }]]);
  });

  it('reads reasoning in <think>, suffixed or not', () => {
    expect(
      read(
        '<think:opensource>Date first.</think:opensource><tool_calls:opensource><tool_call:opensource>get_current_date</tool_call:opensource></tool_calls:opensource>',
      ),
    ).toMatchObject({ reasoning: 'Date first.', calls: [['get_current_date', {}]], text: '' });
  });

  it('runs nothing from a cut-off call and reports it with its raw text; an undeclared tool is text', () => {
    const cut = '<tool_calls><tool_call>get_weather<tool_sep><arg_key>city</arg_key><arg_value>Bei';
    expect(read(cut)).toMatchObject({ calls: [], errors: [{ code: 'incomplete-call', raw: cut }] });
    const undeclared =
      '<tool_calls><tool_call>shell<tool_sep><arg_key>c</arg_key><arg_value>ls</arg_value></tool_call></tool_calls>';
    expect(read(undeclared)).toMatchObject({ calls: [], text: undeclared, errors: [] });
    // Not the block: the opener's tag goes on with something else.
    expect(read('a <tool_calls_list> b')).toMatchObject({
      calls: [],
      text: 'a <tool_calls_list> b',
    });
  });

  it('writes Hy3 calls', () => {
    expect(
      protocol.formatToolCall({ toolName: 'get_weather', input: { city: 'Oslo', days: 2 } }),
    ).toBe(
      '<tool_calls>\n<tool_call>get_weather<tool_sep>\n<arg_key>city</arg_key>\n<arg_value>Oslo</arg_value>\n<arg_key>days</arg_key>\n<arg_value>2</arg_value>\n</tool_call>\n</tool_calls>',
    );
    expect(hunyuanHySpec.models).toContain('tencent/hy3');
  });

  it('is registered for its model ids, and names the tools its calls use', () => {
    for (const id of ['tencent/hy3-preview', 'tencent/hunyuan-v4', 'hy4:latest']) {
      expect(
        hunyuanHyFormat.models.some((pattern) => pattern.test(id)),
        id,
      ).toBe(true);
    }
    for (const id of ['tencent/hunyuan-a13b-instruct', 'why30']) {
      expect(
        hunyuanHyFormat.models.some((pattern) => pattern.test(id)),
        id,
      ).toBe(false);
    }
    const written = hunyuanHyFormat.create().formatToolCall([
      { toolName: 'get_weather', input: { city: 'Oslo' } },
      { toolName: 'write_file', input: { path: 'a', content: 'b' } },
    ]);
    expect(hunyuanHyFormat.toolNamesIn!(written)).toEqual(['get_weather', 'write_file']);
  });
  describe('guarantees', () => {
    taggedSpecChecks(protocol, [
      '</arg_value>',
      '<arg_key>',
      '</tool_call>',
      '</tool_calls>',
      '<tool_call>',
      '<tool_sep>',
      '<tool_calls:x>',
      '</tool_call:x>',
    ]);
  });
});
