/**
 * An xml call ends at the tool's closing tag and runs nothing before it (issue 13 section 1.5,
 * issue 20 section 1): text written directly in the tool tag is that tag's content, closed by the
 * first `</tool>` that closes no `<tool>` opened in the value; an output that ends before that
 * closing tag leaves the call incomplete, reported with its raw text and never run. The same
 * holds for every shape of call: direct text, CDATA, nested parameters, the tool's own tag nested
 * in its value.
 */
import { describe, expect, it } from 'vitest';
import { type ToolDefinition, xmlProtocol } from '../../../src/index.ts';
import { contentAtEverySplit, TOOLS } from '../helpers.ts';

const xml = xmlProtocol();

/** A tool whose one parameter takes the text written directly in its tag. */
const htmlTool: ToolDefinition = {
  name: 'html',
  inputSchema: {
    type: 'object',
    properties: { markup: { type: 'string' } },
    required: ['markup'],
  },
};
const tools = [htmlTool, ...TOOLS];

type Part = { type: string; text?: string; toolName?: string; input?: string; error?: Fault };
type Fault = { code: string; raw: string };

function parse(text: string, interrupted = false) {
  const content = contentAtEverySplit(xml, text, { tools }, { interrupted }) as Part[];
  return {
    calls: content
      .filter((part) => part.type === 'tool-call')
      .map((part) => ({ toolName: part.toolName, input: JSON.parse(part.input!) })),
    errors: content.filter((part) => part.type === 'error').map((part) => part.error!),
    text: content
      .filter((part) => part.type === 'text')
      .map((part) => part.text)
      .join(''),
  };
}

describe('xml: a call closes at its closing tag', () => {
  it.each([
    ['Here is a page: <html>hello</html> done', 'hello', 'Here is a page:  done'],
    ['<html>hello</html>done', 'hello', 'done'],
    ['<html>hello</html> and <b>more</b>\n', 'hello', ' and <b>more</b>\n'],
    [
      '<html>a <b>bold</b> word</html> then </html> text',
      'a <b>bold</b> word',
      ' then </html> text',
    ],
    ['<html><![CDATA[x </html> y]]></html> z', 'x </html> y', ' z'],
    ['<html><![CDATA[x]]> and y</html> z', 'x and y', ' z'],
    // The value holds the tool's own tag: the closer that closes no opener in the value ends it.
    ['<html><html>x</html></html> after', '<html>x</html>', ' after'],
    ['<html>a <html lang="en">b</html> c</html> d', 'a <html lang="en">b</html> c', ' d'],
    ['<html>a <html/> b</html> c', 'a <html/> b', ' c'],
  ])('direct text: %s', (text, markup, rest) => {
    const { calls, errors, text: outside } = parse(text);
    expect(errors).toEqual([]);
    expect(calls).toEqual([{ toolName: 'html', input: { markup } }]);
    expect(outside).toBe(rest);
  });

  it('runs the next call after a closed one on the same line', () => {
    const { calls } = parse('<html>a</html> <html>b</html>');
    expect(calls).toEqual([
      { toolName: 'html', input: { markup: 'a' } },
      { toolName: 'html', input: { markup: 'b' } },
    ]);
  });
});

describe('xml: a call whose closing tag never came is reported, never run', () => {
  it.each([
    '<html>hello',
    '<html>hello\n',
    'Here: <html>hello</ht',
    '<html>hello</html',
    '<html><![CDATA[hello]]>',
    '<html><![CDATA[hel',
    '<html>a <html>b</html> c',
    '<html><html>x</html>',
    '<html><b>bold</b>',
  ])('direct text: %s', (text) => {
    const { calls, errors, text: outside } = parse(text);
    expect(calls).toEqual([]);
    expect(errors.map((error) => error.code)).toEqual(['incomplete-call']);
    expect(text.endsWith(errors[0]!.raw)).toBe(true);
    // Nothing lost: the raw text is shown as text too.
    expect(outside).toBe(text);
  });

  it.each([
    '<write_file><path>a</path><content>x</write_file> more on the line',
    '<write_file><path>a</path><content>x <write_file>y</write_file>',
    '<write_file><path>a</path><content><![CDATA[x',
  ])('nested parameters: %s', (text) => {
    const { calls, errors } = parse(text);
    expect(calls).toEqual([]);
    expect(errors.map((error) => error.code)).toEqual(['incomplete-call']);
  });
});
