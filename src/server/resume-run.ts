import { type AgentRun, ResumeMismatchError, type RunState } from '../agent/index.ts';
import { parseJsonText } from '../core/parse-json.ts';
import { HttpError } from '../http/http-error.ts';
import type { RunLease, RunStore, StoredRun } from '../store/run-store.ts';
import { idBefore } from './log-stream.ts';
import type { DriveRun } from './run-driver.ts';
import type { WireEncoder } from './wire-encoder.ts';

/** What `resumePaused` needs: the store, the route's own parts of a resume, and its answers. */
export interface ResumePausedOptions {
  readonly store: RunStore;
  readonly now: () => number;
  readonly drive: DriveRun;
  readonly runId: string;
  /** The log the continuation writes (an AG-UI run's own); default: the run's current one. */
  readonly log?: string;
  /** The error the route answers when the run cannot be claimed (not paused, forgotten). */
  readonly notClaimed: (run: StoredRun | undefined) => Error;
  /**
   * The continuation of the claimed run from its checked state, stopped by `signal`. Nothing has
   * run yet when it throws: the claim is given back and the error goes on (a
   * `ResumeMismatchError` as `mismatch` answers it).
   */
  readonly start: (state: RunState, run: StoredRun, signal: AbortSignal) => AgentRun;
  /** The wire the continuation writes its log in. */
  readonly wire: (state: RunState) => WireEncoder;
  /** The route's answer to results that do not match the pending calls (a 422). */
  readonly mismatch: (error: ResumeMismatchError, state: RunState) => Error;
  /** Done once the continuation started, before it is driven (AG-UI renews its thread's pointer). */
  readonly beforeDrive?: () => Promise<void>;
}

/** A paused run going on here: its lease, and where its continuation starts in its log. */
export interface ResumedRun {
  readonly lease: RunLease;
  /** The id just before the continuation's first entry: a read after it is the continuation. */
  readonly after: string;
}

/**
 * Resumes a paused run here, the one flow of every route that takes answers: claims it (only one
 * instance can), reads and checks its stored state, starts the continuation, and drives it into
 * the store. Until the continuation starts, any failure gives the claim back (the run is paused
 * again, its state unchanged), so a refused or failed resume never leaves the run claimed by no
 * one. Throws what the route answers.
 */
export async function resumePaused(options: ResumePausedOptions): Promise<ResumedRun> {
  const { store, now, runId } = options;
  const claim = await store.claimPaused(runId, now(), options.log);
  if (!claim.claimed) throw options.notClaimed(claim.run);
  const { lease } = claim;
  const controller = new AbortController();
  let state: RunState | undefined;
  let run: AgentRun;
  try {
    state = readPausedState(runId, claim.state);
    run = options.start(state, claim.run, controller.signal);
  } catch (error) {
    // Nothing ran: the run waits for its answers again.
    await store.pause(lease, [], claim.state, now());
    if (error instanceof ResumeMismatchError && state !== undefined)
      throw options.mismatch(error, state);
    throw error;
  }
  await options.beforeDrive?.();
  const firstId = await options.drive(lease, run, controller, options.wire(state));
  return { lease, after: idBefore(firstId) };
}

/**
 * The paused state the store holds for run `runId`, read and checked: the store is not trusted
 * (a damaged or foreign value must not be cast to a state). Checks what a resume reads before
 * the agent does: the version, the counters, and that `batch`, `settled` and `pending` are
 * arrays, each call with a string id and name. Throws a 500 `HttpError` saying the stored state
 * is damaged; the caller then gives its claim back.
 */
function readPausedState(runId: string, text: string): RunState {
  let value: unknown;
  try {
    value = parseJsonText(text);
  } catch (error) {
    throw damagedState(runId, 'it is not JSON', error);
  }
  const problem = stateProblem(value);
  if (problem !== undefined) throw damagedState(runId, problem);
  return value as RunState;
}

/** What is wrong with `value` as a run state, or undefined when its shape is right. */
function stateProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return 'it is not an object';
  const state = value as Record<string, unknown>;
  if (state.version !== 1) return 'its version is not 1';
  for (const key of ['runId', 'protocol'] as const)
    if (typeof state[key] !== 'string') return `its ${key} is not a string`;
  for (const key of ['steps', 'consecutiveFailures'] as const)
    if (typeof state[key] !== 'number') return `its ${key} is not a number`;
  if (typeof state.usage !== 'object' || state.usage === null) return 'its usage is not an object';
  for (const key of ['conversation', 'settled'] as const)
    if (!Array.isArray(state[key])) return `its ${key} is not an array`;
  for (const key of ['batch', 'pending'] as const) {
    const calls = state[key];
    if (!Array.isArray(calls)) return `its ${key} is not an array`;
    const index = calls.findIndex((call) => !isCall(call));
    if (index !== -1) return `${key}[${index}] is not a call with a string toolCallId and toolName`;
  }
  return undefined;
}

function isCall(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const call = value as Record<string, unknown>;
  return typeof call.toolCallId === 'string' && typeof call.toolName === 'string';
}

function damagedState(runId: string, why: string, cause?: unknown): HttpError {
  // No closer kind: the store answered, with a value that cannot be used.
  return new HttpError(
    500,
    `the paused state the store holds for run ${runId} is damaged (${why}), so it cannot be resumed; stop the run`,
    { kind: 'store-unavailable', ...(cause === undefined ? {} : { cause }) },
  );
}
