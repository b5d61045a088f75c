/** Cuts `text` at the given points (any order, any size: taken modulo the length, duplicates allowed). */
export function splitAt(text: string, points: readonly number[]): string[] {
  const cuts = [...new Set(points.map((point) => point % (text.length + 1)))].sort((a, b) => a - b);
  const chunks: string[] = [];
  let previous = 0;
  for (const cut of cuts) {
    chunks.push(text.slice(previous, cut));
    previous = cut;
  }
  chunks.push(text.slice(previous));
  return chunks;
}

/** `text` in pieces of `size` characters. */
export function chunksOf(text: string, size: number): string[] {
  const chunks: string[] = [];
  for (let start = 0; start < text.length; start += size)
    chunks.push(text.slice(start, start + size));
  return chunks;
}
