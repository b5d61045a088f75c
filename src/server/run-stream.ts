import type { AgentEvent, AgentResult, AgentRun } from '../agent/index.ts';
import { BlockEncoder, type BlockEvent, type MetaInitData } from '../stream/index.ts';
import type { AgentBlockAdapter } from './agent-blocks.ts';

export interface RunStreamOptions {
  readonly run: AgentRun;
  readonly meta: MetaInitData;
  readonly adapter: AgentBlockAdapter;
  /** Sees each agent event before its blocks are sent (the registry pauses a run here). */
  readonly onEvent?: (event: AgentEvent) => void;
  /** The reader went away (client disconnect): abort the run. */
  readonly onCancel: () => void;
}

/**
 * A run as the SSE body of a response: `meta_init`, then the blocks of its events as they
 * come, then what ends it (`meta_final`, an error, or nothing for a pause). Pulled: nothing is
 * encoded ahead of the reader, and the run itself never waits for the reader.
 */
export function runToSse(options: RunStreamOptions): ReadableStream<Uint8Array> {
  const encoder = new BlockEncoder();
  const utf8 = new TextEncoder();
  const blocks = runBlocks(options)[Symbol.asyncIterator]();
  let cancelled = false;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          // Encode until there is something to send (an empty delta sends nothing).
          while (!cancelled) {
            const next = await blocks.next();
            if (cancelled) return;
            if (next.done) {
              const tail = encoder.end();
              if (tail.length > 0) controller.enqueue(utf8.encode(tail));
              controller.close();
              return;
            }
            const text = encoder.encode(next.value);
            if (text.length > 0) {
              controller.enqueue(utf8.encode(text));
              return;
            }
          }
        } catch (error) {
          // A bug in the adapter or the encoder: tell the reader rather than cut the stream.
          if (cancelled) return;
          const tail =
            encoder.end() +
            new BlockEncoder().encode({
              type: 'error',
              error: {
                type: 'server_error',
                message: `the server could not encode the run: ${(error as Error).message}`,
              },
            });
          controller.enqueue(utf8.encode(tail));
          controller.close();
          options.onCancel();
        }
      },
      cancel() {
        cancelled = true;
        options.onCancel();
      },
    },
    { highWaterMark: 0 },
  );
}

async function* runBlocks(options: RunStreamOptions): AsyncGenerator<BlockEvent> {
  const { run, adapter } = options;
  yield { type: 'meta-init', data: options.meta };
  for await (const event of run) {
    options.onEvent?.(event);
    yield* adapter.push(event);
  }
  const result: AgentResult = await run.result;
  yield* adapter.finish(result);
}
