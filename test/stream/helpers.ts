import {
  type BlockDecoderOptions,
  type BlockEvent,
  createBlockDecoder,
  type DecodedEvent,
  type DecodeProblem,
} from '../../src/stream/index.ts';
import { cutAt, splitAt } from '../support/chunks.ts';

export { chunksOf, splitAt } from '../support/chunks.ts';

/** Every push's events, then end's, in order. */
export function decodeChunks(
  chunks: Iterable<string | Uint8Array>,
  options: BlockDecoderOptions = {},
): DecodedEvent[] {
  const decoder = createBlockDecoder(options);
  const events: DecodedEvent[] = [];
  for (const chunk of chunks) events.push(...decoder.push(chunk));
  events.push(...decoder.end());
  return events;
}

/** XML framing, one chunk. */
export function decodeXml(xml: string | readonly string[]): DecodedEvent[] {
  return decodeChunks(typeof xml === 'string' ? [xml] : xml, { framing: 'xml' });
}

/** UTF-8 bytes cut at the given points (taken modulo the length). */
export function byteChunks(text: string, points: readonly number[]): Uint8Array[] {
  return cutAt(new TextEncoder().encode(text), points);
}

/** Every cut into two pieces, and every piece of `size` characters. */
export function everySplit(text: string): string[][] {
  const splits: string[][] = [];
  for (let at = 0; at <= text.length; at++) splits.push(splitAt(text, [at]));
  for (const size of [1, 2, 3, 7])
    splits.push(
      Array.from({ length: Math.ceil(text.length / size) }, (_, index) =>
        text.slice(index * size, index * size + size),
      ),
    );
  return splits;
}

/**
 * Adjacent deltas of one block (and adjacent stray text) as one event: how much text arrives per
 * event depends on the chunking when there is no SSE message to mark it.
 */
export function mergeDeltas(events: readonly DecodedEvent[]): DecodedEvent[] {
  const out: DecodedEvent[] = [];
  for (const event of events) {
    const last = out[out.length - 1];
    if (last && last.type === event.type) {
      if (event.type === 'text-delta' || event.type === 'thinking-delta') {
        out[out.length - 1] = { ...event, delta: (last as typeof event).delta + event.delta };
        continue;
      }
      if (event.type === 'tool-call-delta' && (last as typeof event).id === event.id) {
        out[out.length - 1] = { ...event, delta: (last as typeof event).delta + event.delta };
        continue;
      }
      if (event.type === 'stray-text') {
        out[out.length - 1] = { ...event, text: (last as typeof event).text + event.text };
        continue;
      }
    }
    out.push(event);
  }
  return out;
}

/** The problems among decoded events. */
export function problemsOf(events: readonly DecodedEvent[]): DecodeProblem[] {
  return events.flatMap((event) => (event.type === 'decode-error' ? [event.problem] : []));
}

/** The block events (no stray text, no problems). */
export function blocksOf(events: readonly DecodedEvent[]): BlockEvent[] {
  return events.filter(
    (event): event is BlockEvent => event.type !== 'decode-error' && event.type !== 'stray-text',
  );
}

/** The text of a block stream: the concatenated text deltas. */
export function textOf(events: readonly DecodedEvent[]): string {
  return events.map((event) => (event.type === 'text-delta' ? event.delta : '')).join('');
}
