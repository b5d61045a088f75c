import type { RunState } from '../agent/index.ts';
import { parseJsonText } from '../core/parse-json.ts';
import { HttpError } from '../http/http-error.ts';

/**
 * The paused state the store holds for run `runId`, read and checked: the store is not trusted
 * (a damaged or foreign value must not be cast to a state). Checks what a resume reads before
 * the agent does: the version, the counters, and that `batch`, `settled` and `pending` are
 * arrays, each call with a string id and name. Throws a 500 `HttpError` saying the stored state
 * is damaged; the caller gives its claim back first.
 */
export function readPausedState(runId: string, text: string): RunState {
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
