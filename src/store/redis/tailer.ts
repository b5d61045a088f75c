/**
 * Wakes the readers of logs that another instance writes: one blocking `XREAD` connection per
 * store, over every log some reader waits on, each from the oldest id its readers have. When the
 * set of logs (or an id) changes while `XREAD` blocks, the command connection sends
 * `CLIENT UNBLOCK` so the next `XREAD` includes it. Readers fetch the entries themselves (one
 * page at a time, on the command connection): the tailer only says "there is something after
 * your id", so no entry is ever handed out twice or skipped.
 */
import { isEventIdBefore } from '../event-id.ts';
import type { RedisConnection } from './connect.ts';

/** How long one `XREAD` blocks before it is sent again (an unblock ends it sooner). */
export const TAILER_BLOCK_MS = 5_000;

/** Which of KEYS do not exist. */
const MISSING_KEYS = `local gone = {}
for _, key in ipairs(KEYS) do
  if redis.call('EXISTS', key) == 0 then gone[#gone + 1] = key end
end
return gone`;

interface Waiter {
  readonly after: string;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

export class LogTailer {
  readonly #commands: RedisConnection;
  readonly #waiters = new Map<string, Set<Waiter>>();
  #blocking: RedisConnection | undefined;
  #clientId: string | undefined;
  #running = false;
  #inFlight = false;
  #changed = false;
  #kicking = false;
  #closed = false;
  #checkedGoneAt = Date.now();

  readonly #blockMs: number;

  /** `blockMs`: how long one XREAD blocks (tests make it long, to prove the unblock wakes it). */
  constructor(commands: RedisConnection, blockMs = TAILER_BLOCK_MS) {
    this.#commands = commands;
    this.#blockMs = blockMs;
  }

  /** How many `XREAD` connections this tailer holds (0 or 1). */
  get connections(): number {
    return this.#blocking === undefined ? 0 : 1;
  }

  /**
   * Resolves once the stream `key` has an entry after `after` (`0-0`: any entry), rejects when
   * Redis fails, and settles quietly (resolves) when `signal` aborts.
   */
  waitAfter(key: string, after: string, signal: AbortSignal): Promise<void> {
    if (this.#closed) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      let waiters = this.#waiters.get(key);
      if (waiters === undefined) {
        waiters = new Set();
        this.#waiters.set(key, waiters);
      }
      const onAbort = () => settle(undefined);
      const settle = (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        const set = this.#waiters.get(key);
        set?.delete(waiter);
        if (set?.size === 0) this.#waiters.delete(key);
        if (error === undefined) resolve();
        else reject(error);
      };
      const waiter: Waiter = {
        after,
        resolve: () => settle(undefined),
        reject: (error) => settle(error ?? new Error('the tailer failed')),
      };
      if (signal.aborted) {
        resolve();
        return;
      }
      waiters.add(waiter);
      signal.addEventListener('abort', onAbort, { once: true });
      this.#changedSet();
    });
  }

  /** Wakes this instance's own waiters on `key` at once (it just wrote up to `newest`). */
  wrote(key: string, newest: string): void {
    for (const waiter of [...(this.#waiters.get(key) ?? [])]) {
      if (isEventIdBefore(waiter.after, newest)) waiter.resolve();
    }
  }

  /** Wakes every waiter on `key` at once: this instance just ended its log (paused, finished). */
  ended(key: string): void {
    for (const waiter of [...(this.#waiters.get(key) ?? [])]) waiter.resolve();
  }

  #changedSet(): void {
    this.#changed = true;
    if (!this.#running) {
      this.#running = true;
      void this.#loop();
    } else if (this.#inFlight) {
      void this.#kick();
    }
  }

  /** Ends the blocking XREAD so the next one reads the new set; retried until it lands. */
  async #kick(): Promise<void> {
    if (this.#kicking) return;
    this.#kicking = true;
    try {
      while (this.#inFlight && this.#changed && !this.#closed && this.#clientId !== undefined) {
        const unblocked = await this.#commands.call<number>('CLIENT UNBLOCK', [
          'CLIENT',
          'UNBLOCK',
          this.#clientId,
        ]);
        if (unblocked === 1) break;
        // The XREAD is written but not yet blocking: try again in a moment.
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    } catch {
      // The XREAD itself will fail the same way and reject its waiters.
    } finally {
      this.#kicking = false;
    }
  }

  async #loop(): Promise<void> {
    try {
      while (!this.#closed && this.#waiters.size > 0) {
        const blocking = await this.#connection();
        if (this.#waiters.size === 0) break;
        // No await between reading the set and sending: a change after this point kicks.
        this.#changed = false;
        const keys = [...this.#waiters.keys()];
        const ids = keys.map((key) => oldestAfter(this.#waiters.get(key)));
        this.#inFlight = true;
        let reply: unknown;
        try {
          reply = await blocking.call(
            'XREAD',
            ['XREAD', 'COUNT', '1', 'BLOCK', String(this.#blockMs), 'STREAMS', ...keys, ...ids],
            this.#blockMs + this.#commands.callDeadlineMs,
          );
        } finally {
          this.#inFlight = false;
        }
        for (const [key, newest] of newestByKey(reply)) this.wrote(key, newest);
        // XREAD waits on a deleted stream as on one not yet made: its readers are woken to see it
        // gone, at least once a block's time.
        if (!Array.isArray(reply) || Date.now() - this.#checkedGoneAt >= this.#blockMs) {
          this.#checkedGoneAt = Date.now();
          await this.#wakeGone(keys);
        }
      }
    } catch (error) {
      this.#clientId = undefined;
      const failed = this.#blocking;
      this.#blocking = undefined;
      void failed?.close();
      for (const waiters of [...this.#waiters.values()]) {
        for (const waiter of [...waiters]) waiter.reject(error);
      }
    } finally {
      this.#running = false;
    }
    if (!this.#closed && this.#waiters.size > 0) this.#changedSet();
  }

  /** Wakes the waiters of those keys that no longer exist (their readers then end `gone`). */
  async #wakeGone(keys: readonly string[]): Promise<void> {
    const gone = await this.#commands.call<string[]>('EVAL', [
      'EVAL',
      MISSING_KEYS,
      String(keys.length),
      ...keys,
    ]);
    for (const key of gone ?? []) {
      for (const waiter of [...(this.#waiters.get(key) ?? [])]) waiter.resolve();
    }
  }

  async #connection(): Promise<RedisConnection> {
    if (this.#blocking === undefined) {
      this.#blocking = await this.#commands.duplicate('XREAD');
      this.#clientId = undefined;
    }
    if (this.#clientId === undefined) {
      this.#clientId = String(await this.#blocking.call<number>('CLIENT ID', ['CLIENT', 'ID']));
    }
    return this.#blocking;
  }

  async close(): Promise<void> {
    this.#closed = true;
    // Readers of a closed store end as if their signal had aborted.
    for (const waiters of [...this.#waiters.values()]) {
      for (const waiter of [...waiters]) waiter.resolve();
    }
    const blocking = this.#blocking;
    this.#blocking = undefined;
    if (blocking !== undefined) {
      if (this.#inFlight && this.#clientId !== undefined) {
        await this.#commands
          .call('CLIENT UNBLOCK', ['CLIENT', 'UNBLOCK', this.#clientId])
          .catch(() => {});
      }
      await blocking.close();
    }
  }
}

function oldestAfter(waiters: Set<Waiter> | undefined): string {
  let oldest: string | undefined;
  for (const waiter of waiters ?? []) {
    if (oldest === undefined || isEventIdBefore(waiter.after, oldest)) oldest = waiter.after;
  }
  return oldest ?? '0-0';
}

/** XREAD's reply (RESP2: [[key, [[id, fields]…]]…] or null) as key → newest id. */
function newestByKey(reply: unknown): Map<string, string> {
  const newest = new Map<string, string>();
  if (!Array.isArray(reply)) return newest;
  for (const stream of reply) {
    if (!Array.isArray(stream)) continue;
    const [key, entries] = stream as [unknown, unknown];
    if (typeof key !== 'string' || !Array.isArray(entries) || entries.length === 0) continue;
    const last = entries[entries.length - 1] as unknown;
    if (Array.isArray(last) && typeof last[0] === 'string') newest.set(key, last[0]);
  }
  return newest;
}
