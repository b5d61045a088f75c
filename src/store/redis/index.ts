/**
 * The Redis run store: `createRedisRunStore('redis://HOST:PORT[/DB]', options)`. Loaded by
 * `createRunStore` only for a `redis://` store, so the optional `redis` package is needed only then.
 */
import { randomUUID } from 'node:crypto';
import { DEFAULT_RUN_STORE_LIMITS, type RunStoreLimits } from '../run-store.ts';
import { RedisConnection, type RedisConnectOptions } from './connect.ts';
import { RedisRunStore } from './redis-run-store.ts';

export { RedisStoreError } from './connect.ts';
export { RedisRunStore } from './redis-run-store.ts';

export interface RedisRunStoreOptions extends RedisConnectOptions {
  /** Put before every key and the abort channel (default `tw:`), so stores can share a Redis. */
  readonly prefix?: string;
  /** This instance's id (default: random). */
  readonly instanceId?: string;
  readonly limits?: Partial<RunStoreLimits>;
  /** How long the tailer's blocking XREAD waits before it is sent again (ms; default 5000). */
  readonly tailerBlockMs?: number;
  /** The store's clock, for pointer expiry (default `Date.now`). */
  readonly clock?: () => number;
}

const DEFAULT_REDIS_PREFIX = 'tw:';

/** Connects to Redis (failing fast with a `store-unavailable` error) and gives the store. */
export async function createRedisRunStore(
  url: string,
  options: RedisRunStoreOptions = {},
): Promise<RedisRunStore> {
  const connection = await RedisConnection.open(url, options);
  const store = new RedisRunStore({
    connection,
    prefix: options.prefix ?? DEFAULT_REDIS_PREFIX,
    instanceId: options.instanceId ?? randomUUID(),
    limits: { ...DEFAULT_RUN_STORE_LIMITS, ...options.limits },
    ...(options.tailerBlockMs === undefined ? {} : { tailerBlockMs: options.tailerBlockMs }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  try {
    await store.listenForAborts();
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}
