/**
 * Hunyuan's reasoning tags with the checkpoint's suffix (`<think:6124c78e>`). The tokenizers put
 * a per-checkpoint suffix in every special token; `6124c78e` is the one every captured Hy3/Hy4
 * output so far carries (test/fixtures/families/PROVENANCE.md, hy4-preview-turn.txt). vLLM's
 * HYV4 reasoning tests (`tests/reasoning/test_hy_v4_reasoning_parser.py`, SUFFIX `:6124c78e`):
 * the prompt opens `<think:SFX>`, so the output starts inside it and only the closer appears;
 * an echoed opener is dropped.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { autoProtocol, type ToolDefinition } from '../../../src/index.ts';
import { hunyuanHyFormat, hunyuanHySpec } from '../../../src/protocols/formats/hunyuan-hy.ts';
import { defineFormat } from '../../../src/protocols/spec/define.ts';
import { readAtEverySplit } from './tagged-spec-checks.ts';

const protocol = defineFormat(hunyuanHySpec);

const getWeather: ToolDefinition = {
  name: 'get_weather',
  inputSchema: {
    type: 'object',
    properties: { city: { type: 'string' }, days: { type: 'integer' } },
  },
};
const tools = [getWeather];
const SFX = ':6124c78e';
const START = `<think${SFX}>`;
const END = `</think${SFX}>`;

const fixture = (name: string) =>
  readFileSync(new URL(`../../fixtures/families/${name}`, import.meta.url), 'utf8').trimEnd();

describe('hunyuan-hy, suffixed reasoning tags', () => {
  it("reads vLLM's HYV4 vectors: the closer alone when the prompt opened reasoning, an echoed opener", () => {
    const inside = { tools, startInReasoning: true };
    expect(readAtEverySplit(protocol, `pondering${END}answer`, inside)).toMatchObject({
      reasoning: 'pondering',
      text: 'answer',
      errors: [],
    });
    expect(readAtEverySplit(protocol, `${START}pondering${END}answer`, inside)).toMatchObject({
      reasoning: 'pondering',
      text: 'answer',
    });
    expect(readAtEverySplit(protocol, 'pondering', inside)).toMatchObject({
      reasoning: 'pondering',
      text: '',
    });
    // Reasoning the output opens itself, with the prompt not opening it.
    expect(readAtEverySplit(protocol, `${START}r${END}c`, { tools })).toMatchObject({
      reasoning: 'r',
      text: 'c',
    });
  });

  it('reads a Hy4 Preview turn: reasoning closed by the suffixed tag, then the suffixed calls', () => {
    expect(
      readAtEverySplit(protocol, fixture('hy4-preview-turn.txt'), {
        tools,
        startInReasoning: true,
      }),
    ).toEqual({
      calls: [['get_weather', { city: 'Beijing', days: 3 }]],
      text: 'Sure, checking.',
      reasoning: 'The user wants the weather in Beijing for three days; call get_weather.',
      errors: [],
    });
  });

  it('reads no call inside suffixed reasoning', () => {
    const text = `${START}Maybe <tool_calls${SFX}><tool_call${SFX}>get_weather<arg_key${SFX}>city</arg_key${SFX}><arg_value${SFX}>Oslo</arg_value${SFX}></tool_call${SFX}></tool_calls${SFX}>${END}No.`;
    expect(readAtEverySplit(protocol, text, { tools })).toMatchObject({ calls: [], text: 'No.' });
  });

  it('is registered for the Hy4 Preview ids the captures were served under', () => {
    for (const id of ['hy4-preview', 'opencode-go/hy4-preview', 'workbuddy/hy4-preview-f']) {
      expect(
        hunyuanHyFormat.models.some((pattern) => pattern.test(id)),
        id,
      ).toBe(true);
    }
  });

  it('is read by auto too', () => {
    expect(
      readAtEverySplit(autoProtocol(), fixture('hy4-preview-turn.txt'), {
        tools,
        startInReasoning: true,
      }),
    ).toMatchObject({
      calls: [['get_weather', { city: 'Beijing', days: 3 }]],
      text: 'Sure, checking.',
      errors: [],
    });
  });

  it("reads a suffix it has not seen: the closer repeats the opener's", () => {
    const call =
      '<tool_calls:a1b2><tool_call:a1b2>get_weather<tool_sep:a1b2><arg_key:a1b2>city</arg_key:a1b2><arg_value:a1b2>Oslo</arg_value:a1b2></tool_call:a1b2></tool_calls:a1b2>';
    expect(
      readAtEverySplit(protocol, `<think:a1b2>pondering</think:a1b2>answer${call}`, { tools }),
    ).toEqual({
      calls: [['get_weather', { city: 'Oslo' }]],
      text: 'answer',
      reasoning: 'pondering',
      errors: [],
    });
    // The prompt opened reasoning with a suffix the output never writes again.
    expect(
      readAtEverySplit(protocol, 'pondering</think:a1b2>answer', { tools, startInReasoning: true }),
    ).toMatchObject({ reasoning: 'pondering', text: 'answer', errors: [] });
    // Another suffix does not close it: the block runs to the end.
    expect(
      readAtEverySplit(protocol, '<think:a1b2>pondering</think:c3d4>answer', { tools }),
    ).toMatchObject({ reasoning: 'pondering</think:c3d4>answer', text: '' });
  });
});
