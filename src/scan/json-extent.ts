import {
  BACKSLASH,
  LEFT_BRACE,
  LEFT_BRACKET,
  QUOTATION_MARK,
  RIGHT_BRACE,
  RIGHT_BRACKET,
} from './char-codes.ts';

/**
 * Finds where a JSON object or array that arrives in pieces ends: brackets are counted outside
 * strings, and a string's escapes are skipped. It does not check the JSON in between (a parser or
 * the lenient reader reads it once it is whole); it only says where it stops, reading each
 * character once.
 */
export class JsonExtent {
  private depth = 0;
  private inString = false;
  private escaped = false;

  /**
   * Reads `text[start, end)`, the first character of the first write being the opening bracket.
   * Returns the index just after the bracket that closes it, or -1 when it has not closed yet.
   */
  write(text: string, start: number, end: number): number {
    for (let index = start; index < end; index++) {
      const code = text.charCodeAt(index);
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (code === BACKSLASH) this.escaped = true;
        else if (code === QUOTATION_MARK) this.inString = false;
        continue;
      }
      if (code === QUOTATION_MARK) this.inString = true;
      else if (code === LEFT_BRACE || code === LEFT_BRACKET) this.depth++;
      else if (code === RIGHT_BRACE || code === RIGHT_BRACKET) {
        this.depth--;
        if (this.depth === 0) return index + 1;
      }
    }
    return -1;
  }
}
