import type { AgentEvent, AgentResult, AgentRun } from '../agent/index.ts';
import { isErrorOfKind } from '../core/errors.ts';
import type { RunLease, RunStore } from '../store/run-store.ts';
import type { LiveRuns } from './run-registry.ts';
import type { WireEncoder } from './wire-encoder.ts';

export interface RunDriverOptions {
  readonly store: RunStore;
  readonly lease: RunLease;
  readonly run: AgentRun;
  /** Aborts the agent (Stop from any instance, an unread run, a store that failed). */
  readonly controller: AbortController;
  /** The log's wire format (blocks, AG-UI, UI message stream). */
  readonly wire: WireEncoder;
  readonly now: () => number;
  /**
   * The store failed (not a lost lease): the log may never end, so this instance's readers of
   * the run must be told here, not through the log.
   */
  readonly onStoreFailure?: (message: string) => void;
}

/**
 * Runs a run into the store, whether or not anyone reads it: each agent event becomes SSE frames
 * of the run's wire format, and the frames made in one macrotask go to the log in one
 * `append` (one append in flight at a time, so the log keeps their order). A pause writes its
 * frames and pauses in one store call, so no answer can be claimed before the page could see
 * the block that asks for it; the end writes the closing frames and finishes the run.
 * Every append also leaves the run's tail: what a sweep writes if this instance dies.
 */
export class RunDriver {
  private readonly options: RunDriverOptions;
  private batch: string[] = [];
  private writing: Promise<void> | undefined;
  private flushScheduled = false;
  /** Set when the store refused a write: nothing more is written. */
  private broken = false;
  /** Set once the run paused or finished in the store. */
  private stopped = false;

  constructor(options: RunDriverOptions) {
    this.options = options;
  }

  /**
   * Writes the wire's first frames at once (resolving with the first entry's id, so a response can read from
   * there) and drives the run to its end in the background; `done` settles when it has.
   */
  start(): { readonly firstId: Promise<string>; readonly done: Promise<void> } {
    const { store, lease, wire } = this.options;
    const firstId = store.append(lease, wire.start(), wire.tail()).then((ids) => {
      if (ids[0] === undefined) throw new Error('the store gave no id for the first frame');
      return ids[0];
    });
    this.writing = firstId.then(
      () => {
        this.writing = undefined;
        // What queued behind the first append goes now.
        this.flush();
      },
      (error: unknown) => this.fail(error),
    );
    const done = this.consume();
    return { firstId, done };
  }

  /** Why a store write failed: the run is aborted and nothing more is written. */
  private fail(error: unknown): void {
    this.writing = undefined;
    this.broken = true;
    this.options.controller.abort(
      error instanceof Error ? error : new Error(`the run store failed: ${String(error)}`),
    );
    this.reportFailure(error);
  }

  private reportFailure(error: unknown): void {
    if (isErrorOfKind(error, 'run-lost')) return;
    this.options.onStoreFailure?.(
      `the run store failed, so the run was stopped: ${(error as Error)?.message ?? String(error)}`,
    );
  }

  private async consume(): Promise<void> {
    const { run, wire } = this.options;
    try {
      for await (const event of run) {
        if (this.stopped) continue;
        const frames = wire.push(event);
        if (event.type === 'awaiting-tools') {
          await this.pauseWith(frames, event);
          continue;
        }
        this.queue(frames);
      }
      const result: AgentResult = await run.result;
      if (this.stopped) return;
      await this.finishWith(wire.finish(result), outcomeOf(result));
    } catch (error) {
      // A bug in the adapter or the encoder (or a run that rejected): tell the reader rather
      // than leave the log without an end.
      if (this.stopped) return;
      this.options.controller.abort(error);
      const message = `the server could not encode the run: ${(error as Error)?.message ?? String(error)}`;
      await this.finishWith(wire.failure(message), 'error');
    }
  }

  private queue(frames: readonly string[]): void {
    if (frames.length === 0 || this.broken) return;
    this.batch.push(...frames);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    // What the agent emits in one macrotask goes out as one append.
    setImmediate(() => {
      this.flushScheduled = false;
      this.flush();
    });
  }

  /** Sends the batch unless an append is in flight (its completion sends the next). */
  private flush(): void {
    if (this.writing !== undefined || this.batch.length === 0 || this.broken || this.stopped)
      return;
    const frames = this.batch;
    this.batch = [];
    const { store, lease } = this.options;
    this.writing = store.append(lease, frames, this.options.wire.tail()).then(
      () => {
        this.writing = undefined;
        this.flush();
      },
      (error: unknown) => this.fail(error),
    );
  }

  /** Waits until every queued frame was appended (or the store failed); returns what is left. */
  private async drain(): Promise<string[]> {
    while (this.writing !== undefined) await this.writing;
    const rest = this.batch;
    this.batch = [];
    return rest;
  }

  private async pauseWith(
    frames: readonly string[],
    event: Extract<AgentEvent, { type: 'awaiting-tools' }>,
  ): Promise<void> {
    const rest = await this.drain();
    this.stopped = true;
    if (this.broken) return;
    const { store, lease, now } = this.options;
    try {
      await store.pause(lease, [...rest, ...frames], JSON.stringify(event.state), now());
    } catch (error) {
      this.fail(error);
    }
  }

  private async finishWith(frames: readonly string[], outcome: string): Promise<void> {
    const rest = await this.drain();
    if (this.stopped) return;
    this.stopped = true;
    // A lost lease: another instance ended the run. A store that failed otherwise: try anyway.
    if (this.broken && this.lostLease) return;
    const all = [...rest, ...frames];
    const { store, lease, now } = this.options;
    try {
      await store.finish(lease, all, outcome, now());
    } catch (error) {
      this.broken = true;
      this.reportFailure(error);
    }
  }

  private get lostLease(): boolean {
    const reason: unknown = this.options.controller.signal.reason;
    return isErrorOfKind(reason, 'run-lost');
  }
}

/** How the store remembers a run's end (the text a late request's 409 repeats). */
function outcomeOf(result: AgentResult): string {
  return result.stopReason;
}

/**
 * Starts driving `run` on this instance under `lease` in `wire`'s format; resolves with the
 * first entry's id (a response reads from there). What the app gives the run routes.
 */
export type DriveRun = (
  lease: RunLease,
  run: AgentRun,
  controller: AbortController,
  wire: WireEncoder,
) => Promise<string>;

/** The runs an instance drives: how to start one, and a wait for all of them to have ended. */
export interface RunDriving {
  readonly drive: DriveRun;
  /** Resolves once every run driven so far has written its end (or failed to). */
  drained(): Promise<void>;
}

/**
 * Drives runs on this instance: each owned in `live` (so Stop and the heartbeat find it) from
 * its start until its driver ends, a store failure interrupting its readers here.
 */
export function runDriving(store: RunStore, live: LiveRuns, now: () => number): RunDriving {
  const driving = new Set<Promise<void>>();
  const drive: DriveRun = (lease, run, controller, wire) => {
    const release = live.own({ runId: lease.runId, lease, controller });
    const { firstId, done } = new RunDriver({
      store,
      lease,
      run,
      controller,
      wire,
      now,
      onStoreFailure: (message) => live.interrupt(lease.runId, message),
    }).start();
    const ended = done.finally(release).catch(() => {});
    driving.add(ended);
    void ended.finally(() => driving.delete(ended));
    return firstId;
  };
  return {
    drive,
    drained: async () => {
      while (driving.size > 0) await Promise.all(driving);
    },
  };
}
