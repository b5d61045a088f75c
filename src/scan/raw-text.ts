/**
 * Text kept as the pieces it arrived in, so keeping a call's raw text costs no copying, and
 * ranges are cut out only when a fault or a fallback needs them. `prefix + chunk` concatenation
 * would be the quadratic trap this avoids.
 */
export class RawText {
  private readonly pieces: string[] = [];
  private readonly starts: number[] = [];
  private total = 0;

  get length(): number {
    return this.total;
  }

  append(text: string): void {
    if (text.length === 0) return;
    this.pieces.push(text);
    this.starts.push(this.total);
    this.total += text.length;
  }

  /** Drops everything from `length` on. */
  truncate(length: number): void {
    while (this.total > length && this.pieces.length > 0) {
      const last = this.pieces.length - 1;
      const pieceStart = this.starts[last]!;
      if (pieceStart >= length) {
        this.pieces.pop();
        this.starts.pop();
        this.total = pieceStart;
      } else {
        this.pieces[last] = this.pieces[last]!.slice(0, length - pieceStart);
        this.total = length;
      }
    }
  }

  /** The text between two offsets (counted from the first character appended). */
  slice(start: number, end: number = this.total): string {
    if (start >= end) return '';
    // Binary search for the piece holding `start`.
    let low = 0;
    let high = this.pieces.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.starts[middle]! <= start) low = middle;
      else high = middle - 1;
    }
    const parts: string[] = [];
    for (let index = low; index < this.pieces.length; index++) {
      const pieceStart = this.starts[index]!;
      if (pieceStart >= end) break;
      const piece = this.pieces[index]!;
      parts.push(
        piece.slice(Math.max(0, start - pieceStart), Math.min(piece.length, end - pieceStart)),
      );
    }
    return parts.join('');
  }

  toString(): string {
    return this.pieces.join('');
  }
}
