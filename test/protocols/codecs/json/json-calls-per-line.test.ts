/**
 * `perLine` JSON blocks (MiniMax-M1's `<tool_calls>\n{…}\n{…}\n</tool_calls>`): one call object
 * per line, and a line that is not one costs only itself. Test vectors from vLLM's
 * tests/tool_parsers/test_minimax_tool_parser.py, where each bad line is skipped and the others
 * are kept; toolwire also reports each bad line with its raw text, in the order of the lines.
 */
import { describe, expect, it } from 'vitest';
import type { ToolCallProtocol, ToolDefinition } from '../../../../src/index.ts';
import {
  JsonCallsBody,
  type JsonCallsBodyConfig,
} from '../../../../src/protocols/codecs/json/json-calls-body.ts';
import { defineProtocol } from '../../../../src/protocols/define/define-protocol.ts';
import { THINK_TAGS } from '../../../../src/protocols/engine/reasoning-tags.ts';
import { callsIn, errorsIn, partsOf, textIn } from '../../formats/json-format-checks.ts';
import { TOOLS } from '../../helpers.ts';

function blockReader(perLine: boolean): ToolCallProtocol {
  const config: JsonCallsBodyConfig = {
    shape: { nameKeys: ['name'], argumentKeys: ['arguments'] },
    closer: '</tool_calls>',
    speculative: false,
    ...(perLine ? { perLine: true } : {}),
  };
  return defineProtocol<JsonCallsBodyConfig>({
    name: perLine ? 'per-line' : 'one-value',
    grammar: {
      reasoningTags: THINK_TAGS,
      callOpeners: () => [{ literal: '<tool_calls>', delimited: false, data: config }],
      openCall: (data, context) => new JsonCallsBody(context, data),
    },
    formatTools: () => '',
    formatToolCall: () => '',
    formatToolResponse: () => '',
  });
}

const perLine = blockReader(true);
const loose = (name: string): ToolDefinition => ({ name, inputSchema: { type: 'object' } });
const tools = [...TOOLS, loose('valid_tool'), loose('another_valid_tool'), loose('missing_args')];

describe('perLine JSON blocks', () => {
  it('reads the lines around one that is not JSON, and reports that one in its place', () => {
    const parts = partsOf(
      perLine,
      '<tool_calls>\n{"name": "valid_tool", "arguments": {"action": "test"}}\n{invalid json here}\n{"name": "another_valid_tool", "arguments": {"param": "value"}}\n</tool_calls>',
      { tools },
    );
    expect(callsIn(parts)).toEqual([
      { name: 'valid_tool', input: { action: 'test' } },
      { name: 'another_valid_tool', input: { param: 'value' } },
    ]);
    expect(errorsIn(parts).map((error) => [error.code, error.raw])).toEqual([
      ['malformed-call', '{invalid json here}'],
    ]);
    // In the order of the lines: the first call, the bad line, the second call.
    expect(parts.map((part) => part.type)).toEqual(['tool-call', 'error', 'text', 'tool-call']);
  });

  it('without perLine, everything after a bad line is one fault (the difference)', () => {
    const parts = partsOf(
      blockReader(false),
      '<tool_calls>\n{"name": "valid_tool", "arguments": {}}\n{invalid json here}\n{"name": "another_valid_tool", "arguments": {}}\n</tool_calls>',
      { tools },
    );
    expect(callsIn(parts).map((call) => call.name)).toEqual(['valid_tool']);
  });

  it('reports a line naming no tool, and prose, each with its text; keeps the calls', () => {
    const parts = partsOf(
      perLine,
      '<tool_calls>\n{"arguments": {"a": 1}}\nhello there\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_calls>',
      { tools },
    );
    expect(callsIn(parts)).toEqual([{ name: 'get_weather', input: { city: 'Oslo' } }]);
    expect(errorsIn(parts).map((error) => error.raw)).toEqual([
      '{"arguments": {"a": 1}}',
      'hello there',
    ]);
  });

  it('keeps an undeclared tool as text, and a block of nothing but bad lines drops only its tags', () => {
    const undeclared = partsOf(
      perLine,
      'Go.<tool_calls>\n{"name": "launch", "arguments": {}}\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_calls>',
      { tools },
    );
    expect(callsIn(undeclared).map((call) => call.name)).toEqual(['get_weather']);
    expect(textIn(undeclared)).toBe('Go.{"name": "launch", "arguments": {}}');
    const bad = partsOf(perLine, '<tool_calls>\nnot a call</tool_calls>done', { tools });
    expect(errorsIn(bad).map((error) => error.raw)).toEqual(['not a call']);
    expect(textIn(bad)).toBe('not a calldone');
  });

  it('reads a call cut off by the end of the output (no closer) and one spread over lines', () => {
    expect(
      callsIn(
        partsOf(
          perLine,
          '<tool_calls>\n{"name": "get_weather", "arguments": {"city": "Boston", "days": 2}}',
          { tools },
        ),
      ),
    ).toEqual([{ name: 'get_weather', input: { city: 'Boston', days: 2 } }]);
    expect(
      callsIn(
        partsOf(
          perLine,
          '<tool_calls>\n{"name": "get_weather",\n "arguments": {"city": "Oslo"}}\n</tool_calls>',
          {
            tools,
          },
        ),
      ),
    ).toEqual([{ name: 'get_weather', input: { city: 'Oslo' } }]);
  });

  it('never runs a line cut off inside its JSON, nor the calls of an interrupted block', () => {
    const cut = partsOf(
      perLine,
      '<tool_calls>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n{"name": "get_weather", "arguments": {"city": "Os',
      { tools },
    );
    expect(callsIn(cut)).toEqual([{ name: 'get_weather', input: { city: 'Oslo' } }]);
    expect(errorsIn(cut).map((error) => error.code)).toEqual(['incomplete-call']);
    const interrupted = partsOf(
      perLine,
      '<tool_calls>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\nbroken line',
      { tools, interrupted: true },
    );
    expect(callsIn(interrupted)).toEqual([]);
  });

  it('a bad line that started a call closes its input stream (the call is not run)', () => {
    const parts = partsOf(
      perLine,
      '<tool_calls>\n{"name": "get_weather", "arguments": {"city": "Oslo" "days": }}\n{"name": "search", "arguments": {"query": "q"}}\n</tool_calls>',
      { tools },
    );
    expect(callsIn(parts)).toEqual([{ name: 'search', input: { query: 'q' } }]);
    expect(errorsIn(parts)[0]).toMatchObject({ code: 'malformed-call', toolName: 'get_weather' });
  });
});
