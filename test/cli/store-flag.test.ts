import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, openStoreOrSay, storeSetting } from '../../src/cli/store-flag.ts';
import { UsageError } from '../../src/cli/usage-error.ts';
import { type RedisServer, skipRedisTests, startRedis } from '../support/redis-server.ts';

const NO_ENV = {};

function usageMessage(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(UsageError.isInstance(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error('no usage error');
}

describe('--store and --store-prefix', () => {
  it('defaults to memory, from the flag, else TOOLWIRE_STORE', () => {
    expect(storeSetting({}, NO_ENV)).toEqual({ kind: 'memory', spec: 'memory', shown: 'memory' });
    expect(storeSetting({}, { TOOLWIRE_STORE: '' }).kind).toBe('memory');
    expect(storeSetting({}, { TOOLWIRE_STORE: 'redis://h:1' })).toEqual({
      kind: 'redis',
      spec: 'redis://h:1',
      shown: 'redis://h:1/0',
    });
    // The flag wins over the environment.
    expect(storeSetting({ store: 'memory' }, { TOOLWIRE_STORE: 'redis://h:1' }).kind).toBe(
      'memory',
    );
    expect(storeSetting({ store: 'redis://127.0.0.1:6380/3' }, NO_ENV).shown).toBe(
      'redis://127.0.0.1:6380/3',
    );
    expect(storeSetting({ store: 'redis://box' }, NO_ENV).shown).toBe('redis://box:6379/0');
  });

  it('takes a prefix for Redis, from the flag, else TOOLWIRE_STORE_PREFIX', () => {
    expect(storeSetting({ store: 'redis://h:1', 'store-prefix': 'app:' }, NO_ENV).prefix).toBe(
      'app:',
    );
    expect(storeSetting({ store: 'redis://h:1' }, { TOOLWIRE_STORE_PREFIX: 'env:' }).prefix).toBe(
      'env:',
    );
    expect(storeSetting({ store: 'redis://h:1' }, NO_ENV).prefix).toBeUndefined();
    // A prefix in the environment does not stop a memory store; a flag says it has no use.
    expect(storeSetting({}, { TOOLWIRE_STORE_PREFIX: 'env:' }).kind).toBe('memory');
    expect(usageMessage(() => storeSetting({ 'store-prefix': 'a:' }, NO_ENV))).toContain(
      '--store-prefix applies to a redis:// store',
    );
    expect(
      usageMessage(() => storeSetting({ store: 'redis://h:1', 'store-prefix': 'a b' }, NO_ENV)),
    ).toContain('--store-prefix must be 1 to 64 printable characters');
    expect(
      usageMessage(() =>
        storeSetting({ store: 'redis://h:1' }, { TOOLWIRE_STORE_PREFIX: 'x'.repeat(65) }),
      ),
    ).toContain('TOOLWIRE_STORE_PREFIX must be');
  });

  it('refuses what names no store, saying which setting and why', () => {
    const cases: [string, string][] = [
      ['memroy', '"memroy" is neither'],
      ['rediss://h:1', 'the scheme rediss:// is not supported'],
      ['http://h:1', 'the scheme http:// is not supported'],
      ['redis://:1', 'is not a URL'],
      ['redis://h:1/x', 'the database after the port must be a number'],
      ['redis://h:1/?db=2', 'takes no query or fragment'],
    ];
    for (const [value, reason] of cases) {
      const message = usageMessage(() => storeSetting({ store: value }, NO_ENV));
      expect(message, value).toContain('--store takes memory or redis://HOST:PORT[/DB]: ');
      expect(message, value).toContain(reason);
    }
    expect(usageMessage(() => storeSetting({}, { TOOLWIRE_STORE: 'disk' }))).toContain(
      'TOOLWIRE_STORE takes memory or redis://',
    );
  });

  it('never repeats a password, whatever is wrong with the value', () => {
    const secret = 'hunter2secret';
    const values = [
      `rediss://user:${secret}@h:1`,
      `redis://:${secret}@h:1/x`,
      `redis://user:${secret}@h:1?x=1`,
      `redis://:${secret}@:1`,
      `redis:${secret}@h`,
      `${secret}@h:1`,
      `unix://:${secret}@/tmp/redis.sock`,
    ];
    for (const value of values) {
      const message = usageMessage(() => storeSetting({ store: value }, NO_ENV));
      expect(message, value).not.toContain(secret);
      expect(message, value).not.toContain(secret.slice(0, 6));
    }
    const shown = storeSetting({ store: `redis://admin:${secret}@h:7/1` }, NO_ENV).shown;
    expect(shown).toBe('redis://h:7/1');
  });

  it('opens a memory store with the limits given', async () => {
    const store = await openStore(storeSetting({}, NO_ENV), {
      limits: { leaseMs: 1234 },
      instanceId: 'a',
    });
    try {
      expect(store.instanceId).toBe('a');
      expect(store.limits.leaseMs).toBe(1234);
    } finally {
      await store.close();
    }
  });
});

describe.skipIf(skipRedisTests())('--store redis://', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('opens the Redis store with the prefix and limits given', async () => {
    const store = await openStore(
      storeSetting({ store: `${redis.url}/2`, 'store-prefix': 'flag-test:' }, NO_ENV),
      { limits: { leaseMs: 4321, maxRunEvents: 7 } },
    );
    try {
      expect(store.limits).toMatchObject({ leaseMs: 4321, maxRunEvents: 7 });
      await store.setPointer('chat', 'c1', { run: 'r1' }, 60_000, Date.now());
      expect(await store.pointer('chat', 'c1')).toEqual({ run: 'r1' });
    } finally {
      await store.close();
    }
  });

  it('a Redis that is not there: one line, without the password, and no store', async () => {
    const lines: string[] = [];
    const gone = await startRedis();
    const url = `redis://:sesame-open@127.0.0.1:${gone.port}/0`;
    await gone.stop();
    const store = await openStoreOrSay(
      storeSetting({ store: url }, NO_ENV),
      {},
      { write: (text) => lines.push(text) },
    );
    expect(store).toBeUndefined();
    const said = lines.join('');
    expect(said).toMatch(
      /^toolwire: the run store \(Redis at 127\.0\.0\.1:\d+\/0\) failed connect: /,
    );
    expect(said.trimEnd().split('\n')).toHaveLength(1);
    expect(said).not.toContain('sesame');
  });
});
