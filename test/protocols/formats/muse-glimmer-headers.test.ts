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
import { museGlimmerSpec } from '../../../src/protocols/formats/muse-glimmer.ts';
import { defineFormat } from '../../../src/protocols/spec/define.ts';
import { readAtEverySplit, taggedSpecChecks } from './tagged-spec-checks.ts';

const protocol = defineFormat(museGlimmerSpec);

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

  it('is read by auto from the whole reasoning and answer headers', () => {
    // The tool channel's header stays text in auto: a literal `<|start|>assistant to=` would take
    // gpt-oss's recipient header (llama.cpp's harmony row) from gpt-oss.
    const text = `${CHANNEL}<|start|>assistant to=self<|message|>Got it.<|eom|><|start|>assistant to=user<|message|>Done.<|eot|>`;
    expect(readAtEverySplit(autoProtocol(), text, { tools })).toEqual({
      calls: [['get_weather', { city: 'Oslo' }]],
      text: '<|start|>assistant to=get_weather.get_weather<|message|>Done.',
      reasoning: 'Got it.',
      errors: [],
    });
    const gptOss =
      '<|channel|>analysis<|message|>I\'m\nthinking<|end|><|start|>assistant to=functions.get_weather<|channel|>analysis <|constrain|>json<|message|>{"city": "Oslo"}';
    expect(readAtEverySplit(autoProtocol(), gptOss, { tools }).calls).toEqual([
      ['get_weather', { city: 'Oslo' }],
    ]);
  });

  it('keeps the recipient header of a channel whose body is not ATEM as text', () => {
    const text = '<|start|>assistant to=get_weather<|message|>{"city": "Oslo"}<|eom|>';
    expect(readAtEverySplit(protocol, text, { tools })).toMatchObject({
      calls: [],
      text: ' to=get_weather<|message|>{"city": "Oslo"}',
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
