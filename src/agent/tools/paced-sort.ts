import type { Pacer } from './pacer.ts';

/** Items sorted by one native call; small enough that the call stays short. */
const RUN_LENGTH = 4_096;

/**
 * A stable sort that gives the event loop its turns: runs of `RUN_LENGTH` items are sorted
 * natively, then merged pairwise, with `pacer` consulted between runs and while merging. A list
 * of a few hundred thousand paths takes longer to sort natively than a tool may hold the loop.
 */
export async function sortPaced<T>(
  items: readonly T[],
  compare: (a: T, b: T) => number,
  pacer: Pacer,
): Promise<T[]> {
  let source: T[] = [];
  for (let start = 0; start < items.length; start += RUN_LENGTH) {
    for (const item of items.slice(start, start + RUN_LENGTH).sort(compare)) source.push(item);
    if (pacer.due()) await pacer.pause();
  }
  let target: T[] = new Array(source.length);
  for (let width = RUN_LENGTH; width < source.length; width *= 2) {
    for (let low = 0; low < source.length; low += 2 * width) {
      const middle = Math.min(low + width, source.length);
      const high = Math.min(low + 2 * width, source.length);
      let left = low;
      let right = middle;
      for (let out = low; out < high; out += 1) {
        // `<= 0` takes the left item on ties, which keeps the sort stable.
        if (right >= high || (left < middle && compare(source[left]!, source[right]!) <= 0)) {
          target[out] = source[left]!;
          left += 1;
        } else {
          target[out] = source[right]!;
          right += 1;
        }
        if ((out & 0xfff) === 0 && pacer.due()) await pacer.pause();
      }
    }
    [source, target] = [target, source];
  }
  return source;
}

/** Compares strings by UTF-16 code units, as `<` does (the order the tools list paths in). */
export function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
