/**
 * The connections of a Redis store, made to fail fast: no command waits in an offline queue
 * while Redis is away (`disableOfflineQueue`), every call has a deadline of ours (node-redis's
 * own timeout stops counting once a command is written), and every failure becomes a
 * `RedisStoreError` (kind `store-unavailable`) that says what was asked and of which Redis,
 * never with the URL's password. `redis` is an optional peer dependency, loaded here only.
 */
import { ToolwireError } from '../../core/errors.ts';

export interface RedisConnectOptions {
  /** The longest any one call may take before it fails (ms). */
  readonly callDeadlineMs?: number;
  /** The longest the first connection may take (ms). */
  readonly connectDeadlineMs?: number;
}

const DEFAULT_CALL_DEADLINE_MS = 5_000;
const DEFAULT_CONNECT_DEADLINE_MS = 5_000;

/** Redis could not be reached, did not answer in time, or answered with an error. */
export class RedisStoreError extends ToolwireError {
  declare readonly kind: 'store-unavailable';
  /** What was asked (`append`, `XREAD`, `connect`). */
  readonly what: string;
  /** Which Redis: host, port and database, never the credentials. */
  readonly where: string;
  /** What the network or Redis said, its credentials removed. */
  readonly detail: string;

  constructor(what: string, where: string, detail: string, cause?: unknown) {
    super('store-unavailable', `the run store (Redis at ${where}) failed ${what}: ${detail}`, {
      cause,
    });
    this.what = what;
    this.where = where;
    this.detail = detail;
  }
}

/** `host:port/db` of a Redis URL, for messages: a password or user name never appears. */
function redisWhere(url: string): string {
  try {
    const parsed = new URL(url);
    const db = parsed.pathname.replace(/^\//, '') || '0';
    return `${parsed.hostname}:${parsed.port || '6379'}/${db}`;
  } catch {
    return 'an unreadable URL';
  }
}

/** The part of node-redis this store uses, as a structural type (the package is optional). */
export interface RawRedisClient {
  connect(): Promise<unknown>;
  sendCommand<T>(args: readonly string[]): Promise<T>;
  duplicate(): RawRedisClient;
  subscribe(channel: string, listener: (message: string) => void): Promise<void>;
  on(event: 'error', listener: (error: unknown) => void): unknown;
  off(event: 'error', listener: (error: unknown) => void): unknown;
  close(): Promise<void>;
  destroy(): void;
  readonly isReady: boolean;
}

type RedisModule = { createClient(options: Record<string, unknown>): unknown };

async function loadRedis(): Promise<RedisModule> {
  try {
    return (await import('redis')) as unknown as RedisModule;
  } catch (error) {
    throw new ToolwireError(
      'missing-package',
      'a redis:// store needs the redis package, an optional peer dependency of toolwire that is not installed: npm install redis',
      { cause: error },
    );
  }
}

/** One Redis connection with deadlines; `duplicate()` makes one for XREAD BLOCK or SUBSCRIBE. */
export class RedisConnection {
  readonly where: string;
  readonly callDeadlineMs: number;
  readonly #client: RawRedisClient;
  readonly #secrets: readonly string[];
  #closed = false;

  private constructor(client: RawRedisClient, where: string, secrets: string[], deadline: number) {
    this.#client = client;
    this.where = where;
    this.#secrets = secrets;
    this.callDeadlineMs = deadline;
  }

  /** Connects to `url` (`redis://[user:password@]host:port[/db]`), failing within the deadline. */
  static async open(url: string, options: RedisConnectOptions = {}): Promise<RedisConnection> {
    const where = redisWhere(url);
    const secrets = secretsOf(url);
    const redis = await loadRedis();
    const connectDeadline = options.connectDeadlineMs ?? DEFAULT_CONNECT_DEADLINE_MS;
    let client: RawRedisClient;
    try {
      client = redis.createClient({
        url,
        RESP: 2,
        disableOfflineQueue: true,
        socket: {
          connectTimeout: connectDeadline,
          // Reconnect for ever, a little slower each time: a restarted Redis is picked up again,
          // and meanwhile every call fails at once (no offline queue).
          reconnectStrategy: (retries: number) => Math.min(50 * 2 ** Math.min(retries, 6), 2_000),
        },
      }) as RawRedisClient;
    } catch (error) {
      throw new RedisStoreError('connect', where, scrub(describe(error), secrets), error);
    }
    const connection = new RedisConnection(
      client,
      where,
      secrets,
      options.callDeadlineMs ?? DEFAULT_CALL_DEADLINE_MS,
    );
    await connection.#start('connect', connectDeadline);
    return connection;
  }

  async #start(what: string, deadlineMs: number): Promise<void> {
    // Without a listener an 'error' event would end the process; failures reach callers instead.
    this.#client.on('error', () => {});
    // The first connection fails at its first error (refused, wrong password): the client would
    // retry for ever, which suits a Redis that went away, not one that was never there.
    let firstError: (error: unknown) => void = () => {};
    const failed = new Promise<never>((_, reject) => {
      firstError = reject;
    });
    this.#client.on('error', firstError);
    try {
      await this.#deadline(what, Promise.race([this.#client.connect(), failed]), deadlineMs);
    } catch (error) {
      this.#client.destroy();
      throw error;
    } finally {
      this.#client.off('error', firstError);
    }
  }

  /** A second connection to the same Redis (for a blocking read or a subscription). */
  async duplicate(what: string): Promise<RedisConnection> {
    const copy = new RedisConnection(
      this.#client.duplicate(),
      this.where,
      [...this.#secrets],
      this.callDeadlineMs,
    );
    await copy.#start(what, this.callDeadlineMs);
    return copy;
  }

  /** Sends one command; `what` names it in an error; `deadlineMs` for a blocking command. */
  call<T>(what: string, args: readonly string[], deadlineMs = this.callDeadlineMs): Promise<T> {
    if (this.#closed) {
      return Promise.reject(new RedisStoreError(what, this.where, 'the store was closed'));
    }
    let sent: Promise<T>;
    try {
      sent = this.#client.sendCommand<T>(args);
    } catch (error) {
      return Promise.reject(this.failure(what, error));
    }
    return this.#deadline(what, sent, deadlineMs);
  }

  /** Subscribes this (dedicated) connection to `channel`. */
  async subscribe(channel: string, listener: (message: string) => void): Promise<void> {
    await this.#deadline('SUBSCRIBE', this.#client.subscribe(channel, listener));
  }

  /** The error to report for a failed `what`. */
  failure(what: string, error: unknown): RedisStoreError {
    if (RedisStoreError.isInstance(error)) return error;
    return new RedisStoreError(what, this.where, scrub(describe(error), this.#secrets), error);
  }

  #deadline<T>(what: string, promise: Promise<T>, deadlineMs = this.callDeadlineMs): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new RedisStoreError(what, this.where, `no answer within ${deadlineMs} ms`)),
        deadlineMs,
      );
      promise.then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(this.failure(what, error));
        },
      );
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      if (this.#client.isReady) {
        await this.#deadline('close', this.#client.close());
        return;
      }
    } catch {
      // Closing a connection to a Redis that is away: drop it.
    }
    this.#client.destroy();
  }
}

/** Whether `error` is Redis's answer that a script is not loaded (it restarted, or was flushed). */
export function isNoScript(error: unknown): boolean {
  return RedisStoreError.isInstance(error) && error.detail.startsWith('NOSCRIPT');
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    const message = error.message || error.name;
    return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
  }
  return String(error);
}

function secretsOf(url: string): string[] {
  try {
    const parsed = new URL(url);
    return [parsed.password, decodeURIComponent(parsed.password)].filter(
      (secret) => secret.length > 0,
    );
  } catch {
    return [];
  }
}

function scrub(text: string, secrets: readonly string[]): string {
  let clean = text;
  for (const secret of secrets) clean = clean.split(secret).join('***');
  return clean;
}
