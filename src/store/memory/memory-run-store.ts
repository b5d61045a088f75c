import { createIdGenerator } from '../../core/ids.ts';
import { LOG_ENTRY_OVERHEAD, RUN_OVERHEAD, utf8Length } from '../bytes.ts';
import { InvalidEventIdError, RunExistsError, RunLostError } from '../errors.ts';
import { compareEventIds, type EventId, parseEventId } from '../event-id.ts';
import {
  ABORTED_OUTCOME,
  INSTANCE_LOST_OUTCOME,
  tooLargeToPauseOutcome,
  WAITED_TOO_LONG_OUTCOME,
} from '../outcomes.ts';
import {
  DEFAULT_RUN_STORE_LIMITS,
  type LeaseNews,
  type LogItem,
  type NewRun,
  type PauseAnswer,
  type PauseClosing,
  type PausedClaim,
  POINTER_EVICTION_SCAN,
  type RunLease,
  type RunStatus,
  type RunStore,
  type RunStoreLimits,
  type RunStoreStats,
  type RunWire,
  type StoredRun,
} from '../run-store.ts';
import { logEntriesBytes, MemoryLog } from './memory-log.ts';
import { MemoryResponses } from './memory-responses.ts';

/** A run as the memory store keeps it; `StoredRun` is a copy of it. */
interface RunRecord {
  readonly runId: string;
  readonly wire: RunWire;
  /** The log it writes now. */
  log: string;
  /** Every log it wrote (a continuation may write a log of its own), the current one last. */
  readonly logs: string[];
  readonly protocol: string;
  readonly customProtocol: boolean;
  readonly createdAt: number;
  status: RunStatus;
  prompt: string;
  owner: string | undefined;
  token: string | undefined;
  leaseUntil: number | undefined;
  state: string | undefined;
  outcome: string | undefined;
  abort: string | undefined;
  seenAt: number;
  stoppedAt: number | undefined;
  /** The frames a sweep writes if the owner is lost. */
  tail: readonly string[];
  /** What it counts against `maxRememberedBytes` while paused or finished. */
  bytes: number;
  /** The pointers ever set to it (some may name another run since): refreshed when it stops. */
  readonly pointers: Set<string>;
}

/** A chat's or a thread's pointer; `ttlMs` counts again when its run stops. */
interface PointerRecord {
  readonly fields: Readonly<Record<string, string>>;
  expiresAt: number;
  readonly ttlMs: number;
}

export interface MemoryRunStoreOptions {
  /** This handle's instance id; default: a random one. */
  readonly instanceId?: string;
  /** Default: `DEFAULT_RUN_STORE_LIMITS`; a shared backing's limits win over these. */
  readonly limits?: Partial<RunStoreLimits>;
  /**
   * The time that event ids and the age of log entries and stored Responses are read from (the
   * interface passes no `now` there). Default: `Date.now`. Tests give a fake one.
   */
  readonly clock?: () => number;
  /** The state to share with other handles (as instances share a Redis); default: a new one. */
  readonly backing?: MemoryRunStoreBacking;
}

const newToken = createIdGenerator('lease');
const newInstanceId = createIdGenerator('instance');

/**
 * What the memory store holds, shared by its handles: one handle per instance in a process (the
 * default), or several with different instance ids, so the tests can run two "instances" on one
 * store as on one Redis. Every operation is synchronous underneath, so each is atomic.
 */
export class MemoryRunStoreBacking {
  readonly limits: RunStoreLimits;
  readonly clock: () => number;
  readonly runs = new Map<string, RunRecord>();
  readonly logs = new Map<string, MemoryLog>();
  /** Ids of running runs (the sweep looks at their leases). */
  readonly running = new Set<string>();
  /** Ids of paused and of finished runs, in the order they stopped (oldest first). */
  readonly paused = new Set<string>();
  readonly finished = new Set<string>();
  rememberedBytes = 0;
  readonly responses: MemoryResponses;
  /** Small indexes beside the runs (a chat's or a thread's current run), oldest set first. */
  readonly pointers = new Map<string, PointerRecord>();
  /** Abort listeners by the instance they belong to. */
  readonly abortListeners = new Map<string, Set<(runId: string, reason: string) => void>>();

  constructor(options: { limits?: Partial<RunStoreLimits>; clock?: () => number } = {}) {
    this.limits = { ...DEFAULT_RUN_STORE_LIMITS, ...options.limits };
    this.clock = options.clock ?? Date.now;
    this.responses = new MemoryResponses(this.limits, this.clock);
  }

  /** A handle on this state with its own instance id. */
  open(instanceId?: string): MemoryRunStore {
    return new MemoryRunStore({
      backing: this,
      ...(instanceId === undefined ? {} : { instanceId }),
    });
  }
}

/**
 * The run store of one process: runs, event logs and stored Responses in memory, with the same
 * contract as the Redis store (test/store/contract.ts). It keeps no timers: the server's
 * heartbeat drives `renew`, `noteReaders` and `sweep` with the time.
 */
export class MemoryRunStore implements RunStore {
  readonly instanceId: string;
  readonly limits: RunStoreLimits;
  readonly responses: MemoryResponses;
  private readonly backing: MemoryRunStoreBacking;
  private closed = false;
  /** Wakes this handle's waiting readers when it closes. */
  private readonly closeWaiters = new Set<() => void>();

  constructor(options: MemoryRunStoreOptions = {}) {
    this.backing =
      options.backing ??
      new MemoryRunStoreBacking({
        ...(options.limits === undefined ? {} : { limits: options.limits }),
        ...(options.clock === undefined ? {} : { clock: options.clock }),
      });
    this.instanceId = options.instanceId ?? newInstanceId();
    this.limits = this.backing.limits;
    this.responses = this.backing.responses;
  }

  async createRun(run: NewRun, now: number): Promise<RunLease> {
    const { runs, logs } = this.backing;
    const log = run.log ?? run.runId;
    if (runs.has(run.runId)) throw new RunExistsError('run', run.runId);
    if (logs.has(log)) throw new RunExistsError('log', log);
    const token = newToken();
    runs.set(run.runId, {
      runId: run.runId,
      wire: run.wire,
      log,
      logs: [log],
      protocol: run.protocol,
      customProtocol: run.customProtocol,
      createdAt: now,
      status: 'running',
      prompt: run.prompt,
      owner: this.instanceId,
      token,
      leaseUntil: now + this.limits.leaseMs,
      state: undefined,
      outcome: undefined,
      abort: undefined,
      seenAt: now,
      stoppedAt: undefined,
      tail: run.tail,
      bytes: 0,
      pointers: new Set(),
    });
    logs.set(log, new MemoryLog());
    this.backing.running.add(run.runId);
    return { runId: run.runId, token, log };
  }

  async getRun(runId: string): Promise<StoredRun | undefined> {
    const run = this.backing.runs.get(runId);
    return run === undefined ? undefined : snapshot(run);
  }

  async append(
    lease: RunLease,
    frames: readonly string[],
    tail: readonly string[],
  ): Promise<string[]> {
    const run = this.fence(lease);
    const ids = this.write(run, frames);
    run.tail = tail;
    return ids;
  }

  async renew(lease: RunLease, now: number): Promise<LeaseNews> {
    const run = this.held(lease);
    if (run === undefined) return { unread: false, lost: true };
    run.leaseUntil = now + this.limits.leaseMs;
    const unread = now - run.seenAt > this.limits.unreadRunAbortMs;
    return run.abort === undefined
      ? { unread, lost: false }
      : { abort: run.abort, unread, lost: false };
  }

  async pause(
    lease: RunLease,
    frames: readonly string[],
    state: string,
    now: number,
    closing: PauseClosing = () => [],
  ): Promise<PauseAnswer> {
    const run = this.fence(lease);
    // A stop asked before the pause lands wins: the frames that ask for answers are not written.
    if (run.abort !== undefined) {
      this.write(run, closing(ABORTED_OUTCOME));
      this.stop(run, 'finished', now, { outcome: ABORTED_OUTCOME });
      return 'aborted';
    }
    const bytes =
      RUN_OVERHEAD +
      utf8Length(run.prompt) +
      utf8Length(state) +
      this.logBytes(run) +
      logEntriesBytes(frames) +
      LOG_ENTRY_OVERHEAD;
    if (bytes > this.limits.maxRememberedBytes) {
      const outcome = tooLargeToPauseOutcome(bytes, this.limits.maxRememberedBytes);
      this.write(run, closing(outcome));
      this.stop(run, 'finished', now, { outcome });
      return 'dropped';
    }
    this.write(run, frames);
    this.stop(run, 'paused', now, { state });
    return 'paused';
  }

  async finish(
    lease: RunLease,
    frames: readonly string[],
    outcome: string,
    now: number,
  ): Promise<void> {
    const run = this.fence(lease);
    this.write(run, frames);
    this.stop(run, 'finished', now, { outcome });
  }

  /**
   * Takes a paused run to resume it here; only one instance can, once. With `log` (a new log's
   * id), the continuation writes that log, as AG-UI's runs are each a stream of their own.
   */
  async claimPaused(runId: string, now: number, log?: string): Promise<PausedClaim> {
    const { runs, logs } = this.backing;
    const run = runs.get(runId);
    if (run === undefined || run.status !== 'paused' || run.state === undefined)
      return { claimed: false, run: run === undefined ? undefined : snapshot(run) };
    if (log !== undefined && log !== run.log) {
      if (logs.has(log)) throw new RunExistsError('log', log);
      logs.set(log, new MemoryLog());
      run.logs.push(log);
      run.log = log;
    }
    const state = run.state;
    this.leaveStopped(run);
    const token = newToken();
    run.status = 'running';
    run.state = undefined;
    run.owner = this.instanceId;
    run.token = token;
    run.leaseUntil = now + this.limits.leaseMs;
    run.seenAt = now;
    run.stoppedAt = undefined;
    this.backing.running.add(runId);
    return { claimed: true, lease: { runId, token, log: run.log }, state, run: snapshot(run) };
  }

  async requestAbort(
    runId: string,
    reason: string,
    now: number,
  ): Promise<'aborting' | 'aborted' | 'finished' | 'unknown'> {
    const run = this.backing.runs.get(runId);
    if (run === undefined) return 'unknown';
    if (run.status === 'finished') return 'finished';
    if (run.status === 'paused') {
      this.leaveStopped(run);
      this.stop(run, 'finished', now, { outcome: ABORTED_OUTCOME });
      return 'aborted';
    }
    run.abort = reason;
    const listeners =
      run.owner === undefined ? undefined : this.backing.abortListeners.get(run.owner);
    // Delivered after this call returns, as a message from another instance would be.
    if (listeners !== undefined)
      for (const listener of [...listeners]) queueMicrotask(() => listener(runId, reason));
    return 'aborting';
  }

  onAbort(listener: (runId: string, reason: string) => void): () => void {
    const { abortListeners } = this.backing;
    let listeners = abortListeners.get(this.instanceId);
    if (listeners === undefined) {
      listeners = new Set();
      abortListeners.set(this.instanceId, listeners);
    }
    // Wrapped, so the same function subscribed twice is two subscriptions.
    const subscription = (runId: string, reason: string) => listener(runId, reason);
    listeners.add(subscription);
    return () => {
      listeners.delete(subscription);
      if (listeners.size === 0 && abortListeners.get(this.instanceId) === listeners)
        abortListeners.delete(this.instanceId);
    };
  }

  async *read(
    name: string,
    after: string | undefined,
    signal: AbortSignal,
  ): AsyncIterable<LogItem> {
    const afterId = after === undefined ? undefined : parseEventId(after);
    if (after !== undefined && afterId === undefined) throw new InvalidEventIdError(after);
    const log = this.backing.logs.get(name);
    if (log === undefined) {
      yield { end: 'gone' };
      return;
    }
    const start = log.positionAfter(afterId);
    if (!start.found) {
      yield { end: 'trimmed' };
      return;
    }
    let index = start.index;
    let skipThrough: EventId | undefined;
    if (index === log.nextIndex && afterId !== undefined) {
      // An id at or after the newest entry (a made-up header): what comes is skipped until it is
      // passed, as XREAD does, but the newest entry is looked at again, so a log that has ended
      // (or ends while the run is passed by) ends this read too.
      skipThrough = afterId;
      if (log.at(index - 1) !== undefined) index--;
    }
    while (!signal.aborted && !this.closed) {
      if (log.deleted) {
        yield { end: 'gone' };
        return;
      }
      if (log.trimmedPast(index)) {
        yield { end: 'trimmed' };
        return;
      }
      const entry = log.at(index);
      if (entry === undefined) {
        await this.changed(log, signal);
        continue;
      }
      index++;
      if (skipThrough !== undefined) {
        if (compareEventIds(entry.id, skipThrough) <= 0) {
          if (entry.end !== undefined && index === log.nextIndex) {
            yield { end: entry.end };
            return;
          }
          continue;
        }
        skipThrough = undefined;
      }
      if (entry.end === undefined) {
        yield { id: entry.text, frame: entry.frame ?? '' };
        continue;
      }
      // An end passed by later entries closed an earlier segment (a paused run resumed since).
      if (index === log.nextIndex) {
        yield { end: entry.end };
        return;
      }
    }
  }

  async noteReaders(runIds: readonly string[], now: number): Promise<void> {
    for (const runId of runIds) {
      const run = this.backing.runs.get(runId);
      if (run !== undefined && now > run.seenAt) run.seenAt = now;
    }
  }

  async sweep(now: number): Promise<void> {
    const { runs, running, paused, finished, limits } = this.backing;
    for (const runId of running) {
      const run = runs.get(runId);
      if (run?.leaseUntil === undefined || run.leaseUntil >= now) continue;
      this.write(run, run.tail);
      this.stop(run, 'finished', now, { outcome: INSTANCE_LOST_OUTCOME, end: 'lost' });
    }
    // The orders are the order runs stopped in, so the first that is not due ends each walk.
    for (const runId of paused) {
      const run = runs.get(runId);
      if (run === undefined || now - (run.stoppedAt ?? now) < limits.pausedRunTtlMs) break;
      this.leaveStopped(run);
      this.stop(run, 'finished', now, { outcome: WAITED_TOO_LONG_OUTCOME });
    }
    for (const runId of finished) {
      const run = runs.get(runId);
      if (run === undefined || now - (run.stoppedAt ?? now) < limits.finishedRunTtlMs) break;
      this.forget(run);
    }
    this.responses.sweep(now);
    // Pointers expire after times of their own: no order to stop early in (at most maxRememberedRuns).
    for (const [id, pointer] of this.backing.pointers)
      if (now >= pointer.expiresAt) this.backing.pointers.delete(id);
  }

  /** A chat's or a thread's pointer (its current run and log); undefined when unknown or expired. */
  async pointer(
    kind: 'thread' | 'chat',
    key: string,
  ): Promise<Readonly<Record<string, string>> | undefined> {
    const id = pointerId(kind, key);
    const pointer = this.backing.pointers.get(id);
    if (pointer === undefined) return undefined;
    if (this.backing.clock() >= pointer.expiresAt) {
      this.backing.pointers.delete(id);
      return undefined;
    }
    return { ...pointer.fields };
  }

  /**
   * Sets a pointer (every field replaced), to expire `ttlMs` after `now`. Keys come from clients,
   * so there are at most `maxRememberedRuns` of them: beyond, the oldest whose run is not live
   * goes (`pointerToEvict`).
   */
  async setPointer(
    kind: 'thread' | 'chat',
    key: string,
    fields: Readonly<Record<string, string>>,
    ttlMs: number,
    now: number,
  ): Promise<void> {
    const { pointers } = this.backing;
    const id = pointerId(kind, key);
    pointers.delete(id);
    pointers.set(id, { fields: { ...fields }, expiresAt: now + ttlMs, ttlMs });
    if (fields.run !== undefined) this.backing.runs.get(fields.run)?.pointers.add(id);
    while (pointers.size > this.limits.maxRememberedRuns) {
      const victim = this.pointerToEvict(id, now);
      if (victim === undefined) break;
      pointers.delete(victim);
    }
  }

  /**
   * The oldest pointer (not `newest`, just set) whose run is neither running nor paused, or has
   * expired, among the oldest `POINTER_EVICTION_SCAN`: a waiting run's pointer is how its client
   * reaches it. If every one of those names a live run, the oldest.
   */
  private pointerToEvict(newest: string, now: number): string | undefined {
    let scanned = 0;
    for (const [id, pointer] of this.backing.pointers) {
      if (scanned++ >= POINTER_EVICTION_SCAN) break;
      if (id === newest) continue;
      if (now >= pointer.expiresAt) return id;
      const run = pointer.fields.run;
      const status = run === undefined ? undefined : this.backing.runs.get(run)?.status;
      if (status !== 'running' && status !== 'paused') return id;
    }
    return first(this.backing.pointers);
  }

  /** A run stopped at `now`: the pointers that still name it last `ttlMs` from now (never less). */
  private refreshPointers(run: RunRecord, now: number): void {
    // Most runs have none (runs of /api/runs): no walk at all then.
    if (run.pointers.size === 0) return;
    for (const id of run.pointers) {
      const pointer = this.backing.pointers.get(id);
      if (pointer?.fields.run !== run.runId) {
        run.pointers.delete(id);
        continue;
      }
      if (now < pointer.expiresAt)
        pointer.expiresAt = Math.max(pointer.expiresAt, now + pointer.ttlMs);
    }
  }

  async stats(): Promise<RunStoreStats> {
    const { running, paused, finished, rememberedBytes } = this.backing;
    return {
      running: running.size,
      paused: paused.size,
      finished: finished.size,
      rememberedBytes,
    };
  }

  /** Ends this handle's reads and abort listeners; the backing stays for other handles. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.backing.abortListeners.delete(this.instanceId);
    for (const wake of [...this.closeWaiters]) wake();
  }

  /** The run under `lease` if this instance still holds it. */
  private held(lease: RunLease): RunRecord | undefined {
    const run = this.backing.runs.get(lease.runId);
    if (
      run === undefined ||
      run.status !== 'running' ||
      run.token !== lease.token ||
      run.owner !== this.instanceId
    )
      return undefined;
    return run;
  }

  /** The run under `lease`, or a `run-lost` error: the fence every write passes. */
  private fence(lease: RunLease): RunRecord {
    const run = this.held(lease);
    if (run === undefined) throw new RunLostError(lease.runId);
    return run;
  }

  /** Appends frames to the run's log and trims it by count and age. */
  private write(run: RunRecord, frames: readonly string[]): string[] {
    const log = this.backing.logs.get(run.log);
    if (log === undefined || frames.length === 0) return [];
    const now = this.backing.clock();
    const ids = log.add(frames, now);
    log.trim(this.limits.maxRunEvents, now - this.limits.maxLogAgeMs);
    return ids;
  }

  /**
   * A running run stops (paused or finished): its lease goes, its log ends, it is remembered
   * (counted against the caps, oldest going first) until its time is up.
   */
  private stop(
    run: RunRecord,
    status: 'paused' | 'finished',
    now: number,
    how: { state?: string; outcome?: string; end?: 'lost' },
  ): void {
    const { backing } = this;
    backing.running.delete(run.runId);
    run.status = status;
    run.owner = undefined;
    run.token = undefined;
    run.leaseUntil = undefined;
    run.abort = undefined;
    run.stoppedAt = now;
    run.state = how.state;
    run.outcome = how.outcome;
    // A finished run keeps only its outcome, for late requests.
    if (status === 'finished') run.prompt = '';
    const log = backing.logs.get(run.log);
    log?.close(how.end ?? status, backing.clock());
    // Trimmed as an append is, so the end entry counts as Redis counts it.
    log?.trim(this.limits.maxRunEvents, backing.clock() - this.limits.maxLogAgeMs);
    run.bytes =
      RUN_OVERHEAD +
      utf8Length(run.prompt) +
      utf8Length(run.state ?? '') +
      utf8Length(run.outcome ?? '') +
      this.logBytes(run);
    (status === 'paused' ? backing.paused : backing.finished).add(run.runId);
    backing.rememberedBytes += run.bytes;
    this.refreshPointers(run, now);
    this.evict();
  }

  /** A paused or finished run leaves its order and the remembered bytes. */
  private leaveStopped(run: RunRecord): void {
    const order = run.status === 'paused' ? this.backing.paused : this.backing.finished;
    if (!order.delete(run.runId)) return;
    this.backing.rememberedBytes -= run.bytes;
    run.bytes = 0;
  }

  /** Deletes a stopped run and its logs; their followers end with `gone`. */
  private forget(run: RunRecord): void {
    this.leaveStopped(run);
    this.backing.runs.delete(run.runId);
    for (const name of run.logs) {
      const log = this.backing.logs.get(name);
      this.backing.logs.delete(name);
      log?.delete();
    }
  }

  /** The bytes of every log the run wrote. */
  private logBytes(run: RunRecord): number {
    let bytes = 0;
    for (const name of run.logs) bytes += this.backing.logs.get(name)?.bytes ?? 0;
    return bytes;
  }

  /** Forgets the oldest finished runs, then the oldest paused ones, until both caps hold. */
  private evict(): void {
    const { backing, limits } = this;
    while (
      backing.paused.size + backing.finished.size > limits.maxRememberedRuns ||
      backing.rememberedBytes > limits.maxRememberedBytes
    ) {
      const oldest = first(backing.finished) ?? first(backing.paused);
      const run = oldest === undefined ? undefined : backing.runs.get(oldest);
      if (run === undefined) return;
      this.forget(run);
    }
  }

  /** Resolves when the log changes, the read is aborted or this handle closes. */
  private changed(log: MemoryLog, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        cancel();
        signal.removeEventListener('abort', done);
        this.closeWaiters.delete(done);
        resolve();
      };
      const cancel = log.onChange(done);
      signal.addEventListener('abort', done, { once: true });
      this.closeWaiters.add(done);
    });
  }
}

function first(ids: { keys(): MapIterator<string> | SetIterator<string> }): string | undefined {
  return ids.keys().next().value;
}

/** One map holds both kinds; a NUL cannot be in a kind, so no key of one is a key of the other. */
function pointerId(kind: 'thread' | 'chat', key: string): string {
  return `${kind}\u0000${key}`;
}

/** The run as the interface shows it: a copy, without the fields its status does not have. */
function snapshot(run: RunRecord): StoredRun {
  return {
    runId: run.runId,
    status: run.status,
    wire: run.wire,
    log: run.log,
    protocol: run.protocol,
    customProtocol: run.customProtocol,
    prompt: run.prompt,
    ...(run.owner === undefined ? {} : { owner: run.owner }),
    ...(run.leaseUntil === undefined ? {} : { leaseUntil: run.leaseUntil }),
    ...(run.state === undefined ? {} : { state: run.state }),
    ...(run.outcome === undefined ? {} : { outcome: run.outcome }),
    ...(run.abort === undefined ? {} : { abort: run.abort }),
    seenAt: run.seenAt,
    createdAt: run.createdAt,
    ...(run.stoppedAt === undefined ? {} : { stoppedAt: run.stoppedAt }),
  };
}
