import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Longest stretch of a tool's own work between two turns of the event loop. Well under the
 * 100 ms a server may be held, so that one slow step on top of it stays under too.
 */
export const SLICE_MS = 10;

/**
 * Keeps one tool call from holding the event loop, and makes it stop when its signal aborts
 * (a timeout or the run's abort): long loops ask `due()` (cheap) and, once their slice of time is
 * used, await `pause()`, which lets timers, I/O and other requests run first and then throws the
 * signal's reason if the call was stopped meanwhile. Without the pause a timeout could not fire
 * at all, since its timer runs on the same event loop.
 */
export class Pacer {
  readonly signal: AbortSignal | undefined;
  #sliceStart = performance.now();

  constructor(signal?: AbortSignal) {
    this.signal = signal;
  }

  /** Throws the signal's reason if the call was stopped. */
  check(): void {
    this.signal?.throwIfAborted();
  }

  /** Whether this slice of work has run long enough to give the event loop a turn. */
  due(): boolean {
    return performance.now() - this.#sliceStart >= SLICE_MS;
  }

  /** Gives the event loop a turn (timers and I/O run), then checks the signal. */
  async pause(): Promise<void> {
    await nextTurn();
    this.#sliceStart = performance.now();
    this.check();
  }

  /** Checks the signal, and gives the event loop a turn when the slice is used. */
  async step(): Promise<void> {
    this.check();
    if (this.due()) await this.pause();
  }
}
