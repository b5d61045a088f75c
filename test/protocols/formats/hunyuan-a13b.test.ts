/**
 * Hunyuan-A13B. Vectors from vLLM's tests/tool_parsers/test_hunyuan_a13b_tool_parser.py (one
 * call, two with nested and null values, text before, text after, char-by-char, non-ASCII).
 */
import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../../src/index.ts';
import { hunyuanA13bFormat, hunyuanA13bSpec } from '../../../src/protocols/formats/hunyuan-a13b.ts';
import { defineFormat } from '../../../src/protocols/spec/define.ts';
import { TOOLS } from '../helpers.ts';
import { describeFamilyChecks, familyReaders } from './family-checks.ts';
import { callsIn, errorsIn, reasoningIn, textIn } from './json-format-checks.ts';

const hunyuan = defineFormat(hunyuanA13bSpec);
const loose = (name: string): ToolDefinition => ({ name, inputSchema: { type: 'object' } });
const tools = [...TOOLS, loose('register_user'), loose('a'), loose('b')];
const WRAPPERS = ['<tool_calls>', '</tool_calls>', '<answer>', '</answer>'];
const { parts: readParts } = familyReaders(hunyuan, WRAPPERS);

describe('hunyuan-a13b', () => {
  it('reads one call and two, with nested, null and boolean values', () => {
    expect(
      callsIn(
        readParts(
          '<tool_calls>[{"name": "get_weather", "arguments": {"city": "San Francisco", "unit": "celsius"}}]</tool_calls>',
        ),
      ),
    ).toEqual([{ name: 'get_weather', input: { city: 'San Francisco', unit: 'celsius' } }]);
    const two = readParts(
      '<tool_calls>[{"name": "get_weather", "arguments": {"city": "San Francisco"}}, {"name": "register_user", "arguments": {"name": "John Doe", "age": 37, "address": {"city": "San Francisco", "state": "CA"}, "role": null, "passed_test": true, "aliases": ["John", "Johnny"]}}]</tool_calls>',
      { tools },
    );
    expect(callsIn(two)).toEqual([
      { name: 'get_weather', input: { city: 'San Francisco' } },
      {
        name: 'register_user',
        input: {
          name: 'John Doe',
          age: 37,
          address: { city: 'San Francisco', state: 'CA' },
          role: null,
          passed_test: true,
          aliases: ['John', 'Johnny'],
        },
      },
    ]);
  });

  it('keeps the text before and after the block, without the tags', () => {
    const parts = readParts(
      'I will call the tool now. <tool_calls>[{"name": "get_weather", "arguments": {"city": "Boston"}}]</tool_calls>\nThank you!',
    );
    expect(callsIn(parts)).toEqual([{ name: 'get_weather', input: { city: 'Boston' } }]);
    // vLLM drops the text after the block; toolwire keeps every character that is not markup.
    expect(textIn(parts)).toBe('I will call the tool now. \nThank you!');
  });

  it('reads reasoning, drops the <answer> wrapper, keeps non-ASCII as written', () => {
    const parts = readParts(
      '<think>\nThe user asks about Beijing.\n</think>\n<answer>\n<tool_calls>[{"name": "get_weather", "arguments": {"city": "北京"}}]</tool_calls>\n</answer>',
    );
    expect(reasoningIn(parts)).toBe('\nThe user asks about Beijing.\n');
    expect(callsIn(parts)).toEqual([{ name: 'get_weather', input: { city: '北京' } }]);
    expect(parts.find((part) => part.type === 'tool-call')).toMatchObject({
      input: '{"city":"北京"}',
    });
  });

  it('reads calls fed one character at a time (vLLM streaming test)', () => {
    const text =
      '<tool_calls>[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {"x": 42}}]</tool_calls>';
    const parser = hunyuan.createStreamParser({ tools });
    const events = [...text].flatMap((character) => parser.push(character));
    events.push(...parser.end());
    expect(
      events.flatMap((event) =>
        event.type === 'tool-call' ? [[event.toolName, JSON.parse(event.input)]] : [],
      ),
    ).toEqual([
      ['a', {}],
      ['b', { x: 42 }],
    ]);
  });

  it('reports a malformed element with its text and runs the others; never a cut-off call', () => {
    const parts = readParts(
      '<tool_calls>[{"arguments": {"city": "Oslo"}}, {"name": "get_weather", "arguments": {"city": "Rome"}}]</tool_calls>',
    );
    expect(callsIn(parts)).toEqual([{ name: 'get_weather', input: { city: 'Rome' } }]);
    expect(errorsIn(parts)[0]).toMatchObject({
      code: 'malformed-call',
      raw: '{"arguments": {"city": "Oslo"}}',
    });
    const cut = readParts('<tool_calls>[{"name": "get_weather", "arguments": {"city": "Ro');
    expect(callsIn(cut)).toEqual([]);
    expect(errorsIn(cut)[0]?.code).toBe('incomplete-call');
  });

  it('writes calls, results and the prompt as the template does', () => {
    expect(
      hunyuan.formatToolCall([
        { toolName: 'get_weather', input: { city: 'Oslo' } },
        { toolName: 'search', input: { query: 'q' } },
      ]),
    ).toBe(
      '<tool_calls>[{"name": "get_weather", "arguments": {"city":"Oslo"}}, {"name": "search", "arguments": {"query":"q"}}]</tool_calls>',
    );
    expect(hunyuan.formatToolResponse({ toolName: 'get_weather', output: 'sunny' })).toBe(
      '<tool_response>sunny</tool_response>',
    );
    const prompt = hunyuan.formatTools(TOOLS);
    expect(prompt).toContain('你是一位函数组合专家。');
    expect(prompt).toContain('"get_weather"');
  });
});

describeFamilyChecks({
  entry: hunyuanA13bFormat,
  protocol: hunyuan,
  modelIds: { chosen: ['tencent/hunyuan-a13b-instruct'], notChosen: ['tencent/hy3-preview'] },
  markup: [
    '<tool_calls>',
    '</tool_calls>',
    '<tool_calls>[',
    '<answer>',
    '</answer>',
    '<tool_response>',
  ],
  wrappers: WRAPPERS,
  outputs: ['<tool_calls>[{"name": "get_we"}}]</to'],
  linear: {
    call: (index) =>
      `<tool_calls>[{"name": "get_weather", "arguments": {"city": "c${index}"}}]</tool_calls>`,
    bigCall: (argument) =>
      `<tool_calls>[{"name": "write_file", "arguments": {"path": "p", "content": "${argument}"}}]</tool_calls>`,
  },
});
