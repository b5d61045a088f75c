/**
 * The contract every RunStore keeps (memory, Redis): one suite, registered by
 * `runStoreContract(name, openBacking)` in each store's test file. A backing is one shared state
 * (a memory backing, a Redis database under a fresh key prefix) on which `open(instanceId)` makes
 * handles, as instances share one store. Times are explicit `now` arguments; nothing waits on the
 * clock. Both stores trim a log exactly (Redis with `XTRIM … MAXLEN =` / `MINID =`, remembering
 * the newest id it dropped), so the bounds are asserted to the entry.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { isErrorOfKind } from '../../src/core/errors.ts';
import { compareEventIds, parseEventId } from '../../src/store/event-id.ts';
import {
  DEFAULT_RUN_STORE_LIMITS,
  type LogEntry,
  type LogItem,
  type NewRun,
  type RunLease,
  type RunStore,
  type RunStoreLimits,
} from '../../src/store/run-store.ts';

/** One shared state and the handles on it. */
export interface ContractBacking {
  /** A handle (an "instance") on this state. */
  open(instanceId: string): Promise<RunStore>;
  /** Frees the state (the suite closes the handles it opened itself). */
  dispose(): Promise<void>;
}

/**
 * A fresh, empty backing with these limits, and the store's clock when given (what pointer
 * expiry is read from; Redis's own key expiry stays real time, so tests keep it near the real one).
 */
export type OpenContractBacking = (
  limits: RunStoreLimits,
  clock?: () => number,
) => Promise<ContractBacking>;

const T0 = 1_700_000_000_000;
const KIB = 1024;

export const TAIL = ['data: <content-block-error type="instance_lost"/>\n\n'];

export function newRun(runId: string, extra: Partial<NewRun> = {}): NewRun {
  return {
    runId,
    wire: 'blocks',
    protocol: 'xml',
    customProtocol: false,
    prompt: 'question',
    tail: TAIL,
    ...extra,
  };
}

export const frame = (text: string) => `data: ${text}\n\n`;

const isEntry = (item: LogItem): item is LogEntry => 'id' in item;

/** Reads a log to its end (or until `signal` aborts), returning every item. */
export async function readAll(
  store: RunStore,
  log: string,
  after?: string,
  signal: AbortSignal = new AbortController().signal,
): Promise<LogItem[]> {
  const items: LogItem[] = [];
  for await (const item of store.read(log, after, signal)) items.push(item);
  return items;
}

/** Reads `log` live into `items`; `first` resolves at its first item, `reading` when it ends. */
export function follow(
  store: RunStore,
  log: string,
  signal: AbortSignal = new AbortController().signal,
) {
  const items: LogItem[] = [];
  let sawFirst: () => void = () => {};
  const first = new Promise<void>((resolve) => {
    sawFirst = resolve;
  });
  const reading = (async () => {
    for await (const item of store.read(log, undefined, signal)) {
      items.push(item);
      sawFirst();
    }
  })();
  return { items, first, reading };
}

/** What `promise` rejects with; throws when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

const framesOf = (items: readonly LogItem[]) => items.filter(isEntry).map((item) => item.frame);
const endOf = (items: readonly LogItem[]) => {
  const last = items.at(-1);
  return last !== undefined && 'end' in last ? last.end : undefined;
};

export function runStoreContract(name: string, openBacking: OpenContractBacking): void {
  describe(`RunStore contract: ${name}`, () => {
    const cleanups: Array<() => Promise<void>> = [];

    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });

    /** Two handles ("instances" a and b) on one fresh backing. */
    async function stores(limits: Partial<RunStoreLimits> = {}, clock?: () => number) {
      const backing = await openBacking({ ...DEFAULT_RUN_STORE_LIMITS, ...limits }, clock);
      cleanups.push(() => backing.dispose());
      const a = await backing.open('instance-a');
      const b = await backing.open('instance-b');
      cleanups.push(async () => {
        await a.close();
        await b.close();
      });
      return { a, b };
    }

    async function running(store: RunStore, runId: string, extra: Partial<NewRun> = {}) {
      return store.createRun(newRun(runId, extra), T0);
    }

    async function paused(
      store: RunStore,
      runId: string,
      state = '{"pending":[]}',
      prompt = 'question',
    ) {
      const lease = await running(store, runId, { prompt });
      expect(await store.pause(lease, [frame(`${runId} asks`)], state, T0)).toBe('paused');
      return lease;
    }

    async function finished(store: RunStore, runId: string, outcome = 'completed') {
      const lease = await running(store, runId);
      await store.finish(lease, [frame(`${runId} done`)], outcome, T0);
      return lease;
    }

    async function held(store: RunStore, ids: readonly string[]) {
      const kept: string[] = [];
      for (const id of ids) if ((await store.getRun(id)) !== undefined) kept.push(id);
      return kept;
    }

    describe('runs and leases', () => {
      it('creates a running run owned by its instance, with a lease of leaseMs', async () => {
        const { a, b } = await stores({ leaseMs: 5000 });
        const lease = await a.createRun(newRun('r1', { prompt: 'Why?' }), T0);
        expect(lease).toMatchObject({ runId: 'r1', log: 'r1' });
        expect(typeof lease.token).toBe('string');
        const run = await b.getRun('r1');
        expect(run).toMatchObject({
          runId: 'r1',
          status: 'running',
          wire: 'blocks',
          log: 'r1',
          protocol: 'xml',
          customProtocol: false,
          prompt: 'Why?',
          owner: 'instance-a',
          leaseUntil: T0 + 5000,
          createdAt: T0,
          seenAt: T0,
        });
        expect(run?.state).toBeUndefined();
        expect(run?.outcome).toBeUndefined();
        expect(await a.getRun('nobody')).toBeUndefined();
        expect(await a.stats()).toMatchObject({ running: 1, paused: 0, finished: 0 });
      });

      it('takes a log id of its own when given one', async () => {
        const { a } = await stores();
        const lease = await a.createRun(newRun('r1', { log: 'agui:t:r1', wire: 'ag-ui' }), T0);
        expect(lease.log).toBe('agui:t:r1');
        await a.append(lease, [frame('x')], TAIL);
        await a.finish(lease, [], 'completed', T0);
        expect(framesOf(await readAll(a, 'agui:t:r1'))).toEqual([frame('x')]);
        expect(await a.getRun('r1')).toMatchObject({ wire: 'ag-ui', log: 'agui:t:r1' });
      });

      it('refuses a run id that exists, on any instance', async () => {
        const { a, b } = await stores();
        await running(a, 'r1');
        await expect(b.createRun(newRun('r1'), T0)).rejects.toThrow(/r1/);
        await finished(a, 'r2');
        await expect(a.createRun(newRun('r2'), T0)).rejects.toThrow(/r2/);
      });

      it('renew extends the lease and says nothing happened', async () => {
        const { a } = await stores({ leaseMs: 1000 });
        const lease = await running(a, 'r1');
        expect(await a.renew(lease, T0 + 900)).toMatchObject({ unread: false, lost: false });
        expect((await a.renew(lease, T0 + 900)).abort).toBeUndefined();
        expect((await a.getRun('r1'))?.leaseUntil).toBe(T0 + 1900);
        // Renewed: a sweep at the old lease's end finds it alive.
        await a.sweep(T0 + 1500);
        expect((await a.getRun('r1'))?.status).toBe('running');
      });

      it('renew says unread once no reader was served for unreadRunAbortMs; noteReaders resets it', async () => {
        const { a, b } = await stores({ unreadRunAbortMs: 1000, leaseMs: 60_000 });
        const lease = await running(a, 'r1');
        expect((await a.renew(lease, T0 + 1000)).unread).toBe(false);
        expect((await a.renew(lease, T0 + 1001)).unread).toBe(true);
        // Any instance may serve a reader.
        await b.noteReaders(['r1', 'unknown'], T0 + 1500);
        expect((await a.getRun('r1'))?.seenAt).toBe(T0 + 1500);
        expect((await a.renew(lease, T0 + 2000)).unread).toBe(false);
        // An older note does not move it back.
        await b.noteReaders(['r1'], T0 + 100);
        expect((await a.getRun('r1'))?.seenAt).toBe(T0 + 1500);
        expect((await a.renew(lease, T0 + 2501)).unread).toBe(true);
      });
    });

    describe('fencing', () => {
      it('refuses writes with a lease token that is not the run’s, with kind run-lost', async () => {
        const { a } = await stores();
        const lease = await running(a, 'r1');
        const forged: RunLease = { ...lease, token: `${lease.token}x` };
        expect(
          isErrorOfKind(await rejection(a.append(forged, [frame('x')], TAIL)), 'run-lost'),
        ).toBe(true);
        expect(isErrorOfKind(await rejection(a.pause(forged, [], '{}', T0)), 'run-lost')).toBe(
          true,
        );
        expect(
          isErrorOfKind(await rejection(a.finish(forged, [], 'completed', T0)), 'run-lost'),
        ).toBe(true);
        expect(await a.renew(forged, T0)).toMatchObject({ lost: true });
        // The real lease still writes.
        expect(await a.append(lease, [frame('x')], TAIL)).toHaveLength(1);
        expect((await a.getRun('r1'))?.status).toBe('running');
      });

      it('refuses a lease used by another instance than its owner', async () => {
        const { a, b } = await stores();
        const lease = await running(a, 'r1');
        expect(
          isErrorOfKind(await rejection(b.append(lease, [frame('x')], TAIL)), 'run-lost'),
        ).toBe(true);
        expect(await b.renew(lease, T0)).toMatchObject({ lost: true });
      });

      it('an instance whose lease ran out cannot write after the sweep ended the run for it', async () => {
        const { a, b } = await stores({ leaseMs: 1000 });
        const lease = await running(a, 'r1');
        await a.append(lease, [frame('one')], TAIL);
        await b.sweep(T0 + 1001);
        for (const write of [
          a.append(lease, [frame('late')], TAIL),
          a.pause(lease, [frame('late')], '{}', T0 + 1002),
          a.finish(lease, [frame('late')], 'completed', T0 + 1002),
        ])
          expect(isErrorOfKind(await rejection(write), 'run-lost')).toBe(true);
        expect(await a.renew(lease, T0 + 1002)).toEqual({ unread: false, lost: true });
        const items = await readAll(b, 'r1');
        expect(framesOf(items)).toEqual([frame('one'), ...TAIL]);
        expect(endOf(items)).toBe('lost');
      });

      it('a finished run’s lease writes no more; nor does a paused one’s after it was claimed', async () => {
        const { a, b } = await stores();
        const done = await finished(a, 'f1');
        expect(isErrorOfKind(await rejection(a.append(done, [frame('x')], TAIL)), 'run-lost')).toBe(
          true,
        );
        const old = await paused(a, 'p1');
        const claim = await b.claimPaused('p1', T0 + 1);
        expect(claim.claimed).toBe(true);
        expect(isErrorOfKind(await rejection(a.append(old, [frame('x')], TAIL)), 'run-lost')).toBe(
          true,
        );
        expect(await a.renew(old, T0 + 2)).toMatchObject({ lost: true });
      });
    });

    describe('logs', () => {
      it('append returns increasing MS-SEQ ids; a read gives the frames with those ids', async () => {
        const { a, b } = await stores();
        const lease = await running(a, 'r1');
        const ids = [
          ...(await a.append(lease, [frame('1'), frame('2')], TAIL)),
          ...(await a.append(lease, [], TAIL)),
          ...(await a.append(lease, [frame('3')], TAIL)),
        ];
        expect(ids).toHaveLength(3);
        const parsed = ids.map((id) => parseEventId(id));
        for (const id of parsed) expect(id).toBeDefined();
        for (let index = 1; index < parsed.length; index++)
          expect(compareEventIds(parsed[index - 1]!, parsed[index]!)).toBeLessThan(0);
        await a.finish(lease, [frame('4')], 'completed', T0);
        const items = await readAll(b, 'r1');
        expect(items.slice(0, 3)).toEqual([
          { id: ids[0], frame: frame('1') },
          { id: ids[1], frame: frame('2') },
          { id: ids[2], frame: frame('3') },
        ]);
        expect(framesOf(items)).toEqual([frame('1'), frame('2'), frame('3'), frame('4')]);
        expect(endOf(items)).toBe('finished');
      });

      it('reads after an id, exclusively; after the last frame only the end is left', async () => {
        const { a } = await stores();
        const lease = await running(a, 'r1');
        const ids = await a.append(lease, [frame('1'), frame('2'), frame('3')], TAIL);
        await a.finish(lease, [], 'completed', T0);
        expect(framesOf(await readAll(a, 'r1', ids[0]))).toEqual([frame('2'), frame('3')]);
        expect(await readAll(a, 'r1', ids[2])).toEqual([{ end: 'finished' }]);
      });

      it('a read after an id later than an ended log’s newest entry ends as a read at its end', async () => {
        const { a, b } = await stores();
        await finished(a, 'f1');
        const future = '99999999999999-0';
        expect(await readAll(b, 'f1', future)).toEqual([{ end: 'finished' }]);
        expect(await readAll(a, 'f1', future)).toEqual([{ end: 'finished' }]);
        await paused(a, 'p1');
        expect(await readAll(b, 'p1', future)).toEqual([{ end: 'paused' }]);
      });

      it('a read after a later id of a live log waits as any live read, and ends when the log ends', async () => {
        const { a, b } = await stores();
        const lease = await running(a, 'r1');
        await a.append(lease, [frame('1')], TAIL);
        const reading = readAll(b, 'r1', '99999999999999-0');
        await a.append(lease, [frame('2')], TAIL);
        await a.finish(lease, [frame('3')], 'completed', T0);
        expect(await reading).toEqual([{ end: 'finished' }]);
      });

      it('an unknown log reads as gone', async () => {
        const { a } = await stores();
        expect(await readAll(a, 'nobody')).toEqual([{ end: 'gone' }]);
        expect(await readAll(a, 'nobody', '1-0')).toEqual([{ end: 'gone' }]);
      });

      it('a paused log ends paused; read from the start after a resume it passes that end', async () => {
        const { a, b } = await stores();
        const lease = await running(a, 'r1');
        await a.append(lease, [frame('ask')], TAIL);
        expect(await a.pause(lease, [frame('awaiting')], '{"n":1}', T0)).toBe('paused');
        const first = await readAll(b, 'r1');
        expect(framesOf(first)).toEqual([frame('ask'), frame('awaiting')]);
        expect(endOf(first)).toBe('paused');
        const claim = await b.claimPaused('r1', T0 + 10);
        if (!claim.claimed) throw new Error('not claimed');
        await b.finish(claim.lease, [frame('answer')], 'completed', T0 + 20);
        const whole = await readAll(a, 'r1');
        expect(framesOf(whole)).toEqual([frame('ask'), frame('awaiting'), frame('answer')]);
        expect(endOf(whole)).toBe('finished');
        // A reader that had the first segment resumes after its last id and gets the rest.
        const lastOfFirst = first.filter(isEntry).at(-1)!.id;
        expect(framesOf(await readAll(a, 'r1', lastOfFirst))).toEqual([frame('answer')]);
      });

      it('follows a log live, on any instance, without gap or duplicate under concurrent appends', async () => {
        const { a, b } = await stores();
        const lease = await running(a, 'r1');
        await a.append(lease, [frame('0')], TAIL);
        const readers = [readAll(a, 'r1'), readAll(b, 'r1')];
        const expected = [frame('0')];
        for (let batch = 1; batch <= 8; batch++) {
          // Appends issued together, none awaited before the next: they land in the order issued.
          const appends: Array<Promise<string[]>> = [];
          for (let index = 0; index < 10; index++) {
            const frames = [frame(`${batch}.${index}a`), frame(`${batch}.${index}b`)];
            expected.push(...frames);
            appends.push(a.append(lease, frames, TAIL));
          }
          // Readers that join mid-stream, on either instance, from the start.
          readers.push(readAll(batch % 2 ? a : b, 'r1'));
          await Promise.all(appends);
        }
        await a.finish(lease, [frame('end')], 'completed', T0);
        expected.push(frame('end'));
        for (const items of await Promise.all(readers)) {
          expect(framesOf(items)).toEqual(expected);
          expect(endOf(items)).toBe('finished');
          const ids = items.filter(isEntry).map((item) => item.id);
          expect(new Set(ids).size).toBe(ids.length);
        }
      });

      it('two readers that resume after every id they saw, together, get each frame once', async () => {
        const { a, b } = await stores();
        const lease = await running(a, 'r1');
        const sent: string[] = [];
        const got: string[] = [];
        let after: string | undefined;
        for (let round = 0; round < 20; round++) {
          const frames = [frame(`${round}x`), frame(`${round}y`)];
          sent.push(...frames);
          await a.append(lease, frames, TAIL);
          // A reader drops after one entry and reconnects after the last id it saw.
          const controller = new AbortController();
          for await (const item of (round % 2 === 0 ? a : b).read('r1', after, controller.signal)) {
            if (!isEntry(item)) break;
            got.push(item.frame);
            after = item.id;
            controller.abort();
            break;
          }
        }
        await a.finish(lease, [], 'completed', T0);
        got.push(...framesOf(await readAll(b, 'r1', after)));
        expect(got).toEqual(sent);
      });

      it('a read aborted while it waits for entries ends without an end item', async () => {
        const { a } = await stores();
        const lease = await running(a, 'r1');
        await a.append(lease, [frame('1')], TAIL);
        const controller = new AbortController();
        const { items, first, reading } = follow(a, 'r1', controller.signal);
        await first;
        controller.abort();
        await reading;
        expect(items).toEqual([{ id: expect.any(String), frame: frame('1') }]);
        // The run goes on: a reader is not the run.
        expect((await a.getRun('r1'))?.status).toBe('running');
      });

      it('a read after an entry that was trimmed away ends trimmed (count bound, exact)', async () => {
        const { a, b } = await stores({ maxRunEvents: 10 });
        const lease = await running(a, 'r1');
        const ids: string[] = [];
        for (let index = 0; index < 15; index++)
          ids.push(...(await a.append(lease, [frame(String(index))], TAIL)));
        // Ten kept, entries 0 to 4 gone: a read that needs entry 4 or before ends trimmed.
        expect(await readAll(b, 'r1', ids[0])).toEqual([{ end: 'trimmed' }]);
        expect(await readAll(b, 'r1', ids[3])).toEqual([{ end: 'trimmed' }]);
        expect(await readAll(b, 'r1', undefined)).toEqual([{ end: 'trimmed' }]);
        await a.finish(lease, [], 'completed', T0);
        // Redis keeps the end as an entry of the log, which takes entry 5's place; after it,
        // nothing is missing on either store: entries 6 to 14, then the end.
        const kept = await readAll(b, 'r1', ids[5]);
        expect(framesOf(kept)).toEqual(
          Array.from({ length: 9 }, (_, index) => frame(String(index + 6))),
        );
        expect(endOf(kept)).toBe('finished');
      });

      it('a paused or finished run’s log stays readable until the run is forgotten, then is gone', async () => {
        const { a } = await stores({ finishedRunTtlMs: 1000 });
        await finished(a, 'f1');
        await a.sweep(T0 + 999);
        expect(framesOf(await readAll(a, 'f1'))).toEqual([frame('f1 done')]);
        await a.sweep(T0 + 1000);
        expect(await a.getRun('f1')).toBeUndefined();
        expect(await readAll(a, 'f1')).toEqual([{ end: 'gone' }]);
      });
    });

    describe('pause and claim', () => {
      it('a paused run holds its state and prompt, no owner and no lease', async () => {
        const { a } = await stores();
        await paused(a, 'p1', '{"pending":["c1"]}', 'How does login work?');
        const run = await a.getRun('p1');
        expect(run).toMatchObject({
          status: 'paused',
          state: '{"pending":["c1"]}',
          prompt: 'How does login work?',
          stoppedAt: T0,
        });
        expect(run?.owner).toBeUndefined();
        expect(run?.leaseUntil).toBeUndefined();
        expect(await a.stats()).toMatchObject({ running: 0, paused: 1, finished: 0 });
      });

      it('only one of two instances claims a paused run, once', async () => {
        const { a, b } = await stores({ leaseMs: 1000 });
        await paused(a, 'p1', '{"n":1}');
        const claims = await Promise.all([
          a.claimPaused('p1', T0 + 5),
          b.claimPaused('p1', T0 + 5),
        ]);
        const won = claims.filter((claim) => claim.claimed);
        expect(won).toHaveLength(1);
        const winner = won[0]!;
        if (!winner.claimed) throw new Error('unreachable');
        expect(winner.state).toBe('{"n":1}');
        expect(winner.lease).toMatchObject({ runId: 'p1', log: 'p1' });
        expect(winner.run).toMatchObject({ status: 'running', leaseUntil: T0 + 1005 });
        const loser = claims.find((claim) => !claim.claimed)!;
        expect(loser.run?.status).toBe('running');
        const owner = winner === claims[0] ? 'instance-a' : 'instance-b';
        expect((await a.getRun('p1'))?.owner).toBe(owner);
        expect((await a.getRun('p1'))?.state).toBeUndefined();
        expect(await a.claimPaused('p1', T0 + 6)).toMatchObject({ claimed: false });
        expect(await a.claimPaused('unknown', T0 + 6)).toEqual({ claimed: false, run: undefined });
        expect(await a.stats()).toMatchObject({ running: 1, paused: 0 });
      });

      it('a claim may give the continuation a log of its own; the first log keeps its end', async () => {
        const { a, b } = await stores({ maxRememberedRuns: 1 });
        const lease = await running(a, 'r1', { log: 'agui:t:1', wire: 'ag-ui' });
        await a.pause(lease, [frame('asks')], '{}', T0);
        const claim = await b.claimPaused('r1', T0 + 1, 'agui:t:2');
        if (!claim.claimed) throw new Error('not claimed');
        expect(claim.lease).toMatchObject({ runId: 'r1', log: 'agui:t:2' });
        expect(claim.run.log).toBe('agui:t:2');
        const following = readAll(a, 'agui:t:2');
        await b.finish(claim.lease, [frame('answer')], 'completed', T0 + 2);
        const first = await readAll(a, 'agui:t:1');
        expect(framesOf(first)).toEqual([frame('asks')]);
        expect(endOf(first)).toBe('paused');
        const second = await following;
        expect(framesOf(second)).toEqual([frame('answer')]);
        expect(endOf(second)).toBe('finished');
        expect((await a.getRun('r1'))?.log).toBe('agui:t:2');
        // Forgotten, the run takes both its logs along.
        await finished(a, 'r2');
        expect(await a.getRun('r1')).toBeUndefined();
        expect(await readAll(a, 'agui:t:1')).toEqual([{ end: 'gone' }]);
        expect(await readAll(a, 'agui:t:2')).toEqual([{ end: 'gone' }]);
      });

      it('claims a paused run exactly once under many concurrent claims', async () => {
        const { a, b } = await stores();
        await paused(a, 'p1');
        const claims = await Promise.all(
          Array.from({ length: 20 }, (_, index) => (index % 2 ? a : b).claimPaused('p1', T0 + 1)),
        );
        expect(claims.filter((claim) => claim.claimed)).toHaveLength(1);
      });

      it('a finished run cannot be claimed', async () => {
        const { a } = await stores();
        await finished(a, 'f1');
        const claim = await a.claimPaused('f1', T0 + 1);
        expect(claim).toMatchObject({
          claimed: false,
          run: { status: 'finished', outcome: 'completed' },
        });
      });

      it('a paused state larger than maxRememberedBytes on its own finishes the run as dropped', async () => {
        const { a } = await stores({ maxRememberedBytes: 8 * KIB });
        await finished(a, 'older');
        const lease = await running(a, 'big');
        expect(await a.pause(lease, [frame('asks')], 'x'.repeat(10 * KIB), T0)).toBe('dropped');
        const run = await a.getRun('big');
        expect(run?.status).toBe('finished');
        expect(run?.outcome).toMatch(
          /^dropped: its conversation \(\d+(\.\d)? KiB\) is larger than the server keeps for a paused run \(8 KiB\)$/,
        );
        expect(run?.state).toBeUndefined();
        expect(endOf(await readAll(a, 'big'))).toBe('finished');
        expect((await a.getRun('older'))?.status).toBe('finished');
      });
    });

    describe('pause refused', () => {
      const closing = (outcome: string) => [frame(`closed: ${outcome}`)];

      it('a stop asked before the pause lands wins: the run finishes aborted, the asking frames unwritten', async () => {
        const { a, b } = await stores();
        const lease = await running(a, 'r1');
        await a.append(lease, [frame('working')], TAIL);
        expect(await b.requestAbort('r1', 'stopped by the user', T0)).toBe('aborting');
        expect(await a.pause(lease, [frame('awaiting')], '{"pending":[]}', T0, closing)).toBe(
          'aborted',
        );
        const run = await b.getRun('r1');
        expect(run).toMatchObject({ status: 'finished', outcome: 'aborted' });
        expect(run?.abort).toBeUndefined();
        const items = await readAll(b, 'r1');
        expect(framesOf(items)).toEqual([frame('working'), frame('closed: aborted')]);
        expect(endOf(items)).toBe('finished');
        // Nothing waits for answers: a claim finds a finished run.
        expect(await b.claimPaused('r1', T0 + 1)).toMatchObject({ claimed: false });
      });

      it('without closing frames, a stopped run’s pause ends its log with nothing more', async () => {
        const { a } = await stores();
        const lease = await running(a, 'r1');
        await a.requestAbort('r1', 'stop', T0);
        expect(await a.pause(lease, [frame('awaiting')], '{}', T0)).toBe('aborted');
        const items = await readAll(a, 'r1');
        expect(framesOf(items)).toEqual([]);
        expect(endOf(items)).toBe('finished');
      });

      it('a run too large to keep while it waits writes its closing frames, not the asking ones', async () => {
        const { a } = await stores({ maxRememberedBytes: 8 * KIB });
        const lease = await running(a, 'big');
        expect(await a.pause(lease, [frame('awaiting')], 'x'.repeat(10 * KIB), T0, closing)).toBe(
          'dropped',
        );
        const run = await a.getRun('big');
        expect(run?.outcome).toMatch(/^dropped: its conversation/);
        const items = await readAll(a, 'big');
        expect(framesOf(items)).toEqual([frame(`closed: ${run?.outcome}`)]);
        expect(endOf(items)).toBe('finished');
      });
    });

    describe('finish', () => {
      it('a finished run keeps its outcome only: no prompt, no state, no owner', async () => {
        const { a } = await stores();
        const lease = await running(a, 'r1', { prompt: 'p'.repeat(4 * KIB) });
        await a.finish(lease, [frame('bye')], 'completed', T0 + 7);
        const run = await a.getRun('r1');
        expect(run).toMatchObject({
          status: 'finished',
          prompt: '',
          outcome: 'completed',
          stoppedAt: T0 + 7,
        });
        expect(run?.state).toBeUndefined();
        expect(run?.owner).toBeUndefined();
        expect(run?.leaseUntil).toBeUndefined();
        const stats = await a.stats();
        expect(stats).toMatchObject({ running: 0, paused: 0, finished: 1 });
        expect(stats.rememberedBytes).toBeGreaterThan(0);
        expect(stats.rememberedBytes).toBeLessThan(4 * KIB);
      });
    });

    describe('abort', () => {
      it('a stop asked on any instance reaches the owner’s listeners only, and its renew', async () => {
        const { a, b } = await stores();
        const lease = await running(a, 'r1');
        const heardByA = new Promise<[string, string]>((resolve) => {
          a.onAbort((runId, reason) => resolve([runId, reason]));
        });
        const heardByB: string[] = [];
        b.onAbort((runId) => heardByB.push(runId));
        expect(await b.requestAbort('r1', 'stopped by the user', T0 + 1)).toBe('aborting');
        expect(await heardByA).toEqual(['r1', 'stopped by the user']);
        expect(await a.renew(lease, T0 + 2)).toMatchObject({
          abort: 'stopped by the user',
          lost: false,
        });
        expect((await b.getRun('r1'))?.abort).toBe('stopped by the user');
        expect(heardByB).toEqual([]);
        // The owner carries it out; the flag goes with the run's end.
        await a.finish(lease, [frame('aborted')], 'aborted', T0 + 3);
        expect(await b.getRun('r1')).toMatchObject({ status: 'finished', outcome: 'aborted' });
        expect((await b.getRun('r1'))?.abort).toBeUndefined();
        expect(await b.requestAbort('r1', 'again', T0 + 4)).toBe('finished');
      });

      it('an unsubscribed listener hears nothing', async () => {
        const { a, b } = await stores();
        const lease = await running(a, 'r1');
        const heard: string[] = [];
        const unsubscribe = a.onAbort((runId) => heard.push(`first ${runId}`));
        const second = new Promise<void>((resolve) => {
          a.onAbort(() => resolve());
        });
        unsubscribe();
        await b.requestAbort('r1', 'stop', T0);
        await second;
        expect(heard).toEqual([]);
        expect((await a.renew(lease, T0)).abort).toBe('stop');
      });

      it('a paused run is finished at once as aborted; an unknown one is unknown', async () => {
        const { a, b } = await stores();
        await paused(a, 'p1');
        expect(await b.requestAbort('p1', 'stopped by the user', T0 + 1)).toBe('aborted');
        const run = await a.getRun('p1');
        expect(run).toMatchObject({ status: 'finished', outcome: 'aborted' });
        expect(run?.state).toBeUndefined();
        expect(endOf(await readAll(a, 'p1'))).toBe('finished');
        expect(await a.claimPaused('p1', T0 + 2)).toMatchObject({ claimed: false });
        expect(await b.requestAbort('nobody', 'stop', T0)).toBe('unknown');
        expect(await a.stats()).toMatchObject({ paused: 0, finished: 1 });
      });
    });

    describe('sweep', () => {
      it('an expired lease becomes instance_lost: the tail written, then the log ends lost', async () => {
        const { a, b } = await stores({ leaseMs: 1000 });
        const lease = await running(a, 'r1');
        await a.append(
          lease,
          [frame('<content-block-text>'), frame('half')],
          [frame('</content-block-text>'), ...TAIL],
        );
        // A follower reading live on the other instance gets the tail, then the end.
        const following = readAll(b, 'r1');
        await b.sweep(T0 + 1000);
        expect((await b.getRun('r1'))?.status).toBe('running');
        await b.sweep(T0 + 1001);
        const items = await following;
        expect(framesOf(items)).toEqual([
          frame('<content-block-text>'),
          frame('half'),
          frame('</content-block-text>'),
          ...TAIL,
        ]);
        expect(endOf(items)).toBe('lost');
        const run = await a.getRun('r1');
        expect(run).toMatchObject({
          status: 'finished',
          outcome: 'instance_lost',
          stoppedAt: T0 + 1001,
        });
        expect(run?.owner).toBeUndefined();
        // Swept once: a second sweep writes nothing more.
        await a.sweep(T0 + 2000);
        expect(framesOf(await readAll(a, 'r1'))).toHaveLength(4);
      });

      it('the tail written is the one the latest append gave', async () => {
        const { a } = await stores({ leaseMs: 1000 });
        const lease = await running(a, 'r1', { tail: [frame('first tail')] });
        await a.sweep(T0 + 500);
        await a.append(lease, [frame('x')], [frame('second tail')]);
        await a.sweep(T0 + 1001);
        expect(framesOf(await readAll(a, 'r1'))).toEqual([frame('x'), frame('second tail')]);
      });

      it('a run created with no appends is lost with its first tail', async () => {
        const { a } = await stores({ leaseMs: 1000 });
        await running(a, 'r1', { tail: [frame('closing')] });
        await a.sweep(T0 + 1001);
        expect(framesOf(await readAll(a, 'r1'))).toEqual([frame('closing')]);
      });

      it('a paused run past pausedRunTtlMs is finished as dropped; a finished one past finishedRunTtlMs is forgotten', async () => {
        const { a } = await stores({ pausedRunTtlMs: 1000, finishedRunTtlMs: 500 });
        await paused(a, 'p1');
        await a.sweep(T0 + 999);
        expect((await a.getRun('p1'))?.status).toBe('paused');
        await a.sweep(T0 + 1000);
        const run = await a.getRun('p1');
        expect(run).toMatchObject({ status: 'finished', stoppedAt: T0 + 1000 });
        expect(run?.outcome).toMatch(/^dropped: it waited too long/);
        expect(endOf(await readAll(a, 'p1'))).toBe('finished');
        await a.sweep(T0 + 1499);
        expect((await a.getRun('p1'))?.status).toBe('finished');
        await a.sweep(T0 + 1500);
        expect(await a.getRun('p1')).toBeUndefined();
        expect(await a.stats()).toEqual({ running: 0, paused: 0, finished: 0, rememberedBytes: 0 });
      });

      it('a resumed run pauses again with a fresh paused time', async () => {
        const { a, b } = await stores({ pausedRunTtlMs: 1000 });
        await paused(a, 'p1');
        const claim = await b.claimPaused('p1', T0 + 900);
        if (!claim.claimed) throw new Error('not claimed');
        await b.pause(claim.lease, [frame('asks again')], '{"n":2}', T0 + 950);
        await a.sweep(T0 + 1500);
        expect(await a.getRun('p1')).toMatchObject({ status: 'paused', state: '{"n":2}' });
        await a.sweep(T0 + 1950);
        expect((await a.getRun('p1'))?.status).toBe('finished');
      });
    });

    describe('bounds', () => {
      it('remembers at most maxRememberedRuns paused and finished runs: oldest finished first, then oldest paused', async () => {
        const { a, b } = await stores({ maxRememberedRuns: 3 });
        await paused(a, 'p1');
        await finished(a, 'f1');
        await paused(b, 'p2');
        await finished(b, 'f2');
        expect(await held(a, ['p1', 'f1', 'p2', 'f2'])).toEqual(['p1', 'p2', 'f2']);
        expect(await readAll(a, 'f1')).toEqual([{ end: 'gone' }]);
        await paused(a, 'p3');
        expect(await held(a, ['p1', 'p2', 'f2', 'p3'])).toEqual(['p1', 'p2', 'p3']);
        await paused(a, 'p4');
        expect(await held(a, ['p1', 'p2', 'p3', 'p4'])).toEqual(['p2', 'p3', 'p4']);
        // A resumed run leaves the order; paused again, it is the newest.
        const claim = await a.claimPaused('p2', T0 + 1);
        if (!claim.claimed) throw new Error('not claimed');
        await a.pause(claim.lease, [], '{}', T0 + 2);
        await paused(a, 'p5');
        expect(await held(a, ['p2', 'p3', 'p4', 'p5'])).toEqual(['p2', 'p4', 'p5']);
        // Running runs are bounded elsewhere (the server's concurrency), not by this cap.
        for (const id of ['r1', 'r2', 'r3', 'r4']) await running(a, id);
        expect(await held(a, ['p2', 'p4', 'p5', 'r1', 'r2', 'r3', 'r4'])).toHaveLength(7);
        expect(await a.stats()).toMatchObject({ running: 4, paused: 3, finished: 0 });
      });

      it('keeps the bytes of paused and finished runs, logs included, under maxRememberedBytes', async () => {
        const cap = 64 * KIB;
        const { a } = await stores({ maxRememberedBytes: cap });
        const ids: string[] = [];
        for (let index = 0; index < 20; index++) {
          const id = `p${index}`;
          ids.push(id);
          await paused(a, id, 's'.repeat(10 * KIB), 'q'.repeat(KIB));
          expect((await a.stats()).rememberedBytes).toBeLessThanOrEqual(cap);
        }
        const kept = await held(a, ids);
        expect(kept.length).toBeGreaterThanOrEqual(3);
        expect(kept.length).toBeLessThanOrEqual(6);
        expect(kept).toEqual(ids.slice(-kept.length));
      });

      it('counts a stopped run’s log against maxRememberedBytes', async () => {
        const cap = 64 * KIB;
        const { a } = await stores({ maxRememberedBytes: cap });
        const ids: string[] = [];
        // Each finished run holds a short outcome and a log of about 20 KiB.
        for (let index = 0; index < 6; index++) {
          const id = `f${index}`;
          ids.push(id);
          const lease = await running(a, id);
          for (let part = 0; part < 5; part++)
            await a.append(lease, [frame('l'.repeat(4 * KIB))], TAIL);
          await a.finish(lease, [], 'completed', T0);
          expect((await a.stats()).rememberedBytes).toBeLessThanOrEqual(cap);
        }
        expect(await held(a, ids)).toEqual(['f3', 'f4', 'f5']);
        expect((await a.stats()).rememberedBytes).toBeGreaterThan(3 * 20 * KIB);
      });

      it('counts the bytes of a trimmed log’s kept entries only, the same on every store', async () => {
        const { a } = await stores({ maxRunEvents: 10 });
        const lease = await running(a, 'r1', { prompt: 'p'.repeat(100) });
        const body = 'é'.repeat(50); // 100 bytes of UTF-8
        for (let index = 0; index < 100; index++) await a.append(lease, [frame(body)], TAIL);
        await a.finish(lease, [], 'completed', T0);
        // Kept: nine frames and the end entry (32 bytes each besides the frame), the outcome,
        // and a run's fixed share (256); a finished run keeps no prompt.
        const entry = 32 + frame(body).length + 50;
        expect((await a.stats()).rememberedBytes).toBe(256 + 'completed'.length + 9 * entry + 32);
      });

      it('frees bytes from finished runs first, then from the oldest paused', async () => {
        const { a } = await stores({ maxRememberedBytes: 40 * KIB });
        await paused(a, 'p1', 'a'.repeat(15 * KIB));
        for (let index = 0; index < 10; index++) await finished(a, `f${index}`);
        await paused(a, 'p2', 'b'.repeat(15 * KIB));
        expect(await held(a, ['p1', 'p2'])).toEqual(['p1', 'p2']);
        expect((await a.stats()).finished).toBe(10);
        await paused(a, 'p3', 'c'.repeat(15 * KIB));
        expect((await a.stats()).finished).toBe(0);
        expect(await held(a, ['p1', 'p2', 'p3'])).toEqual(['p2', 'p3']);
      });
    });

    describe('pointers (a chat’s or a thread’s current run)', () => {
      // A pointer expires at `now + ttlMs` by the store's own clock (Redis: PEXPIREAT), so these
      // tests pass the real time.
      it('gives what was set, on any instance, replaced whole; a thread and a chat are apart', async () => {
        const { a, b } = await stores();
        const now = Date.now();
        await a.setPointer('chat', 'c1', { run: 'r1', log: 'chat:c1:1' }, 60_000, now);
        expect(await b.pointer('chat', 'c1')).toEqual({ run: 'r1', log: 'chat:c1:1' });
        expect(await b.pointer('thread', 'c1')).toBeUndefined();
        expect(await b.pointer('chat', 'c2')).toBeUndefined();
        await b.setPointer('chat', 'c1', { log: 'chat:c1:2' }, 60_000, now);
        expect(await a.pointer('chat', 'c1')).toEqual({ log: 'chat:c1:2' });
        await b.setPointer('thread', 'c1', { run: 'r9' }, 60_000, now);
        expect(await a.pointer('thread', 'c1')).toEqual({ run: 'r9' });
        expect(await a.pointer('chat', 'c1')).toEqual({ log: 'chat:c1:2' });
      });

      it('a pointer whose time is up reads as undefined', async () => {
        const { a } = await stores();
        await a.setPointer('thread', 't1', { run: 'r1' }, 1000, Date.now() - 5000);
        expect(await a.pointer('thread', 't1')).toBeUndefined();
      });

      it('keeps at most maxRememberedRuns pointers, the oldest set going first', async () => {
        const { a } = await stores({ maxRememberedRuns: 3 });
        const now = Date.now();
        for (const key of ['k1', 'k2', 'k3', 'k4'])
          await a.setPointer('chat', key, { run: key }, 60_000, now);
        expect(await a.pointer('chat', 'k1')).toBeUndefined();
        for (const key of ['k2', 'k3', 'k4'])
          expect(await a.pointer('chat', key)).toEqual({ run: key });
      });

      it('the cap keeps the pointer of a paused or running run while pointers of finished or forgotten runs can go', async () => {
        const { a, b } = await stores({ maxRememberedRuns: 2 });
        const now = Date.now();
        await paused(a, 'waits');
        await a.setPointer('thread', 't', { run: 'waits' }, 60_000, now);
        for (const id of ['f1', 'f2', 'f3']) {
          await finished(b, id);
          await b.setPointer('chat', id, { run: id }, 60_000, now);
        }
        expect(await held(a, ['waits', 'f1', 'f2', 'f3'])).toEqual(['waits', 'f3']);
        expect(await a.pointer('thread', 't')).toEqual({ run: 'waits' });
        expect(await a.pointer('chat', 'f1')).toBeUndefined();
        expect(await a.pointer('chat', 'f2')).toBeUndefined();
        expect(await a.pointer('chat', 'f3')).toEqual({ run: 'f3' });
      });

      it('the cap keeps a running run’s pointer too, and lets one whose run was forgotten go', async () => {
        const { a, b } = await stores({ maxRememberedRuns: 3 });
        const now = Date.now();
        await running(a, 'runs');
        await a.setPointer('chat', 'r', { run: 'runs' }, 60_000, now);
        await a.setPointer('chat', 'gone', { run: 'forgotten' }, 60_000, now);
        await a.setPointer('chat', 'none', { log: 'no run named' }, 60_000, now);
        await finished(b, 'f1');
        await b.setPointer('chat', 'f1', { run: 'f1' }, 60_000, now);
        expect(await a.pointer('chat', 'gone')).toBeUndefined();
        await b.setPointer('thread', 't', { run: 'runs' }, 60_000, now);
        expect(await a.pointer('chat', 'none')).toBeUndefined();
        await finished(b, 'f2');
        await b.setPointer('chat', 'f2', { run: 'f2' }, 60_000, now);
        expect(await a.pointer('chat', 'f1')).toBeUndefined();
        for (const [kind, key, run] of [
          ['chat', 'r', 'runs'],
          ['thread', 't', 'runs'],
          ['chat', 'f2', 'f2'],
        ] as const)
          expect(await b.pointer(kind, key)).toEqual({ run });
      });

      it('when the oldest 100 pointers all name live runs, the oldest goes as before', async () => {
        const { a } = await stores({ maxRememberedRuns: 101 });
        const now = Date.now();
        for (let i = 0; i < 101; i++) {
          await running(a, `r${i}`);
          await a.setPointer('chat', `c${i}`, { run: `r${i}` }, 60_000, now);
        }
        await finished(a, 'done');
        await a.setPointer('chat', 'done', { run: 'done' }, 60_000, now);
        expect(await a.pointer('chat', 'c0')).toBeUndefined();
        expect(await a.pointer('chat', 'c1')).toEqual({ run: 'r1' });
        expect(await a.pointer('chat', 'c100')).toEqual({ run: 'r100' });
        // The pointer just set is never the one that goes.
        expect(await a.pointer('chat', 'done')).toEqual({ run: 'done' });
      });

      it('a pointer’s time counts again from when its run stops (paused or finished), so a long run keeps it', async () => {
        const start = Date.now();
        let now = start;
        const { a, b } = await stores({}, () => now);
        const long = await a.createRun(newRun('long'), start);
        const other = await a.createRun(newRun('other'), start);
        await a.setPointer('thread', 't', { run: 'long' }, 60_000, start);
        await a.setPointer('chat', 'c', { run: 'other' }, 60_000, start);
        await a.setPointer('chat', 'moved', { run: 'long' }, 60_000, start);
        await a.setPointer('chat', 'moved', { run: 'elsewhere' }, 60_000, start);
        // Paused 50 s after it started: its pointer lasts 60 s from the pause.
        expect(await a.pause(long, [], '{"pending":[]}', start + 50_000)).toBe('paused');
        now = start + 70_000;
        expect(await b.pointer('thread', 't')).toEqual({ run: 'long' });
        expect(await b.pointer('chat', 'c')).toBeUndefined();
        // A pointer that names another run now is not the stopped run's to extend.
        expect(await b.pointer('chat', 'moved')).toBeUndefined();
        // Finished, its time counts from the finish.
        const claim = await b.claimPaused('long', start + 100_000);
        if (!claim.claimed) throw new Error('not claimed');
        await b.finish(claim.lease, [], 'completed', start + 105_000);
        now = start + 150_000;
        expect(await a.pointer('thread', 't')).toEqual({ run: 'long' });
        now = start + 165_000;
        expect(await a.pointer('thread', 't')).toBeUndefined();
        await a.finish(other, [], 'completed', start);
      });
    });

    describe('stored responses', () => {
      it('gets what was put, on any instance; unknown ids are undefined', async () => {
        const { a, b } = await stores();
        expect(await a.responses.put('resp_1', '{"turns":[1]}')).toBe(true);
        expect(await b.responses.get('resp_1')).toBe('{"turns":[1]}');
        expect(await b.responses.get('resp_2')).toBeUndefined();
        expect(await a.responses.put('resp_1', '{"turns":[2]}')).toBe(true);
        expect(await b.responses.get('resp_1')).toBe('{"turns":[2]}');
      });

      it('keeps at most maxStoredResponses, dropping the oldest', async () => {
        const { a } = await stores({ maxStoredResponses: 3 });
        for (const id of ['r1', 'r2', 'r3', 'r4', 'r5'])
          await a.responses.put(id, `{"id":"${id}"}`);
        const kept: string[] = [];
        for (const id of ['r1', 'r2', 'r3', 'r4', 'r5'])
          if ((await a.responses.get(id)) !== undefined) kept.push(id);
        expect(kept).toEqual(['r3', 'r4', 'r5']);
      });

      it('a response put again under its id replaces it and becomes the newest', async () => {
        const { a } = await stores({ maxStoredResponses: 2, maxStoredResponseBytes: 10 * KIB });
        await a.responses.put('r1', `"${'1'.repeat(4 * KIB)}"`);
        await a.responses.put('r2', '"2"');
        // Replaced, not counted twice: 4 KiB + 4 KiB + 1 would not fit beside r2.
        await a.responses.put('r1', `"${'1'.repeat(4 * KIB)}"`);
        expect(await a.responses.get('r2')).toBe('"2"');
        await a.responses.put('r3', '"3"');
        expect(await a.responses.get('r1')).toBeDefined();
        expect(await a.responses.get('r2')).toBeUndefined();
        expect(await a.responses.get('r3')).toBe('"3"');
      });

      it('refuses one larger than maxStoredResponseBytes, and keeps the total under it', async () => {
        const { a } = await stores({ maxStoredResponseBytes: 10 * KIB });
        expect(await a.responses.put('huge', `"${'x'.repeat(11 * KIB)}"`)).toBe(false);
        expect(await a.responses.get('huge')).toBeUndefined();
        for (let index = 0; index < 6; index++)
          expect(await a.responses.put(`r${index}`, `"${'y'.repeat(3 * KIB)}"`)).toBe(true);
        const kept: string[] = [];
        for (let index = 0; index < 6; index++)
          if ((await a.responses.get(`r${index}`)) !== undefined) kept.push(`r${index}`);
        expect(kept).toEqual(['r3', 'r4', 'r5']);
      });
    });
  });
}
