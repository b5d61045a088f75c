import { describe, expect, it } from 'vitest';
import { glmFormat, glmProtocol } from '../../../src/protocols/glm/index.ts';
import { contentAtEverySplit, weatherTool, writeFileTool } from '../helpers.ts';
import { type Part, parameterTagsChecks } from './parameter-tags-checks.ts';

const protocol = glmProtocol();
const tools = [weatherTool, writeFileTool];

function read(text: string) {
  const content = contentAtEverySplit(protocol, text, { tools }) as Part[];
  return {
    calls: content
      .filter((part) => part.type === 'tool-call')
      .map((part) => [part.toolName, JSON.parse(part.input!)]),
    text: content
      .filter((part) => part.type === 'text')
      .map((part) => part.text)
      .join(''),
    errors: content
      .filter((part) => part.type === 'error')
      .map((part) => [part.error!.code, part.error!.raw]),
  };
}

describe('glm', () => {
  it('reads GLM-4.5/4.6 calls (name on its own line) with reasoning and text', () => {
    const result = read(
      '<think>hmm</think>I will help.\n<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>"From Zero" tour</arg_value>\n<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</tool_call>',
    );
    expect(result.calls).toEqual([['get_weather', { city: '"From Zero" tour', days: 3 }]]);
    expect(result.text).toBe('I will help.\n');
  });

  it('reads GLM-4.7 calls written without line breaks, and indented ones', () => {
    expect(
      read('<tool_call>get_weather<arg_key>city</arg_key><arg_value>Oslo</arg_value></tool_call>')
        .calls,
    ).toEqual([['get_weather', { city: 'Oslo' }]]);
    expect(
      read(
        '<tool_call>get_weather\n    <arg_key>city</arg_key>\n    <arg_value>Dallas</arg_value>\n    </tool_call>',
      ).calls,
    ).toEqual([['get_weather', { city: 'Dallas' }]]);
  });

  it('reads a call with no arguments, and two blocks with prose between', () => {
    const result = read(
      '<tool_call>write_file\n</tool_call>\nthen\n<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>B</arg_value>\n</tool_call>',
    );
    expect(result.calls.map((call) => call[0])).toEqual(['write_file', 'get_weather']);
    expect(result.text).toBe('\nthen\n');
  });

  it('keeps an <arg_value> byte-exact: its white space is data (exact-match edit tools)', () => {
    // vLLM #42026 and SGLang #20542/#20543 stopped stripping GLM values: `old_string` of an edit
    // must match the file byte for byte, trailing line break and indentation included.
    const values = [
      'line one\n',
      '\n  indented\n',
      '    indented code    ',
      '\r\n',
      ' ',
      'a\n\n',
      'def f():\n    return 1\n',
    ];
    for (const content of values) {
      const text = `<tool_call>write_file\n<arg_key>path</arg_key>\n<arg_value>a.py</arg_value>\n<arg_key>content</arg_key>\n<arg_value>${content}</arg_value>\n</tool_call>`;
      expect(read(text).calls, JSON.stringify(content)).toEqual([
        ['write_file', { path: 'a.py', content }],
      ]);
    }
  });

  it('still tolerates white space around names, tags and non-string values', () => {
    const result = read(
      '<tool_call> get_weather \n  <arg_key> city </arg_key>  \n  <arg_value>Oslo</arg_value>\n  <arg_key>days</arg_key><arg_value>\n 3 \n</arg_value>  \n</tool_call>',
    );
    expect(result.calls).toEqual([['get_weather', { city: 'Oslo', days: 3 }]]);
    expect(result.errors).toEqual([]);
  });

  it('drops only the layout line break before a tag that ends a value whose closer is missing', () => {
    expect(
      read(
        '<tool_call>write_file\n<arg_key>path</arg_key>\n<arg_value>a.txt\n<arg_key>content</arg_key>\n<arg_value>x \n</arg_value>\n</tool_call>',
      ).calls,
    ).toEqual([['write_file', { path: 'a.txt', content: 'x \n' }]]);
  });

  it('reports an unclosed key with its raw text and runs nothing', () => {
    const text =
      '<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>S</arg_value>\n<arg_key>oops\n<arg_value>v</arg_value>\n</tool_call>';
    const result = read(text);
    expect(result.calls).toEqual([]);
    expect(result.errors).toEqual([
      ['malformed-call', text.slice(0, text.indexOf('<arg_value>v'))],
    ]);
  });

  it('leaves JSON or an undeclared name after <tool_call> as text', () => {
    const text = '<tool_call>{"name": "get_weather"}</tool_call>';
    expect(read(text)).toEqual({ calls: [], text, errors: [] });
  });

  // vLLM's tests/tool_parsers/test_poolside_v1_tool_parser.py: Laguna writes GLM-4.5's calls.
  it("reads Poolside Laguna's calls (vLLM's poolside_v1 parser tests)", () => {
    expect(
      read(
        '<tool_call>write_file\n<arg_key>path</arg_key>\n<arg_value>f.py</arg_value>\n<arg_key>content</arg_key>\n<arg_value>    def f():\n        return 1\n</arg_value>\n</tool_call>',
      ).calls,
    ).toEqual([['write_file', { path: 'f.py', content: '    def f():\n        return 1\n' }]]);
    expect(
      read('<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>')
        .calls,
    ).toEqual([['get_weather', { city: 'Paris' }]]);
    const blank = '<tool_call>   </tool_call>';
    expect(read(blank)).toEqual({ calls: [], text: blank, errors: [] });
  });

  it('is registered for its model names', () => {
    for (const id of [
      'glm-4.5',
      'zai-org/glm-4.6',
      'glm-4.7-flash',
      'glm4',
      'poolside/laguna-s-2.1',
    ]) {
      expect(glmFormat.models.some((pattern) => pattern.test(id))).toBe(true);
    }
    expect(
      protocol.formatToolCall({ toolName: 'get_weather', input: { city: 'Oslo', days: 2 } }),
    ).toBe(
      '<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Oslo</arg_value>\n<arg_key>days</arg_key>\n<arg_value>2</arg_value>\n</tool_call>',
    );
  });

  parameterTagsChecks(protocol, ['</arg_value>', '<arg_key>', '</tool_call>', '</arg_key>']);
});
