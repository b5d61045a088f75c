import { BoundedCache } from '../core/bounded-cache.ts';
import { BACKSLASH, FIRST_NON_ASCII, LOWER_U, SLASH } from './char-codes.ts';

/** Writes one JSON value, piece by piece, exactly as `JSON.stringify` prints it whole. */
export interface CanonicalJsonWriter {
  startObject(): void;
  key(name: string): void;
  endObject(): void;
  startArray(): void;
  endArray(): void;
  startString(): void;
  /** Decoded string content; escaped here as `JSON.stringify` escapes it. */
  stringChunk(text: string): void;
  /**
   * String content already escaped as `JSON.stringify` escapes it, holding no surrogate (a
   * tokenizer's `stringSource` piece): written as it is.
   */
  stringSource(escaped: string): void;
  endString(): void;
  /** A whole value at once: `JSON.stringify(value)` (`null` where that gives nothing). */
  value(value: unknown): void;
}

const HIGH_SURROGATE_FIRST = 0xd800;
const HIGH_SURROGATE_LAST = 0xdbff;
const SURROGATE_FIRST = 0xd800;
const SURROGATE_LAST = 0xdfff;
/** Below this, a character is a control character, which JSON escapes. */
const FIRST_PRINTABLE = 0x20;
const QUOTE = 0x22;

/**
 * `"name":` per key name (as JSON.stringify writes it before a member's value). Calls to one tool repeat the same few names, and writing one costs a
 * JSON.stringify and a concatenation; the cap keeps odd inputs from growing it without bound.
 */
const MAX_CACHED_KEYS = 1024;
const keyOpenings = new BoundedCache<string, string>(MAX_CACHED_KEYS);
const MAX_CACHED_KEY_LENGTH = 64;

export function keyOpening(name: string): string {
  let opening = keyOpenings.get(name);
  if (opening === undefined) {
    opening = JSON.stringify(name) + ':';
    if (name.length <= MAX_CACHED_KEY_LENGTH) keyOpenings.set(name, opening);
  }
  return opening;
}

/**
 * From this length on, a piece most likely has something to escape (code has a line break every
 * few dozen characters), so testing first would only scan it twice.
 */
const LONG_PIECE = 64;

/** Characters JSON.stringify would escape: quote, backslash, controls, any surrogate. */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * Below this length a piece is looked through by a loop: on the few characters of a small
 * chunk, entering the regular expression costs more than the look (about half, at 4-8
 * characters); from about 16 on the expression is faster.
 */
const TINY_PIECE = 12;

/** Whether a piece shorter than LONG_PIECE holds a character JSON.stringify escapes. */
function shortPieceNeedsEscape(text: string): boolean {
  if (text.length >= TINY_PIECE) return NEEDS_ESCAPE.test(text);
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (
      code < FIRST_PRINTABLE ||
      code === QUOTE ||
      code === BACKSLASH ||
      (code >= SURROGATE_FIRST && code <= SURROGATE_LAST)
    ) {
      return true;
    }
  }
  return false;
}

/** String content escaped as `JSON.stringify` escapes it (lone surrogates as `\udXXX`). */
function escapeStringContent(text: string): string {
  // Most short pieces need no escaping: skip building and slicing a quoted copy (about 8% of the
  // time of streaming a large argument in 8-character chunks, by profile).
  if (text.length < LONG_PIECE && !shortPieceNeedsEscape(text)) return text;
  const json = JSON.stringify(text);
  return json.length === text.length + 2 ? text : json.slice(1, -1);
}

/** How JSON.stringify prints each ASCII character inside a string. */
const ASCII_IN_JSON: readonly string[] = Array.from({ length: FIRST_NON_ASCII }, (_, code) =>
  JSON.stringify(String.fromCharCode(code)).slice(1, -1),
);

/** The escapes JSON.stringify writes as they are (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`), by the escaped character. */
const KEPT_ESCAPES: readonly boolean[] = (() => {
  const table: boolean[] = [];
  for (const character of '"\\bfnrt') table[character.charCodeAt(0)] = true;
  return table;
})();

/** A raw character JSON.stringify would escape (a control character or any surrogate). */
const RAW_ESCAPED = /[\u0000-\u001f\ud800-\udfff]/;

/** The value of the four hex digits at `text[at, at + 4)`, or -1. */
function hexValue(text: string, at: number): number {
  let value = 0;
  for (let index = at; index < at + 4; index++) {
    const code = text.charCodeAt(index);
    const digit =
      code >= 0x30 && code <= 0x39
        ? code - 0x30
        : code >= 0x61 && code <= 0x66
          ? code - 0x57
          : code >= 0x41 && code <= 0x46
            ? code - 0x37
            : -1;
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

/**
 * JSON string content as `JSON.stringify` would write what it decodes to, made from the content
 * as a source wrote it (`source` begins outside an escape and ends after a whole one): the short
 * escapes stay, `\/` and `\uXXXX` become what JSON.stringify writes for their character (`\u003c`
 * is `<`). Undefined when that takes more than rewriting escapes: a raw control character or
 * surrogate, a `\u` escape of a surrogate (pairs are JSON.stringify's to judge), or anything JSON
 * does not define (`\d`, `\u` without four hex digits). Linear: each backslash is looked at once.
 */
export function canonicalStringContent(source: string): string | undefined {
  if (RAW_ESCAPED.test(source)) return undefined;
  let out = '';
  let copied = 0;
  let at = source.indexOf('\\');
  while (at !== -1) {
    const escaped = source.charCodeAt(at + 1);
    let replacement: string;
    let next = at + 2;
    if (KEPT_ESCAPES[escaped] === true) {
      at = source.indexOf('\\', next);
      continue;
    }
    if (escaped === SLASH) replacement = '/';
    else if (escaped === LOWER_U) {
      const code = hexValue(source, at + 2);
      if (code < 0 || (code >= SURROGATE_FIRST && code <= SURROGATE_LAST)) return undefined;
      replacement = code < FIRST_NON_ASCII ? ASCII_IN_JSON[code]! : String.fromCharCode(code);
      next = at + 6;
    } else return undefined;
    out += source.slice(copied, at) + replacement;
    copied = next;
    at = source.indexOf('\\', next);
  }
  return copied === 0 ? source : out + source.slice(copied);
}

/** `JSON.stringify(value)` for a string, without the call for a short one that needs no escape. */
export function jsonStringText(value: string): string {
  return value.length < LONG_PIECE && !shortPieceNeedsEscape(value)
    ? `"${value}"`
    : JSON.stringify(value);
}

/**
 * `JSON.stringify(value)`, `null` where that gives nothing (undefined, a function): the text a
 * whole value is written as. The usual scalars skip the call.
 */
export function jsonValueText(value: unknown): string {
  if (typeof value === 'string') return jsonStringText(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return JSON.stringify(value) ?? 'null';
}

/**
 * The deltas add up to `JSON.stringify` of the value described, so they can stream to a reader
 * and the final text still compares byte for byte. Commas are placed here.
 *
 * Openings (`{`, `[`, an opening quote, a comma, `"key":`) are always followed by more of the
 * value, so they wait and go out with that, which keeps deltas coarse (`"city":"Seoul` rather
 * than four pieces) without ever holding back content. A high surrogate ending a string piece
 * waits for the next piece: written alone it would be escaped, written with its pair it is not.
 */
export function createCanonicalJsonWriter(onDelta: (text: string) => void): CanonicalJsonWriter {
  return new StreamingJsonWriter(onDelta);
}

/** A class rather than closures: a writer is made per tool call, and a class is one object. */
class StreamingJsonWriter implements CanonicalJsonWriter {
  private readonly onDelta: (text: string) => void;
  /** Openings waiting to go out with what follows them. */
  private pendingOpenings = '';
  /** Whether the next member of the current container needs a comma before it. */
  private needsComma = false;
  private heldHighSurrogate = '';

  constructor(onDelta: (text: string) => void) {
    this.onDelta = onDelta;
  }

  startObject(): void {
    this.open('{');
  }

  endObject(): void {
    this.close('}');
  }

  startArray(): void {
    this.open('[');
  }

  endArray(): void {
    this.close(']');
  }

  key(name: string): void {
    // The value that follows needs no comma of its own.
    this.open(keyOpening(name));
  }

  startString(): void {
    this.heldHighSurrogate = '';
    this.open('"');
  }

  stringChunk(text: string): void {
    if (text === '') return;
    let content = this.heldHighSurrogate === '' ? text : this.heldHighSurrogate + text;
    this.heldHighSurrogate = '';
    const last = content.charCodeAt(content.length - 1);
    if (last >= HIGH_SURROGATE_FIRST && last <= HIGH_SURROGATE_LAST) {
      this.heldHighSurrogate = content.slice(-1);
      content = content.slice(0, -1);
      if (content === '') return;
    }
    this.emit(escapeStringContent(content));
  }

  stringSource(escaped: string): void {
    if (escaped === '') return;
    // A high surrogate held from the piece before is lone: this piece holds no surrogate.
    const held = this.heldHighSurrogate;
    this.heldHighSurrogate = '';
    this.emit(held === '' ? escaped : escapeStringContent(held) + escaped);
  }

  endString(): void {
    const held = this.heldHighSurrogate;
    const lone = held === '' ? '' : escapeStringContent(held);
    this.heldHighSurrogate = '';
    this.close(lone + '"');
  }

  value(value: unknown): void {
    this.open(jsonValueText(value));
    this.emit('');
    this.needsComma = true;
  }

  private emit(text: string): void {
    const delta = this.pendingOpenings === '' ? text : this.pendingOpenings + text;
    this.pendingOpenings = '';
    if (delta !== '') this.onDelta(delta);
  }

  private open(opening: string): void {
    this.pendingOpenings += this.needsComma ? ',' + opening : opening;
    this.needsComma = false;
  }

  private close(closing: string): void {
    this.emit(closing);
    this.needsComma = true;
  }
}
