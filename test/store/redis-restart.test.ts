/**
 * Redis going away never hangs a run: a write, a renewal and a live reader each fail with a
 * `store-unavailable` error that says what was asked of which Redis (never a password), whether
 * Redis was killed, is not there, or stopped answering; the store picks a restarted Redis up by
 * itself. Each case waits on what happened (the process's exit, the promise's settling), not on
 * a guessed time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isErrorOfKind } from '../../src/core/errors.ts';
import { createRedisRunStore, type RedisRunStore } from '../../src/store/redis/index.ts';
import type { LogItem } from '../../src/store/run-store.ts';
import { type RedisServer, skipRedisTests, startRedis } from '../support/redis-server.ts';
import { follow, frame, newRun, rejection, TAIL } from './contract.ts';

const T0 = 1_700_000_000_000;
const PASSWORD = 'pa55-w0rd-never-shown';

async function failure(promise: Promise<unknown>): Promise<Error> {
  return (await rejection(promise)) as Error;
}

function expectStoreUnavailable(error: Error, what: RegExp, port: number): void {
  expect(isErrorOfKind(error, 'store-unavailable')).toBe(true);
  expect(error.message).toMatch(what);
  expect(error.message).toContain(`127.0.0.1:${port}/0`);
  expect(error.message).not.toContain(PASSWORD);
}

/** Calls `attempt` until it succeeds: the client reconnects on its own schedule. Bounded by count. */
async function once<T>(attempt: () => Promise<T>): Promise<T> {
  for (let tries = 0; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if (tries >= 2000) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}

describe.skipIf(skipRedisTests())('the Redis store when Redis goes away', () => {
  let redis: RedisServer;
  const stores: RedisRunStore[] = [];
  const url = () => `redis://:${PASSWORD}@127.0.0.1:${redis.port}`;

  beforeAll(async () => {
    redis = await startRedis({ args: ['--requirepass', PASSWORD] });
  });
  afterAll(async () => {
    for (const store of stores) await store.close();
    await redis?.stop();
  });

  async function open(prefix: string, options: { callDeadlineMs?: number } = {}) {
    const store = await createRedisRunStore(url(), { prefix, instanceId: prefix, ...options });
    stores.push(store);
    return store;
  }

  it('Redis killed mid-run: append, renew and a live reader fail with store-unavailable; a restarted Redis is used again', async () => {
    const owner = await open('killed:');
    const reader = await open('killed:');
    const lease = await owner.createRun(newRun('r1'), T0);
    await owner.append(lease, [frame('one')], TAIL);

    // A reader on the other instance follows live: it waits in the tailer's blocking XREAD.
    const { items: seen, first, reading } = follow(reader, 'r1');
    // Its failure is awaited from now on: it may come while Redis is being killed.
    const readFailure = failure(reading);
    await first;

    await redis.kill();
    expectStoreUnavailable(await readFailure, /XREAD/, redis.port);
    expect(seen).toEqual([{ id: expect.any(String), frame: frame('one') }]);
    expectStoreUnavailable(
      await failure(owner.append(lease, [frame('two')], TAIL)),
      /append/,
      redis.port,
    );
    expectStoreUnavailable(await failure(owner.renew(lease, T0 + 1)), /renew/, redis.port);
    expectStoreUnavailable(await failure(reader.getRun('r1')), /getRun/, redis.port);

    // A new, empty Redis on the same port (nothing was saved): the run is gone, so its owner's
    // next write is refused as lost, and new runs work (the scripts are loaded again).
    await redis.start();
    const lost = await once(async () => {
      const error = await failure(owner.append(lease, [frame('three')], TAIL));
      if (!isErrorOfKind(error, 'run-lost')) throw error;
      return error;
    });
    expect(lost.message).toMatch(/r1/);
    const next = await once(() => owner.createRun(newRun('r2'), T0));
    await owner.append(next, [frame('again')], TAIL);
    await owner.finish(next, [], 'completed', T0);
    // The reader's own connection comes back on its own schedule too ("the client is offline"
    // until then): read again until it answers.
    const items = await once(async () => {
      const read: LogItem[] = [];
      for await (const item of reader.read('r2', undefined, new AbortController().signal))
        read.push(item);
      return read;
    });
    expect(items).toEqual([{ id: expect.any(String), frame: frame('again') }, { end: 'finished' }]);
  });

  it('after a restart, a stop asked on another instance still reaches the owner’s listener (the subscription is renewed)', async () => {
    const owner = await open('resubscribe:');
    const other = await open('resubscribe:');
    await redis.restart();
    const lease = await once(() => owner.createRun(newRun('r1'), T0));
    const heard = new Promise<string>((resolve) => {
      owner.onAbort((runId, reason) => resolve(`${runId}: ${reason}`));
    });
    // The owner's subscriber reconnects on its own schedule: ask until a message is heard.
    let answer: string | undefined;
    void heard.then((text) => {
      answer = text;
    });
    for (let tries = 0; answer === undefined && tries < 2000; tries++) {
      await once(() => other.requestAbort('r1', 'stopped by the user', T0 + 1));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(await heard).toBe('r1: stopped by the user');
    expect((await owner.renew(lease, T0 + 2)).abort).toBe('stopped by the user');
  });

  it('a Redis that stops answering fails a call with its deadline named, and the same connection serves once it answers', async () => {
    const store = await open('stopped:', { callDeadlineMs: 200 });
    const lease = await store.createRun(newRun('r1'), T0);
    await store.append(lease, [frame('loaded')], TAIL);
    const pid = redis.pid();
    process.kill(pid, 'SIGSTOP');
    try {
      expectStoreUnavailable(
        await failure(store.append(lease, [frame('x')], TAIL)),
        /append: no answer within 200 ms/,
        redis.port,
      );
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    // Answering again, it serves the same connection (the late reply was not taken for another).
    expect(await once(() => store.append(lease, [frame('y')], TAIL))).toHaveLength(1);
    expect((await store.getRun('r1'))?.status).toBe('running');
  });

  it('a store closes without waiting on a Redis that is gone, its readers ending quietly', async () => {
    const store = await createRedisRunStore(url(), { prefix: 'closing:', instanceId: 'closing' });
    const lease = await store.createRun(newRun('r1'), T0);
    await store.append(lease, [frame('one')], TAIL);
    const following = follow(store, 'r1');
    const { items } = following;
    const reading = following.reading.catch((error: unknown) => error);
    await following.first;
    await redis.kill();
    try {
      await store.close();
      const ended = await reading;
      // Ended by the close, or by Redis going first: never left waiting.
      if (ended !== undefined) expect(isErrorOfKind(ended, 'store-unavailable')).toBe(true);
      expect(items[0]).toEqual({ id: expect.any(String), frame: frame('one') });
    } finally {
      await redis.start();
    }
  });

  it('no Redis at the address: the store fails to open with store-unavailable, without the password', async () => {
    const closedPort = redis.port;
    await redis.kill();
    try {
      const error = await failure(
        createRedisRunStore(`redis://user:${PASSWORD}@127.0.0.1:${closedPort}/3`, {
          connectDeadlineMs: 1_000,
        }),
      );
      expect(isErrorOfKind(error, 'store-unavailable')).toBe(true);
      expect(error.message).toContain(`127.0.0.1:${closedPort}/3`);
      expect(error.message).not.toContain(PASSWORD);
      expect(String((error as { cause?: unknown }).cause ?? '')).not.toContain(PASSWORD);
    } finally {
      await redis.start();
    }
  });

  it('a wrong password is refused with store-unavailable, and neither password is shown', async () => {
    const wrong = 'wrong-secret-also-hidden';
    const error = await failure(
      createRedisRunStore(`redis://:${wrong}@127.0.0.1:${redis.port}`, {
        connectDeadlineMs: 2_000,
      }),
    );
    expect(isErrorOfKind(error, 'store-unavailable')).toBe(true);
    expect(error.message).toContain(`127.0.0.1:${redis.port}/0`);
    expect(error.message).not.toContain(wrong);
    expect(error.message).not.toContain(PASSWORD);
  });
});
