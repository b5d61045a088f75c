/**
 * Muse Glimmer's message headers. The generation prompt ends with `<|start|>assistant`, so the
 * first header the model writes is ` to=RECIPIENT<|message|>` (` to` is one token: vLLM's
 * `tests/reasoning/test_muse_glimmer_reasoning_parser.py` pins `reasoning_start_str` to
 * `" to=self<|message|>"`); every later message writes its whole header,
 * `<|start|>assistant to=RECIPIENT<|message|>`, and a header may name no recipient
 * (`<|message|>`: the answer, vLLM's `_MSG_HEADER_RE` in `muse_glimmer_tool_parser.py`).
 */
import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../../src/index.ts';
import { autoProtocol } from '../../../src/index.ts';
import { museGlimmerProtocol } from '../../../src/protocols/formats/muse-glimmer.ts';
import { readAtEverySplit, taggedSpecChecks } from './tagged-spec-checks.ts';

const protocol = museGlimmerProtocol();

const getWeather: ToolDefinition = {
  name: 'get_weather',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
};
const tools = [getWeather];

const BLOCK =
  '<atem:function_calls>\n<atem:invoke name="get_weather.get_weather">\n<atem:parameter name="city">Oslo</atem:parameter>\n</atem:invoke>\n</atem:function_calls>';
const CHANNEL = `<|start|>assistant to=get_weather.get_weather<|message|>${BLOCK}<|eom|>`;

describe('muse-glimmer, message headers', () => {
  it('reads reasoning in a later self message, and the answer after the tool channel', () => {
    const text = ` to=self<|message|>Need the weather.<|eom|>${CHANNEL}<|start|>assistant to=self<|message|>Got it.<|eom|><|start|>assistant to=user<|message|>Done.<|eot|>`;
    expect(readAtEverySplit(protocol, text, { tools })).toEqual({
      calls: [['get_weather', { city: 'Oslo' }]],
      text: 'Done.',
      reasoning: 'Need the weather.Got it.',
      errors: [],
    });
  });

  it('reads a header that names no recipient as the answer, its framing dropped', () => {
    expect(
      readAtEverySplit(protocol, '<|start|>assistant<|message|>Plain.<|eot|>', { tools }),
    ).toEqual({ calls: [], text: 'Plain.', reasoning: '', errors: [] });
  });

  it('is read by auto, the tool channel header too; a harmony header stays gpt-oss', () => {
    // Both formats open a header at `<|start|>`: what follows the recipient decides
    // (`<|message|>` for Muse Glimmer, `<|channel|>` for gpt-oss).
    const text = `${CHANNEL}<|start|>assistant to=self<|message|>Got it.<|eom|><|start|>assistant to=user<|message|>Done.<|eot|>`;
    expect(readAtEverySplit(autoProtocol(), text, { tools })).toEqual({
      calls: [['get_weather', { city: 'Oslo' }]],
      text: 'Done.',
      reasoning: 'Got it.',
      errors: [],
    });
    const gptOss =
      '<|channel|>analysis<|message|>I\'m\nthinking<|end|><|start|>assistant to=functions.get_weather<|channel|>analysis <|constrain|>json<|message|>{"city": "Oslo"}';
    expect(readAtEverySplit(autoProtocol(), gptOss, { tools }).calls).toEqual([
      ['get_weather', { city: 'Oslo' }],
    ]);
  });

  it('keeps a tool channel whose body is not ATEM as text, its header with it', () => {
    const text = '<|start|>assistant to=get_weather<|message|>{"city": "Oslo"}<|eom|>';
    expect(readAtEverySplit(protocol, text, { tools })).toMatchObject({
      calls: [],
      text: '<|start|>assistant to=get_weather<|message|>{"city": "Oslo"}',
      errors: [],
    });
  });

  it("reads the first message's header, which the prompt began, in auto too", () => {
    // The generation prompt ends with `<|start|>assistant`: the output begins ` to=RECIPIENT`.
    const text = ` to=self<|message|>Need the weather.<|eom|>${CHANNEL}<|start|>assistant to=user<|message|>Done.<|eot|>`;
    const expected = {
      calls: [['get_weather', { city: 'Oslo' }]],
      text: 'Done.',
      reasoning: 'Need the weather.',
      errors: [],
    };
    expect(readAtEverySplit(protocol, text, { tools })).toEqual(expected);
    expect(readAtEverySplit(autoProtocol(), text, { tools })).toEqual(expected);
    // A first message that is a tool channel.
    expect(
      readAtEverySplit(autoProtocol(), ` to=get_weather.get_weather<|message|>${BLOCK}<|eom|>`, {
        tools,
      }),
    ).toEqual({ calls: [['get_weather', { city: 'Oslo' }]], text: '', reasoning: '', errors: [] });
  });

  it('reads ATEM written in the answer or in reasoning as text, not as a call (as vLLM)', () => {
    const answer = `<|start|>assistant to=user<|message|>Call it like this: ${BLOCK}<|eot|>`;
    for (const reader of [protocol, autoProtocol()]) {
      expect(readAtEverySplit(reader, answer, { tools })).toEqual({
        calls: [],
        text: `Call it like this: ${BLOCK}`,
        reasoning: '',
        errors: [],
      });
    }
    const thought = ` to=self<|message|>I could write ${BLOCK}<|eom|><|start|>assistant<|message|>No.<|eot|>`;
    expect(readAtEverySplit(protocol, thought, { tools })).toEqual({
      calls: [],
      text: 'No.',
      reasoning: `I could write ${BLOCK}`,
      errors: [],
    });
  });

  describe('guarantees, with the whole headers among the markup', () => {
    taggedSpecChecks(protocol, [
      '</atem:parameter>',
      '<atem:parameter',
      '</atem:invoke>',
      '<atem:invoke',
      '<|eom|>',
      '<|eot|>',
      '<|start|>assistant to=self<|message|>',
      '<|start|>assistant to=user<|message|>',
      '<|start|>assistant<|message|>',
      '<|start|>assistant to=get_weather.get_weather<|message|>',
      ' to=user<|message|>',
    ]);
  });
});
