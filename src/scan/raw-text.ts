/**
 * Text kept as the pieces it arrived in, so keeping a call's raw text costs no copying, and
 * ranges are cut out only when a fault or a fallback needs them. `prefix + chunk` concatenation
 * would be the quadratic trap this avoids.
 */
/** Pieces kept as they arrived before they are joined into one block. */
const PIECES_PER_BLOCK = 256;
/**
 * With `growsSmallText`, up to this length the text is kept as one string grown by concatenation:
 * a small call's input is a handful of pieces, and joining them as an array costs more.
 */
const SMALL_TEXT = 512;

export class RawText {
  /**
   * Whether a short text grows as one concatenated string (see SMALL_TEXT). Not for text that is
   * cut back often (`truncate` of a concatenated string copies it).
   */
  private readonly growsSmallText: boolean;
  private pieces: string[] = [];
  /**
   * Where each piece starts, for cutting ranges out by binary search. Built only as far as a
   * `slice` has needed it: most raw text is never cut, and a large argument streamed in small
   * chunks has a piece per chunk.
   */
  private starts: number[] = [];
  private total = 0;
  /** Pieces before this index are joined blocks; the ones after arrived since the last join. */
  private joined = 0;

  constructor(options: { readonly growsSmallText?: boolean } = {}) {
    this.growsSmallText = options.growsSmallText ?? false;
  }

  get length(): number {
    return this.total;
  }

  append(text: string): void {
    if (text.length === 0) return;
    if (this.growsSmallText && this.pieces.length === 1 && this.total + text.length <= SMALL_TEXT) {
      this.pieces[0] += text;
      this.total += text.length;
      return;
    }
    this.pieces.push(text);
    this.total += text.length;
    if (this.pieces.length - this.joined >= PIECES_PER_BLOCK) this.joinRecent();
  }

  /**
   * Joins the pieces that arrived since the last join into one flat block. A large argument
   * streamed in tiny chunks would otherwise keep one small string (and one array slot) per chunk,
   * several times the text's own size, and the collector's work would grow faster than the text.
   * Each character is copied once more, so the cost stays linear.
   */
  private joinRecent(): void {
    const from = this.joined;
    const block = this.pieces.slice(from).join('');
    this.pieces.length = from;
    this.pieces.push(block);
    this.joined = from + 1;
    if (this.starts.length > from) this.starts.length = from;
  }

  /** Drops everything, to be used again. */
  clear(): void {
    // Fresh arrays: shrinking `length` goes through the runtime and costs more.
    if (this.pieces.length > 0) this.pieces = [];
    if (this.starts.length > 0) this.starts = [];
    this.total = 0;
    this.joined = 0;
  }

  /** Drops everything from `length` on. */
  truncate(length: number): void {
    const pieces = this.pieces;
    while (this.total > length && pieces.length > 0) {
      const last = pieces.length - 1;
      const piece = pieces[last]!;
      const pieceStart = this.total - piece.length;
      if (pieceStart >= length) {
        pieces.pop();
        this.total = pieceStart;
      } else {
        pieces[last] = piece.slice(0, length - pieceStart);
        this.total = length;
      }
    }
    if (this.starts.length > pieces.length) this.starts.length = pieces.length;
    if (this.joined > pieces.length) this.joined = pieces.length;
  }

  /** The text between two offsets (counted from the first character appended). */
  slice(start: number, end: number = this.total): string {
    if (start >= end) return '';
    const pieces = this.pieces;
    const starts = this.indexPieces();
    // Binary search for the piece holding `start`.
    let low = 0;
    let high = pieces.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (starts[middle]! <= start) low = middle;
      else high = middle - 1;
    }
    const parts: string[] = [];
    for (let index = low; index < pieces.length; index++) {
      const pieceStart = starts[index]!;
      if (pieceStart >= end) break;
      const piece = pieces[index]!;
      parts.push(
        piece.slice(Math.max(0, start - pieceStart), Math.min(piece.length, end - pieceStart)),
      );
    }
    return parts.join('');
  }

  toString(): string {
    if (this.pieces.length <= 1) return this.pieces[0] ?? '';
    // Kept joined: asking again, or appending more, does not copy it all again.
    const whole = this.pieces.join('');
    this.pieces = [whole];
    this.starts = [];
    this.joined = 1;
    return whole;
  }

  /** Extends `starts` to every piece. */
  private indexPieces(): number[] {
    const pieces = this.pieces;
    const starts = this.starts;
    let index = starts.length;
    let next = index === 0 ? 0 : starts[index - 1]! + pieces[index - 1]!.length;
    for (; index < pieces.length; index++) {
      starts.push(next);
      next += pieces[index]!.length;
    }
    return starts;
  }
}
