import { generateText, jsonSchema, stepCountIs, streamText, tool, wrapLanguageModel } from 'ai-v6';
import { convertArrayToReadableStream, MockLanguageModelV3 } from 'ai-v6/test';
import { describe, expect, it } from 'vitest';
import { ToolMiddlewareError, xmlProtocol } from '../../src/ai-sdk/index.ts';
import { hermesToolMiddlewareV3, xmlToolMiddlewareV3 } from '../../src/ai-sdk/v3.ts';
import { chunksOf } from './support.ts';

// ai 6 has its own @ai-sdk/provider 3: its types are taken from its mock, not from provider 4.
type V3Model = InstanceType<typeof MockLanguageModelV3>;
type LanguageModelV3CallOptions = Parameters<V3Model['doStream']>[0];
type LanguageModelV3StreamPart =
  Awaited<ReturnType<V3Model['doStream']>>['stream'] extends ReadableStream<infer Part>
    ? Part
    : never;
type LanguageModelV3Usage = Extract<LanguageModelV3StreamPart, { type: 'finish' }>['usage'];

/**
 * Here @ai-sdk/provider resolves to 4 (for ai 7) while ai-v6 carries provider 3, whose JSON types
 * differ slightly (readonly arrays): the V3-typed middleware matches provider 3's types exactly in
 * an ai 6 install, where @ai-sdk/provider is 3. Only this two-versions test setup needs the cast.
 */
type V6Middleware = Parameters<typeof wrapLanguageModel>[0]['middleware'];
const forV6 = (middleware: unknown) => middleware as V6Middleware;

const USAGE: LanguageModelV3Usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

/** An ai 6 (LanguageModelV3) text-only model writing the scripted outputs. */
function v3Model(outputs: string[]) {
  const calls: LanguageModelV3CallOptions[] = [];
  const next = (options: LanguageModelV3CallOptions) => {
    calls.push(options);
    return outputs[calls.length - 1] ?? '';
  };
  const model = new MockLanguageModelV3({
    doGenerate: async (options) => ({
      content: [{ type: 'text', text: next(options) }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: USAGE,
      warnings: [],
    }),
    doStream: async (options) => {
      const parts: LanguageModelV3StreamPart[] = [
        { type: 'stream-start', warnings: [] },
        { type: 'text-start', id: 't' },
        ...chunksOf(next(options), 4).map((delta) => ({
          type: 'text-delta' as const,
          id: 't',
          delta,
        })),
        { type: 'text-end', id: 't' },
        { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: USAGE },
      ];
      return { stream: convertArrayToReadableStream(parts) };
    },
  });
  return Object.assign(model, { calls });
}

function tools(ran: unknown[]) {
  return {
    get_weather: tool({
      description: 'Current weather for a city',
      inputSchema: jsonSchema<{ city: string }>({
        type: 'object',
        properties: { city: { type: 'string' } },
        required: ['city'],
      }),
      execute: async (input: { city: string }) => {
        ran.push(input);
        return { city: input.city, sky: 'sunny' };
      },
    }),
  };
}

const CALL = xmlProtocol().formatToolCall({ toolName: 'get_weather', input: { city: 'Seoul' } });

describe('ai 6 (LanguageModelV3) with the V3-typed middleware', () => {
  it.each(['generate', 'stream'] as const)('runs a two-step weather loop (%s)', async (mode) => {
    const model = v3Model([`Checking.\n${CALL}`, 'Sunny in Seoul.']);
    const ran: unknown[] = [];
    const options = {
      model: wrapLanguageModel({ model, middleware: forV6(xmlToolMiddlewareV3()) }),
      prompt: 'Weather in Seoul?',
      tools: tools(ran),
      stopWhen: stepCountIs(5),
    };
    const result = mode === 'generate' ? await generateText(options) : streamText(options);
    const steps = await result.steps;
    expect(await result.text).toBe('Sunny in Seoul.');
    expect(ran).toEqual([{ city: 'Seoul' }]);
    expect(steps.map((step) => step.finishReason)).toEqual(['tool-calls', 'stop']);
    expect(steps[0]!.toolCalls.map((call) => call.input)).toEqual([{ city: 'Seoul' }]);
    expect(model.calls[0]!.tools).toBeUndefined();
    expect(model.calls[1]!.prompt.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'user',
    ]);
    expect(model.calls[1]!.prompt[3]).toEqual({
      role: 'user',
      content: [
        {
          type: 'text',
          text: xmlProtocol().formatToolResponse({
            toolName: 'get_weather',
            output: { city: 'Seoul', sky: 'sunny' },
          }),
        },
      ],
    });
  });

  it("ai 6 does not enforce toolChoice itself; the middleware's error stops a wrong step", async () => {
    const model = v3Model(['No tool needed.']);
    const error = await generateText({
      model: wrapLanguageModel({ model, middleware: forV6(hermesToolMiddlewareV3()) }),
      prompt: 'Weather in Seoul?',
      tools: tools([]),
      toolChoice: 'required',
    }).catch((caught: unknown) => caught);
    expect(ToolMiddlewareError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'tool-choice-not-followed' });
  });

  it('the middleware is a V3 middleware', () => {
    expect(xmlToolMiddlewareV3().specificationVersion).toBe('v3');
  });
});
