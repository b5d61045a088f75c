/**
 * Apriel 1.5 / 1.6. No parser test of Apriel's was reached (see research-23 §13): the vectors are
 * the chat templates' own renderings (llama.cpp models/templates/Apriel-1.6-15b-Thinker-fixed.jinja
 * and unsloth-Apriel-1.5.jinja): reasoning up to `[BEGIN FINAL RESPONSE]`, the calls' array with
 * ids (1.6) or with Python-literal arguments (1.5's `arguments|string`), `<|end|>`.
 */
import { describe, expect, it } from 'vitest';
import { aprielFormat, aprielSpec } from '../../../src/protocols/formats/apriel.ts';
import { defineFormat } from '../../../src/protocols/spec/define.ts';
import { TOOLS } from '../helpers.ts';
import { describeFamilyChecks, familyReaders } from './family-checks.ts';
import { callsIn, errorsIn, reasoningIn, textIn } from './json-format-checks.ts';

const apriel = defineFormat(aprielSpec);
const WRAPPERS = [
  '<tool_calls>',
  '</tool_calls>',
  '[BEGIN FINAL RESPONSE]',
  '[END FINAL RESPONSE]',
  '<|end|>',
];
const { parts: readParts } = familyReaders(apriel, WRAPPERS);

describe('apriel', () => {
  it('starts in reasoning, which ends at [BEGIN FINAL RESPONSE]; reads the calls after it', () => {
    const parts = readParts(
      'The user wants the weather.\n[BEGIN FINAL RESPONSE]\n<tool_calls>[{"name": "get_weather", "arguments": {"city": "Oslo"}}]</tool_calls>\n<|end|>',
    );
    expect(reasoningIn(parts)).toBe('The user wants the weather.\n');
    expect(callsIn(parts)).toEqual([{ name: 'get_weather', input: { city: 'Oslo' } }]);
    expect(textIn(parts).trim()).toBe('');
  });

  it('reads the prefilled reasoning opener when the output repeats it', () => {
    const parts = readParts(
      'Here are my reasoning steps:\nCheck Oslo.\n[BEGIN FINAL RESPONSE]\nIt is sunny.\n[END FINAL RESPONSE]\n<|end|>',
    );
    expect(reasoningIn(parts)).toContain('Check Oslo.');
    expect(textIn(parts).trim()).toBe('It is sunny.');
  });

  it("reads 1.6's ids and 1.5's Python-literal arguments", () => {
    const ids = readParts(
      'x[BEGIN FINAL RESPONSE]<tool_calls>[{"name": "get_weather", "arguments": {"city": "Oslo"}, "id": "call_1"}, {"name": "search", "arguments": {"query": "q"}, "id": "call_2"}]</tool_calls>',
    );
    expect(callsIn(ids)).toEqual([
      { name: 'get_weather', input: { city: 'Oslo' } },
      { name: 'search', input: { query: 'q' } },
    ]);
    const python = readParts(
      "x[BEGIN FINAL RESPONSE]\n<tool_calls>[{\"name\": \"search\", \"arguments\": {'query': 'tides', 'allow_tests': True, 'path': None}}]</tool_calls>",
    );
    expect(callsIn(python)).toEqual([
      { name: 'search', input: { query: 'tides', allow_tests: true, path: null } },
    ]);
  });

  it('reads <tool_call> too (1.5 says it in its instructions)', () => {
    const parts = readParts(
      'x[BEGIN FINAL RESPONSE]<tool_call>[{"name": "get_weather", "arguments": {"city": "Oslo"}}]</tool_call>',
    );
    expect(callsIn(parts)).toEqual([{ name: 'get_weather', input: { city: 'Oslo' } }]);
  });

  it('does not read calls in the reasoning, nor cut-off ones', () => {
    const thought = readParts(
      'I could write <tool_calls>[{"name": "get_weather", "arguments": {"city": "Oslo"}}]</tool_calls>\n[BEGIN FINAL RESPONSE]\nNo call needed.',
    );
    expect(callsIn(thought)).toEqual([]);
    expect(textIn(thought).trim()).toBe('No call needed.');
    const cut = readParts(
      'x[BEGIN FINAL RESPONSE]<tool_calls>[{"name": "get_weather", "arguments": {"city": "Os',
    );
    expect(callsIn(cut)).toEqual([]);
    expect(errorsIn(cut)[0]?.code).toBe('incomplete-call');
  });

  it('reads an output that does not start in reasoning when told so', () => {
    const parts = apriel.parseGeneratedText(
      'Sure.<tool_calls>[{"name": "get_weather", "arguments": {"city": "Oslo"}}]</tool_calls>',
      { tools: TOOLS, startInReasoning: false },
    );
    expect(parts.filter((part) => part.type === 'tool-call')).toHaveLength(1);
  });

  it('drops [BEGIN FINAL RESPONSE] outside reasoning: its own calls read back from text', () => {
    const call = apriel.formatToolCall({ toolName: 'get_weather', input: { city: 'Oslo' } });
    for (const startInReasoning of [false, true]) {
      const parts = apriel.parseGeneratedText(`${call}\nThen: ${call}`, {
        tools: TOOLS,
        startInReasoning,
      });
      expect(callsIn(parts)).toHaveLength(2);
      expect(textIn(parts)).toBe('\nThen: ');
      expect(errorsIn(parts)).toEqual([]);
    }
    // Inside reasoning it still ends the reasoning.
    expect(reasoningIn(readParts('a[BEGIN FINAL RESPONSE]b'))).toBe('a');
    expect(textIn(readParts('a[BEGIN FINAL RESPONSE]b'))).toBe('b');
  });

  it('writes calls, results and the prompt as 1.6 does', () => {
    expect(apriel.formatToolCall({ toolName: 'get_weather', input: { city: 'Oslo' } })).toBe(
      '[BEGIN FINAL RESPONSE]<tool_calls>[{"name": "get_weather", "arguments": {"city":"Oslo"}}]</tool_calls>',
    );
    expect(apriel.formatToolResponse({ toolName: 'get_weather', output: 'sunny' })).toBe(
      '<|begin_tool_result|>\nsunny\n',
    );
    expect(apriel.formatTools(TOOLS)).toContain(
      'Return all function calls as a list of JSON objects within <tool_calls></tool_calls> XML tags.',
    );
  });
});

describeFamilyChecks({
  entry: aprielFormat,
  protocol: apriel,
  modelIds: { chosen: ['servicenow-ai/apriel-1.6-15b-thinker'], notChosen: ['qwen3'] },
  markup: [
    '[BEGIN FINAL RESPONSE]',
    '[END FINAL RESPONSE]',
    '<|end|>',
    '<tool_calls>',
    '</tool_calls>',
    '<tool_call>',
    "{'city': 'Oslo'}",
    'Here are my reasoning steps:',
  ],
  wrappers: WRAPPERS,
  linear: {
    call: (index) =>
      `[BEGIN FINAL RESPONSE]<tool_calls>[{"name": "get_weather", "arguments": {"city": "c${index}"}}]</tool_calls>`,
    bigCall: (argument) =>
      `[BEGIN FINAL RESPONSE]<tool_calls>[{"name": "write_file", "arguments": {"path": "p", "content": "${argument}"}}]</tool_calls>`,
  },
});
