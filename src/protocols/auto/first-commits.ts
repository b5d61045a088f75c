/**
 * Which format committed first on the calls seen so far, by how each call began: a call's text
 * from the end of the shared literal through the character where a format committed first. Up
 * to that character the formats read only that text, and a body reads the same text the same
 * way, so a call that begins with it (after the same telling start, which chose the formats that
 * read) is that format's, known without reading it again. xLAM's `[{"name":"NAME", …` is read by
 * hermes, FireFunction and xLAM alike, and all three commit at the same character.
 *
 * Kept per telling start in a trie of the beginnings, so a call is looked up in one pass over
 * its first characters whatever the number kept.
 */
/** What a lookup returns while the call so far begins a kept beginning: wait for more of it. */
export const POSSIBLE: unique symbol = Symbol('possible');

export class FirstCommits<T> {
  private readonly byStart = new Map<string, TrieNode<T>>();
  private nodes = 0;

  /**
   * The value kept for a beginning of the call `earlier + text[start, end)`, the part in earlier
   * writes first; POSSIBLE when the call so far begins a kept beginning; undefined when it
   * begins none.
   */
  find(
    telling: string,
    earlier: string,
    text: string,
    start: number,
    end: number,
  ): T | typeof POSSIBLE | undefined {
    let node = this.byStart.get(telling);
    for (let index = 0; node !== undefined && index < earlier.length; index++) {
      if (node.value !== undefined) return node.value;
      node = node.next?.get(earlier.charCodeAt(index));
    }
    for (let index = start; node !== undefined && index < end; index++) {
      if (node.value !== undefined) return node.value;
      node = node.next?.get(text.charCodeAt(index));
    }
    if (node === undefined) return undefined;
    return node.value ?? (node.next === undefined ? undefined : POSSIBLE);
  }

  /** Keeps `value` for calls that begin with `prefix` after `telling` (while there is room). */
  keep(telling: string, prefix: string, value: T): void {
    if (prefix.length > MAX_PREFIX_CHARS || this.nodes + prefix.length > MAX_NODES) return;
    let node = this.byStart.get(telling);
    if (node === undefined) {
      node = {};
      this.byStart.set(telling, node);
    }
    for (let index = 0; index < prefix.length; index++) {
      if (node.value !== undefined) return;
      node.next ??= new Map();
      const code = prefix.charCodeAt(index);
      let child = node.next.get(code);
      if (child === undefined) {
        child = {};
        node.next.set(code, child);
        this.nodes++;
      }
      node = child;
    }
    node.value ??= value;
  }
}

interface TrieNode<T> {
  next?: Map<number, TrieNode<T>>;
  value?: T;
}

/** A format commits within a call's first characters (at its name or first value). */
export const MAX_PREFIX_CHARS = 256;
/** Characters kept per group of formats: many beginnings, each a few dozen characters. */
const MAX_NODES = 1 << 15;
