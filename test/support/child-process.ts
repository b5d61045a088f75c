/**
 * The one way a test starts a child process: every child is killed on every path (a failed
 * start, a timeout, a test that throws, the end of the file), so a red run leaves nothing
 * listening. Waits are generous because a loaded machine starts Node slowly: a test that waits
 * for a printed URL waits for the URL, not for a guessed number of milliseconds.
 */
import { type ChildProcess, type SpawnSyncReturns, spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';

/** How long a child may take to print what a test waits for, or to finish a one-shot command. */
export const CHILD_TIMEOUT_MS = 60_000;

/** The CLI from the sources, as the tests run it. */
export const CLI_MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

const running = new Set<ChildProcess>();

function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** Kills every child this file started that is still running (SIGKILL: no grace to wait on). */
export function killAllChildren(): void {
  for (const child of running) if (isRunning(child)) child.kill('SIGKILL');
  running.clear();
}

// The end of a test file, and the end of its worker, both take their children with them.
afterAll(killAllChildren);
process.once('exit', killAllChildren);

export interface StartedChild {
  readonly child: ChildProcess;
  /** What `readyWhen` matched in the output. */
  readonly ready: RegExpExecArray;
  /** Everything printed so far, stdout and stderr interleaved as they arrived. */
  output(): string;
  /** Resolves with the exit code (null when killed) once the child has exited. */
  exited(): Promise<number | null>;
  /** Sends `signal` (SIGTERM unless told) and waits for the exit; SIGKILL if it lingers. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface StartOptions {
  /** Resolves once the output matches (a listening URL, a first line). */
  readonly readyWhen: RegExp;
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  readonly timeoutMs?: number;
}

/**
 * Starts `command args` and resolves once its output matches `readyWhen`. A child that exits
 * first, or does not print it within the bound, is killed and the promise rejects with what it
 * printed.
 */
export function startChild(
  command: string,
  args: readonly string[],
  options: StartOptions,
): Promise<StartedChild> {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let printed = '';
  const exit = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      running.delete(child);
      resolve(code);
    });
  });
  const exited = () => exit;
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (!isRunning(child)) return exit;
    child.kill(signal);
    const lingering = setTimeout(() => child.kill('SIGKILL'), CHILD_TIMEOUT_MS);
    try {
      return await exit;
    } finally {
      clearTimeout(lingering);
    }
  };
  return new Promise((resolve, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${why}:\n${printed}`));
    };
    const timeoutMs = options.timeoutMs ?? CHILD_TIMEOUT_MS;
    const timer = setTimeout(
      () =>
        fail(
          `${command} ${args.join(' ')} printed nothing matching ${options.readyWhen} in ${timeoutMs} ms`,
        ),
      timeoutMs,
    );
    let settled = false;
    const onData = (data: Buffer) => {
      printed += data.toString();
      if (settled) return;
      const ready = options.readyWhen.exec(printed);
      if (!ready) return;
      settled = true;
      clearTimeout(timer);
      resolve({ child, ready, output: () => printed, exited, stop });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('error', (error) => {
      if (!settled) fail(`${command} could not start (${error.message})`);
    });
    void exit.then((code) => {
      if (!settled) fail(`${command} exited (${code}) before it was ready`);
    });
  });
}

/** `toolwire ARGS` from the sources, resolving once its output matches `readyWhen`. */
export function startCli(args: readonly string[], options: StartOptions): Promise<StartedChild> {
  return startChild(process.execPath, [CLI_MAIN, ...args], options);
}

export interface ChildResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunOptions {
  readonly input?: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  readonly timeoutMs?: number;
}

/**
 * Runs `command args` to its end and returns what it printed; one that outlasts the bound is
 * killed (SIGKILL) and the call throws, so no test waits forever on a child.
 */
export function runChild(
  command: string,
  args: readonly string[],
  options: RunOptions = {},
): ChildResult {
  const timeout = options.timeoutMs ?? CHILD_TIMEOUT_MS;
  const result: SpawnSyncReturns<string> = spawnSync(command, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    input: options.input,
    encoding: 'utf8',
    timeout,
    killSignal: 'SIGKILL',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.error) {
    throw new Error(
      `${command} ${args.join(' ')} failed (${result.error.message}):\n${result.stderr}`,
    );
  }
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** `toolwire ARGS` from the sources, run to its end. */
export function runCli(args: readonly string[], options: RunOptions = {}): ChildResult {
  return runChild(process.execPath, [CLI_MAIN, ...args], options);
}

/**
 * `toolwire ARGS` run to its end without blocking the worker (a test that serves a fake model
 * in the same process needs its event loop running); killed at the bound.
 */
export async function runCliAsync(
  args: readonly string[],
  options: RunOptions = {},
): Promise<ChildResult> {
  const child = spawn(process.execPath, [CLI_MAIN, ...args], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  running.add(child);
  if (options.input !== undefined) child.stdin!.end(options.input);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (data) => (stdout += data));
  child.stderr!.on('data', (data) => (stderr += data));
  const timeoutMs = options.timeoutMs ?? CHILD_TIMEOUT_MS;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, timeoutMs);
  const status = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  }).finally(() => {
    clearTimeout(timer);
    running.delete(child);
  });
  if (timedOut) throw new Error(`toolwire ${args.join(' ')} ran past ${timeoutMs} ms:\n${stderr}`);
  return { status, stdout, stderr };
}
