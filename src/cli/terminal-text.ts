/**
 * Text from a model or a tool, made safe to write to a terminal. A terminal acts on control
 * characters: ESC starts sequences that retitle the window (OSC 0), write the clipboard (OSC 52)
 * or erase lines (CSI 2K); C1 characters (U+0080–U+009F) start the same sequences in one byte on
 * some terminals; BEL rings; a lone carriage return moves back over the line to overwrite it; bidi
 * overrides reorder what follows so that text reads differently from what it is.
 *
 * Each such character is shown as its escape instead, in the form JavaScript and C write it:
 * `\x1b` for ESC, `\x07` for BEL, `\x9b` for a C1 CSI, `\x7f` for DEL, `\x0d` for a lone carriage
 * return, `\u202e` for a bidi override. So the sequence is visible and inert. Newline, tab and
 * the `\r\n` line ending are kept.
 */

/**
 * C0 controls but tab (09), newline (0A) and carriage return (0D, see below); DEL and the C1
 * controls (7F–9F); bidi embeddings, overrides and isolates (202A–202E, 2066–2069). A carriage
 * return is neutralised unless a newline follows it.
 */
const CONTROLS = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]|\r(?!\n)/g;

function visible(character: string): string {
  const code = character.charCodeAt(0);
  return code < 0x100
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** The whole text, every control character shown as its escape (a final `\r` included). */
export function neutraliseControls(text: string): string {
  return text.replace(CONTROLS, visible);
}

/**
 * The same rule for text that streams in pieces: a carriage return at the end of a piece is held
 * until the next one shows whether a newline follows it (`\r\n` is kept, a lone `\r` is shown).
 */
export class TerminalTextFilter {
  private heldReturn = false;

  push(piece: string): string {
    let text = this.heldReturn ? `\r${piece}` : piece;
    this.heldReturn = text.endsWith('\r');
    if (this.heldReturn) text = text.slice(0, -1);
    return neutraliseControls(text);
  }

  /** What is still held, for the end of the text (a lone `\r` then, shown as `\x0d`). */
  flush(): string {
    if (!this.heldReturn) return '';
    this.heldReturn = false;
    return neutraliseControls('\r');
  }
}
