/**
 * Wall-clock ratios for the linear-time tests that have no work counter to read: best of a few
 * runs after a warm-up, on texts grown until a run takes long enough to time (a run of a few
 * milliseconds is mostly a collection or a scheduling pause on a busy machine).
 */

/** Shortest run of the smaller input that a ratio is taken of. */
const MIN_TIMED_MS = 25;

/** The best of a few runs after a warm-up. */
export function timeOf(run: () => void): number {
  run();
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 3; round++) {
    const start = performance.now();
    run();
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

/**
 * How much longer `run(make(4n))` takes than `run(make(n))`, with `n` starting at `size` and
 * doubled (up to 16 times `size`) until the smaller run takes `MIN_TIMED_MS`: about 4 when the
 * work is linear, 16 when it is quadratic.
 */
export function fourfoldRatio<T>(
  make: (size: number) => T,
  run: (input: T) => void,
  size: number,
): number {
  let count = size;
  let small = timeOf(() => run(make(count)));
  while (small < MIN_TIMED_MS && count < size * 16) {
    count *= 2;
    small = timeOf(() => run(make(count)));
  }
  return timeOf(() => run(make(4 * count))) / small;
}
