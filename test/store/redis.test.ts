/**
 * The Redis store against a real redis-server (one per file, on a free port): the shared RunStore
 * contract, each backing under a fresh key prefix, then what only Redis has (scripts reloaded
 * after a flush, the tailer's one connection for many readers, keys under the prefix only).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isErrorOfKind } from '../../src/core/errors.ts';
import { createRunStore } from '../../src/store/index.ts';
import { createRedisRunStore, RedisRunStore } from '../../src/store/redis/index.ts';
import { DEFAULT_RUN_STORE_LIMITS, type LogItem } from '../../src/store/run-store.ts';
import { type RedisServer, skipRedisTests, startRedis } from '../support/redis-server.ts';
import { frame, newRun, readAll, rejection, runStoreContract, TAIL } from './contract.ts';

const T0 = 1_700_000_000_000;
let redis: RedisServer;
let backings = 0;

describe.skipIf(skipRedisTests())('the Redis run store', () => {
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  runStoreContract('redis', async (limits, clock) => {
    const prefix = `contract${++backings}:`;
    return {
      open: (instanceId) =>
        createRedisRunStore(redis.url, {
          prefix,
          instanceId,
          limits,
          ...(clock === undefined ? {} : { clock }),
        }),
      dispose: async () => {},
    };
  });

  describe('on Redis only', () => {
    const opened: RedisRunStore[] = [];
    afterAll(async () => {
      for (const store of opened) await store.close();
    });
    async function open(prefix: string, instanceId = 'only', tailerBlockMs?: number) {
      const store = await createRedisRunStore(redis.url, {
        prefix,
        instanceId,
        limits: DEFAULT_RUN_STORE_LIMITS,
        ...(tailerBlockMs === undefined ? {} : { tailerBlockMs }),
      });
      opened.push(store);
      return store;
    }

    it('loads its scripts again when Redis lost them (SCRIPT FLUSH), and goes on', async () => {
      const store = await open('flush:');
      const lease = await store.createRun(newRun('r1'), T0);
      await store.append(lease, [frame('before')], TAIL);
      await flushScripts();
      expect(await store.append(lease, [frame('after')], TAIL)).toHaveLength(1);
      await store.finish(lease, [], 'completed', T0);
      const items = await readAll(store, 'r1');
      expect(items.filter((item) => 'frame' in item)).toHaveLength(2);
    });

    it('wakes 200 readers of 200 logs written by another instance with one XREAD connection', async () => {
      const writer = await open('many:', 'writer');
      const reader = await open('many:', 'reader');
      const leases = await Promise.all(
        Array.from({ length: 200 }, (_, index) => writer.createRun(newRun(`r${index}`), T0)),
      );
      const controller = new AbortController();
      const firsts = leases.map((lease) => firstFrame(reader, lease.log, controller.signal));
      // Every reader waits in the tailer before anything is written.
      await waitUntil(async () => reader.connections() === 3);
      for (const lease of leases) await writer.append(lease, [frame(lease.runId)], TAIL);
      const got = await Promise.all(firsts);
      expect(got).toEqual(leases.map((lease) => frame(lease.runId)));
      expect(reader.connections()).toBe(3);
      controller.abort();
    });

    it('a reader that joins while the tailer blocks on other logs is woken at once (CLIENT UNBLOCK)', async () => {
      // The XREAD blocks for 10 minutes: only the unblock can make it read the new log in time.
      const writer = await open('unblock:', 'writer');
      const reader = await open('unblock:', 'reader', 600_000);
      const first = await writer.createRun(newRun('first'), T0);
      const second = await writer.createRun(newRun('second'), T0);
      const controller = new AbortController();
      const firstRead = firstFrame(reader, first.log, controller.signal);
      await waitUntil(async () => (await blockedClients()) === 1);
      const secondRead = firstFrame(reader, second.log, controller.signal);
      await writer.append(second, [frame('second')], TAIL);
      expect(await secondRead).toBe(frame('second'));
      await writer.append(first, [frame('first')], TAIL);
      expect(await firstRead).toBe(frame('first'));
      controller.abort();
    });

    it('a follower of a log deleted under it (expired, flushed) ends gone instead of waiting forever', async () => {
      const writer = await open('deleted:', 'writer');
      const reader = await open('deleted:', 'reader', 50);
      const lease = await writer.createRun(newRun('r1'), T0);
      await writer.append(lease, [frame('1')], TAIL);
      const reading = readAll(reader, 'r1');
      await waitUntil(async () => (await blockedClients()) >= 1);
      await withClient((send) => send(['DEL', 'deleted:log:r1', 'deleted:run:r1']));
      const items = await reading;
      expect(items.at(-1)).toEqual({ end: 'gone' });
    });

    it('refuses a read after something that is not an event id, and its other readers go on', async () => {
      const writer = await open('badid:', 'writer');
      const reader = await open('badid:', 'reader');
      const lease = await writer.createRun(newRun('r1'), T0);
      const controller = new AbortController();
      const following = firstFrame(reader, 'r1', controller.signal);
      await waitUntil(async () => (await blockedClients()) >= 1);
      for (const bad of ['abc', '1-x', '$', '+', '1-2-3']) {
        const error = await rejection(readAll(reader, 'r1', bad));
        expect(isErrorOfKind(error, 'request-refused')).toBe(true);
      }
      await writer.append(lease, [frame('still here')], TAIL);
      expect(await following).toBe(frame('still here'));
      controller.abort();
    });

    it('is what createRunStore gives for a redis:// store', async () => {
      const store = await createRunStore(redis.url, { prefix: 'spec:', instanceId: 'spec' });
      try {
        expect(store).toBeInstanceOf(RedisRunStore);
        expect(store.instanceId).toBe('spec');
        await store.createRun(newRun('r1'), T0);
        expect((await store.getRun('r1'))?.owner).toBe('spec');
      } finally {
        await store.close();
      }
    });

    it('moves a pointer key’s own expiry (the real-time backstop) when its run pauses, and keeps the JSON readable', async () => {
      const store = await open('ptrttl:');
      const start = Date.now();
      const lease = await store.createRun(newRun('r1'), start);
      await store.setPointer('thread', 't/é"', { run: 'r1', log: 'l"1' }, 60_000, start);
      await store.pause(lease, [], '{}', start + 50_000);
      const expiresAt = await withClient((send) => send(['PEXPIRETIME', 'ptrttl:thread:t/é"']));
      expect(expiresAt).toBe(start + 110_000);
      expect(await store.pointer('thread', 't/é"')).toEqual({ run: 'r1', log: 'l"1' });
      expect(await store.getRun('r1')).toMatchObject({ status: 'paused' });
    });

    it('writes only keys under its prefix', async () => {
      const store = await open('mine:');
      const lease = await store.createRun(newRun('r1'), T0);
      await store.append(lease, [frame('x')], TAIL);
      await store.pause(lease, [], '{}', T0);
      await store.responses.put('resp_1', '{}');
      const keys = await redisKeys('*');
      const outside = keys.filter(
        (key) => !/^(contract\d+|flush|many|unblock|deleted|badid|spec|mine|ptrttl):/.test(key),
      );
      expect(outside).toEqual([]);
      const mine = keys.filter((key) => key.startsWith('mine:'));
      expect(mine).toContain('mine:run:r1');
      for (const key of mine)
        expect(key).toMatch(
          /^mine:(leases|runs:(paused|finished|stats|seq)|run:r1|log:r1|trim:r1|resp:(order|sizes|stats|seq|resp_1))$/,
        );
    });
  });
});

/** The first frame a reader of `log` gets. */
async function firstFrame(store: RedisRunStore, log: string, signal: AbortSignal) {
  for await (const item of store.read(log, undefined, signal) as AsyncIterable<LogItem>) {
    if ('frame' in item) return item.frame;
  }
  return undefined;
}

async function waitUntil(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 5));
}

async function withClient<T>(use: (send: (args: string[]) => Promise<unknown>) => Promise<T>) {
  const { createClient } = await import('redis');
  const client = createClient({ url: redis.url, RESP: 2 });
  await client.connect();
  try {
    return await use((args) => client.sendCommand(args));
  } finally {
    await client.close();
  }
}

function flushScripts(): Promise<unknown> {
  return withClient((send) => send(['SCRIPT', 'FLUSH']));
}

function redisKeys(pattern: string): Promise<string[]> {
  return withClient((send) => send(['KEYS', pattern]) as Promise<string[]>);
}

/** How many clients Redis holds blocked (in XREAD) now. */
async function blockedClients(): Promise<number> {
  const info = (await withClient((send) => send(['INFO', 'clients']))) as string;
  return Number(/blocked_clients:(\d+)/.exec(info)?.[1] ?? 0);
}
