import type { LanguageModelV4StreamPart, LanguageModelV4Usage } from '@ai-sdk/provider';

/** How much of a cut turn's stream is read for its end. */
export interface StreamEndLimits {
  /** Characters the model may still write (text, reasoning, call input) before it is stopped. */
  readonly maxChars: number;
  /** Time to wait for the finish part. */
  readonly maxMs: number;
}

/**
 * The default: a model told to make one call per reply usually ends right after it, and the
 * server then sends the finish part with the usage; a model that goes on writing is stopped
 * after about 60 tokens (the point of cutting the turn is not to pay for that text).
 */
export const STREAM_END_LIMITS: StreamEndLimits = { maxChars: 256, maxMs: 5_000 };

export interface StreamEnd {
  /** The stream ended (with or without a finish part) within the limits. */
  readonly finished: boolean;
  /** The usage of the finish part, when there was one. */
  readonly usage?: LanguageModelV4Usage;
}

/**
 * The rest of a cut turn's stream (xml's one action per turn), read for its finish part only:
 * the usage an OpenAI-compatible server sends last. What the model writes after the call is
 * dropped unread: no one sees it and no parser gets it. `finished` is false when no end came
 * within the limits or the stream failed: the step's usage then stays unknown. The caller
 * aborts the request afterwards, which stops the generation and ends a read still pending.
 */
export async function readToFinish(
  reader: ReadableStreamDefaultReader<LanguageModelV4StreamPart>,
  limits: StreamEndLimits = STREAM_END_LIMITS,
): Promise<StreamEnd> {
  const givenUp: StreamEnd = { finished: false };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeUp = new Promise<StreamEnd>((resolve) => {
    timer = setTimeout(() => resolve(givenUp), limits.maxMs);
  });
  const read = async (): Promise<StreamEnd> => {
    let chars = 0;
    while (true) {
      const { done, value } = await reader.read();
      if (done) return { finished: true };
      if (value.type === 'finish') return { finished: true, usage: value.usage };
      if (value.type === 'error') return givenUp;
      if ('delta' in value && typeof value.delta === 'string') {
        chars += value.delta.length;
        if (chars > limits.maxChars) return givenUp;
      }
    }
  };
  try {
    return await Promise.race([read().catch(() => givenUp), timeUp]);
  } finally {
    clearTimeout(timer);
  }
}
