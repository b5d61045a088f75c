/**
 * Linear-time checks that a busy machine cannot fail. Three things keep load out of them:
 * - the clock is the CPU time of this process, not the time that passed: other processes on the
 *   machine stretch the second, not the first;
 * - each size is run a few times, interleaved, and the fastest run is kept (a collection or a
 *   cache upset only ever adds time);
 * - the larger input is sixteen times the smaller, and the bound on the growth (80 times) sits far
 *   from both what linear work takes (16; 17 to 30 measured, collection and caches included) and
 *   what quadratic work takes (256);
 * - a growth past the bound is measured again, up to three times: a pause adds time to one
 *   measure, quadratic work is slow in every one.
 * Timing for its own sake (how fast, not how it grows) belongs to bench/.
 */
import { expect } from 'vitest';
import { workMeter } from '../../src/protocols/engine/work-meter.ts';

/** How many times larger the second input is than the first. */
export const GROWTH_FACTOR = 16;
/** Linear work grows about 16 times (up to 30 measured), quadratic 256: far from both. */
export const MAX_LINEAR_GROWTH = 80;
/** A count has no noise: linear work grows 16 times (plus a constant), quadratic 256. */
const MAX_LINEAR_ENGINE_WORK_GROWTH = 20;
/** The smaller run is grown (or shrunk) to take between these many CPU milliseconds. */
const SMALL_RUN_MS = { min: 2, max: 8 } as const;
/** How far from the size asked for the smaller input may be moved, either way. */
const MAX_RESIZE = 64;
/** Runs of each size, after one to warm up: the fastest is kept. */
const ROUNDS = 3;
/** Whole measures of a growth before it is taken as not linear. */
const MEASURES = 3;
/** A smaller run is never taken as shorter than this (a constant-time reader's ratio is noise). */
const FLOOR_MS = 1;

/** The process's CPU microseconds: to the microsecond (a thread's own count moves in ticks). */
function processCpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

/**
 * CPU milliseconds this thread has run: a clock other processes and threads do not move, in
 * steps of a scheduler tick (a few milliseconds), so for bounds of tens of milliseconds and more.
 */
export function threadCpuMs(): number {
  const usage = process.threadCpuUsage?.() ?? process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

/**
 * CPU milliseconds the process spends in `run()` (its helper threads' too: compiling, collecting,
 * both part of the work; a test file's process runs nothing else meanwhile).
 */
export function cpuMsOf(run: () => void): number {
  const start = processCpuMs();
  run();
  return processCpuMs() - start;
}

/** The fewest CPU milliseconds of a few runs of `run`, after one run to warm up. */
export function bestCpuMsOf(run: () => void, rounds = ROUNDS): number {
  run();
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < rounds; round++) best = Math.min(best, cpuMsOf(run));
  return best;
}

export interface Growth {
  /** The size the smaller input was made with (the larger one is GROWTH_FACTOR times it). */
  readonly size: number;
  readonly smallMs: number;
  readonly largeMs: number;
  /** `largeMs / smallMs`: about 16 for linear work, 256 for quadratic. */
  readonly ratio: number;
}

export interface GrowthOptions {
  /** The largest size `make` may be asked for (where a reader changes what it does, say). */
  readonly largest?: number;
}

/**
 * How much longer `run(make(16n))` takes than `run(make(n))`, in CPU time, with `n` moved from
 * `size` (by halving or doubling, at most 64 times either way) until the smaller run takes a few
 * milliseconds: long enough to time, short enough that the larger stays quick.
 */
export function growthOf<T>(
  make: (size: number) => T,
  run: (input: T) => void,
  size: number,
  options: GrowthOptions = {},
): Growth {
  const largest = options.largest ?? Number.POSITIVE_INFINITY;
  const timeAt = (at: number) => {
    const input = make(at);
    return bestCpuMsOf(() => run(input), 1);
  };
  let smallSize = size;
  let smallMs = timeAt(smallSize);
  while (
    smallMs < SMALL_RUN_MS.min &&
    smallSize < size * MAX_RESIZE &&
    smallSize * 2 * GROWTH_FACTOR <= largest
  ) {
    smallSize *= 2;
    smallMs = timeAt(smallSize);
  }
  while (smallMs > SMALL_RUN_MS.max && smallSize > size / MAX_RESIZE && smallSize >= 2) {
    smallSize = Math.floor(smallSize / 2);
    smallMs = timeAt(smallSize);
  }
  const small = make(smallSize);
  const large = make(smallSize * GROWTH_FACTOR);
  run(small);
  run(large);
  let bestSmall = Number.POSITIVE_INFINITY;
  let bestLarge = Number.POSITIVE_INFINITY;
  for (let round = 0; round < ROUNDS; round++) {
    bestSmall = Math.min(
      bestSmall,
      cpuMsOf(() => run(small)),
    );
    bestLarge = Math.min(
      bestLarge,
      cpuMsOf(() => run(large)),
    );
  }
  return {
    size: smallSize,
    smallMs: bestSmall,
    largeMs: bestLarge,
    ratio: bestLarge / Math.max(bestSmall, FLOOR_MS),
  };
}

/** Asserts that `run` takes time linear in the size `make` builds (see `growthOf`). */
export function expectLinearGrowth<T>(
  make: (size: number) => T,
  run: (input: T) => void,
  size: number,
  options: GrowthOptions = {},
): void {
  // A pause of the collector or of the machine only ever adds time, so one more measure before
  // failing: quadratic work fails every measure (256 times), linear work passes nearly all.
  let growth = growthOf(make, run, size, options);
  for (let again = 0; again < MEASURES - 1 && growth.ratio >= MAX_LINEAR_GROWTH; again++) {
    const next = growthOf(make, run, size, options);
    if (next.ratio < growth.ratio) growth = next;
  }
  expect(
    growth.ratio,
    `size ${growth.size}: ${growth.smallMs.toFixed(2)} ms, ` +
      `${GROWTH_FACTOR} times it: ${growth.largeMs.toFixed(2)} ms`,
  ).toBeLessThan(MAX_LINEAR_GROWTH);
}

/** Characters the protocol engine searched and copied while `run()` ran (its work meter). */
export function engineWorkOf(run: () => void): number {
  const before = workMeter.characters;
  run();
  return workMeter.characters - before;
}

/**
 * Asserts that the engine's work on `make(16n)` is at most 20 times its work on `make(n)`: a
 * count, so exact on any machine (linear work is 16 times, quadratic 256).
 */
export function expectLinearEngineWork<T>(
  make: (size: number) => T,
  run: (input: T) => void,
  size: number,
): void {
  const small = make(size);
  const large = make(size * GROWTH_FACTOR);
  const smallWork = engineWorkOf(() => run(small));
  const largeWork = engineWorkOf(() => run(large));
  expect(smallWork, 'the engine counts its work on the smaller input').toBeGreaterThan(0);
  expect(largeWork, `size ${size}: ${smallWork} characters`).toBeLessThanOrEqual(
    MAX_LINEAR_ENGINE_WORK_GROWTH * smallWork,
  );
}
