import type { BlockEvent, DecodedEvent } from './blocks.ts';
import { type BlockDecoderOptions, createBlockDecoder } from './decoder.ts';
import { BlockEncoder } from './encoder.ts';

/**
 * Web-standard streams (Node, Deno, Bun, Workers, browsers): no Node stream import, so the same
 * body works in Hono, a `Response`, or `fetch`.
 */

/** Block events in, the UTF-8 SSE body out. An open block is closed when the input ends. */
export function createBlockEncoderStream(): TransformStream<BlockEvent, Uint8Array> {
  const encoder = new BlockEncoder();
  const utf8 = new TextEncoder();
  return new TransformStream({
    transform(event, controller) {
      const text = encoder.encode(event);
      if (text.length > 0) controller.enqueue(utf8.encode(text));
    },
    flush(controller) {
      const text = encoder.end();
      if (text.length > 0) controller.enqueue(utf8.encode(text));
    },
  });
}

/** A response body (SSE, UTF-8) for any source of block events; pulled, so it keeps backpressure. */
export function blockEventsToSse(
  events: AsyncIterable<BlockEvent> | Iterable<BlockEvent>,
): ReadableStream<Uint8Array> {
  return iterableToStream(events).pipeThrough(createBlockEncoderStream());
}

/** An SSE body (bytes or text, any chunking) in, decoded events out. */
export function createBlockDecoderStream(
  options: BlockDecoderOptions = {},
): TransformStream<string | Uint8Array, DecodedEvent> {
  const decoder = createBlockDecoder(options);
  return new TransformStream({
    transform(chunk, controller) {
      for (const event of decoder.push(chunk)) controller.enqueue(event);
    },
    flush(controller) {
      for (const event of decoder.end()) controller.enqueue(event);
    },
  });
}

/** A pull-based stream over an iterable; cancelling the stream ends the iterator (`return`). */
export function iterableToStream<T>(source: AsyncIterable<T> | Iterable<T>): ReadableStream<T> {
  const iterator =
    Symbol.asyncIterator in source
      ? (source as AsyncIterable<T>)[Symbol.asyncIterator]()
      : (source as Iterable<T>)[Symbol.iterator]();
  return new ReadableStream<T>({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    async cancel(reason) {
      await iterator.return?.(reason);
    },
  });
}
