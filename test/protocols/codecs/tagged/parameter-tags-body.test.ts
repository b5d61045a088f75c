/**
 * ParameterTagsBody with syntaxes as data: DeepSeek V3.2's DSML (attribute `string`), value
 * layout rules, typing of values an open schema does not type, and the streaming contract.
 */
import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../../../src/index.ts';
import {
  ParameterTagsBody,
  type ParameterTagsOpener,
  type ParameterTagsSyntax,
} from '../../../../src/protocols/codecs/tagged/parameter-tags-body.ts';
import {
  readTagHeader,
  writeName,
} from '../../../../src/protocols/codecs/tagged/parameter-tags-syntax.ts';
import { defineProtocol } from '../../../../src/protocols/define/define-protocol.ts';
import { THINK_TAGS } from '../../../../src/protocols/engine/reasoning-tags.ts';
import { contentAtEverySplit } from '../../helpers.ts';

const DSML: ParameterTagsSyntax = {
  callOpen: '<｜DSML｜invoke',
  callClose: '</｜DSML｜invoke>',
  parameterOpen: '<｜DSML｜parameter',
  parameterClose: '</｜DSML｜parameter>',
  layout: 'inline',
};

function protocolFor(syntax: ParameterTagsSyntax, block: [string, string]) {
  const openers = [
    {
      literal: block[0],
      delimited: false,
      data: { syntax, blockClose: block[1] } as ParameterTagsOpener,
    },
  ];
  return defineProtocol<ParameterTagsOpener>({
    name: 'test',
    grammar: {
      reasoningTags: THINK_TAGS,
      callOpeners: () => openers,
      openCall: (opener, context) => new ParameterTagsBody(context, opener),
    },
    formatTools: () => '',
    formatToolCall: () => '',
    formatToolResponse: () => '',
  });
}

const open: ToolDefinition = { name: 'f', inputSchema: { type: 'object' } };
const typed: ToolDefinition = {
  name: 'g',
  inputSchema: {
    type: 'object',
    properties: { n: { type: 'integer' }, s: { type: 'string' }, o: { type: 'object' } },
  },
};
type Part = { type: string; input?: string; text?: string; error?: { code: string } };

function inputs(protocol: ReturnType<typeof protocolFor>, text: string) {
  const content = contentAtEverySplit(protocol, text, { tools: [open, typed] }) as Part[];
  return content.filter((part) => part.type === 'tool-call').map((part) => JSON.parse(part.input!));
}

describe('ParameterTagsBody', () => {
  const dsml = protocolFor(DSML, ['<｜DSML｜function_calls>', '</｜DSML｜function_calls>']);

  it('reads DeepSeek V3.2\'s DSML: string="true" takes the value raw, string="false" as JSON', () => {
    const text =
      '<｜DSML｜function_calls>\n<｜DSML｜invoke name="f">\n<｜DSML｜parameter name="a" string="true">42</｜DSML｜parameter>\n<｜DSML｜parameter name="b" string="false">{"x": [1, 2]}</｜DSML｜parameter>\n<｜DSML｜parameter name="c" string="false">7</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>';
    expect(inputs(dsml, text)).toEqual([{ a: '42', b: { x: [1, 2] }, c: 7 }]);
  });

  it('types values of an open schema by how they look: JSON literals and containers, else text', () => {
    const value = (v: string) =>
      `<｜DSML｜function_calls><｜DSML｜invoke name="f"><｜DSML｜parameter name="v">${v}</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜function_calls>`;
    const cases: [string, unknown][] = [
      ['1', 1],
      ['-3.5e2', -350],
      ['true', true],
      ['null', null],
      ['[1, "a"]', [1, 'a']],
      ['{"k": 1}', { k: 1 }],
      ['2025-08-01', '2025-08-01'],
      ['3 apples', '3 apples'],
      ['"quoted" text', '"quoted" text'],
      ['nullable', 'nullable'],
      ['{not json', '{not json'],
    ];
    for (const [written, expected] of cases) {
      expect(inputs(dsml, value(written)), written).toEqual([{ v: expected }]);
    }
  });

  it('coerces values by a typed schema, and keeps strings as written', () => {
    const text =
      '<｜DSML｜function_calls><｜DSML｜invoke name="g"><｜DSML｜parameter name="n">12</｜DSML｜parameter><｜DSML｜parameter name="s">12</｜DSML｜parameter><｜DSML｜parameter name="o">{"a": 1}</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜function_calls>';
    expect(inputs(dsml, text)).toEqual([{ n: 12, s: '12', o: { a: 1 } }]);
  });

  it('reports a parameter given twice and keeps the first value', () => {
    const content = contentAtEverySplit(
      dsml,
      '<｜DSML｜function_calls><｜DSML｜invoke name="g"><｜DSML｜parameter name="s">a</｜DSML｜parameter><｜DSML｜parameter name="s">b</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜function_calls>',
      { tools: [typed] },
    ) as (Part & { problems?: { keyword: string }[] })[];
    const call = content.find((part) => part.type === 'tool-call')!;
    expect(JSON.parse(call.input!)).toEqual({ s: 'a' });
    expect(call.problems?.map((problem) => problem.keyword)).toContain('duplicate');
  });

  it('applies the block layout: exact with one line break each side, trimmed otherwise', () => {
    const qwen = protocolFor(
      {
        callOpen: '<function',
        callClose: '</function>',
        parameterOpen: '<parameter',
        parameterClose: '</parameter>',
        layout: 'block',
      },
      ['<tool_call>', '</tool_call>'],
    );
    const call = (raw: string) =>
      inputs(
        qwen,
        `<tool_call><function=g><parameter=s>${raw}</parameter></function></tool_call>`,
      )[0].s;
    expect(call('\n  x \n')).toBe('  x ');
    expect(call('\n  x \n  ')).toBe('x');
    expect(call('  x ')).toBe('x');
    expect(call('\na\n\n')).toBe('a\n');
    expect(call('\r\na\r\n')).toBe('a');
    expect(call('\n    a\n    b\n  ')).toBe('    a\n    b');
  });

  it('reads tag headers in both spellings, and writes names so they read back', () => {
    expect(readTagHeader('=city')).toEqual({ name: 'city' });
    expect(readTagHeader('="two words" ')).toEqual({ name: 'two words' });
    expect(readTagHeader(' name="k" string="true"')).toEqual({ name: 'k', string: true });
    expect(readTagHeader('s')).toBeUndefined();
    for (const name of ['a>b', ' x', 'y ', 'q"\'', 'a&amp;', 'line\nbreak']) {
      expect(readTagHeader(`=${writeName(name)}`)?.name).toBe(name);
      expect(readTagHeader(` name="${writeName(name)}"`)?.name).toBe(name);
    }
  });

  it('streams a long string value in pieces and starts the call as soon as its name is read', () => {
    const parser = dsml.createStreamParser({ tools: [typed] });
    const first = parser.push('<｜DSML｜function_calls><｜DSML｜invoke name="g">');
    expect(first.map((event) => event.type)).toContain('tool-input-start');
    parser.push('<｜DSML｜parameter name="s">hello ');
    const second = parser.push('world, more');
    expect(second.filter((event) => event.type === 'tool-input-delta')).not.toEqual([]);
  });
});
