/**
 * Matches, at one position, which of a fixed set of literal openers begins there (`<think>`,
 * `<tool_call>`, `<get_weather` …). Compiled once per set of openers and shared by parser
 * instances; a match that runs into the end of the chunk reports `partial` so the caller can hold
 * back just those few characters (the only text a parser ever holds at the top level).
 */
export interface Opener<Data> {
  /** The literal, e.g. `<tool_call>` or `<get_weather`. */
  readonly literal: string;
  /**
   * When true the literal is a tag-name prefix: it matches only if the next character ends the
   * name (`>`, `/` or white space), so `<search` does not match `<searchFiles>`. The delimiter is
   * not part of the match.
   */
  readonly delimited: boolean;
  readonly data: Data;
}

export type OpenerMatch<Data> =
  | { readonly kind: 'none' }
  | { readonly kind: 'partial' }
  | { readonly kind: 'match'; readonly opener: Opener<Data>; readonly length: number };

type Match<Data> = Extract<OpenerMatch<Data>, { kind: 'match' }>;

/** Matches are made once, at compile time: scanning text allocates nothing per opener found. */
interface TrieNode<Data> {
  readonly children: Map<number, TrieNode<Data>>;
  exact?: Match<Data>;
  delimited?: Match<Data>;
}

const NONE = { kind: 'none' } as const;
const PARTIAL = { kind: 'partial' } as const;

export function isNameDelimiter(code: number): boolean {
  // > / space \t \n \r
  return code === 62 || code === 47 || code === 32 || code === 9 || code === 10 || code === 13;
}

export interface OpenerTrie<Data> {
  /** Character codes that can begin an opener: the scanner jumps between these. */
  readonly firstCharacters: readonly number[];
  /** What opener, if any, begins at `text[start]`. */
  match(text: string, start: number): OpenerMatch<Data>;
}

export function compileOpeners<Data>(openers: readonly Opener<Data>[]): OpenerTrie<Data> {
  const root: TrieNode<Data> = { children: new Map() };
  for (const opener of openers) {
    let node = root;
    for (let index = 0; index < opener.literal.length; index++) {
      const code = opener.literal.charCodeAt(index);
      let next = node.children.get(code);
      if (!next) {
        next = { children: new Map() };
        node.children.set(code, next);
      }
      node = next;
    }
    // First declaration wins, so callers control precedence by order.
    const found: Match<Data> = { kind: 'match', opener, length: opener.literal.length };
    if (opener.delimited) node.delimited ??= found;
    else node.exact ??= found;
  }
  const firstCharacters = [...root.children.keys()];

  function match(text: string, start: number): OpenerMatch<Data> {
    let node = root;
    let position = start;
    while (true) {
      if (node.exact) return node.exact;
      if (position >= text.length) return PARTIAL;
      const code = text.charCodeAt(position);
      if (node.delimited && isNameDelimiter(code)) return node.delimited;
      const next = node.children.get(code);
      if (!next) return NONE;
      node = next;
      position++;
    }
  }

  return { firstCharacters, match };
}
