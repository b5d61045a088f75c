/**
 * A reader's memory does not grow with the events it gets (review-25 F2): waiting for the next
 * entry must not leave anything on a promise that lives as long as the response (the run's
 * interruption). Counted, not timed: `v8.queryObjects` counts the promises still reachable
 * after a full GC while the response is open; racing a never-settling promise per frame kept
 * two for each frame read.
 */
import { queryObjects } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { logResponse } from '../../src/server/log-stream.ts';
import { MemoryRunStore } from '../../src/store/memory/memory-run-store.ts';
import { frameSse } from '../../src/stream/index.ts';
import { createBlocksRun } from './run-fixtures.ts';

const FRAMES = 3000;

describe('a reader of a long log', () => {
  it('keeps no promise per frame it read while its run may still be interrupted', async () => {
    const store = new MemoryRunStore({ limits: { maxRunEvents: FRAMES * 2 } });
    const lease = await createBlocksRun(store, {}, 0);
    await store.append(
      lease,
      Array.from({ length: FRAMES }, (_, index) => frameSse(`frame ${index}`)),
      [],
    );
    // As LiveRuns does: the listener stays reachable for as long as the response reads.
    const listeners = new Set<(message: string) => void>();
    const response = await logResponse({
      store,
      log: 'r1',
      after: undefined,
      signal: new AbortController().signal,
      onInterrupt: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    });
    const reader = response.body!.getReader();
    await reader.read();
    const before = queryObjects(Promise, { format: 'count' }) as number;
    for (let read = 1; read < FRAMES; read++) await reader.read();
    const after = queryObjects(Promise, { format: 'count' }) as number;
    expect(listeners.size).toBe(1);
    expect(after - before).toBeLessThan(FRAMES / 10);
    // The interruption still reaches the reader, which ends with it.
    for (const listener of listeners) listener('the store failed');
    const { done } = await reader.read();
    expect(done).toBe(true);
    expect(listeners.size).toBe(0);
  });
});
