/**
 * MiniCPM 4 / 5's `<function name=…><param name=…>` calls. Vectors from vLLM's
 * `tests/tool_parsers/test_minicpm5xml_tool_parser.py`, SGLang's
 * `test_minicpm4_xml_detector.py` (streaming) and a multi-family parser test (CDATA, Python `True`).
 */
import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../../src/index.ts';
import {
  writeName,
  writeValueText,
} from '../../../src/protocols/codecs/tagged/parameter-tags-syntax.ts';
import { minicpmFormat, minicpmSpec } from '../../../src/protocols/formats/minicpm.ts';
import { defineFormat } from '../../../src/protocols/spec/define.ts';
import type { TaggedCallForm } from '../../../src/protocols/spec/types.ts';
import { readAtEverySplit, taggedSpecChecks } from './tagged-spec-checks.ts';

const protocol = defineFormat(minicpmSpec);

const getWeather: ToolDefinition = {
  name: 'get_weather',
  inputSchema: {
    type: 'object',
    properties: { city: { type: 'string' }, date: { type: 'string' } },
    required: ['city'],
  },
};
const sumValues: ToolDefinition = {
  name: 'sum_values',
  inputSchema: {
    type: 'object',
    properties: { nums: { type: 'array', items: { type: 'integer' } }, exact: { type: 'boolean' } },
  },
};
const writeFile: ToolDefinition = {
  name: 'write_file',
  inputSchema: {
    type: 'object',
    properties: {
      content: { type: 'string' },
      version: { type: 'string' },
      count: { type: 'integer' },
      enabled: { type: 'boolean' },
    },
  },
};
const getTime: ToolDefinition = { name: 'get_time', inputSchema: { type: 'object' } };
const tools = [getWeather, sumValues, writeFile, getTime];

const read = (text: string, interrupted = false) =>
  readAtEverySplit(protocol, text, { tools }, { interrupted });

describe('minicpm', () => {
  it('reads a call between text, keeping the text', () => {
    expect(
      read(
        'Intro before.\n<function name="get_weather"><param name="city">上海</param><param name="date">2024-06-27</param></function>\nOutro after.\n',
      ),
    ).toEqual({
      calls: [['get_weather', { city: '上海', date: '2024-06-27' }]],
      text: 'Intro before.\n\nOutro after.\n',
      reasoning: '',
      errors: [],
    });
  });

  it('reads CDATA values as written, tags and white space included', () => {
    expect(
      read(
        '<function name="get_weather"><param name="city"><![CDATA[北\n京]]></param><param name="date">2024-06-27</param></function>\n',
      ).calls,
    ).toEqual([['get_weather', { city: '北\n京', date: '2024-06-27' }]]);
    expect(
      read(
        '<function name="write_file"><param name="content"><![CDATA[  <html>\nA & B\n</param></html>  ]]></param><param name="version">123</param><param name="count">3</param><param name="enabled">true</param></function>',
      ).calls,
    ).toEqual([
      [
        'write_file',
        { content: '  <html>\nA & B\n</param></html>  ', version: '123', count: 3, enabled: true },
      ],
    ]);
  });

  it('reads the byte-level spellings of the space before name', () => {
    const expected = [['get_weather', { city: '上海', date: '2024-06-27' }]];
    for (const space of ['\u0120', '']) {
      const text = `<function${space}name="get_weather"><param${space}name="city">上海</param><param${space}name="date">2024-06-27</param></function>`;
      expect(read(text).calls).toEqual(expected);
    }
  });

  it('types values by the schema', () => {
    expect(
      read(
        '<function name="sum_values"><param name="nums">[1, 2, 3]</param><param name="exact">true</param></function>',
      ).calls,
    ).toEqual([['sum_values', { nums: [1, 2, 3], exact: true }]]);
  });

  it('reads several calls with text between them, and a call with no params', () => {
    expect(
      read(
        'Head\n<function name="get_weather"><param name="city">北京</param></function>\nTXT\n<function name="sum_values"><param name="nums">[7,8,9]</param><param name="exact">false</param></function>\nTail\n',
      ),
    ).toEqual({
      calls: [
        ['get_weather', { city: '北京' }],
        ['sum_values', { nums: [7, 8, 9], exact: false }],
      ],
      text: 'Head\n\nTXT\n\nTail\n',
      reasoning: '',
      errors: [],
    });
    expect(
      read(
        'Before <function name="get_weather"><param name="city">X</param></function> Between<function name="get_time"></function>After',
      ),
    ).toMatchObject({
      calls: [
        ['get_weather', { city: 'X' }],
        ['get_time', {}],
      ],
      text: 'Before  BetweenAfter',
    });
  });

  it('reads the SGLang streaming case with line breaks and indentation between tags', () => {
    expect(
      read(
        'Hello\n<function name="get_weather">\n  <param name="city">北京</param>\n  <param name="date">2024-06-27</param>\n</function>\n',
      ),
    ).toMatchObject({
      calls: [['get_weather', { city: '北京', date: '2024-06-27' }]],
      text: 'Hello\n\n',
    });
  });

  it('leaves a call of an unknown tool as text, and reports an unclosed call with its raw text', () => {
    const unknown = '<function name="unknown"><param name="x">1</param></function>';
    expect(read(unknown)).toMatchObject({ calls: [], text: unknown, errors: [] });
    const unclosed = '<function name="get_weather"><param name="city">北京</param>';
    expect(read(unclosed, true)).toMatchObject({
      calls: [],
      errors: [{ code: 'incomplete-call', raw: unclosed }],
    });
    const cutInCdata = '<function name="get_weather"><param name="city"><![CDATA[北';
    expect(read(cutInCdata)).toMatchObject({
      calls: [],
      errors: [{ code: 'incomplete-call', raw: cutInCdata }],
    });
  });

  it('reads a duplicated param once and reports it', () => {
    const parts = protocol.parseGeneratedText(
      '<function name="get_weather"><param name="city">A</param><param name="city">B</param></function>',
      { tools },
    );
    const call = parts.find((part) => part.type === 'tool-call')!;
    expect(JSON.parse(call.input)).toEqual({ city: 'A' });
    expect(call.problems?.map((problem) => problem.keyword)).toEqual(['duplicate']);
  });

  it('keeps a mention of the tag in prose as text', () => {
    const text = 'Write <function name="get_weather"> to call it.';
    expect(read(text)).toMatchObject({ calls: [], text });
  });

  it('writes a value holding markup in CDATA, so it reads back exactly', () => {
    const syntax = (minicpmSpec.calls[0] as TaggedCallForm).syntax;
    const values = ['<![CDATA[', 'a ]]> b', '</param></function>', '  <b>x</b>\n', '<', ['<x>']];
    const input = Object.fromEntries(values.map((value, index) => [`k${index}`, value]));
    const text = `<function name="get_time">${Object.entries(input)
      .map(
        ([key, value]) =>
          `<param name="${writeName(key)}">${writeValueText(value, syntax)}</param>`,
      )
      .join('')}</function>`;
    expect(writeValueText('a ]]> b', syntax)).toBe('a ]]> b');
    expect(writeValueText('a <b> ]]> c', syntax)).toBe('<![CDATA[a <b> ]]]]><![CDATA[> c]]>');
    expect(read(text).calls).toEqual([['get_time', input]]);
  });

  it('writes calls as the model writes them', () => {
    expect(
      protocol.formatToolCall({ toolName: 'sum_values', input: { nums: [1, 2], exact: true } }),
    ).toBe(
      '<function name="sum_values"><param name="nums">[1,2]</param><param name="exact">true</param></function>',
    );
    expect(minicpmSpec.models).toContain('minicpm5');
  });

  it('is registered for its model ids, and names the tools its calls use', () => {
    for (const id of ['openbmb/minicpm4.1-8b', 'openbmb/minicpm5-9b', 'openbmb/minicpm-v-4_5']) {
      expect(
        minicpmFormat.models.some((pattern) => pattern.test(id)),
        id,
      ).toBe(true);
    }
    for (const id of ['openbmb/minicpm3-4b']) {
      expect(
        minicpmFormat.models.some((pattern) => pattern.test(id)),
        id,
      ).toBe(false);
    }
    const written = minicpmFormat.create().formatToolCall([
      { toolName: 'get_weather', input: { city: 'Oslo' } },
      { toolName: 'write_file', input: { path: 'a', content: 'b' } },
    ]);
    expect(minicpmFormat.toolNamesIn!(written)).toEqual(['get_weather', 'write_file']);
  });
  describe('guarantees', () => {
    taggedSpecChecks(protocol, ['</param>', '<param', '</function>', '<function', '<![CDATA[']);
  });
});
