/**
 * Jamba. Vectors from vLLM's tests/tool_parsers/test_jamba_tool_parser.py (a pretty-printed
 * array, text before it, parallel calls, coarse streaming deltas), and the chat template of
 * ai21labs/AI21-Jamba-Mini-1.7 (its `handle_tool_calls` macro) for the writer.
 */
import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../../src/index.ts';
import { jambaFormat, jambaSpec } from '../../../src/protocols/formats/jamba.ts';
import { defineFormat } from '../../../src/protocols/spec/define.ts';
import { TOOLS } from '../helpers.ts';
import {
  describeFamilyChecks,
  familyReaders,
  itBreaksABareCallOnlyWhereItOpensAResult,
} from './family-checks.ts';
import { callsIn, errorsIn, textIn } from './json-format-checks.ts';

const jamba = defineFormat(jambaSpec);
const weather: ToolDefinition = { name: 'get_current_weather', inputSchema: { type: 'object' } };
const tools = [...TOOLS, weather];
const DALLAS =
  '{"name": "get_current_weather", "arguments": {"city": "Dallas", "state": "TX", "unit": "fahrenheit"}}';
const ORLANDO =
  '{"name": "get_current_weather", "arguments": {"city": "Orlando", "state": "FL", "unit": "fahrenheit"}}';
const WRAPPERS = ['<tool_calls>', '</tool_calls>'];
const { parts: readParts } = familyReaders(jamba, WRAPPERS);

describe('jamba', () => {
  it('reads a pretty-printed array after a leading space', () => {
    const parts = readParts(` <tool_calls>[\n    ${DALLAS}\n]</tool_calls>`, { tools });
    expect(callsIn(parts)).toEqual([
      {
        name: 'get_current_weather',
        input: { city: 'Dallas', state: 'TX', unit: 'fahrenheit' },
      },
    ]);
    expect(textIn(parts)).toBe(' ');
  });

  it('keeps the content before the calls, without the tags', () => {
    const parts = readParts(
      ` Sure! let me call the tool for you.<tool_calls>[\n    ${DALLAS}\n]</tool_calls>`,
      { tools },
    );
    expect(callsIn(parts)).toHaveLength(1);
    expect(textIn(parts)).toBe(' Sure! let me call the tool for you.');
  });

  it('reads parallel calls', () => {
    const parts = readParts(` <tool_calls>[\n    ${DALLAS},\n    ${ORLANDO}\n]</tool_calls>`, {
      tools,
    });
    expect(callsIn(parts).map((call) => (call.input as { city: string }).city)).toEqual([
      'Dallas',
      'Orlando',
    ]);
  });

  it('reads the coarse deltas of the streaming test', () => {
    const parser = jamba.createStreamParser({ tools });
    const events = [
      '<tool_calls>[{"name": "get_current_weather"',
      ',',
      ' "arguments": {"city": "Dallas", "state": "TX"}}]',
      '</tool_calls>',
    ].flatMap((chunk) => parser.push(chunk));
    events.push(...parser.end());
    const calls = events.filter((event) => event.type === 'tool-call');
    expect(calls.map((call) => [call.toolName, JSON.parse(call.input)])).toEqual([
      ['get_current_weather', { city: 'Dallas', state: 'TX' }],
    ]);
    // The name is announced before the arguments end.
    expect(events.findIndex((event) => event.type === 'tool-input-start')).toBeLessThan(
      events.findIndex((event) => event.type === 'tool-call'),
    );
  });

  it('never runs a cut-off block; reports a broken one with its text', () => {
    const cut = readParts(`<tool_calls>[\n    {"name": "get_weather", "arguments": {"ci`);
    expect(callsIn(cut)).toEqual([]);
    expect(errorsIn(cut)[0]?.code).toBe('incomplete-call');
    const broken = readParts('<tool_calls>[{"name": "get_weather", "arguments": }]</tool_calls>');
    expect(callsIn(broken)).toEqual([]);
    expect(errorsIn(broken)[0]?.code).toBe('malformed-call');
  });

  it('writes calls as the template does, and declares the tools in <tool_definitions>', () => {
    expect(
      jamba.formatToolCall([
        { toolName: 'get_weather', input: { city: 'Oslo' } },
        { toolName: 'search', input: { query: 'q' } },
      ]),
    ).toBe(
      '<tool_calls>[\n{"name": "get_weather", "arguments": {"city":"Oslo"}},\n{"name": "search", "arguments": {"query":"q"}}\n]</tool_calls>',
    );
    const prompt = jamba.formatTools(TOOLS);
    expect(prompt.startsWith('<tool_definitions>\n# Tools\n\n## Functions\n\n')).toBe(true);
    expect(prompt).toContain('</tool_definitions>');
    // The function objects themselves, not OpenAI's `{"type": "function", …}` wrapper.
    expect(prompt).toContain('{"name":"get_weather"');
    expect(prompt).not.toContain('"type":"function"');
  });
});

itBreaksABareCallOnlyWhereItOpensAResult(jamba);

describeFamilyChecks({
  entry: jambaFormat,
  protocol: jamba,
  modelIds: {
    chosen: ['ai21labs/ai21-jamba-mini-1.7', 'ai21labs/ai21-jamba-reasoning-3b'],
    notChosen: ['llama3'],
  },
  markup: ['<tool_calls>', '</tool_calls>', '<tool_calls>[', ' '],
  wrappers: WRAPPERS,
  outputs: ['<tool_calls>[{"a": 1}'],
  linear: {
    call: (index) =>
      ` <tool_calls>[{"name": "get_weather", "arguments": {"city": "c${index}"}}]</tool_calls>`,
    bigCall: (argument) =>
      ` <tool_calls>[{"name": "write_file", "arguments": {"path": "p", "content": "${argument}"}}]</tool_calls>`,
  },
});
