import type { LanguageModelV4, LanguageModelV4StreamPart } from '@ai-sdk/provider';

/**
 * A model that writes `turn(callIndex)` whole for every call and keeps nothing of what it is
 * asked (the AI SDK's mock model records every call, which would hide what the server keeps).
 */
export function steadyModel(turn: (callIndex: number) => string): LanguageModelV4 {
  let calls = 0;
  return {
    specificationVersion: 'v4',
    provider: 'steady',
    modelId: 'steady',
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error('the steady model only streams')),
    doStream: async () => {
      const text = turn(calls++);
      const parts: LanguageModelV4StreamPart[] = [
        { type: 'stream-start', warnings: [] },
        { type: 'text-start', id: 't' },
        { type: 'text-delta', id: 't', delta: text },
        { type: 'text-end', id: 't' },
        {
          type: 'finish',
          finishReason: { unified: 'stop', raw: 'stop' },
          usage: {
            inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
            outputTokens: { total: 1, text: 1, reasoning: 0 },
          },
        },
      ];
      return {
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  };
}
