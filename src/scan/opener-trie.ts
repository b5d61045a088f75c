import { CARRIAGE_RETURN, GREATER_THAN, LINE_FEED, SLASH, SPACE, TAB } from './char-codes.ts';

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
  /**
   * The one child's character and node, when there is exactly one (-1 otherwise): past the first
   * few characters a trie of tool names is a chain, and a comparison costs less than a lookup.
   */
  onlyCode: number;
  onlyChild: TrieNode<Data> | undefined;
  exact?: Match<Data>;
  delimited?: Match<Data>;
}

function newNode<Data>(): TrieNode<Data> {
  return { children: new Map(), onlyCode: -1, onlyChild: undefined };
}

/** Sets `onlyCode`/`onlyChild` on every node with exactly one child. */
function markChains<Data>(root: TrieNode<Data>): void {
  const nodes = [root];
  for (let node = nodes.pop(); node !== undefined; node = nodes.pop()) {
    for (const [code, child] of node.children) {
      if (node.children.size === 1) {
        node.onlyCode = code;
        node.onlyChild = child;
      }
      nodes.push(child);
    }
  }
}

const NONE = { kind: 'none' } as const;
const PARTIAL = { kind: 'partial' } as const;

export function isNameDelimiter(code: number): boolean {
  return (
    code === GREATER_THAN ||
    code === SLASH ||
    code === SPACE ||
    code === TAB ||
    code === LINE_FEED ||
    code === CARRIAGE_RETURN
  );
}

export interface OpenerTrie<Data> {
  /** Character codes that can begin an opener: the scanner jumps between these. */
  readonly firstCharacters: readonly number[];
  /**
   * What opener, if any, begins at `text[start]`: the longest that matches. `partial` when the
   * text ends before that is known, unless the text is `final` (nothing follows it).
   */
  match(text: string, start: number, final?: boolean): OpenerMatch<Data>;
}

export function compileOpeners<Data>(openers: readonly Opener<Data>[]): OpenerTrie<Data> {
  const root = newNode<Data>();
  for (const opener of openers) {
    let node = root;
    for (let index = 0; index < opener.literal.length; index++) {
      const code = opener.literal.charCodeAt(index);
      let next = node.children.get(code);
      if (!next) {
        next = newNode<Data>();
        node.children.set(code, next);
      }
      node = next;
    }
    // First declaration wins, so callers control precedence by order.
    const found: Match<Data> = { kind: 'match', opener, length: opener.literal.length };
    if (opener.delimited) node.delimited ??= found;
    else node.exact ??= found;
  }
  markChains(root);
  const firstCharacters = [...root.children.keys()];

  function match(text: string, start: number, final = false): OpenerMatch<Data> {
    let node = root;
    let position = start;
    // The longest literal wins: `[TOOL_CALLS]` over `[`, `<|channel|>analysis…` over `<|channel|>`.
    let best: Match<Data> | undefined;
    while (true) {
      if (node.exact) {
        best = node.exact;
        if (node.children.size === 0) return best;
      }
      if (position >= text.length) return final ? (best ?? NONE) : PARTIAL;
      const code = text.charCodeAt(position);
      if (node.delimited && isNameDelimiter(code)) return node.delimited;
      const next =
        node.onlyCode === -1
          ? node.children.get(code)
          : node.onlyCode === code
            ? node.onlyChild
            : undefined;
      if (!next) return best ?? NONE;
      node = next;
      position++;
    }
  }

  return { firstCharacters, match };
}
