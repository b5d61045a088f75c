/** Cuts anything sliceable at the given points (any order, any size: taken modulo the length). */
export function cutAt<T extends { readonly length: number; slice(start: number, end?: number): T }>(
  whole: T,
  points: readonly number[],
): T[] {
  const cuts = [...new Set(points.map((point) => point % (whole.length + 1)))].sort(
    (a, b) => a - b,
  );
  const chunks: T[] = [];
  let previous = 0;
  for (const cut of cuts) {
    chunks.push(whole.slice(previous, cut));
    previous = cut;
  }
  chunks.push(whole.slice(previous));
  return chunks;
}

/** Cuts `text` at the given points (any order, any size: taken modulo the length, duplicates allowed). */
export function splitAt(text: string, points: readonly number[]): string[] {
  return cutAt(text, points);
}

/** `text` in pieces of `size` characters. */
export function chunksOf(text: string, size: number): string[] {
  const chunks: string[] = [];
  for (let start = 0; start < text.length; start += size)
    chunks.push(text.slice(start, start + size));
  return chunks;
}
