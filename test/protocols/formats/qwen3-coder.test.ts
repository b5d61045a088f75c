import { describe, expect, it } from 'vitest';
import { qwen3CoderFormat, qwen3CoderProtocol } from '../../../src/protocols/qwen3-coder/index.ts';
import { contentAtEverySplit, searchTool, TOOLS, weatherTool, writeFileTool } from '../helpers.ts';
import { type Part, parameterTagsChecks } from './parameter-tags-checks.ts';

const protocol = qwen3CoderProtocol();
const tools = [weatherTool, writeFileTool, searchTool];

function read(text: string, interrupted = false) {
  const content = contentAtEverySplit(protocol, text, { tools }, { interrupted }) as Part[];
  return {
    calls: content
      .filter((part) => part.type === 'tool-call')
      .map((part) => ({
        name: part.toolName,
        input: JSON.parse(part.input!),
        problems: part.problems,
      })),
    text: content
      .filter((part) => part.type === 'text')
      .map((part) => part.text)
      .join(''),
    reasoning: content
      .filter((part) => part.type === 'reasoning')
      .map((part) => part.text)
      .join(''),
    errors: content.filter((part) => part.type === 'error').map((part) => part.error!),
  };
}

describe('qwen3-coder', () => {
  it('reads the format as Qwen3-Coder writes it, with reasoning and text around', () => {
    const result = read(
      '<think>Need weather.</think>Checking.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nSan Francisco\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>\nDone.',
    );
    expect(result.calls).toEqual([
      { name: 'get_weather', input: { city: 'San Francisco', days: 3 }, problems: undefined },
    ]);
    expect(result.reasoning).toBe('Need weather.');
    expect(result.text).toBe('Checking.\n\nDone.');
  });

  it('keeps multi-line code exact: one layout line break each side, indentation, blank lines', () => {
    const code = '  def f():\n\n      return "<b>" && 1\n';
    const result = read(
      `<tool_call>\n<function=write_file>\n<parameter=path>\na.py\n</parameter>\n<parameter=content>\n${code}\n</parameter>\n</function>\n</tool_call>`,
    );
    expect(result.calls[0]!.input).toEqual({ path: 'a.py', content: code });
  });

  it('trims indented single-line values (llama.cpp layout) and types them by schema', () => {
    const result = read(
      '<tool_call>\n  <function=search>\n    <parameter=query>\n      laptops\n    </parameter>\n    <parameter=allow_tests>\n      true\n    </parameter>\n    <parameter=tags>\n      ["a", "b"]\n    </parameter>\n    <parameter=options>\n      {"depth": "2"}\n    </parameter>\n  </function>\n</tool_call>',
    );
    expect(result.calls[0]!.input).toEqual({
      query: 'laptops',
      allow_tests: true,
      tags: ['a', 'b'],
      options: { depth: 2 },
    });
  });

  it('reads calls whose <tool_call> was dropped, and drops the stray </tool_call> after them', () => {
    const result = read(
      "I'll list them.\n\n<function=search>\n<parameter=query>\n*.md\n</parameter>\n</function>\n</tool_call>\nok",
    );
    expect(result.calls.map((call) => call.input)).toEqual([{ query: '*.md' }]);
    expect(result.text).toBe("I'll list them.\n\n\nok");
  });

  it('closes a value at the next parameter when </parameter> is missing, and at </function>', () => {
    const result = read(
      '<tool_call>\n<function=get_weather>\n<parameter=city>\nDallas\n<parameter=days>\n2\n</function>\n</tool_call>',
    );
    expect(result.calls[0]!.input).toEqual({ city: 'Dallas', days: 2 });
  });

  it('keeps tags in values, and a closing tag that is not followed by call markup', () => {
    const value = 'a </parameter> b <parameter=x> c </function>d';
    const result = read(
      `<tool_call>\n<function=write_file>\n<parameter=path>\np\n</parameter>\n<parameter=content>\n${value}\n</parameter>\n</function>\n</tool_call>`,
    );
    expect(result.calls[0]!.input).toEqual({ path: 'p', content: value });
  });

  it('reads several calls in one block, and several blocks', () => {
    const call = (city: string) =>
      `<function=get_weather>\n<parameter=city>\n${city}\n</parameter>\n</function>`;
    const result = read(
      `<tool_call>\n${call('A')}\n${call('B')}\n</tool_call>\n<tool_call>\n${call('C')}\n</tool_call>`,
    );
    expect(result.calls.map((c) => c.input.city)).toEqual(['A', 'B', 'C']);
    expect(result.errors).toEqual([]);
  });

  it('completes a call missing only </function></tool_call> at the end, never an interrupted one', () => {
    const text = '<tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n';
    expect(read(text).calls).toHaveLength(1);
    const cut = read(text, true);
    expect(cut.calls).toEqual([]);
    expect(cut.errors.map((error) => [error.code, error.raw])).toEqual([['incomplete-call', text]]);
  });

  it('reports a call cut off inside a value, with its raw text, and never runs it', () => {
    const text = '<tool_call>\n<function=get_weather>\n<parameter=city>\nOsl';
    const result = read(text);
    expect(result.calls).toEqual([]);
    expect(result.errors.map((error) => [error.code, error.raw])).toEqual([
      ['incomplete-call', text],
    ]);
  });

  it('leaves calls to undeclared tools as text', () => {
    const text =
      '<tool_call>\n<function=rm_rf>\n<parameter=path>\n/\n</parameter>\n</function>\n</tool_call>';
    const result = read(text);
    expect(result.calls).toEqual([]);
    expect(result.text).toBe(text);
  });

  it('reports a malformed call tag with its raw text, and reads the next block', () => {
    const result = read(
      '<tool_call>\n<function=get_weather\n</function>\n</tool_call>\n<tool_call>\n<function=get_weather>\n<parameter=city>X</parameter>\n</function>\n</tool_call>',
    );
    expect(result.calls.map((call) => call.input)).toEqual([{ city: 'X' }]);
    expect(result.errors.map((error) => [error.code, error.raw])).toEqual([
      ['malformed-call', '<tool_call>\n<function=get_weather'],
    ]);
  });

  it('attaches schema problems: undeclared parameters when additionalProperties is false', () => {
    const result = read(
      '<tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n<parameter=wind>\n5\n</parameter>\n</function>\n</tool_call>',
    );
    expect(result.calls[0]!.input).toEqual({ city: 'Oslo', wind: 5 });
    expect(result.calls[0]!.problems).toBeDefined();
  });

  it('streams a string value as it arrives', () => {
    const parser = protocol.createStreamParser({ tools });
    parser.push('<tool_call>\n<function=write_file>\n<parameter=content>\nfirst line\n');
    const events = parser.push('second line\nthird');
    const deltas = events.filter((event) => event.type === 'tool-input-delta');
    expect(deltas.map((event) => (event as { delta: string }).delta).join('')).toContain(
      'second line',
    );
  });

  it('is registered for its model names', () => {
    for (const id of ['qwen3-coder:30b', 'qwen/qwen3-coder-30b-a3b-instruct', 'qwen3.5']) {
      expect(qwen3CoderFormat.models.some((pattern) => pattern.test(id))).toBe(true);
    }
    expect(qwen3CoderFormat.models.some((pattern) => pattern.test('qwen2.5:7b'))).toBe(false);
  });

  it('teaches the format the way its chat template does', () => {
    const prompt = protocol.formatTools(TOOLS);
    expect(prompt).toContain('<tools>\n<function>\n<name>get_weather</name>');
    expect(prompt).toContain('<parameter>\n<name>city</name>\n<type>string</type>');
    expect(prompt).toContain('<function=example_function_name>');
    expect(protocol.formatToolResponse({ toolName: 'get_weather', output: { t: 1 } })).toBe(
      '<tool_response>\n{"\\u0074":1}\n</tool_response>',
    );
    expect(
      protocol.formatToolResponse({
        toolName: 'get_weather',
        output: '<tool_call>',
        isError: true,
      }),
    ).toBe('<tool_response>\nError: \\u003ctool_call>\n</tool_response>');
  });

  parameterTagsChecks(protocol, ['</parameter>', '<parameter=', '</function>', '</tool_call>']);
});
