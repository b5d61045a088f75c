/** `readBodyCapped`, the one capped reader of a model server's body (probes, errors, replies). */
import { describe, expect, it } from 'vitest';
import { readBodyCapped } from '../../src/proxy/capped-body.ts';
import type { UpstreamBody } from '../../src/proxy/upstream-transport.ts';

/** A body that delivers `chunks` whatever `cancel` says (a transport slow to stop), counting cancels. */
function body(chunks: readonly string[]): UpstreamBody & { cancelled: number } {
  const encoder = new TextEncoder();
  return {
    cancelled: 0,
    async forEach(onChunk) {
      for (const chunk of chunks) onChunk(encoder.encode(chunk));
    },
    pause() {},
    resume() {},
    cancel() {
      this.cancelled++;
    },
  };
}

describe('readBodyCapped', () => {
  it('reads a body of exactly the cap whole', async () => {
    const read = await readBodyCapped(body(['abc', 'de']), 5);
    expect(new TextDecoder().decode(read.bytes)).toBe('abcde');
    expect(read.whole).toBe(true);
  });

  it('past the cap: the first bytes, not whole, cancelled once, later chunks dropped unread', async () => {
    const source = body(['abc', 'def', 'ghi', 'jkl']);
    const kept: number[] = [];
    const read = await readBodyCapped(source, 4, (bytes) => kept.push(bytes));
    expect(new TextDecoder().decode(read.bytes)).toBe('abcd');
    expect(read.whole).toBe(false);
    expect(source.cancelled).toBe(1);
    // Only the chunks up to the one that passed the cap were kept (and charged).
    expect(kept).toEqual([3, 3]);
  });
});
