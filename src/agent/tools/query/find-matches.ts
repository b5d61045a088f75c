import { type Lang, parse, type SgNode } from '../ast-grep.ts';

/** Characters of one captured metavariable shown. */
const MAX_CAPTURE_CHARS = 80;

/** One match, as `query` shows it: its lines (1-based, inclusive) and its captures in words. */
export interface PatternMatch {
  readonly first: number;
  readonly last: number;
  readonly captures: readonly string[];
}

/** The matches of a pattern in one file: all counted, the first `maxShown` described. */
export interface FileMatches {
  readonly total: number;
  readonly shown: readonly PatternMatch[];
}

/** The metavariables a pattern captures (`$_…` ones are anonymous). */
function metavariables(pattern: string): { single: string[]; multiple: string[] } {
  const single = new Set<string>();
  const multiple = new Set<string>();
  for (const match of pattern.matchAll(/(\${1,3})([A-Z][A-Z0-9_]*)/g)) {
    (match[1] === '$$$' ? multiple : single).add(match[2]!);
  }
  return { single: [...single], multiple: [...multiple] };
}

function clipCapture(text: string): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > MAX_CAPTURE_CHARS ? `${flat.slice(0, MAX_CAPTURE_CHARS)}…` : flat;
}

function capturesOf(node: SgNode, names: ReturnType<typeof metavariables>): string[] {
  const captures: string[] = [];
  for (const name of names.single) {
    const captured = node.getMatch(name);
    if (captured !== null) captures.push(`$${name} = ${clipCapture(captured.text())}`);
  }
  for (const name of names.multiple) {
    const texts = node
      .getMultipleMatches(name)
      .filter((item) => item.isNamed())
      .map((item) => item.text());
    // Statements read better one after the other; arguments and parameters as a list.
    const statements = texts.some((text) => /[;}]$/.test(text));
    captures.push(`$$$${name} = ${clipCapture(texts.join(statements ? ' ' : ', '))}`);
  }
  return captures;
}

/**
 * Parses `text` in `grammar` and finds `pattern` in it. Runs on the syntax worker (see
 * `syntax/syntax-worker.ts`): parsing and matching a large file, and later releasing its tree
 * and its nodes, takes longer than the main thread may be held. Throws ast-grep's error for a
 * pattern it refuses.
 */
export function findMatches(
  grammar: Lang,
  text: string,
  pattern: string,
  maxShown: number,
): FileMatches {
  const found = parse(grammar, text).root().findAll(pattern);
  const names = metavariables(pattern);
  const shown = found.slice(0, maxShown).map((node) => {
    const range = node.range();
    return {
      first: range.start.line + 1,
      last: range.end.line + 1,
      captures: capturesOf(node, names),
    };
  });
  return { total: found.length, shown };
}
