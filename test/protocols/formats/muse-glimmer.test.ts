/**
 * Muse Glimmer's ATEM calls. The vector is built from vLLM's `muse_glimmer_tool_parser.py`
 * docstring (no upstream parser test was reached).
 */
import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../../src/index.ts';
import {
  museGlimmerFormat,
  museGlimmerProtocol,
  museGlimmerSpec,
} from '../../../src/protocols/formats/muse-glimmer.ts';
import { readAtEverySplit, taggedSpecChecks } from './tagged-spec-checks.ts';

const protocol = museGlimmerProtocol();

const getWeather: ToolDefinition = {
  name: 'get_weather',
  inputSchema: {
    type: 'object',
    properties: { city: { type: 'string' }, days: { type: 'integer' } },
  },
};
const open: ToolDefinition = { name: 'lookup', inputSchema: { type: 'object' } };
const tools = [getWeather, open];

const read = (text: string, interrupted = false) =>
  readAtEverySplit(protocol, text, { tools }, { interrupted });

const BLOCK =
  '<atem:function_calls>\n<atem:invoke name="get_weather.get_weather">\n<atem:parameter name="city">Oslo</atem:parameter>\n</atem:invoke>\n</atem:function_calls>';

describe('muse-glimmer', () => {
  it('reads the ATEM block, the X.X name as X, reasoning in the self channel, the answer', () => {
    const text = ` to=self<|message|>Need the weather.<|eom|><|start|>assistant to=get_weather.get_weather<|message|>${BLOCK}<|eom|><|start|>assistant to=user<|message|>Done.<|eot|>`;
    const result = read(text);
    expect(result.calls).toEqual([['get_weather', { city: 'Oslo' }]]);
    expect(result.reasoning).toBe('Need the weather.');
    expect(result.text).toBe('Done.');
    expect(result.errors).toEqual([]);
  });

  it('keeps prose that writes to= as text, and a channel without ATEM calls as text', () => {
    for (const text of ['Set the flag to=true and go.\nNext line.', 'a to=b <b>bold</b>']) {
      expect(read(text)).toMatchObject({ calls: [], text, errors: [] });
    }
    // A channel whose body is not ATEM: text (the end-of-message token is framing, dropped).
    expect(read(' to=get_weather<|message|>{"city": "Oslo"}<|eom|>')).toMatchObject({
      calls: [],
      text: ' to=get_weather<|message|>{"city": "Oslo"}',
      errors: [],
    });
  });

  it('reads several invokes, JSON-or-text values, and an exact name', () => {
    expect(
      read(
        '<atem:function_calls><atem:invoke name="lookup"><atem:parameter name="q">plain text</atem:parameter><atem:parameter name="n">[1, 2]</atem:parameter></atem:invoke><atem:invoke name="get_weather"><atem:parameter name="city">Rome</atem:parameter><atem:parameter name="days">2</atem:parameter></atem:invoke></atem:function_calls>',
      ).calls,
    ).toEqual([
      ['lookup', { q: 'plain text', n: [1, 2] }],
      ['get_weather', { city: 'Rome', days: 2 }],
    ]);
  });

  it('reads a name repeated only as X.X, and leaves other dotted names undeclared (text)', () => {
    const other =
      '<atem:function_calls><atem:invoke name="get_weather.other"><atem:parameter name="city">X</atem:parameter></atem:invoke></atem:function_calls>';
    expect(read(other)).toMatchObject({ calls: [], text: other });
  });

  it('runs nothing from a cut-off invoke and reports it with its raw text', () => {
    const cut =
      '<atem:function_calls>\n<atem:invoke name="get_weather.get_weather">\n<atem:parameter name="city">Os';
    expect(read(cut)).toMatchObject({ calls: [], errors: [{ code: 'incomplete-call', raw: cut }] });
  });

  it('writes calls', () => {
    expect(protocol.formatToolCall({ toolName: 'get_weather', input: { city: 'Oslo' } })).toBe(
      '<atem:function_calls>\n<atem:invoke name="get_weather">\n<atem:parameter name="city">Oslo</atem:parameter>\n</atem:invoke>\n</atem:function_calls>',
    );
    expect(museGlimmerSpec.models).toContain('muse-glimmer');
  });

  it('is registered for its model ids, and names the tools its calls use', () => {
    for (const id of ['meta-models/muse-glimmer-30b']) {
      expect(
        museGlimmerFormat.models.some((pattern) => pattern.test(id)),
        id,
      ).toBe(true);
    }
    for (const id of ['meta-llama/llama-4-scout']) {
      expect(
        museGlimmerFormat.models.some((pattern) => pattern.test(id)),
        id,
      ).toBe(false);
    }
    const written = museGlimmerFormat.create().formatToolCall([
      { toolName: 'get_weather', input: { city: 'Oslo' } },
      { toolName: 'write_file', input: { path: 'a', content: 'b' } },
    ]);
    expect(museGlimmerFormat.toolNamesIn!(written)).toEqual(['get_weather', 'write_file']);
  });
  describe('guarantees', () => {
    taggedSpecChecks(protocol, [
      '</atem:parameter>',
      '<atem:parameter',
      '</atem:invoke>',
      '</atem:function_calls>',
      '<atem:invoke',
      '<|eom|>',
      ' to=self<|message|>',
      ' to=get_weather.get_weather<|message|>',
      '<|start|>assistant',
    ]);
  });
});
