import type { RunState } from '../agent/index.ts';
import { ToolwireError } from '../core/errors.ts';
import type { ToolCallProtocol } from '../core/protocol.ts';
import { estimateBytes, formatBytes } from '../http/memory-estimate.ts';
import type { RunLease, RunStore } from '../store/run-store.ts';

/** Where a run is: streaming, paused on front-end tools, or over. */
export type RunStatus = 'running' | 'paused' | 'finished';

export interface RunRecord {
  readonly id: string;
  /** The protocol's name, as `meta_init` shows it. */
  readonly protocol: string;
  /**
   * The protocol object the run was started with, when it was given one rather than a name: a
   * resumed run goes on in it (its name may be no built-in format's).
   */
  readonly format: ToolCallProtocol | undefined;
  status: RunStatus;
  /** The user's question, repeated in the `meta_init` of a resumed stream; '' once finished. */
  prompt: string;
  /** While running: aborts the agent (abort route, client disconnect). */
  controller: AbortController | undefined;
  /** While paused: what `resumeAgent` continues from. */
  state: RunState | undefined;
  /** How it ended, for the message of a late request. */
  outcome: string | undefined;
  timer: ReturnType<typeof setTimeout> | undefined;
  /** What this record holds, estimated (see `estimateBytes`); counted once it stops streaming. */
  bytes: number;
}

export interface RunRegistryOptions {
  /** Runs streaming at once; a new run or resume beyond this is refused (429). */
  readonly maxConcurrentRuns: number;
  /** How long a paused run waits for its front-end results before it is dropped. */
  readonly pausedRunTtlMs: number;
  /** How long a finished run is remembered, so late requests get 409 rather than 404. */
  readonly finishedRunTtlMs: number;
  /** Paused and finished runs remembered at most; the oldest are forgotten first. */
  readonly maxRememberedRuns: number;
  /** The estimated bytes paused and finished runs may hold; the oldest are forgotten first. */
  readonly maxRememberedBytes: number;
}

/** The capacity check failed: `running` runs are streaming, the most allowed. */
export class RunLimitError extends ToolwireError {
  declare readonly kind: 'run-limit';
  readonly running: number;
  readonly maxConcurrentRuns: number;

  constructor(running: number, maxConcurrentRuns: number) {
    super(
      'run-limit',
      `${running} runs are streaming, the most this server allows (--max-runs ${maxConcurrentRuns}); try again when one has finished`,
    );
    this.running = running;
    this.maxConcurrentRuns = maxConcurrentRuns;
  }
}

/** What every record holds besides its strings and state: the object, its id, its timer. */
const RECORD_OVERHEAD = 256;

/** How much the registry holds now, by status (all kept as counters). */
export interface RunRegistryStats {
  readonly running: number;
  readonly paused: number;
  readonly finished: number;
  /** Estimated bytes of the paused and finished runs: at most `maxRememberedBytes`. */
  readonly rememberedBytes: number;
}

/**
 * The server's runs by id, in memory. Running runs count against the concurrency limit (and
 * hold at most their prompt: the request body cap bounds it). Paused runs hold their state
 * until resumed, aborted or timed out; finished runs keep only their outcome, for late
 * requests. Paused and finished runs are bounded by count and by estimated bytes: beyond
 * either cap the oldest finished run is forgotten first, then the oldest paused one. A
 * forgotten run's id gets 404, like an unknown one. The bookkeeping is O(1) per run, eviction
 * included, amortised: the orders are insertion-ordered sets and the counts are counters.
 */
export class RunRegistry {
  private readonly runs = new Map<string, RunRecord>();
  /** Oldest first: the order they stopped streaming in. */
  private readonly paused = new Set<RunRecord>();
  private readonly finished = new Set<RunRecord>();
  private running = 0;
  private rememberedBytes = 0;
  private readonly options: RunRegistryOptions;

  constructor(options: RunRegistryOptions) {
    this.options = options;
  }

  /** Runs streaming now. */
  get active(): number {
    return this.running;
  }

  get stats(): RunRegistryStats {
    return {
      running: this.running,
      paused: this.paused.size,
      finished: this.finished.size,
      rememberedBytes: this.rememberedBytes,
    };
  }

  get(id: string): RunRecord | undefined {
    return this.runs.get(id);
  }

  /**
   * Registers a new run streaming under `controller` in `protocol` (a format's name or a protocol
   * object), or throws `RunLimitError` when the server is full.
   */
  start(
    id: string,
    prompt: string,
    protocol: string | ToolCallProtocol,
    controller: AbortController,
  ): RunRecord {
    this.ensureCapacity();
    if (this.runs.has(id)) throw new Error(`the run id ${JSON.stringify(id)} is already in use`);
    const record: RunRecord = {
      id,
      prompt,
      protocol: typeof protocol === 'string' ? protocol : protocol.name,
      format: typeof protocol === 'string' ? undefined : protocol,
      status: 'running',
      controller,
      state: undefined,
      outcome: undefined,
      timer: undefined,
      bytes: 0,
    };
    this.runs.set(id, record);
    this.running++;
    return record;
  }

  /**
   * A paused run goes on: it is running again under `controller` from this moment, so a second
   * resume is refused. Check `ensureCapacity` first.
   */
  resumed(record: RunRecord, controller: AbortController): void {
    if (!this.holds(record) || record.status !== 'paused') return;
    this.leaveStatus(record);
    record.status = 'running';
    record.state = undefined;
    record.controller = controller;
    this.running++;
  }

  /**
   * The run waits for front-end results; it no longer counts as streaming. A state larger
   * than the byte cap on its own cannot be kept: the run is finished, saying so.
   */
  pause(record: RunRecord, state: RunState): void {
    if (!this.holds(record) || record.status !== 'running') return;
    const bytes = RECORD_OVERHEAD + estimateBytes(record.prompt) + estimateBytes(state);
    if (bytes > this.options.maxRememberedBytes) {
      this.finish(
        record,
        `dropped: its conversation (${formatBytes(bytes)}) is larger than the server keeps for a paused run (${formatBytes(this.options.maxRememberedBytes)})`,
      );
      return;
    }
    this.leaveStatus(record);
    record.status = 'paused';
    record.state = state;
    record.controller = undefined;
    this.remember(record, this.paused, bytes);
    record.timer = setTimeout(
      () => this.finish(record, 'dropped: it waited too long for its front-end results'),
      this.options.pausedRunTtlMs,
    );
    record.timer.unref?.();
    this.evict();
  }

  /**
   * The run is over (completed, failed, aborted): it keeps only its outcome, remembered a
   * while for late requests.
   */
  finish(record: RunRecord, outcome: string): void {
    if (!this.holds(record) || record.status === 'finished') return;
    this.leaveStatus(record);
    record.status = 'finished';
    record.prompt = '';
    record.state = undefined;
    record.controller = undefined;
    record.outcome = outcome;
    this.remember(record, this.finished, RECORD_OVERHEAD + estimateBytes(outcome));
    record.timer = setTimeout(() => this.forget(record), this.options.finishedRunTtlMs);
    record.timer.unref?.();
    this.evict();
  }

  /** Aborts every running run and forgets all (server shutdown). */
  closeAll(): void {
    for (const record of this.runs.values()) {
      this.clearTimer(record);
      if (record.status === 'running') record.controller?.abort(new Error('the server is closing'));
    }
    this.runs.clear();
    this.paused.clear();
    this.finished.clear();
    this.running = 0;
    this.rememberedBytes = 0;
  }

  /** Throws `RunLimitError` when as many runs stream as allowed. */
  ensureCapacity(): void {
    if (this.running >= this.options.maxConcurrentRuns)
      throw new RunLimitError(this.running, this.options.maxConcurrentRuns);
  }

  /** A record this registry still holds (not one forgotten or from before `closeAll`). */
  private holds(record: RunRecord): boolean {
    return this.runs.get(record.id) === record;
  }

  private remember(record: RunRecord, order: Set<RunRecord>, bytes: number): void {
    record.bytes = bytes;
    order.add(record);
    this.rememberedBytes += bytes;
  }

  /** Takes the record out of its status's bookkeeping (counter or order, bytes, timer). */
  private leaveStatus(record: RunRecord): void {
    this.clearTimer(record);
    if (record.status === 'running') {
      this.running--;
      return;
    }
    (record.status === 'paused' ? this.paused : this.finished).delete(record);
    this.rememberedBytes -= record.bytes;
    record.bytes = 0;
  }

  private forget(record: RunRecord): void {
    if (!this.holds(record)) return;
    this.leaveStatus(record);
    this.runs.delete(record.id);
  }

  /** Forgets the oldest finished runs, then the oldest paused ones, until both caps hold. */
  private evict(): void {
    const { maxRememberedRuns, maxRememberedBytes } = this.options;
    while (
      this.paused.size + this.finished.size > maxRememberedRuns ||
      this.rememberedBytes > maxRememberedBytes
    ) {
      const oldest = first(this.finished) ?? first(this.paused);
      if (oldest === undefined) return;
      this.forget(oldest);
    }
  }

  private clearTimer(record: RunRecord): void {
    if (record.timer !== undefined) clearTimeout(record.timer);
    record.timer = undefined;
  }
}

function first<T>(set: Set<T>): T | undefined {
  return set.values().next().value;
}

/** A run this instance runs: its lease (none for a replay, which is not stored) and what aborts it. */
export interface OwnedRun {
  readonly runId: string;
  readonly lease?: RunLease;
  readonly controller: AbortController;
}

/**
 * What one instance knows of runs that only it can know: the runs it runs (their leases and
 * abort controllers, counted against `maxConcurrentRuns`, which is per instance), and the runs
 * its responses are reading now (reported to the store so a read run is not aborted as
 * unread). Everything else about a run is in the store. Stops asked for on any instance reach
 * the owned run through the store's `onAbort`.
 */
export class LiveRuns {
  private readonly owned = new Map<string, OwnedRun>();
  /** Run id → responses reading it now. */
  private readonly readers = new Map<string, number>();
  /** Run id → what tells its readers here that the store failed. */
  private readonly interruptions = new Map<string, Set<(message: string) => void>>();
  private readonly maxConcurrentRuns: number;
  private readonly unsubscribe: () => void;

  constructor(store: RunStore, maxConcurrentRuns: number) {
    this.maxConcurrentRuns = maxConcurrentRuns;
    this.unsubscribe = store.onAbort((runId, reason) => this.abort(runId, reason));
  }

  /** Runs this instance runs now. */
  get active(): number {
    return this.owned.size;
  }

  /** Throws `RunLimitError` when as many runs stream here as allowed. */
  ensureCapacity(): void {
    if (this.owned.size >= this.maxConcurrentRuns)
      throw new RunLimitError(this.owned.size, this.maxConcurrentRuns);
  }

  /** Counts a run as running here until the returned release is called. */
  own(run: OwnedRun): () => void {
    this.owned.set(run.runId, run);
    return () => {
      if (this.owned.get(run.runId) === run) this.owned.delete(run.runId);
    };
  }

  ownedRuns(): OwnedRun[] {
    return [...this.owned.values()];
  }

  get(runId: string): OwnedRun | undefined {
    return this.owned.get(runId);
  }

  /** Aborts an owned run (no-op for a run this instance does not run). */
  abort(runId: string, reason: string): void {
    this.owned.get(runId)?.controller.abort(new Error(reason));
  }

  /** A response reads the run until the returned release is called. */
  reading(runId: string): () => void {
    this.readers.set(runId, (this.readers.get(runId) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const count = (this.readers.get(runId) ?? 1) - 1;
      if (count <= 0) this.readers.delete(runId);
      else this.readers.set(runId, count);
    };
  }

  /** Listens for a store failure of the run (`interrupt`); returns the unsubscribe. */
  onInterrupt(runId: string, listener: (message: string) => void): () => void {
    let listeners = this.interruptions.get(runId);
    if (listeners === undefined) {
      listeners = new Set();
      this.interruptions.set(runId, listeners);
    }
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && this.interruptions.get(runId) === listeners)
        this.interruptions.delete(runId);
    };
  }

  /** Tells this instance's readers of the run that the store failed under it. */
  interrupt(runId: string, message: string): void {
    for (const listener of [...(this.interruptions.get(runId) ?? [])]) listener(message);
  }

  readRuns(): string[] {
    return [...this.readers.keys()];
  }

  /** Aborts every owned run (the server closes) and stops listening for stops. */
  closeAll(reason: string): void {
    this.unsubscribe();
    for (const run of this.owned.values()) run.controller.abort(new Error(reason));
  }
}
