import { BoundedCache } from '../core/bounded-cache.ts';

/**
 * Finds a literal (`</tool_call>`, three backticks…) in text that arrives in chunks, even when
 * the literal is cut by a chunk boundary. Knuth–Morris–Pratt, so each character is examined a
 * bounded number of times and nothing is rescanned.
 */
export class LiteralFinder {
  private readonly fallback: Int32Array;
  /** How many characters of the literal the text seen so far ends with. */
  private matched = 0;

  readonly literal: string;

  constructor(literal: string) {
    this.literal = literal;
    this.fallback = fallbackTable(literal);
  }

  /** Characters of a possible match held from earlier chunks. */
  get partial(): number {
    return this.matched;
  }

  reset(): void {
    this.matched = 0;
  }

  /** Scans `text[start, end)`; returns the index just after the literal, or -1. */
  find(text: string, start: number, end: number): number {
    const literal = this.literal;
    let matched = this.matched;
    // Jump straight to the first character of the literal when nothing is pending.
    let index = start;
    while (index < end) {
      if (matched === 0) {
        const next = text.indexOf(literal[0]!, index);
        if (next === -1 || next >= end) {
          this.matched = 0;
          return -1;
        }
        index = next;
      }
      const code = text.charCodeAt(index);
      while (matched > 0 && code !== literal.charCodeAt(matched)) {
        matched = this.fallback[matched - 1]!;
      }
      if (code === literal.charCodeAt(matched)) matched++;
      index++;
      if (matched === literal.length) {
        this.matched = 0;
        return index;
      }
    }
    this.matched = matched;
    return -1;
  }
}

/** Tables are read-only once built, and a parser makes a finder per call: build each once. */
/** Literals come from protocol configuration: a handful. The cap only guards odd callers. */
const MAX_CACHED_TABLES = 64;
const fallbackTables = new BoundedCache<string, Int32Array>(MAX_CACHED_TABLES);

/** For each prefix of `literal`, the length of its longest proper prefix that is also a suffix. */
function fallbackTable(literal: string): Int32Array {
  const cached = fallbackTables.get(literal);
  if (cached) return cached;
  const fallback = new Int32Array(literal.length);
  let length = 0;
  for (let index = 1; index < literal.length; index++) {
    while (length > 0 && literal.charCodeAt(index) !== literal.charCodeAt(length)) {
      length = fallback[length - 1]!;
    }
    if (literal.charCodeAt(index) === literal.charCodeAt(length)) length++;
    fallback[index] = length;
  }
  fallbackTables.set(literal, fallback);
  return fallback;
}
