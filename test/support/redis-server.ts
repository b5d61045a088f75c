/**
 * A real `redis-server` for the Redis store's tests: one per test file, on a free loopback port,
 * with nothing written to disk, started through child-process.ts so every path kills it.
 * Without Debian's redis-server a test file skips, saying why, unless TOOLWIRE_REQUIRE_REDIS=1
 * (CI), where a missing server is a failure.
 */
import { existsSync } from 'node:fs';
import { type StartedChild, startChild } from './child-process.ts';
import { freePort, REDIS_SERVER_PATH, redisServerArgs } from './redis-process.ts';

/** Why the Redis tests cannot run here, or undefined when they can. */
function redisMissingReason(): string | undefined {
  if (existsSync(REDIS_SERVER_PATH)) return undefined;
  return `${REDIS_SERVER_PATH} is not installed (apt-get install redis-server)`;
}

/** Whether a file skips its Redis tests: the server is missing and CI did not demand it. */
export function skipRedisTests(): boolean {
  if (process.env.TOOLWIRE_REQUIRE_REDIS === '1') return false;
  const reason = redisMissingReason();
  if (reason !== undefined) console.warn(`skipping the Redis tests: ${reason}`);
  return reason !== undefined;
}

export interface RedisServer {
  readonly port: number;
  /** `redis://127.0.0.1:PORT`. */
  readonly url: string;
  /** Kills the server (SIGKILL) and starts a new, empty one on the same port. */
  restart(): Promise<void>;
  /** Kills the server (SIGKILL) and waits for its exit. */
  kill(): Promise<void>;
  /** Starts it again on the same port after `kill`. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The running server's process id (to stop it with SIGSTOP, say). */
  pid(): number;
}

function spawnRedis(port: number, extra: readonly string[]): Promise<StartedChild> {
  if (redisMissingReason() !== undefined) {
    return Promise.reject(new Error(`cannot start Redis: ${redisMissingReason()}`));
  }
  return startChild(REDIS_SERVER_PATH, redisServerArgs(port, extra), {
    readyWhen: /Ready to accept connections/,
  });
}

export interface StartRedisOptions {
  /** More `redis-server` arguments (`--requirepass`, …). */
  readonly args?: readonly string[];
}

/** Starts Redis on a free port; a port taken between the pick and the start is picked again. */
export async function startRedis(options: StartRedisOptions = {}): Promise<RedisServer> {
  const extra = options.args ?? [];
  let port = 0;
  let child: StartedChild | undefined;
  for (let attempt = 0; child === undefined; attempt++) {
    port = await freePort();
    try {
      child = await spawnRedis(port, extra);
    } catch (error) {
      if (attempt >= 4 || !String(error).includes('Address already in use')) throw error;
    }
  }
  let current: StartedChild | undefined = child;
  const kill = async () => {
    if (current === undefined) return;
    const stopping = current;
    current = undefined;
    await stopping.stop('SIGKILL');
  };
  const start = async () => {
    if (current !== undefined) return;
    current = await spawnRedis(port, extra);
  };
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    kill,
    start,
    restart: async () => {
      await kill();
      await start();
    },
    stop: kill,
    pid: () => {
      const pid = current?.child.pid;
      if (pid === undefined) throw new Error('Redis is not running');
      return pid;
    },
  };
}
