import { CARRIAGE_RETURN, LINE_FEED, SPACE, TAB } from '../../scan/char-codes.ts';
import type { OpenerMatch, OpenerTrie } from '../../scan/opener-trie.ts';

/** Longest run of spaces or tabs around a tool name written alone on its line. */
const MAX_LINE_SPACE = 64;

function isSpaceOrTab(code: number): boolean {
  return code === SPACE || code === TAB;
}

/** Whether `text` from `from` on is spaces and tabs (and carriage returns, if `returns`). */
function isLineSpace(text: string, from: number, returns: boolean): boolean {
  for (let index = from; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (!isSpaceOrTab(code) && !(returns && code === CARRIAGE_RETURN)) return false;
  }
  return true;
}

/**
 * Finds line openers: a tool's name alone on its line (`\nlist_dir`), which some models write
 * instead of the opening tag, followed by a line that starts with a tag. They are not searched
 * for at every line break (line breaks are common in text, such lines are not): a `<` that starts
 * a line looks back at the line before (`before`), and the end of a chunk that may hold the start
 * of one is held back until the next chunk decides (`heldAtEnd`). Both look at a bounded number
 * of characters, and agree however the text is split.
 */
export class LineOpenerFinder<Data> {
  private readonly trie: OpenerTrie<Data>;
  /** The longest line opener's length, its line break included. */
  private readonly longest: number;
  /** The opener the last successful `before` found. */
  found: Extract<OpenerMatch<Data>, { kind: 'match' }> | undefined;

  constructor(trie: OpenerTrie<Data>, longest: number) {
    this.trie = trie;
    this.longest = longest;
  }

  /**
   * Where a line opener begins on the line before the `<` at `text[at]`, when that `<` starts
   * its line (after indentation); -1 when there is none within `text[start…]`. Sets `found`.
   */
  before(text: string, at: number, start: number): number {
    let index = at - 1;
    const spaceEnd = Math.max(start, at - MAX_LINE_SPACE);
    while (index >= spaceEnd && isSpaceOrTab(text.charCodeAt(index))) index--;
    if (index < start || text.charCodeAt(index) !== LINE_FEED) return -1;
    return this.nameLineStart(text, index, start);
  }

  /**
   * How many characters at the end of `text` (from `start`) to hold back because they may be
   * the start of a line opener: a line break and part of a name, a name line not ended yet, or a
   * name line and the indentation of the next line, whose `<` has not come yet.
   */
  heldAtEnd(text: string, start: number): number {
    // Forward searches of the last few characters (`lastIndexOf` is a slow path in V8); most
    // chunks end far from a line break.
    let lastBreak = text.indexOf(
      '\n',
      Math.max(start, text.length - this.longest - 2 * MAX_LINE_SPACE - 2),
    );
    if (lastBreak === -1) return 0;
    for (let next = text.indexOf('\n', lastBreak + 1); next !== -1; ) {
      lastBreak = next;
      next = text.indexOf('\n', next + 1);
    }
    const lineLength = text.length - lastBreak - 1;
    if (lineLength <= MAX_LINE_SPACE && isLineSpace(text, lastBreak + 1, false)) {
      // Only indentation after the last line break: the line before may be a name line.
      const lineAt = this.nameLineStart(text, lastBreak, start);
      if (lineAt !== -1) return text.length - lineAt;
    }
    // The last line may be a name line still being written.
    if (lineLength >= this.longest + MAX_LINE_SPACE) return 0;
    const match = this.trie.match(text, lastBreak);
    if (match.kind === 'partial') return text.length - lastBreak;
    if (match.kind !== 'match' || match.opener.literal.charCodeAt(0) !== LINE_FEED) return 0;
    return isLineSpace(text, lastBreak + match.length, true) ? text.length - lastBreak : 0;
  }

  /**
   * Where a line opener begins whose line ends at the line break at `lineBreak`: the tool's name
   * alone on its line, white space after it. -1 when there is none. Sets `found`.
   */
  private nameLineStart(text: string, lineBreak: number, start: number): number {
    let index = lineBreak - 1;
    const spaceEnd = Math.max(start, lineBreak - MAX_LINE_SPACE);
    while (index >= spaceEnd) {
      const code = text.charCodeAt(index);
      if (!isSpaceOrTab(code) && code !== CARRIAGE_RETURN) break;
      index--;
    }
    const nameEnd = index + 1;
    const nameStart = Math.max(start, index - this.longest + 1);
    while (index >= nameStart && text.charCodeAt(index) !== LINE_FEED) index--;
    if (index < start || text.charCodeAt(index) !== LINE_FEED) return -1;
    const match = this.trie.match(text, index);
    if (match.kind !== 'match' || match.opener.literal.charCodeAt(0) !== LINE_FEED) return -1;
    // Nothing but white space may follow the name on its line.
    if (index + match.length !== nameEnd) return -1;
    this.found = match;
    return index;
  }
}
