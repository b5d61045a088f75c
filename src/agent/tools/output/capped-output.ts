/** Room kept for the notice that says the output was cut and how to narrow it. */
const NOTICE_ROOM = 400;

/**
 * Tool output with a size limit. Blocks are added whole while they fit; once one does not, the
 * output is marked cut and `finish` appends the notice. The result never exceeds the limit.
 */
export class CappedOutput {
  readonly #limit: number;
  readonly #parts: string[] = [];
  #used = 0;
  #cut = false;
  #overflowed = false;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Characters a block may still take. */
  room(): number {
    const separator = this.#parts.length === 0 ? 0 : 1;
    return Math.max(0, this.#limit - NOTICE_ROOM - this.#used - separator);
  }

  /** Adds `text` if it fits whole; otherwise marks the output cut. */
  add(text: string): boolean {
    if (this.#cut) return false;
    if (text.length > this.room()) {
      this.#cut = true;
      this.#overflowed = true;
      return false;
    }
    this.#used += text.length + (this.#parts.length === 0 ? 0 : 1);
    this.#parts.push(text);
    return true;
  }

  /**
   * Marks the output cut: by the size limit (a block shown only in part), or, when `bySize` is
   * false, by a count limit the tool applies itself.
   */
  markCut(bySize = true): void {
    this.#cut = true;
    if (bySize) this.#overflowed = true;
  }

  get cut(): boolean {
    return this.#cut;
  }

  /** The text; when cut, followed by `notice` (which should say how to narrow the request). */
  finish(notice: string): string {
    const body = this.#parts.join('\n');
    if (!this.#cut) return body;
    const limit = this.#overflowed ? ` at ${this.#limit} characters` : '';
    const line = `[Output cut${limit}. ${notice}]`;
    const clipped = line.length > NOTICE_ROOM - 2 ? `${line.slice(0, NOTICE_ROOM - 4)}…]` : line;
    return `${body}\n\n${clipped}`;
  }
}
