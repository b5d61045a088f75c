import type { LanguageModelV4StreamPart, LanguageModelV4Usage } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { readToFinish, STREAM_END_LIMITS } from '../../src/agent/stream-end.ts';

const USAGE: LanguageModelV4Usage = {
  inputTokens: { total: 12, noCache: 12, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 3, text: 3, reasoning: undefined },
};

const FINISH: LanguageModelV4StreamPart = {
  type: 'finish',
  finishReason: { unified: 'stop', raw: 'stop' },
  usage: USAGE,
};

function text(delta: string): LanguageModelV4StreamPart {
  return { type: 'text-delta', id: 't', delta };
}

/** A stream of `parts`; `stall` keeps it open afterwards, as a server that sends nothing more. */
function streamOf(parts: LanguageModelV4StreamPart[], stall = false) {
  let cancelled = false;
  const stream = new ReadableStream<LanguageModelV4StreamPart>({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      if (!stall) controller.close();
    },
    cancel() {
      cancelled = true;
    },
  });
  return { reader: stream.getReader(), cancelled: () => cancelled };
}

describe('readToFinish: the end of a cut turn', () => {
  it('reads past the text that follows the call to the finish part and its usage', async () => {
    const { reader } = streamOf([text('\nmore words'), { type: 'text-end', id: 't' }, FINISH]);
    expect(await readToFinish(reader)).toEqual({ finished: true, usage: USAGE });
  });

  it('a stream that ends without a finish part: finished, no usage', async () => {
    const { reader } = streamOf([text('x')]);
    expect(await readToFinish(reader)).toEqual({ finished: true });
  });

  it('gives up past maxChars of text, whatever comes after', async () => {
    const { reader } = streamOf([text('x'.repeat(STREAM_END_LIMITS.maxChars + 1)), FINISH]);
    expect(await readToFinish(reader)).toEqual({ finished: false });
  });

  it('gives up after maxMs on a stream that stalls; the caller then cancels it', async () => {
    const { reader, cancelled } = streamOf([text('x')], true);
    expect(await readToFinish(reader, { maxChars: 100, maxMs: 20 })).toEqual({ finished: false });
    await reader.cancel();
    expect(cancelled()).toBe(true);
  });

  it('a stream that fails or reports an error: given up, never thrown', async () => {
    const failing = new ReadableStream<LanguageModelV4StreamPart>({
      pull(controller) {
        controller.error(new Error('reset'));
      },
    });
    expect(await readToFinish(failing.getReader())).toEqual({ finished: false });
    const { reader } = streamOf([{ type: 'error', error: new Error('server said no') }, FINISH]);
    expect(await readToFinish(reader)).toEqual({ finished: false });
  });
});
