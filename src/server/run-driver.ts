import type { AgentEvent, AgentResult, AgentRun } from '../agent/index.ts';
import { isErrorOfKind } from '../core/errors.ts';
import { ABORTED_OUTCOME } from '../store/outcomes.ts';
import type { RunLease, RunStore } from '../store/run-store.ts';
import type { LiveRuns } from './live-runs.ts';
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
  /** Set when a stop came before the run could pause: it ends aborted, asking for nothing. */
  private stoppedBeforePause = false;

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
        if (this.stopped || this.stoppedBeforePause) continue;
        if (event.type === 'awaiting-tools') {
          await this.pauseWith(event);
          continue;
        }
        this.queue(wire.push(event));
      }
      const result: AgentResult = await run.result;
      if (this.stopped) return;
      if (this.stoppedBeforePause) {
        const aborted: AgentResult = { ...result, stopReason: 'aborted', message: ABORTED_MESSAGE };
        await this.finishWith(wire.finish(aborted), ABORTED_OUTCOME);
        return;
      }
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

  /**
   * The run waits for front-end answers: its frames and the pause go in one store call. A stop
   * asked before then wins (the answers would never be taken): one seen here ends the run
   * aborted without the frames that ask; one that reaches the store first, or a run too large
   * to keep while it waits, makes the store finish it with the closing frames instead.
   */
  private async pauseWith(event: Extract<AgentEvent, { type: 'awaiting-tools' }>): Promise<void> {
    const rest = await this.drain();
    if (this.broken) {
      this.stopped = true;
      return;
    }
    const { store, lease, now, controller, wire } = this.options;
    if (controller.signal.aborted) {
      // Ends with the run's result, after the frames still queued.
      this.batch.unshift(...rest);
      this.stoppedBeforePause = true;
      return;
    }
    this.stopped = true;
    // Taken before the asking frames end the stream (AG-UI and the UI message stream end there).
    const endings = {
      aborted: wire.ending(ABORTED_MESSAGE),
      dropped: wire.ending(TOO_LARGE_TO_WAIT_MESSAGE),
    };
    const frames = wire.push(event);
    const closing = (outcome: string): string[] => {
      // Said with the store's own words where the wire can still end (blocks: the asking frames
      // left nothing open); else as taken before them.
      const message =
        outcome === ABORTED_OUTCOME ? ABORTED_MESSAGE : `the run was stopped: ${outcome}`;
      const now = wire.ending(message);
      if (now.length > 0) return [...rest, ...now];
      return [...rest, ...(outcome === ABORTED_OUTCOME ? endings.aborted : endings.dropped)];
    };
    try {
      await store.pause(lease, [...rest, ...frames], JSON.stringify(event.state), now(), closing);
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

/** What a run stopped before it could pause says, as the agent words an aborted run. */
const ABORTED_MESSAGE = 'the run was aborted';

const TOO_LARGE_TO_WAIT_MESSAGE =
  'the run was stopped: it is larger than the server keeps for a run that waits for answers';

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
