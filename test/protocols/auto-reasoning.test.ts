/**
 * Through `auto`, a call written in special tokens inside reasoning runs as it does through its
 * own format (Kimi K2 Thinking writes its tool-call section before it closes its reasoning; a
 * Mistral `[TOOL_CALLS]` before `[/THINK]`), while plain-text markup there stays reasoning.
 */
import { describe, expect, it } from 'vitest';
import { autoProtocol } from '../../src/protocols/auto/index.ts';
import { callsIn, partsOf, reasoningIn, textIn } from './formats/json-format-checks.ts';

const auto = autoProtocol();

const kimiSection = (json: string) =>
  `<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>${json}<|tool_call_end|><|tool_calls_section_end|>`;

describe('auto: special-token calls inside reasoning', () => {
  it('runs a Kimi section written before </think>', () => {
    const parts = partsOf(
      auto,
      `<think>I need the weather.${kimiSection('{"city": "Oslo"}')}</think>It is mild.`,
    );
    expect(reasoningIn(parts)).toBe('I need the weather.');
    expect(callsIn(parts)).toEqual([{ name: 'get_weather', input: { city: 'Oslo' } }]);
    expect(textIn(parts)).toBe('It is mild.');
  });

  it('runs a Mistral [TOOL_CALLS] written before [/THINK]', () => {
    const parts = partsOf(
      auto,
      '[THINK]Look it up.[TOOL_CALLS]get_weather[ARGS]{"city": "Rome"}[/THINK]Done.',
    );
    expect(callsIn(parts)).toEqual([{ name: 'get_weather', input: { city: 'Rome' } }]);
    expect(reasoningIn(parts)).toContain('Look it up.');
  });

  it('keeps plain-text markup inside reasoning as reasoning', () => {
    const hermes = '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>';
    const parts = partsOf(auto, `<think>Maybe ${hermes} later.</think>No call.`);
    expect(callsIn(parts)).toEqual([]);
    expect(reasoningIn(parts)).toBe(`Maybe ${hermes} later.`);
    expect(textIn(parts)).toBe('No call.');
  });
});
