import type { RunState } from '../agent/index.ts';

/** Where a run is: streaming, paused on front-end tools, or over. */
export type RunStatus = 'running' | 'paused' | 'finished';

export interface RunRecord {
  readonly id: string;
  /** The user's question, repeated in the `meta_init` of a resumed stream. */
  readonly prompt: string;
  readonly protocol: string;
  status: RunStatus;
  /** While running: aborts the agent (abort route, client disconnect). */
  controller: AbortController;
  /** While paused: what `resumeAgent` continues from. */
  state: RunState | undefined;
  /** How it ended, for the message of a late request. */
  outcome: string | undefined;
  timer: ReturnType<typeof setTimeout> | undefined;
}

export interface RunRegistryOptions {
  /** Runs streaming at once; a new run or resume beyond this is refused (429). */
  readonly maxConcurrentRuns: number;
  /** How long a paused run waits for its front-end results before it is dropped. */
  readonly pausedRunTtlMs: number;
  /** How long a finished run is remembered, so late requests get 409 rather than 404. */
  readonly finishedRunTtlMs?: number;
}

/** The capacity check failed: `active` runs are streaming, the most allowed. */
export class RunLimitError extends Error {
  override readonly name = 'RunLimitError';
}

/**
 * The server's runs by id. In memory: a paused run's state lives here until it is resumed,
 * aborted, or its time is up. Only running runs count against the concurrency limit.
 */
export class RunRegistry {
  private readonly runs = new Map<string, RunRecord>();
  private readonly options: RunRegistryOptions;

  constructor(options: RunRegistryOptions) {
    this.options = options;
  }

  /** Runs streaming now. */
  get active(): number {
    let count = 0;
    for (const run of this.runs.values()) if (run.status === 'running') count++;
    return count;
  }

  get(id: string): RunRecord | undefined {
    return this.runs.get(id);
  }

  /** Registers a new running run, or throws `RunLimitError` when the server is full. */
  start(id: string, prompt: string, protocol: string): RunRecord {
    this.ensureCapacity();
    const record: RunRecord = {
      id,
      prompt,
      protocol,
      status: 'running',
      controller: new AbortController(),
      state: undefined,
      outcome: undefined,
      timer: undefined,
    };
    this.runs.set(id, record);
    return record;
  }

  /**
   * A paused run goes on: it is running again under `controller` from this moment, so a second
   * resume is refused. Check `ensureCapacity` first.
   */
  resumed(record: RunRecord, controller: AbortController): void {
    this.clearTimer(record);
    record.status = 'running';
    record.state = undefined;
    record.controller = controller;
  }

  /** The run waits for front-end results; it no longer counts as streaming. */
  pause(record: RunRecord, state: RunState): void {
    if (record.status !== 'running') return;
    record.status = 'paused';
    record.state = state;
    this.clearTimer(record);
    record.timer = setTimeout(
      () => this.finish(record, 'dropped: it waited too long for its front-end results'),
      this.options.pausedRunTtlMs,
    );
    record.timer.unref?.();
  }

  /** The run is over (completed, failed, aborted); it is remembered a while for late requests. */
  finish(record: RunRecord, outcome: string): void {
    if (record.status === 'finished') return;
    this.clearTimer(record);
    record.status = 'finished';
    record.state = undefined;
    record.outcome = outcome;
    const ttl = this.options.finishedRunTtlMs ?? 10 * 60_000;
    record.timer = setTimeout(() => this.runs.delete(record.id), ttl);
    record.timer.unref?.();
  }

  /** Aborts every running run and forgets all (server shutdown). */
  closeAll(): void {
    for (const record of this.runs.values()) {
      this.clearTimer(record);
      if (record.status === 'running') record.controller.abort(new Error('the server is closing'));
    }
    this.runs.clear();
  }

  /** Throws `RunLimitError` when as many runs stream as allowed. */
  ensureCapacity(): void {
    const active = this.active;
    if (active >= this.options.maxConcurrentRuns)
      throw new RunLimitError(
        `${active} runs are streaming, the most this server allows (--max-runs ${this.options.maxConcurrentRuns}); try again when one has finished`,
      );
  }

  private clearTimer(record: RunRecord): void {
    if (record.timer !== undefined) clearTimeout(record.timer);
    record.timer = undefined;
  }
}
