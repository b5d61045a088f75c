import { afterEach, describe, expect, it, vi } from 'vitest';
import { isErrorOfKind } from '../../src/core/errors.ts';
import {
  createRunStore,
  DEFAULT_RUN_STORE_LIMITS,
  InvalidEventIdError,
  MemoryRunStore,
  MemoryRunStoreBacking,
  parseRunStoreSpec,
  RunStoreSpecError,
} from '../../src/store/index.ts';
import { frame, newRun, readAll, rejection, runStoreContract, TAIL } from './contract.ts';

runStoreContract('memory', async (limits, clock) => {
  const backing = new MemoryRunStoreBacking({ limits, ...(clock === undefined ? {} : { clock }) });
  return { open: async (instanceId) => backing.open(instanceId), dispose: async () => {} };
});

const T0 = 1_700_000_000_000;

/** A clock the test moves by hand. */
function manualClock(start = T0) {
  let now = start;
  return {
    read: () => now,
    set(to: number) {
      now = to;
    },
  };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('MemoryRunStore: time from its clock (ids, log age, stored Responses)', () => {
  it('makes ids from its clock: the same millisecond counts on, a later one starts again', async () => {
    const clock = manualClock();
    const store = new MemoryRunStore({ clock: clock.read });
    const lease = await store.createRun(newRun('r1'), T0);
    expect(await store.append(lease, [frame('a'), frame('b')], TAIL)).toEqual([
      `${T0}-0`,
      `${T0}-1`,
    ]);
    clock.set(T0 + 5);
    expect(await store.append(lease, [frame('c')], TAIL)).toEqual([`${T0 + 5}-0`]);
    // A clock that steps back does not make ids go back.
    clock.set(T0 + 1);
    expect(await store.append(lease, [frame('d')], TAIL)).toEqual([`${T0 + 5}-1`]);
  });

  it('trims log entries older than maxLogAgeMs when it appends', async () => {
    const clock = manualClock();
    const store = new MemoryRunStore({ clock: clock.read, limits: { maxLogAgeMs: 1000 } });
    const lease = await store.createRun(newRun('r1'), T0);
    const [oldest] = await store.append(lease, [frame('oldest')], TAIL);
    clock.set(T0 + 100);
    const [old] = await store.append(lease, [frame('old')], TAIL);
    clock.set(T0 + 600);
    await store.append(lease, [frame('middle')], TAIL);
    clock.set(T0 + 1500);
    await store.append(lease, [frame('new')], TAIL);
    await store.finish(lease, [], 'completed', T0 + 1500);
    // Entries before T0 + 500 are gone: after the oldest, one is missing; after the last trimmed, none.
    expect(await readAll(store, 'r1', oldest)).toEqual([{ end: 'trimmed' }]);
    expect(await readAll(store, 'r1')).toEqual([{ end: 'trimmed' }]);
    const rest = await readAll(store, 'r1', old);
    expect(rest).toEqual([
      { id: `${T0 + 600}-0`, frame: frame('middle') },
      { id: `${T0 + 1500}-0`, frame: frame('new') },
      { end: 'finished' },
    ]);
  });

  it('keeps exactly maxRunEvents entries, and a slow follower that fell behind them ends trimmed', async () => {
    const store = new MemoryRunStore({ limits: { maxRunEvents: 3 } });
    const lease = await store.createRun(newRun('r1'), T0);
    await store.append(lease, [frame('0')], TAIL);
    const reader = store
      .read('r1', undefined, new AbortController().signal)
      [Symbol.asyncIterator]();
    expect(await reader.next()).toMatchObject({ value: { frame: frame('0') } });
    // The reader holds its place at entry 1 while four more land: entry 1 is trimmed away.
    const ids = await store.append(lease, ['1', '2', '3', '4'].map(frame), TAIL);
    expect(await reader.next()).toEqual({ value: { end: 'trimmed' }, done: false });
    expect(await reader.next()).toMatchObject({ done: true });
    const kept = await readAll(store, 'r1', ids[0], AbortSignal.abort());
    expect(kept).toEqual([]);
    await store.finish(lease, [], 'completed', T0);
    // The end entry is kept within maxRunEvents too (as on Redis): it takes entry 2's place.
    expect(await readAll(store, 'r1', ids[0])).toEqual([{ end: 'trimmed' }]);
    const whole = await readAll(store, 'r1', ids[1]);
    expect(whole.map((item) => ('frame' in item ? item.frame : item.end))).toEqual([
      frame('3'),
      frame('4'),
      'finished',
    ]);
  });

  it('a read after an id newer than the log’s newest skips entries up to it, as XREAD does', async () => {
    const clock = manualClock();
    const store = new MemoryRunStore({ clock: clock.read });
    const lease = await store.createRun(newRun('r1'), T0);
    await store.append(lease, [frame('before')], TAIL);
    const reading = readAll(store, 'r1', `${T0 + 10}-0`);
    await store.append(lease, [frame('not yet')], TAIL);
    clock.set(T0 + 10);
    await store.append(lease, [frame('still not')], TAIL);
    await store.append(lease, [frame('after')], TAIL);
    await store.finish(lease, [], 'completed', T0 + 10);
    expect(await reading).toEqual([
      { id: `${T0 + 10}-1`, frame: frame('after') },
      { end: 'finished' },
    ]);
  });

  it('forgets stored Responses past storedResponseTtlMs, on reading and on a sweep', async () => {
    const clock = manualClock();
    const store = new MemoryRunStore({
      clock: clock.read,
      limits: { storedResponseTtlMs: 1000 },
    });
    await store.responses.put('a', '"A"');
    clock.set(T0 + 500);
    await store.responses.put('b', '"B"');
    clock.set(T0 + 999);
    expect(await store.responses.get('a')).toBe('"A"');
    clock.set(T0 + 1000);
    expect(await store.responses.get('a')).toBeUndefined();
    expect(store.responses.size).toBe(1);
    await store.sweep(T0 + 1499);
    expect(store.responses.size).toBe(1);
    await store.sweep(T0 + 1500);
    expect(store.responses.size).toBe(0);
  });
});

describe('MemoryRunStore: handles', () => {
  it('a closed handle ends its waiting reads and hears no more stops; the other handle goes on', async () => {
    const backing = new MemoryRunStoreBacking({ limits: { leaseMs: 1000 } });
    const a = backing.open('a');
    const b = backing.open('b');
    const lease = await a.createRun(newRun('r1'), T0);
    await a.append(lease, [frame('1')], TAIL);
    const heard: string[] = [];
    a.onAbort((runId) => heard.push(runId));
    const readByA = readAll(a, 'r1', `${Number.MAX_SAFE_INTEGER}-0`);
    const readByB = readAll(b, 'r1');
    await a.close();
    // A's reader was waiting past every entry: it ends, with no end item (the log did not end).
    expect(await readByA).toEqual([]);
    expect(await b.requestAbort('r1', 'stop', T0)).toBe('aborting');
    await Promise.resolve();
    expect(heard).toEqual([]);
    // The run stays in the backing: b's sweep finds a's lease run out, and b's reader sees the end.
    await b.sweep(T0 + 1001);
    const items = await readByB;
    expect(items).toEqual([
      { id: expect.any(String), frame: frame('1') },
      { id: expect.any(String), frame: TAIL[0] },
      { end: 'lost' },
    ]);
  });

  it('refuses a second run on a log in use: a log is written by one run', async () => {
    const store = new MemoryRunStore();
    await store.createRun(newRun('r1', { log: 'chat:c1:1' }), T0);
    const error = await rejection(store.createRun(newRun('r2', { log: 'chat:c1:1' }), T0));
    expect(isErrorOfKind(error, 'request-refused')).toBe(true);
    expect(await store.getRun('r2')).toBeUndefined();
  });

  it('a claim’s new log is refused when in use; both logs count while the run is remembered', async () => {
    const store = new MemoryRunStore({ limits: { maxRememberedRuns: 1 } });
    const lease = await store.createRun(newRun('r1', { log: 'agui:t:1' }), T0);
    await store.pause(lease, [frame('asks')], '{}', T0);
    await store.createRun(newRun('other', { log: 'agui:t:2' }), T0);
    await expect(store.claimPaused('r1', T0, 'agui:t:2')).rejects.toThrow(/agui:t:2/);
    expect((await store.getRun('r1'))?.status).toBe('paused');
    const claim = await store.claimPaused('r1', T0, 'agui:t:3');
    if (!claim.claimed) throw new Error('not claimed');
    expect(claim.lease.log).toBe('agui:t:3');
    expect(claim.run.log).toBe('agui:t:3');
    await store.finish(claim.lease, [frame('answer')], 'completed', T0);
    const framesOf = async (log: string) =>
      (await readAll(store, log)).map((item) => ('frame' in item ? item.frame : item.end));
    expect(await framesOf('agui:t:1')).toEqual([frame('asks'), 'paused']);
    expect(await framesOf('agui:t:3')).toEqual([frame('answer'), 'finished']);
    // Both logs count while it is remembered, and go with it.
    const { rememberedBytes } = await store.stats();
    expect(rememberedBytes).toBeGreaterThan(
      256 + 4 * 32 + frame('asks').length + frame('answer').length - 1,
    );
    const next = await store.createRun(newRun('r2'), T0);
    await store.finish(next, [], 'completed', T0);
    expect(await framesOf('agui:t:1')).toEqual(['gone']);
    expect(await framesOf('agui:t:3')).toEqual(['gone']);
  });

  it('a reader in the middle of a log that is forgotten (evicted) ends with gone', async () => {
    const store = new MemoryRunStore({ limits: { maxRememberedRuns: 1 } });
    const lease = await store.createRun(newRun('r1'), T0);
    await store.append(lease, ['1', '2', '3'].map(frame), TAIL);
    await store.finish(lease, [], 'completed', T0);
    const reader = store
      .read('r1', undefined, new AbortController().signal)
      [Symbol.asyncIterator]();
    expect(await reader.next()).toMatchObject({ value: { frame: frame('1') } });
    const other = await store.createRun(newRun('r2'), T0);
    await store.finish(other, [], 'completed', T0);
    expect(await store.getRun('r1')).toBeUndefined();
    expect(await reader.next()).toEqual({ value: { end: 'gone' }, done: false });
    expect(await reader.next()).toMatchObject({ done: true });
  });

  it('refuses to read after something that is not an event id', async () => {
    const store = new MemoryRunStore();
    const error = await rejection(readAll(store, 'r1', 'yesterday'));
    expect(InvalidEventIdError.isInstance(error)).toBe(true);
    expect(isErrorOfKind(error, 'request-refused')).toBe(true);
  });

  it('a new store has a random instance id and the default limits', () => {
    const one = new MemoryRunStore();
    const two = new MemoryRunStore();
    expect(one.instanceId).not.toBe(two.instanceId);
    expect(one.limits).toEqual(DEFAULT_RUN_STORE_LIMITS);
    expect(new MemoryRunStore({ limits: { leaseMs: 5 } }).limits.leaseMs).toBe(5);
  });
});

describe('MemoryRunStore: counters and sizes', () => {
  it('keeps counters: stats and a run’s start, pause and finish walk no collection', async () => {
    const store = new MemoryRunStore({ limits: { maxRememberedRuns: 20_000 } });
    for (let index = 0; index < 2000; index++) {
      const lease = await store.createRun(newRun(`f${index}`), T0);
      await store.finish(lease, [], 'completed', T0);
    }
    const walks = [Map.prototype, Set.prototype].flatMap((prototype) => [
      vi.spyOn(prototype, 'values'),
      vi.spyOn(prototype, 'entries'),
      vi.spyOn(prototype, 'forEach'),
      vi.spyOn(prototype, Symbol.iterator),
    ]);
    for (let index = 0; index < 100; index++) {
      expect((await store.stats()).finished).toBe(2000 + index);
      const lease = await store.createRun(newRun(`r${index}`), T0);
      await store.append(lease, [frame('x')], TAIL);
      if (index % 2 === 0) {
        await store.pause(lease, [], '{}', T0);
        const claim = await store.claimPaused(`r${index}`, T0);
        if (!claim.claimed) throw new Error('not claimed');
        await store.finish(claim.lease, [], 'completed', T0);
      } else await store.finish(lease, [], 'completed', T0);
    }
    for (const walk of walks) expect(walk).not.toHaveBeenCalled();
  });

  it('counts a paused run’s prompt and state as UTF-8 bytes', async () => {
    const store = new MemoryRunStore();
    const lease = await store.createRun(newRun('p1', { prompt: 'é'.repeat(1000) }), T0);
    await store.pause(lease, [], '€'.repeat(1000), T0);
    const { rememberedBytes } = await store.stats();
    // 2 bytes per é, 3 per €, plus a run's share and one end entry.
    expect(rememberedBytes).toBeGreaterThanOrEqual(5000);
    expect(rememberedBytes).toBeLessThan(5000 + 512);
  });
});

describe('MemoryRunStore: pointers (more in the contract)', () => {
  it('expires by the store’s clock on reading', async () => {
    const clock = manualClock();
    const store = new MemoryRunStore({ clock: clock.read });
    await store.setPointer('chat', 'c1', { log: 'chat:c1:2' }, 1000, T0 + 500);
    clock.set(T0 + 1499);
    expect(await store.pointer('chat', 'c1')).toEqual({ log: 'chat:c1:2' });
    clock.set(T0 + 1500);
    expect(await store.pointer('chat', 'c1')).toBeUndefined();
  });

  it('a sweep drops expired pointers; at most maxRememberedRuns are kept, the oldest set going first', async () => {
    const clock = manualClock();
    const backing = new MemoryRunStoreBacking({
      clock: clock.read,
      limits: { maxRememberedRuns: 3 },
    });
    const store = backing.open();
    await store.setPointer('thread', 'short', { run: 's' }, 100, T0);
    await store.setPointer('thread', 'long', { run: 'l' }, 10_000, T0);
    await store.sweep(T0 + 100);
    expect(backing.pointers.size).toBe(1);
    for (const key of ['k1', 'k2', 'k3'])
      await store.setPointer('chat', key, { run: key }, 10_000, T0);
    expect(await store.pointer('thread', 'long')).toBeUndefined();
    expect(await store.pointer('chat', 'k1')).toEqual({ run: 'k1' });
    expect(await store.pointer('chat', 'k3')).toEqual({ run: 'k3' });
  });
});

describe('createRunStore', () => {
  it('makes a memory store from "memory", with the instance id and limits given', async () => {
    const store = await createRunStore('memory', { instanceId: 'i1', limits: { leaseMs: 3000 } });
    expect(store).toBeInstanceOf(MemoryRunStore);
    expect(store.instanceId).toBe('i1');
    expect(store.limits.leaseMs).toBe(3000);
    expect(store.limits.maxRememberedRuns).toBe(DEFAULT_RUN_STORE_LIMITS.maxRememberedRuns);
    expect(await createRunStore(' Memory ')).toBeInstanceOf(MemoryRunStore);
  });

  it('reads redis://HOST:PORT[/DB] addresses', () => {
    expect(parseRunStoreSpec('redis://127.0.0.1:6379')).toEqual({
      kind: 'redis',
      url: 'redis://127.0.0.1:6379',
      database: 0,
    });
    expect(parseRunStoreSpec('redis://cache.internal:6380/2')).toMatchObject({ database: 2 });
    expect(parseRunStoreSpec('redis://[::1]:6379/')).toMatchObject({ database: 0 });
    expect(parseRunStoreSpec('redis://:secret@cache:6379/1')).toMatchObject({ database: 1 });
  });

  it('refuses anything else with a usage error that says what it takes, and no password', async () => {
    for (const spec of [
      '',
      'memroy',
      'postgres://db:5432',
      'rediss://cache:6379',
      'redis://',
      'redis://cache:6379/two',
      'redis://cache:6379/1/2',
      'redis://cache:6379?db=1',
      'redis://user:hunter2@cache:6379/x',
      'rediss://:hunter2@cache:6379',
      'valkey://user:hunter2@cache:6379/0',
      'user:hunter2@cache:6379',
    ]) {
      const error = await rejection(createRunStore(spec));
      expect(RunStoreSpecError.isInstance(error), spec).toBe(true);
      expect(isErrorOfKind(error, 'usage')).toBe(true);
      expect((error as Error).message).toContain('memory or redis://HOST:PORT[/DB]');
      expect((error as Error).message).not.toContain('hunter2');
    }
  });
});
