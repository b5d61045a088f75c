/**
 * MiniMax-M1. Vectors from vLLM's tests/tool_parsers/test_minimax_tool_parser.py (one call, two,
 * content before, no closer, a bad line among good ones, lines missing a name or arguments, calls
 * inside `<think>`), and the chat template's own rendering (chat-template-cases.json, minimax-m1.vllm).
 */
import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../../src/index.ts';
import { minimaxM1Format, minimaxM1Spec } from '../../../src/protocols/formats/minimax-m1.ts';
import { defineFormat } from '../../../src/protocols/spec/define.ts';
import { TOOLS } from '../helpers.ts';
import { describeFamilyChecks, familyReaders } from './family-checks.ts';
import { callsIn, errorsIn, reasoningIn, textIn } from './json-format-checks.ts';

const m1 = defineFormat(minimaxM1Spec);
const loose = (name: string): ToolDefinition => ({ name, inputSchema: { type: 'object' } });
const tools = [
  ...TOOLS,
  loose('get_current_weather'),
  loose('valid_tool'),
  loose('another_valid_tool'),
];
const weather = (city: string, state: string, unit = 'fahrenheit') =>
  `{"name": "get_current_weather", "arguments": {"city": "${city}", "state": "${state}", "unit": "${unit}"}}`;
const WRAPPERS = ['<tool_calls>', '</tool_calls>'];
const { parts: readParts } = familyReaders(m1, WRAPPERS);

describe('minimax-m1', () => {
  it('reads one call per line', () => {
    expect(
      callsIn(readParts(`<tool_calls>\n${weather('Dallas', 'TX')}\n</tool_calls>`, { tools })),
    ).toEqual([
      { name: 'get_current_weather', input: { city: 'Dallas', state: 'TX', unit: 'fahrenheit' } },
    ]);
    const two = readParts(
      `<tool_calls>\n${weather('Dallas', 'TX')}\n${weather('Orlando', 'FL')}\n</tool_calls>`,
      { tools },
    );
    expect(callsIn(two).map((call) => (call.input as { city: string }).city)).toEqual([
      'Dallas',
      'Orlando',
    ]);
  });

  it('keeps the content before the block, without the tags', () => {
    const parts = readParts(
      `I'll help you check the weather. <tool_calls>\n${weather('Seattle', 'WA', 'celsius')}\n</tool_calls>`,
      { tools },
    );
    expect(callsIn(parts)).toHaveLength(1);
    expect(textIn(parts)).toBe("I'll help you check the weather. ");
  });

  it('reads the call of a block the output ended in, without its closer', () => {
    const parts = readParts(
      '<tool_calls>\n{"name": "get_current_weather", "arguments": {"city": "Boston", "state": "MA"}}',
      { tools },
    );
    expect(callsIn(parts)).toEqual([
      { name: 'get_current_weather', input: { city: 'Boston', state: 'MA' } },
    ]);
  });

  it('keeps the good lines around a bad one, and reports the bad one with its text', () => {
    const parts = readParts(
      '<tool_calls>\n{"name": "valid_tool", "arguments": {"action": "test"}}\n{invalid json here}\n{"name": "another_valid_tool", "arguments": {"param": "value"}}\n</tool_calls>',
      { tools },
    );
    expect(callsIn(parts).map((call) => call.name)).toEqual(['valid_tool', 'another_valid_tool']);
    expect(errorsIn(parts).map((error) => [error.code, error.raw])).toEqual([
      ['malformed-call', '{invalid json here}'],
    ]);
  });

  it('reports a line with no name; a line with no arguments is a call with none', () => {
    const parts = readParts(
      '<tool_calls>\n{"name": "valid_tool"}\n{"arguments": {"param": "value"}}\n</tool_calls>',
      { tools },
    );
    expect(callsIn(parts)).toEqual([{ name: 'valid_tool', input: {} }]);
    expect(errorsIn(parts).map((error) => error.raw)).toEqual([
      '{"arguments": {"param": "value"}}',
    ]);
  });

  it('does not read the calls the model writes in its reasoning', () => {
    const parts = readParts(
      `<think>I should use a tool. <tool_calls>\n{"name": "ignored_tool", "arguments": {"should": "ignore"}}\n</tool_calls></think>\n\nLet me help you with the weather. <tool_calls>\n${weather('Miami', 'FL')}\n</tool_calls>`,
      { tools },
    );
    expect(callsIn(parts).map((call) => call.name)).toEqual(['get_current_weather']);
    expect(reasoningIn(parts)).toContain('ignored_tool');
    expect(textIn(parts)).toBe('\n\nLet me help you with the weather. ');
  });

  it("reads the template's rendering, and writes it", () => {
    const text = m1.formatToolCall([
      { toolName: 'get_weather', input: { city: 'Oslo', days: 3 } },
      { toolName: 'search', input: { query: 'tide tables' } },
    ]);
    expect(text).toBe(
      '<tool_calls>\n{"name": "get_weather", "arguments": {"city":"Oslo","days":3}}\n{"name": "search", "arguments": {"query":"tide tables"}}\n</tool_calls>',
    );
    expect(callsIn(readParts(text))).toEqual([
      { name: 'get_weather', input: { city: 'Oslo', days: 3 } },
      { name: 'search', input: { query: 'tide tables' } },
    ]);
    expect(m1.formatToolResponse({ toolName: 'get_weather', output: 'sunny' })).toBe(
      'tool name: get_weather\ntool result: sunny\n\n',
    );
    expect(m1.formatTools(TOOLS)).toContain(
      'If you need to call tools, please respond with <tool_calls></tool_calls> XML tags, and provide tool-name and json-object of arguments, following the format below:',
    );
  });
});

describeFamilyChecks({
  entry: minimaxM1Format,
  protocol: m1,
  modelIds: { chosen: ['minimaxai/minimax-m1-40k'], notChosen: ['minimaxai/minimax-m2'] },
  markup: ['<tool_calls>', '</tool_calls>', '<tool_calls>\n', '\n{', '{invalid}\n', 'prose\n'],
  wrappers: WRAPPERS,
  outputs: ['<tool_calls>\n}}\n{"name": "write_file"'],
  linear: {
    call: (index) =>
      `<tool_calls>\n{"name": "get_weather", "arguments": {"city": "c${index}"}}\n</tool_calls>`,
    bigCall: (argument) =>
      `<tool_calls>\n{"name": "write_file", "arguments": {"path": "p", "content": "${argument}"}}\n</tool_calls>`,
  },
});
