/**
 * The run store on Redis, for any number of instances: every change is one script (see
 * scripts.ts), reads are plain commands, readers of a log are woken by one tailer per instance,
 * and stops reach the owner through a flag (read by `renew`) and a message on `P abort` (at once).
 */
import { randomUUID } from 'node:crypto';
import { parseJsonText } from '../../core/parse-json.ts';
import { InvalidEventIdError, RunExistsError, RunLostError } from '../errors.ts';
import { formatEventId, isEventIdBefore, parseEventId } from '../event-id.ts';
import {
  ABORTED_OUTCOME,
  INSTANCE_LOST_OUTCOME,
  tooLargeToPauseWords,
  WAITED_TOO_LONG_OUTCOME,
} from '../outcomes.ts';
import type {
  LeaseNews,
  LogItem,
  NewRun,
  PauseAnswer,
  PauseClosing,
  PausedClaim,
  RunLease,
  RunStatus,
  RunStore,
  RunStoreLimits,
  RunStoreStats,
  RunWire,
  StoredRun,
} from '../run-store.ts';
import type { RedisConnection } from './connect.ts';
import { RedisStoredResponses } from './responses.ts';
import { RedisScripts } from './script-runner.ts';
import { LIMIT_ARGS } from './scripts.ts';
import { LogTailer } from './tailer.ts';

/** How long a running run's keys outlive every instance that could renew them. */
const RUNNING_BACKSTOP_MS = 24 * 60 * 60_000;
/** Entries one read of a log fetches at a time. */
const READ_PAGE_SIZE = 512;

export interface RedisRunStoreParts {
  readonly connection: RedisConnection;
  readonly prefix: string;
  readonly instanceId: string;
  readonly limits: RunStoreLimits;
  /** How long the tailer's XREAD blocks (default `TAILER_BLOCK_MS`). */
  readonly tailerBlockMs?: number;
  /** The store's clock, for pointer expiry (default `Date.now`; tests give their own). */
  readonly clock?: () => number;
}

export class RedisRunStore implements RunStore {
  readonly instanceId: string;
  readonly limits: RunStoreLimits;
  readonly responses: RedisStoredResponses;
  readonly #connection: RedisConnection;
  readonly #scripts: RedisScripts;
  readonly #prefix: string;
  readonly #tailer: LogTailer;
  readonly #abortListeners = new Set<(runId: string, reason: string) => void>();
  #subscriber: RedisConnection | undefined;
  #closed = false;
  readonly #clock: () => number;

  constructor(parts: RedisRunStoreParts) {
    this.#clock = parts.clock ?? Date.now;
    this.#connection = parts.connection;
    this.#prefix = parts.prefix;
    this.instanceId = parts.instanceId;
    this.limits = parts.limits;
    this.#scripts = new RedisScripts(parts.connection, parts.prefix);
    this.#tailer = new LogTailer(parts.connection, parts.tailerBlockMs);
    this.responses = new RedisStoredResponses(this.#scripts, parts.prefix, parts.limits);
  }

  #limitArgs(): string[] {
    return LIMIT_ARGS.map((name) => String(this.limits[name]));
  }

  #logKey(log: string): string {
    return `${this.#prefix}log:${log}`;
  }

  async createRun(run: NewRun, now: number): Promise<RunLease> {
    const log = run.log ?? run.runId;
    const token = randomUUID();
    const created = await this.#scripts.run<number>('createRun', [
      run.runId,
      log,
      run.wire,
      run.protocol,
      run.customProtocol ? '1' : '0',
      run.prompt,
      JSON.stringify(run.tail),
      this.instanceId,
      token,
      String(now),
      String(this.limits.leaseMs),
      String(RUNNING_BACKSTOP_MS),
    ]);
    if (created === 0) throw new RunExistsError('run', run.runId);
    if (created === 2) throw new RunExistsError('log', log);
    return { runId: run.runId, token, log };
  }

  async getRun(runId: string): Promise<StoredRun | undefined> {
    const flat = await this.#connection.call<string[]>('getRun', [
      'HGETALL',
      `${this.#prefix}run:${runId}`,
    ]);
    return storedRun(runId, flat);
  }

  async append(
    lease: RunLease,
    frames: readonly string[],
    tail: readonly string[],
  ): Promise<string[]> {
    const reply = await this.#scripts.run<string[]>('append', [
      lease.runId,
      this.instanceId,
      lease.token,
      JSON.stringify(tail),
      String(this.limits.maxRunEvents),
      String(this.limits.maxLogAgeMs),
      ...frames,
    ]);
    if (reply[0] !== 'ok') throw new RunLostError(lease.runId);
    const ids = reply.slice(1);
    const newest = ids.at(-1);
    if (newest !== undefined) this.#tailer.wrote(this.#logKey(lease.log), newest);
    return ids;
  }

  async renew(lease: RunLease, now: number): Promise<LeaseNews> {
    const reply = await this.#scripts.run<string[]>('renew', [
      lease.runId,
      this.instanceId,
      lease.token,
      String(now),
      String(this.limits.leaseMs),
      String(RUNNING_BACKSTOP_MS),
      String(this.limits.unreadRunAbortMs),
    ]);
    if (reply[0] !== 'ok') return { unread: false, lost: true };
    const abort = reply[2];
    return { unread: reply[1] === '1', lost: false, ...(abort === undefined ? {} : { abort }) };
  }

  async pause(
    lease: RunLease,
    frames: readonly string[],
    state: string,
    now: number,
    closing: PauseClosing = () => [],
  ): Promise<PauseAnswer> {
    // The run's bytes are counted in the script; the outcome's words come from the shared list.
    const dropped = tooLargeToPauseWords('%s', this.limits.maxRememberedBytes);
    const [answer, outcome] = await this.#scripts.run<string[]>('pause', [
      lease.runId,
      this.instanceId,
      lease.token,
      String(now),
      state,
      dropped,
      ...this.#limitArgs(),
      ...frames,
    ]);
    if (answer === 'paused') {
      this.#tailer.ended(this.#logKey(lease.log));
      return 'paused';
    }
    if (answer !== 'aborted' && answer !== 'dropped') throw new RunLostError(lease.runId);
    // Not paused, and nothing written: the run is still ours, to finish with its closing frames.
    const why = answer === 'aborted' ? ABORTED_OUTCOME : (outcome ?? dropped);
    await this.finish(lease, closing(why), why, now);
    return answer;
  }

  async finish(
    lease: RunLease,
    frames: readonly string[],
    outcome: string,
    now: number,
  ): Promise<void> {
    const reply = await this.#scripts.run<string>('finish', [
      lease.runId,
      this.instanceId,
      lease.token,
      String(now),
      outcome,
      ...this.#limitArgs(),
      ...frames,
    ]);
    if (reply === 'lost') throw new RunLostError(lease.runId);
    this.#tailer.ended(this.#logKey(lease.log));
  }

  async claimPaused(runId: string, now: number, log?: string): Promise<PausedClaim> {
    const token = randomUUID();
    const reply = await this.#scripts.run<string[]>('claimPaused', [
      runId,
      this.instanceId,
      token,
      String(now),
      String(this.limits.leaseMs),
      String(RUNNING_BACKSTOP_MS),
      log ?? '',
    ]);
    if (reply[0] === 'log in use') throw new RunExistsError('log', log ?? '');
    const run = await this.getRun(runId);
    if (reply[0] !== 'ok' || run === undefined) return { claimed: false, run };
    return {
      claimed: true,
      lease: { runId, token, log: run.log },
      state: reply[1] ?? '',
      run,
    };
  }

  async requestAbort(
    runId: string,
    reason: string,
    now: number,
  ): Promise<'aborting' | 'aborted' | 'finished' | 'unknown'> {
    const reply = await this.#scripts.run<string>('requestAbort', [
      runId,
      reason,
      String(now),
      ...this.#limitArgs(),
    ]);
    if (reply === 'aborting' || reply === 'aborted' || reply === 'finished') return reply;
    return 'unknown';
  }

  onAbort(listener: (runId: string, reason: string) => void): () => void {
    this.#abortListeners.add(listener);
    return () => {
      this.#abortListeners.delete(listener);
    };
  }

  /**
   * Opens the store's subscriber (one per instance, before any run starts, so no stop published
   * meanwhile is missed); a message lost while it reconnects is still caught by `renew`.
   */
  async listenForAborts(): Promise<void> {
    if (this.#subscriber !== undefined) return;
    const subscriber = await this.#connection.duplicate('SUBSCRIBE');
    this.#subscriber = subscriber;
    await subscriber.subscribe(`${this.#prefix}abort`, (message) => this.#heardAbort(message));
  }

  #heardAbort(message: string): void {
    let parsed: { runId?: unknown; owner?: unknown; reason?: unknown };
    try {
      parsed = parseJsonText(message) as typeof parsed;
    } catch {
      return;
    }
    if (parsed.owner !== this.instanceId || typeof parsed.runId !== 'string') return;
    const reason = typeof parsed.reason === 'string' ? parsed.reason : 'stopped';
    for (const listener of [...this.#abortListeners]) listener(parsed.runId, reason);
  }

  async *read(log: string, after: string | undefined, signal: AbortSignal): AsyncIterable<LogItem> {
    const key = this.#logKey(log);
    // A client's id, checked before it reaches Redis (a bad one would fail the tailer's XREAD).
    const afterId = after === undefined ? undefined : parseEventId(after);
    if (after !== undefined && afterId === undefined) throw new InvalidEventIdError(after);
    let last = afterId === undefined ? undefined : formatEventId(afterId);
    while (!signal.aborted && !this.#closed) {
      const [exists, trimmed, newest, entries, newestEnd] = await this.#scripts.run<
        [number, string, string, [string, string[]][], string]
      >('readPage', [log, last ?? '', String(READ_PAGE_SIZE)]);
      if (exists !== 1) {
        yield { end: 'gone' };
        return;
      }
      // A reader whose next entry was trimmed away (at the start, or while it read) missed some.
      if (trimmed !== '' && (last === undefined || isEventIdBefore(last, trimmed))) {
        yield { end: 'trimmed' };
        return;
      }
      for (const [id, fields] of entries) {
        last = id;
        const { frame, end } = entryFields(fields);
        if (frame !== undefined) yield { id, frame };
        else if (end !== undefined && id === newest) {
          yield { end: end as 'paused' | 'finished' | 'lost' };
          return;
        }
        if (signal.aborted) return;
      }
      if (entries.length === READ_PAGE_SIZE) continue;
      // Nothing after `last`, though it is at or after the newest entry (a made-up id): a log
      // that has ended ends this read as a read at its end would.
      if (newestEnd !== '' && last !== undefined && !isEventIdBefore(last, newest)) {
        yield { end: newestEnd as 'paused' | 'finished' | 'lost' };
        return;
      }
      // Woken by any entry after the newest, even one before `last`, so an end is seen.
      const from =
        last === undefined || newest === '' ? '0-0' : isEventIdBefore(newest, last) ? newest : last;
      await this.#tailer.waitAfter(key, from, signal);
    }
  }

  async pointer(
    kind: 'thread' | 'chat',
    key: string,
  ): Promise<Readonly<Record<string, string>> | undefined> {
    const json = await this.#connection.call<string | null>('pointer', [
      'GET',
      `${this.#prefix}${kind}:${key}`,
    ]);
    if (json === null) return undefined;
    const pointer = parseJsonText(json) as { fields: Record<string, string>; expiresAt: number };
    // Expiry by the store's clock (Redis's own TTL is the backstop, in real time).
    return this.#clock() >= pointer.expiresAt ? undefined : pointer.fields;
  }

  async setPointer(
    kind: 'thread' | 'chat',
    key: string,
    fields: Readonly<Record<string, string>>,
    ttlMs: number,
    now: number,
  ): Promise<void> {
    await this.#scripts.run('setPointer', [
      `${kind}:${key}`,
      JSON.stringify({ fields, expiresAt: now + ttlMs, ttlMs }),
      String(Math.ceil(now + ttlMs)),
      String(this.limits.maxRememberedRuns),
      fields.run ?? '',
      String(now),
    ]);
  }

  async noteReaders(runIds: readonly string[], now: number): Promise<void> {
    if (runIds.length === 0) return;
    await this.#scripts.run('noteReaders', [String(now), ...runIds]);
  }

  async sweep(now: number): Promise<void> {
    await this.#scripts.run('sweep', [
      String(now),
      INSTANCE_LOST_OUTCOME,
      WAITED_TOO_LONG_OUTCOME,
      ...this.#limitArgs(),
    ]);
  }

  async stats(): Promise<RunStoreStats> {
    const [running, paused, finished, rememberedBytes] = await this.#scripts.run<number[]>(
      'stats',
      [],
    );
    return {
      running: running ?? 0,
      paused: paused ?? 0,
      finished: finished ?? 0,
      rememberedBytes: rememberedBytes ?? 0,
    };
  }

  /** How many Redis connections this store holds now (command, tailer, subscriber). */
  connections(): number {
    return 1 + this.#tailer.connections + (this.#subscriber === undefined ? 0 : 1);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#abortListeners.clear();
    await this.#tailer.close();
    await this.#subscriber?.close();
    await this.#connection.close();
  }
}

function entryFields(fields: readonly string[]): { frame?: string; end?: string } {
  const found: { frame?: string; end?: string } = {};
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (fields[i] === 'f') found.frame = fields[i + 1];
    else if (fields[i] === 'end') found.end = fields[i + 1];
  }
  return found;
}

function storedRun(runId: string, flat: readonly string[]): StoredRun | undefined {
  if (flat.length === 0) return undefined;
  const fields = new Map<string, string>();
  for (let i = 0; i + 1 < flat.length; i += 2) fields.set(flat[i]!, flat[i + 1]!);
  const status = fields.get('status') as RunStatus | undefined;
  if (status === undefined) return undefined;
  const number = (name: string) => {
    const text = fields.get(name);
    return text === undefined ? undefined : Number(text);
  };
  const optional = <T>(name: string, value: T | undefined) =>
    value === undefined ? {} : { [name]: value };
  return {
    runId,
    status,
    wire: (fields.get('wire') ?? 'blocks') as RunWire,
    log: fields.get('log') ?? runId,
    protocol: fields.get('protocol') ?? '',
    customProtocol: fields.get('custom') === '1',
    prompt: fields.get('prompt') ?? '',
    seenAt: number('seenAt') ?? 0,
    createdAt: number('createdAt') ?? 0,
    ...optional('owner', status === 'running' ? fields.get('owner') : undefined),
    ...optional('leaseUntil', status === 'running' ? number('leaseUntil') : undefined),
    ...optional('state', status === 'paused' ? fields.get('state') : undefined),
    ...optional('outcome', status === 'finished' ? fields.get('outcome') : undefined),
    ...optional('abort', fields.get('abort')),
    ...optional('stoppedAt', number('stoppedAt')),
  };
}
