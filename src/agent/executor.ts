import { ToolwireError } from '../core/errors.ts';
import { describeThrown, toJsonSafe } from './json-safe.ts';
import type { AgentTool, ToolErrorKind } from './types.ts';

export interface ToolRun {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly input: unknown;
  readonly tool: AgentTool & { readonly execute: NonNullable<AgentTool['execute']> };
}

export type ToolRunOutcome =
  | { readonly ok: true; readonly output: unknown }
  | { readonly ok: false; readonly kind: ToolErrorKind; readonly error: string };

/** How much of a thrown value is read to describe it, unless the caller says otherwise. */
const DESCRIBE_MAX_CHARS = 100_000;

/** Raised inside a tool's race when its time is up; the tool's signal is aborted with it. */
export class ToolTimeout extends ToolwireError {
  readonly timeoutMs: number;

  constructor(timeoutMs: number) {
    super('tool-timeout', `timed out after ${timeoutMs} ms`);
    this.timeoutMs = timeoutMs;
  }
}

/**
 * Runs one call: its own abort signal (the run's, or its time running out), the error turned into
 * an outcome. Never rejects, so one failing tool cannot take its batch down.
 */
export async function runTool(
  run: ToolRun,
  timeoutMs: number,
  runSignal: AbortSignal,
  maxErrorChars = DESCRIBE_MAX_CHARS,
): Promise<ToolRunOutcome> {
  if (runSignal.aborted) return { ok: false, kind: 'aborted', error: 'the run was aborted' };
  const controller = new AbortController();
  const onRunAbort = () => controller.abort(runSignal.reason);
  runSignal.addEventListener('abort', onRunAbort, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timeout: ToolTimeout | undefined;
  const stopped = new Promise<never>((_, reject) => {
    if (Number.isFinite(timeoutMs)) {
      timer = setTimeout(() => {
        timeout = new ToolTimeout(timeoutMs);
        controller.abort(timeout);
        reject(timeout);
      }, timeoutMs);
    }
    // The run's abort ends the wait at once, whether or not the tool listens to its signal.
    controller.signal.addEventListener('abort', () => reject(controller.signal.reason), {
      once: true,
    });
  });
  try {
    const output = await Promise.race([
      Promise.resolve().then(() =>
        run.tool.execute(run.input, { toolCallId: run.toolCallId, signal: controller.signal }),
      ),
      stopped,
    ]);
    return { ok: true, output };
  } catch (error) {
    // Compared by identity: `instanceof` on a thrown Proxy runs its traps, which may throw.
    if (timeout !== undefined && error === timeout) {
      return { ok: false, kind: 'timeout', error: timeout.message };
    }
    if (runSignal.aborted) return { ok: false, kind: 'aborted', error: 'the run was aborted' };
    return { ok: false, kind: 'execution', error: describeError(error, maxErrorChars) };
  } finally {
    clearTimeout(timer);
    runSignal.removeEventListener('abort', onRunAbort);
    // A losing race promise must not surface as an unhandled rejection.
    stopped.catch(() => {});
  }
}

/**
 * Runs a batch in parallel. Outcomes come back in call order whatever order the tools finish in
 * (Cogency's execute protocol); `onSettled` reports each as soon as it is known.
 */
export async function runBatch(
  runs: readonly ToolRun[],
  timeoutFor: (run: ToolRun) => number,
  runSignal: AbortSignal,
  onSettled: (run: ToolRun, outcome: ToolRunOutcome) => void,
  maxErrorChars = DESCRIBE_MAX_CHARS,
): Promise<ToolRunOutcome[]> {
  return Promise.all(
    runs.map(async (run) => {
      const outcome = await runTool(run, timeoutFor(run), runSignal, maxErrorChars);
      onSettled(run, outcome);
      return outcome;
    }),
  );
}

/**
 * What a tool threw (or a model call failed with), in words for the model and the user. Total:
 * any value at all is described, none makes this throw. An Error is told by its message; a
 * string is itself; anything else by its JSON text (see `toJsonSafe`), read up to `maxChars`.
 */
export function describeError(error: unknown, maxChars = DESCRIBE_MAX_CHARS): string {
  try {
    if (error instanceof Error) {
      const message = (error as { message?: unknown }).message;
      if (typeof message === 'string' && message.length > 0) return message;
      const name = (error as { name?: unknown }).name;
      if (typeof name === 'string' && name.length > 0) return name;
    }
  } catch {
    // A Proxy whose traps throw: described below like any other value.
  }
  if (typeof error === 'string') return error;
  const safe = toJsonSafe(error, { maxChars });
  if (typeof safe.value === 'string') return safe.value;
  return JSON.stringify(safe.value) ?? describeThrown(error);
}
