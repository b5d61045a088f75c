import { ToolwireError } from '../core/errors.ts';
import type { RunLease, RunStore } from '../store/run-store.ts';

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

/** A run this instance runs: its lease (none for a replay, which is not stored) and what aborts it. */
export interface OwnedRun {
  readonly runId: string;
  readonly lease?: RunLease;
  readonly controller: AbortController;
}

/**
 * A place among this instance's `maxConcurrentRuns`, taken before a request's first store round
 * trip so that requests arriving meanwhile count it. `own` of the run named by `assign` (or
 * given to `reserve`) takes the slot over; `release` gives back a slot no run took, and does
 * nothing after. A route releases its slot on every path (`finally`).
 */
export interface RunSlot {
  /** Names the run that will take the slot (a route that learns its run id after reserving). */
  assign(runId: string): void;
  release(): void;
}

/**
 * What one instance knows of runs that only it can know: the runs it runs (their leases and
 * abort controllers, counted against `maxConcurrentRuns`, which is per instance, together with
 * the slots requests reserved for runs not yet owned), and the runs its responses are reading
 * now (reported to the store so a read run is not aborted as unread). Everything else about a
 * run is in the store. Stops asked for on any instance reach the owned run through the store's
 * `onAbort`.
 */
export class LiveRuns {
  private readonly owned = new Map<string, OwnedRun>();
  /** Slots reserved and not yet taken by an owned run nor released. */
  private readonly slots = new Set<{ runId: string | undefined }>();
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

  /** Runs here and slots reserved for runs about to start: what the limit counts. */
  private get taken(): number {
    return this.owned.size + this.slots.size;
  }

  /**
   * Throws `RunLimitError` when as many runs stream here (or are reserved) as allowed. A check
   * only: a request that awaits before its run is owned must `reserve` instead.
   */
  ensureCapacity(): void {
    if (this.taken >= this.maxConcurrentRuns)
      throw new RunLimitError(this.taken, this.maxConcurrentRuns);
  }

  /**
   * Takes a slot now, synchronously, or throws `RunLimitError`: the check and the count are one
   * step, so concurrent requests cannot all pass the check while the first waits on the store.
   */
  reserve(runId?: string): RunSlot {
    this.ensureCapacity();
    const slot = { runId };
    this.slots.add(slot);
    return {
      assign: (id) => {
        slot.runId = id;
      },
      release: () => {
        this.slots.delete(slot);
      },
    };
  }

  /**
   * Counts a run as running here until the returned release is called. A slot reserved for
   * its id becomes the run's, so the run is not counted twice.
   */
  own(run: OwnedRun): () => void {
    for (const slot of this.slots)
      if (slot.runId === run.runId) {
        this.slots.delete(slot);
        break;
      }
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
