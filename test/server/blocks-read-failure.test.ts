/**
 * A reader's stream that the store fails mid-read ends well formed: BlocksReadFailure closes the
 * block the frames sent so far left open (text, thinking, a streamed call), then says why.
 */
import { describe, expect, it } from 'vitest';
import { BlocksReadFailure } from '../../src/server/blocks-wire.ts';
import { BlockEncoder, type BlockEvent, decodeBlocks } from '../../src/stream/index.ts';

/** The event types a decoder reads from the frames of `events` and the failure after them. */
function readWithFailure(events: readonly BlockEvent[]): string[] {
  const encoder = new BlockEncoder();
  const failure = new BlocksReadFailure();
  let stream = '';
  for (const event of events) {
    const frame = encoder.encode(event);
    if (frame === '') continue;
    failure.sent(frame);
    stream += frame;
  }
  stream += failure.frame('the run store failed');
  // A decode error (a block left open, say) would show among the types.
  return decodeBlocks(stream).map((event) => event.type);
}

describe('BlocksReadFailure', () => {
  const meta: BlockEvent = {
    type: 'meta-init',
    data: { format: 'xml', user_query: 'q', agent_uuid: 'r1', model: 'm' },
  };

  it('closes an open thinking or text block before the error', () => {
    expect(
      readWithFailure([meta, { type: 'thinking-start' }, { type: 'thinking-delta', delta: 'a' }]),
    ).toEqual(['meta-init', 'thinking-start', 'thinking-delta', 'thinking-end', 'error']);
    expect(readWithFailure([meta, { type: 'text-start' }])).toEqual([
      'meta-init',
      'text-start',
      'text-end',
      'error',
    ]);
  });

  it('closes a streamed call, and leaves alone a whole call or a block already closed', () => {
    const streamed = readWithFailure([
      meta,
      { type: 'tool-call-start', id: 'c1', name: 'read</x>', kind: 'client' },
      { type: 'tool-call-delta', id: 'c1', delta: '{"a":' },
    ]);
    expect(streamed.slice(-2)).toEqual(['tool-call-end', 'error']);
    const closed = readWithFailure([
      meta,
      { type: 'text-start' },
      { type: 'text-end' },
      { type: 'tool-call', id: 'c2', name: 'f', arguments: '{}', kind: 'client' },
    ]);
    expect(closed).toEqual(['meta-init', 'text-start', 'text-end', 'tool-call', 'error']);
  });
});
