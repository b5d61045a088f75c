import { GRAVE_ACCENT, LINE_FEED, SPACE } from '../../scan/char-codes.ts';

/** Unread pieces kept before the ones before the last line break are dropped. */
const MAX_UNREAD_PIECES = 256;

/**
 * Longest text held to learn whether an opener stands inside a one-line code span: a call shown
 * in inline code is short, and past this the opener is read as usual.
 */
export const MAX_CODE_SPAN_HOLD = 4096;

/**
 * Follows the text written at the top level to tell whether an inline code span (Markdown's
 * `` `…` ``, a run of backticks closed by a run of the same length) is open on the current line,
 * so that a call written inside one (`` `<read_file>…</read_file>` ``) stays text. Only one-line
 * spans count: a line break ends any span. A run of three or more backticks at the start of a
 * line (after at most three spaces) is a code fence, not a span: fenced calls are still calls.
 *
 * Lazy: `read` only keeps the text; when an opener asks, the current line is found (searching
 * back from the end) and read for backticks, as far as it was not read before. Openers are rare
 * in text, so most text is never looked at at all.
 */
export class InlineCodeTracker {
  /** Text not read for backticks yet, as it arrived; the current line is at its end. */
  private readonly pieces: string[] = [];
  /** Where the unread text begins in `pieces[0]`. */
  private firstStart = 0;
  /** Length of the run that opened a span on this line; 0 when none is open. */
  private openRun = 0;
  /** Backticks just read whose run has not ended yet. */
  private run = 0;
  /** Spaces the current line began with while nothing else was read on it; -1 once it was. */
  private indent = 0;
  /** The indent when the current run began (for telling fences from spans). */
  private runIndent = -1;
  /**
   * An opener on this line was found not to be inside a span (the line ended first): the text up
   * to that line's end is read again, and must not hold the opener again.
   */
  private spansOff = false;

  /** Takes text written at the top level (in order). */
  read(text: string): void {
    if (text.length === 0) return;
    this.pieces.push(text);
    // Much text came without an opener: read it now, so that what is kept stays small.
    if (this.pieces.length >= MAX_UNREAD_PIECES) this.readPieces();
  }

  /** Reads the unread text of the current line for backticks. */
  private readPieces(): void {
    this.startAtLastLine();
    for (let index = 0; index < this.pieces.length; index++) {
      this.scanLine(this.pieces[index]!, index === 0 ? this.firstStart : 0);
    }
    this.pieces.length = 0;
    this.firstStart = 0;
  }

  /** Drops the unread text before the last line break, which ends any span. */
  private startAtLastLine(): void {
    for (let index = this.pieces.length - 1; index >= 0; index--) {
      const piece = this.pieces[index]!;
      const newline = piece.lastIndexOf('\n');
      if (newline === -1 || (index === 0 && newline < this.firstStart)) continue;
      this.pieces.splice(0, index);
      this.firstStart = newline + 1;
      this.openRun = 0;
      this.run = 0;
      this.indent = 0;
      this.spansOff = false;
      return;
    }
  }

  /** Whether an opener at the current point stands inside a one-line code span. */
  inSpan(): boolean {
    this.readPieces();
    if (this.run > 0) this.endRun();
    return this.openRun > 0 && !this.spansOff;
  }

  /** The opener being held was not in a span: read the rest of its line without spans. */
  giveUpSpan(): void {
    this.openRun = 0;
    this.spansOff = true;
  }

  /** A held opener was in a span that its closing run ended: the span is over. */
  closeSpan(): void {
    this.pieces.length = 0;
    this.firstStart = 0;
    this.openRun = 0;
    this.run = 0;
    this.indent = -1;
  }

  /**
   * A call or reasoning block was entered (never inside a span): the text after it starts
   * afresh, mid-line.
   */
  afterMarkup(): void {
    this.closeSpan();
    this.spansOff = false;
  }

  get openRunLength(): number {
    return this.openRun;
  }

  /** Reads part of the current line (it holds no line break) for backtick runs. */
  private scanLine(text: string, start: number): void {
    let index = start;
    const length = text.length;
    while (index < length) {
      if (this.run > 0) {
        while (index < length && text.charCodeAt(index) === GRAVE_ACCENT) {
          this.run++;
          index++;
        }
        if (index === length) return;
        this.endRun();
      }
      const tick = text.indexOf('`', index);
      const segmentEnd = tick === -1 ? length : tick;
      if (this.indent >= 0 && segmentEnd > index) {
        let space = index;
        while (space < segmentEnd && text.charCodeAt(space) === SPACE) space++;
        this.indent = space === segmentEnd ? this.indent + (segmentEnd - index) : -1;
      }
      if (tick === -1) return;
      this.runIndent = this.indent;
      this.indent = -1;
      this.run = 1;
      index = tick + 1;
    }
  }

  private endRun(): void {
    const length = this.run;
    this.run = 0;
    const isFence = length >= 3 && this.runIndent >= 0 && this.runIndent <= 3;
    if (isFence) return;
    if (this.openRun === 0) this.openRun = length;
    else if (this.openRun === length) this.openRun = 0;
  }
}

/**
 * Looks, after an opener held inside a span, for what decides it: the closing run of the span's
 * length (the opener was code) or the line's end (it was not). Runs may be cut by chunk ends.
 */
export class SpanCloseFinder {
  private run = 0;
  private readonly length: number;

  constructor(runLength: number) {
    this.length = runLength;
  }

  /**
   * Reads `text[start, end)`. Returns the index just after the closing run, `-(index + 2)` for a
   * line break at `index`, or -1 when undecided.
   */
  find(text: string, start: number, end: number): number {
    for (let index = start; index < end; index++) {
      const code = text.charCodeAt(index);
      if (code === GRAVE_ACCENT) {
        this.run++;
        continue;
      }
      if (this.run === this.length) return index;
      this.run = 0;
      if (code === LINE_FEED) return -(index + 2);
    }
    return -1;
  }

  /** The text ended: a closing run that reached its end closes the span. */
  closedAtEnd(): boolean {
    return this.run === this.length;
  }
}
