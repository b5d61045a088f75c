/** Counted for each value besides its contents: a rough share of V8's headers and pointers. */
const VALUE_OVERHEAD = 16;

/**
 * A rough upper estimate of the memory `value` holds, in bytes: strings at two bytes per UTF-16
 * unit, binary data at its length, a fixed share per value and per property. Walks iteratively
 * (no stack limit on deep values), visits each object once (shared and circular references are
 * counted once), and never throws: a property that cannot be read counts as one value.
 */
export function estimateBytes(value: unknown): number {
  let total = 0;
  const seen = new Set<object>();
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    total += VALUE_OVERHEAD;
    if (typeof next === 'string') {
      total += 2 * next.length;
      continue;
    }
    if (typeof next !== 'object' || next === null || seen.has(next)) continue;
    seen.add(next);
    if (ArrayBuffer.isView(next) || next instanceof ArrayBuffer) {
      total += next.byteLength;
      continue;
    }
    try {
      for (const key of Object.keys(next)) {
        total += 2 * key.length;
        pending.push((next as Record<string, unknown>)[key]);
      }
    } catch {
      // A getter or proxy that throws: what it holds is unknown; its share is counted above.
    }
  }
  return total;
}

export { formatBytes } from '../core/format-bytes.ts';
