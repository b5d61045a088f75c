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
        else if (code === 92 /* \ */) this.escaped = true;
        else if (code === 34 /* " */) this.inString = false;
        continue;
      }
      if (code === 34) this.inString = true;
      else if (code === 123 /* { */ || code === 91 /* [ */) this.depth++;
      else if (code === 125 /* } */ || code === 93 /* ] */) {
        this.depth--;
        if (this.depth === 0) return index + 1;
      }
    }
    return -1;
  }
}
