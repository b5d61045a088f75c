import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BlockEncoder,
  type BlockEvent,
  createBlockDecoder,
  type DecodedEvent,
  decodeBlocks,
} from '../../src/stream/index.ts';

/** One logged message as the server sends it: `id:` then the frame. */
interface Entry {
  readonly id: string;
  readonly frame: string;
}

/** A run's log as `GET /api/runs/:id/events` serves it: each event with its id, keep-alives between some. */
function record(events: readonly BlockEvent[], keepAliveEvery = 3): Entry[] {
  const encoder = new BlockEncoder();
  const entries: Entry[] = [];
  for (const event of events) {
    const frame = encoder.encode(event);
    if (frame.length === 0) continue;
    entries.push({ id: `1764370800000-${entries.length}`, frame });
  }
  return entries.map((entry, index) => ({
    id: entry.id,
    // A comment is no message: it never moves the last id (the server sends one every 15 s idle).
    frame: index % keepAliveEvery === keepAliveEvery - 1 ? `${entry.frame}:\n\n` : entry.frame,
  }));
}

/** The body of a read after `after` (from the start when undefined), as the server sends it. */
function body(entries: readonly Entry[], after: string | undefined): string {
  const start = after === undefined ? 0 : entries.findIndex((entry) => entry.id === after) + 1;
  if (start === 0 && after !== undefined) throw new Error(`no entry ${after}`);
  return entries
    .slice(start)
    .map((entry) => `id: ${entry.id}\n${entry.frame}`)
    .join('');
}

const utf8 = new TextEncoder();

/**
 * Reads the log over connections that each drop after the given number of bytes (chunked as
 * given), reconnecting after `lastEventId` each time, then reads the rest to its end.
 */
function readAcrossDrops(
  entries: readonly Entry[],
  drops: readonly number[],
  chunkBytes = Number.POSITIVE_INFINITY,
): DecodedEvent[] {
  const decoder = createBlockDecoder();
  const events: DecodedEvent[] = [];
  const read = (bytes: Uint8Array) => {
    for (let start = 0; start < bytes.length; start += chunkBytes)
      events.push(...decoder.push(bytes.subarray(start, start + chunkBytes)));
  };
  for (const drop of drops) {
    const bytes = utf8.encode(body(entries, decoder.lastEventId));
    read(bytes.subarray(0, Math.min(drop, bytes.length)));
    decoder.dropPartialMessage();
  }
  read(utf8.encode(body(entries, decoder.lastEventId)));
  events.push(...decoder.end());
  return events;
}

const RUN: BlockEvent[] = [
  {
    type: 'meta-init',
    data: { format: 'xml', user_query: 'Où est loginUser ? 😀', agent_uuid: 'run-1', model: 'm' },
  },
  { type: 'thinking-start' },
  { type: 'thinking-delta', delta: 'Find the login code first: ' },
  { type: 'thinking-delta', delta: 'é😀\r\nnext line' },
  { type: 'thinking-end' },
  { type: 'tool-call-start', id: 'call_1', name: 'search', kind: 'client' },
  { type: 'tool-call-delta', id: 'call_1', delta: '{"query":"login' },
  { type: 'tool-call-delta', id: 'call_1', delta: 'User"}' },
  { type: 'tool-call-end', id: 'call_1' },
  { type: 'text-start' },
  { type: 'text-delta', delta: 'Login is handled by **loginUser** ' },
  { type: 'text-delta', delta: 'in `login.js` ]]> <b> & 中文\n\ndata: not a field' },
  { type: 'text-end' },
  {
    type: 'meta-final',
    data: {
      conversation_history: [],
      stop_reason: 'end_turn',
      total_steps: 2,
      generated_files: null,
      cost: null,
      cumulative_usage: { input_tokens: 10, output_tokens: 20 },
    },
  },
];

describe('decoder: lastEventId and dropPartialMessage', () => {
  it('lastEventId is the id of the last complete message; a comment or a partial one leaves it', () => {
    const decoder = createBlockDecoder();
    expect(decoder.lastEventId).toBeUndefined();
    decoder.push('id: 1-0\ndata: <content-block-text>a\n\n');
    expect(decoder.lastEventId).toBe('1-0');
    decoder.push(':\n\n');
    expect(decoder.lastEventId).toBe('1-0');
    decoder.push('id: 1-1\ndata: b');
    expect(decoder.lastEventId).toBe('1-0');
    decoder.push('\n\n');
    expect(decoder.lastEventId).toBe('1-1');
    // A message without an id keeps the last one, as EventSource does.
    decoder.push('data: c\n\n');
    expect(decoder.lastEventId).toBe('1-1');
    decoder.reset();
    expect(decoder.lastEventId).toBeUndefined();
  });

  it('drops the message a connection was cut off in, and the bytes of a character it held', () => {
    const decoder = createBlockDecoder();
    const events: DecodedEvent[] = [];
    events.push(...decoder.push('id: 1-0\ndata: <content-block-text>a\n\n'));
    // Cut inside "é" (0xC3 0xA9), in a message that never completes on this connection.
    events.push(...decoder.push(utf8.encode('id: 1-1\ndata: \u00e9').subarray(0, 16)));
    decoder.dropPartialMessage();
    events.push(...decoder.push('id: 1-1\ndata: b\n\ndata: </content-block-text>\n\n'));
    events.push(...decoder.end());
    expect(events).toEqual([
      { type: 'text-start' },
      { type: 'text-delta', delta: 'a' },
      { type: 'text-delta', delta: 'b' },
      { type: 'text-end' },
    ]);
    expect(decoder.lastEventId).toBe('1-1');
  });

  it('a dropped connection does not close the open block (end() would)', () => {
    const decoder = createBlockDecoder();
    decoder.push('id: 1-0\ndata: <content-block-text>a\n\n');
    decoder.dropPartialMessage();
    expect(decoder.receiving).toBeDefined();
  });

  it('xml framing has no ids; dropping forgets only held bytes', () => {
    const decoder = createBlockDecoder({ framing: 'xml' });
    const events = decoder.push(utf8.encode('<content-block-text>a\u00e9').subarray(0, 22));
    decoder.dropPartialMessage();
    events.push(...decoder.push('b</content-block-text>'), ...decoder.end());
    expect(decoder.lastEventId).toBeUndefined();
    expect(events.filter((event) => event.type === 'text-delta')).toEqual([
      { type: 'text-delta', delta: 'a' },
      { type: 'text-delta', delta: 'b' },
    ]);
  });
});

describe('decoder: reading across reconnects is reading once', () => {
  const entries = record(RUN);
  const whole = utf8.encode(body(entries, undefined));
  const uninterrupted = decodeBlocks(whole);

  it('at every byte: drop after k bytes, resume after lastEventId, same events', () => {
    expect(uninterrupted.some((event) => event.type === 'decode-error')).toBe(false);
    for (let k = 0; k <= whole.length; k++)
      expect(readAcrossDrops(entries, [k])).toEqual(uninterrupted);
  });

  it('at every byte, read one byte at a time', () => {
    for (let k = 0; k <= whole.length; k++)
      expect(readAcrossDrops(entries, [k], 1)).toEqual(uninterrupted);
  });

  it('any run, any number of drops anywhere, any chunking (property)', () => {
    const delta = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 8 }),
      fc.constantFrom('😀', '\r\n', '\n\n', 'data: x', ']]>', '<', '&', 'é'),
    );
    const block = fc.oneof(
      fc
        .array(delta, { maxLength: 4 })
        .map((deltas): BlockEvent[] => [
          { type: 'text-start' },
          ...deltas.map((value): BlockEvent => ({ type: 'text-delta', delta: value })),
          { type: 'text-end' },
        ]),
      fc
        .array(delta, { maxLength: 4 })
        .map((deltas): BlockEvent[] => [
          { type: 'thinking-start' },
          ...deltas.map((value): BlockEvent => ({ type: 'thinking-delta', delta: value })),
          { type: 'thinking-end' },
        ]),
    );
    fc.assert(
      fc.property(
        fc.array(block, { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.nat({ max: 400 }), { maxLength: 6 }),
        fc.integer({ min: 1, max: 64 }),
        (blocks, keepAliveEvery, drops, chunkBytes) => {
          const log = record(blocks.flat(), keepAliveEvery);
          const expected = decodeBlocks(utf8.encode(body(log, undefined)));
          expect(readAcrossDrops(log, drops, chunkBytes)).toEqual(expected);
        },
      ),
      { numRuns: 200 },
    );
  });
});
