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

/** Raised inside a tool's race when its time is up. */
class ToolTimeout extends Error {}

/**
 * Runs one call: its own abort signal (the run's, or its time running out), the error turned into
 * an outcome. Never rejects, so one failing tool cannot take its batch down.
 */
export async function runTool(
  run: ToolRun,
  timeoutMs: number,
  runSignal: AbortSignal,
): Promise<ToolRunOutcome> {
  if (runSignal.aborted) return { ok: false, kind: 'aborted', error: 'the run was aborted' };
  const controller = new AbortController();
  const onRunAbort = () => controller.abort(runSignal.reason);
  runSignal.addEventListener('abort', onRunAbort, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stopped = new Promise<never>((_, reject) => {
    if (Number.isFinite(timeoutMs)) {
      timer = setTimeout(() => {
        const timeout = new ToolTimeout(`timed out after ${timeoutMs} ms`);
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
    if (error instanceof ToolTimeout) return { ok: false, kind: 'timeout', error: error.message };
    if (runSignal.aborted) return { ok: false, kind: 'aborted', error: 'the run was aborted' };
    return { ok: false, kind: 'execution', error: describeError(error) };
  } finally {
    clearTimeout(timer);
    runSignal.removeEventListener('abort', onRunAbort);
    // A losing race promise must not surface as an unhandled rejection.
    stopped.catch(() => {});
  }
}

/**
 * Runs a batch in parallel. Outcomes come back in call order whatever order the tools finish in
 * (seed 001); `onSettled` reports each as soon as it is known.
 */
export async function runBatch(
  runs: readonly ToolRun[],
  timeoutFor: (run: ToolRun) => number,
  runSignal: AbortSignal,
  onSettled: (run: ToolRun, outcome: ToolRunOutcome) => void,
): Promise<ToolRunOutcome[]> {
  return Promise.all(
    runs.map(async (run) => {
      const outcome = await runTool(run, timeoutFor(run), runSignal);
      onSettled(run, outcome);
      return outcome;
    }),
  );
}

export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}
