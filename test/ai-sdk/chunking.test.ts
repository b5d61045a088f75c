import { generateText, stepCountIs, streamText, wrapLanguageModel } from 'ai';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createToolMiddleware } from '../../src/ai-sdk/index.ts';
import {
  chunksOf,
  PROTOCOLS,
  scriptedModel,
  splitAt,
  stepSummary,
  weatherTools,
} from './support.ts';

/** What a streamText loop produced, without ids: must not depend on how the text was cut. */
async function streamRun(
  protocol: (typeof PROTOCOLS)[number]['protocol'],
  outputs: string[],
  chunking: (text: string) => readonly string[],
) {
  const ran: { toolName: string; input: unknown }[] = [];
  const model = scriptedModel(outputs, chunking);
  const result = streamText({
    model: wrapLanguageModel({ model, middleware: createToolMiddleware({ protocol }) }),
    prompt: 'Weather and time?',
    tools: weatherTools(ran),
    stopWhen: stepCountIs(5),
  });
  // tool-input deltas per call, joined: they must spell out each call's input.
  const streamedInputs = new Map<string, string>();
  const order: string[] = [];
  for await (const part of result.fullStream) {
    if (part.type === 'tool-input-delta')
      streamedInputs.set(part.id, (streamedInputs.get(part.id) ?? '') + part.delta);
    if (part.type === 'tool-call') order.push(part.toolCallId);
  }
  const steps = (await result.steps).map(stepSummary);
  const calls = (await result.steps).flatMap((step) => step.toolCalls);
  expect(calls.map((call) => JSON.parse(streamedInputs.get(call.toolCallId) ?? 'null'))).toEqual(
    calls.map((call) => call.input),
  );
  expect(order).toEqual(calls.map((call) => call.toolCallId));
  return { steps, ran, secondPrompt: model.calls[1]?.prompt };
}

describe.each(PROTOCOLS)('$name: chunk invariance through streamText', ({ protocol }) => {
  const calls = protocol.formatToolCall([
    { toolName: 'get_weather', input: { city: 'Seoul', unit: 'celsius' } },
    { toolName: 'get_time', input: { city: 'São Paulo <&> "quoted" ]]> </city>\nnext line' } },
  ]);
  const outputs = [
    `<think>Two tools; <tool_call> here is only a thought.</think>\nChecking both.\n${calls}\nDone.`,
    'Sunny in Seoul, and it is 10:30 in São Paulo.',
  ];

  it('1-character chunks, whole text, and generateText all agree', async () => {
    const whole = await streamRun(protocol, outputs, (text) => [text]);
    const single = await streamRun(protocol, outputs, (text) => chunksOf(text, 1));
    expect(single).toEqual(whole);
    expect(whole.steps[0]!.toolCalls).toEqual([
      { toolName: 'get_weather', input: { city: 'Seoul', unit: 'celsius' } },
      { toolName: 'get_time', input: { city: 'São Paulo <&> "quoted" ]]> </city>\nnext line' } },
    ]);
    expect(whole.steps[0]!.reasoning).toBe('Two tools; <tool_call> here is only a thought.');
    expect(whole.ran).toHaveLength(2);

    const generated = await generateText({
      model: wrapLanguageModel({
        model: scriptedModel(outputs),
        middleware: createToolMiddleware({ protocol }),
      }),
      prompt: 'Weather and time?',
      tools: weatherTools(),
      stopWhen: stepCountIs(5),
    });
    expect(generated.steps.map(stepSummary)).toEqual(whole.steps);
  });

  it('random chunk sizes give the same steps, calls and next prompt', async () => {
    const whole = await streamRun(protocol, outputs, (text) => [text]);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.nat({ max: 400 }), { maxLength: 60 }),
        fc.array(fc.nat({ max: 60 }), { maxLength: 10 }),
        async (firstCuts, secondCuts) => {
          let call = 0;
          const cut = (text: string) => splitAt(text, call++ === 0 ? firstCuts : secondCuts);
          const run = await streamRun(protocol, outputs, cut);
          expect(run.steps).toEqual(whole.steps);
          expect(run.ran).toEqual(whole.ran);
          // The history the model sees next does not depend on chunking either (ids aside).
          expect(JSON.stringify(run.secondPrompt).replace(/tw_\w+/g, 'ID')).toBe(
            JSON.stringify(whole.secondPrompt).replace(/tw_\w+/g, 'ID'),
          );
        },
      ),
      { numRuns: 40 },
    );
  });
});
