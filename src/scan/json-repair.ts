/**
 * Rewrites loosely written JSON as strict JSON text, or says why it cannot without making data up.
 *
 * One pass over the text, each character looked at a bounded number of times, with the open
 * objects and arrays kept on an explicit stack (never recursion), so neither the length nor the
 * nesting of what a model writes can stall or overflow anything. The output is strict JSON for
 * `JSON.parse`, which keeps the decoding (escapes, numbers, `__proto__` as an own key) native.
 *
 * Repaired, because the text still holds every piece of data:
 * - trailing commas (`[1, 2,]`, `{"a": 1,}`) and missing commas between members (`{"a": 1 "b": 2}`,
 *   `[1 2]`);
 * - single-quoted strings, `\'` in a string, raw control characters in a string (escaped);
 * - unquoted keys (`{city: "Oslo"}`), up to their colon;
 * - Python and JavaScript literals: `True`, `False`, `None`, and `undefined` as `null` (the model
 *   wrote a word for "no value", and `null` is JSON's; whether null is acceptable is the schema's
 *   call, where dropping the member would look as if the model had left it out);
 * - unquoted values inside an object or array (`{"unit": celsius}` is `"celsius"`; one line, up to
 *   the next `,` `}` `]`): the model wrote the word, quoting it adds nothing. Words that look like
 *   numbers but are not JSON numbers stay text (`01`, `1.2.3`, `0x10`, `NaN`);
 * - comments (`//`, `/* *\/`), white space JSON does not know (no-break space, BOM), a markdown
 *   fence around the text, and stray closing brackets after the value;
 * - closing brackets missing at the end, unless the caller requires the text to be complete.
 *
 * Refused as `missing-data`, because a reading would have to invent what is not there: a value
 * missing after a key (`{"file": }`), a key missing (`{: 1}`), a key with no value (`{"a"}`), an
 * array hole (`[1,,2]`, `[,1]`), and a number or literal cut short (`-`, `1.`, `1e`, `1e+`, `tru`,
 * `Non`): `1.` could have been `1.5`. An escape JSON does not know keeps its backslash as text
 * rather than being guessed at. Refused as `not-json`: anything else (operators between values as
 * in `"x" + "y"`, a missing colon, mismatched brackets, unquoted text as the whole value, text
 * after the value). A string left open is `incomplete` even when brackets may be added: where it
 * was meant to end cannot be told (`{"a": "x}`).
 */

import {
  APOSTROPHE,
  ASTERISK,
  AT_SIGN,
  BACKSLASH,
  CARRIAGE_RETURN,
  COLON,
  COMMA,
  DIGIT_NINE,
  DIGIT_ZERO,
  DOLLAR,
  DOT,
  FIRST_NON_ASCII,
  GRAVE_ACCENT,
  LEFT_BRACE,
  LEFT_BRACKET,
  LINE_FEED,
  LOWER_A,
  LOWER_E,
  LOWER_F,
  LOWER_U,
  LOWER_Z,
  MINUS,
  PLUS,
  QUOTATION_MARK,
  RIGHT_BRACE,
  RIGHT_BRACKET,
  SLASH,
  TAB,
  TILDE,
  UNDERSCORE,
  UPPER_A,
  UPPER_Z,
} from './char-codes.ts';
import { isWhiteSpace } from './characters.ts';

export type JsonRepairFailureReason = 'not-json' | 'missing-data' | 'too-deep' | 'incomplete';

export interface JsonRepairFailure {
  readonly ok: false;
  readonly reason: JsonRepairFailureReason;
  /** What was wrong and where, for the model and the developer. */
  readonly message: string;
  /** UTF-16 offset in the text of the problem. */
  readonly offset: number;
}

export type JsonRepairResult = { readonly ok: true; readonly json: string } | JsonRepairFailure;

export interface JsonRepairOptions {
  /** Deepest nesting of objects and arrays accepted. */
  readonly maxDepth: number;
  /** Every bracket, string and comment must be closed; otherwise the result is `incomplete`. */
  readonly requireComplete: boolean;
}

// Where the reader is, between tokens.
const TOP_VALUE = 0;
const TOP_DONE = 1;
const ARRAY_FIRST = 2;
const ARRAY_AFTER_COMMA = 3;
const ARRAY_AFTER_VALUE = 4;
const OBJECT_FIRST = 5;
const OBJECT_AFTER_COMMA = 6;
const OBJECT_AFTER_KEY = 7;
const OBJECT_AFTER_COLON = 8;
const OBJECT_AFTER_VALUE = 9;

const OBJECT = 0;
const ARRAY = 1;

/** Longest key or word quoted in a message. */
const EXCERPT_LENGTH = 40;

/** The words read as literals, and what they are in JSON. */
const LITERALS: ReadonlyMap<string, string> = new Map([
  ['true', 'true'],
  ['false', 'false'],
  ['null', 'null'],
  ['True', 'true'],
  ['False', 'false'],
  ['None', 'null'],
  ['undefined', 'null'],
]);

/** Escapes JSON knows after a backslash, besides `\u`. */
function isJsonEscape(code: number): boolean {
  return (
    code === QUOTATION_MARK ||
    code === BACKSLASH ||
    code === SLASH ||
    code === 0x62 /* b */ ||
    code === 0x66 /* f */ ||
    code === 0x6e /* n */ ||
    code === 0x72 /* r */ ||
    code === 0x74 /* t */
  );
}

function isDigit(code: number): boolean {
  return code >= DIGIT_ZERO && code <= DIGIT_NINE;
}

function isHexDigit(code: number): boolean {
  // `| 0x20` lowercases an ASCII letter.
  return isDigit(code) || ((code | 0x20) >= LOWER_A && (code | 0x20) <= LOWER_F);
}

function isAsciiLetter(code: number): boolean {
  return (code >= LOWER_A && code <= LOWER_Z) || (code >= UPPER_A && code <= UPPER_Z);
}

function isIdentifierPart(code: number): boolean {
  return isAsciiLetter(code) || isDigit(code) || code === UNDERSCORE || code === DOLLAR;
}

/**
 * Characters that may begin unquoted text. Operators (`+`, `*`, `=`, `(`, `;`, a backtick…) may
 * not, so `"x" + "y"` is refused rather than read as three values.
 */
function isWordStart(code: number): boolean {
  return (
    isIdentifierPart(code) ||
    code === DOT ||
    code === SLASH ||
    code === TILDE ||
    code === AT_SIGN ||
    (code >= FIRST_NON_ASCII && !isWhiteSpace(code))
  );
}

function isKeyWordStart(code: number): boolean {
  return isWordStart(code) || code === MINUS;
}

function isLineBreak(code: number): boolean {
  return code === LINE_FEED || code === CARRIAGE_RETURN;
}

/** Characters that end unquoted text: structure, quotes, the end of the line. */
function endsWord(code: number): boolean {
  return (
    code === COMMA ||
    code === LEFT_BRACE ||
    code === RIGHT_BRACE ||
    code === LEFT_BRACKET ||
    code === RIGHT_BRACKET ||
    code === QUOTATION_MARK ||
    code === APOSTROPHE ||
    isLineBreak(code)
  );
}

/** A word that is the start of a literal but not all of it: `tru`, `Non`, `n`. */
function isLiteralPrefix(word: string): boolean {
  for (const literal of LITERALS.keys()) {
    if (word.length < literal.length && literal.startsWith(word)) return true;
  }
  return false;
}

/** Short, quoted text for a message. */
function excerpt(raw: string): string {
  return JSON.stringify(raw.length > EXCERPT_LENGTH ? `${raw.slice(0, EXCERPT_LENGTH - 1)}…` : raw);
}

const CONTROL_ESCAPES: readonly string[] = (() => {
  const table: string[] = [];
  for (let code = 0; code < 0x20; code++) {
    table[code] = `\\u${code.toString(16).padStart(4, '0')}`;
  }
  table[0x08] = '\\b';
  table[TAB] = '\\t';
  table[LINE_FEED] = '\\n';
  table[0x0c] = '\\f';
  table[CARRIAGE_RETURN] = '\\r';
  return table;
})();

export function repairJson(text: string, options: JsonRepairOptions): JsonRepairResult {
  return new JsonRepairReader(text, options).read();
}

class JsonRepairReader {
  private readonly text: string;
  private readonly maxDepth: number;
  private readonly requireComplete: boolean;
  /** Where reading stops: the text's end, or a closing markdown fence. */
  private end: number;

  /**
   * The strict JSON written so far. Appending to a string makes a rope that is flattened once, by
   * `JSON.parse`; an array of pieces joined at the end costs more for the many small pieces here.
   */
  private json = '';
  private state = TOP_VALUE;
  /** OBJECT or ARRAY for each open container, innermost last, and where each opened. */
  private readonly kinds: number[] = [];
  private readonly openedAt: number[] = [];
  private failure: JsonRepairFailure | undefined = undefined;

  private fenceOpened = false;
  /** Where an unclosed block comment began, or -1. */
  private openCommentAt = -1;
  /** The last key read, as written, and where, for messages about its value. */
  private keyText = '';
  private keyAt = 0;
  /** Where the top-level value ended. */
  private valueEndedAt = 0;

  constructor(text: string, options: JsonRepairOptions) {
    this.text = text;
    this.end = text.length;
    this.maxDepth = options.maxDepth;
    this.requireComplete = options.requireComplete;
  }

  read(): JsonRepairResult {
    let index = this.skipOpeningFence();
    while (this.failure === undefined) {
      index = this.skipSpaceAndComments(index);
      if (index >= this.end) return this.finish();
      index = this.step(index);
    }
    return this.failure;
  }

  // ── failures ────────────────────────────────────────────────────────────────────────────────

  private fail(reason: JsonRepairFailureReason, message: string, offset: number): number {
    this.failure ??= { ok: false, reason, message, offset };
    return this.end;
  }

  private failUnexpected(index: number, expected: string): number {
    const character = JSON.stringify(this.text.charAt(index));
    return this.fail('not-json', `unexpected ${character} at offset ${index}, ${expected}`, index);
  }

  /** Missing data, or an incomplete text when the thing cut short runs to the end of the text. */
  private failMissing(message: string, offset: number, atEnd: boolean): number {
    if (atEnd && this.requireComplete) return this.failAtEnd(message);
    return this.fail('missing-data', message, offset);
  }

  /** The text ends before the JSON does: the offset is the end of the text, `what` says why. */
  private failAtEnd(what: string): number {
    const end = this.end;
    return this.fail(
      'incomplete',
      `the text ends at offset ${end} before the JSON is complete: ${what}`,
      end,
    );
  }

  private describeKey(): string {
    return `${excerpt(this.keyText)} (offset ${this.keyAt})`;
  }

  // ── between tokens ──────────────────────────────────────────────────────────────────────────

  /** Skips white space, then a markdown fence opening the text (three backticks and a language). */
  private skipOpeningFence(): number {
    const text = this.text;
    let index = 0;
    while (index < this.end && isWhiteSpace(text.charCodeAt(index))) index++;
    if (!text.startsWith('```', index)) return index;
    this.fenceOpened = true;
    index += 3;
    while (index < this.end) {
      const code = text.charCodeAt(index);
      if (!isIdentifierPart(code) && code !== MINUS && code !== PLUS && code !== DOT) break;
      index++;
    }
    return index;
  }

  private skipSpaceAndComments(index: number): number {
    const text = this.text;
    const end = this.end;
    while (index < end) {
      const code = text.charCodeAt(index);
      if (isWhiteSpace(code)) {
        index++;
        continue;
      }
      if (code !== SLASH || index + 1 >= end) return index;
      const next = text.charCodeAt(index + 1);
      if (next === SLASH) {
        index += 2;
        while (index < end && !isLineBreak(text.charCodeAt(index))) index++;
      } else if (next === ASTERISK) {
        const close = text.indexOf('*/', index + 2);
        if (close === -1 || close + 2 > end) {
          this.openCommentAt = index;
          return end;
        }
        index = close + 2;
      } else {
        return index;
      }
    }
    return index;
  }

  /** Whether `text[index]` starts the closing fence: three backticks and nothing after but space. */
  private isClosingFence(index: number): boolean {
    const text = this.text;
    if (!this.fenceOpened || !text.startsWith('```', index)) return false;
    for (let after = index + 3; after < this.end; after++) {
      if (!isWhiteSpace(text.charCodeAt(after))) return false;
    }
    return true;
  }

  /** Reads what starts at `text[index]` (not white space). Returns the next index. */
  private step(index: number): number {
    const code = this.text.charCodeAt(index);
    if (code === GRAVE_ACCENT && this.isClosingFence(index)) {
      this.end = index;
      return index;
    }
    switch (this.state) {
      case TOP_VALUE:
        return this.readValue(index, code, 'expected a JSON value');
      case TOP_DONE:
        // A closing bracket too many after the value holds no data: dropped.
        if (code === RIGHT_BRACE || code === RIGHT_BRACKET) return index + 1;
        return this.failUnexpected(
          index,
          `after the JSON value that ended at offset ${this.valueEndedAt}`,
        );
      case ARRAY_FIRST:
      case ARRAY_AFTER_COMMA:
      case ARRAY_AFTER_VALUE:
        return this.stepInArray(index, code);
      case OBJECT_AFTER_KEY:
        if (code === COLON) {
          this.json += ':';
          this.state = OBJECT_AFTER_COLON;
          return index + 1;
        }
        if (code === COMMA || code === RIGHT_BRACE) {
          return this.failMissing(`the key ${this.describeKey()} has no value`, index, false);
        }
        return this.failUnexpected(index, `expected ":" after the key ${this.describeKey()}`);
      case OBJECT_AFTER_COLON:
        if (code === COMMA || code === RIGHT_BRACE) {
          return this.failMissing(
            `the value of the key ${this.describeKey()} is missing at offset ${index}`,
            index,
            false,
          );
        }
        return this.readValue(index, code, `expected the value of the key ${this.describeKey()}`);
      default:
        return this.stepInObject(index, code);
    }
  }

  private stepInArray(index: number, code: number): number {
    const state = this.state;
    if (code === RIGHT_BRACKET) return this.close(index);
    if (code === COMMA) {
      if (state === ARRAY_AFTER_VALUE) {
        this.state = ARRAY_AFTER_COMMA;
        return index + 1;
      }
      const where = state === ARRAY_FIRST ? 'before the first element' : 'between two commas';
      return this.failMissing(
        `an array element is missing at offset ${index} (${where})`,
        index,
        false,
      );
    }
    const expected =
      state === ARRAY_AFTER_VALUE ? 'expected "," or "]"' : 'expected a value or "]"';
    if (state === ARRAY_AFTER_VALUE && !this.isValueStart(code)) {
      return this.failUnexpected(index, expected);
    }
    // Elements after the first get their comma here, so a trailing comma is never written and a
    // missing one is.
    if (state !== ARRAY_FIRST) this.json += ',';
    return this.readValue(index, code, expected);
  }

  private stepInObject(index: number, code: number): number {
    const state = this.state;
    if (code === RIGHT_BRACE) return this.close(index);
    if (code === COMMA) {
      if (state === OBJECT_AFTER_VALUE) {
        this.state = OBJECT_AFTER_COMMA;
        return index + 1;
      }
      const where = state === OBJECT_FIRST ? 'before the first member' : 'between two commas';
      return this.failMissing(
        `an object member is missing at offset ${index} (${where})`,
        index,
        false,
      );
    }
    if (code === COLON && state !== OBJECT_AFTER_VALUE) {
      return this.failMissing(`a key is missing before the ":" at offset ${index}`, index, false);
    }
    const isQuote = code === QUOTATION_MARK || code === APOSTROPHE;
    if (!isQuote && !isKeyWordStart(code)) {
      return this.failUnexpected(
        index,
        state === OBJECT_AFTER_VALUE ? 'expected "," or "}"' : 'expected a key or "}"',
      );
    }
    if (state !== OBJECT_FIRST) this.json += ',';
    return isQuote ? this.readKeyString(index, code) : this.readKeyWord(index);
  }

  private isValueStart(code: number): boolean {
    return (
      code === LEFT_BRACE ||
      code === LEFT_BRACKET ||
      code === QUOTATION_MARK ||
      code === APOSTROPHE ||
      code === MINUS ||
      isWordStart(code)
    );
  }

  // ── containers ──────────────────────────────────────────────────────────────────────────────

  private open(kind: number, index: number): number {
    if (this.kinds.length >= this.maxDepth) {
      return this.fail(
        'too-deep',
        `JSON nested deeper than ${this.maxDepth} levels at offset ${index}`,
        index,
      );
    }
    this.kinds.push(kind);
    this.openedAt.push(index);
    this.json += kind === OBJECT ? '{' : '[';
    this.state = kind === OBJECT ? OBJECT_FIRST : ARRAY_FIRST;
    return index + 1;
  }

  private close(index: number): number {
    const kind = this.kinds.pop();
    this.openedAt.pop();
    this.json += kind === OBJECT ? '}' : ']';
    return this.valueEnded(index + 1);
  }

  /** A value ended just before `next`. Returns `next`. */
  private valueEnded(next: number): number {
    const kinds = this.kinds;
    if (kinds.length === 0) {
      this.state = TOP_DONE;
      this.valueEndedAt = next;
    } else {
      this.state = kinds[kinds.length - 1] === OBJECT ? OBJECT_AFTER_VALUE : ARRAY_AFTER_VALUE;
    }
    return next;
  }

  // ── values ──────────────────────────────────────────────────────────────────────────────────

  /** Reads the value that starts at `text[index]`. */
  private readValue(index: number, code: number, expected: string): number {
    if (code === LEFT_BRACE) return this.open(OBJECT, index);
    if (code === LEFT_BRACKET) return this.open(ARRAY, index);
    if (code === QUOTATION_MARK || code === APOSTROPHE) {
      const next = this.readString(index, code);
      return next === -1 ? this.end : this.valueEnded(next);
    }
    if (code === MINUS || isDigit(code)) return this.readNumber(index);
    if (isWordStart(code)) return this.readLiteral(index);
    return this.failUnexpected(index, expected);
  }

  /**
   * Whether a number or literal that stopped before `text[index]` ended there, rather than
   * running into more text (`12a`, `trueish`), which makes it a word.
   */
  private endsToken(index: number): boolean {
    if (index >= this.end) return true;
    const code = this.text.charCodeAt(index);
    if (isWhiteSpace(code) || endsWord(code)) return true;
    if (code !== SLASH || index + 1 >= this.end) return false;
    const next = this.text.charCodeAt(index + 1);
    return next === SLASH || next === ASTERISK;
  }

  private readNumber(start: number): number {
    const text = this.text;
    const end = this.end;
    let index = start;
    if (text.charCodeAt(index) === MINUS) index++;
    let complete = false;
    if (index < end && text.charCodeAt(index) === DIGIT_ZERO) {
      index++;
      complete = true;
    } else {
      while (index < end && isDigit(text.charCodeAt(index))) index++;
      complete = index > start && isDigit(text.charCodeAt(index - 1));
    }
    if (complete && index < end && text.charCodeAt(index) === DOT) {
      index++;
      const digits = index;
      while (index < end && isDigit(text.charCodeAt(index))) index++;
      complete = index > digits;
    }
    // `e` or `E`.
    if (complete && index < end && (text.charCodeAt(index) | 0x20) === LOWER_E) {
      index++;
      const sign = index < end ? text.charCodeAt(index) : 0;
      if (sign === PLUS || sign === MINUS) index++;
      const digits = index;
      while (index < end && isDigit(text.charCodeAt(index))) index++;
      complete = index > digits;
    }
    if (!this.endsToken(index)) return this.readWord(start);
    if (!complete) {
      return this.failMissing(
        `the number ${excerpt(text.slice(start, index))} at offset ${start} is cut short`,
        start,
        index >= end,
      );
    }
    this.json += text.slice(start, index);
    return this.valueEnded(index);
  }

  /** A literal (`true`, `None`…), or else unquoted text. */
  private readLiteral(start: number): number {
    const text = this.text;
    let index = start;
    while (index < this.end && isIdentifierPart(text.charCodeAt(index))) index++;
    if (index > start && this.endsToken(index)) {
      const word = text.slice(start, index);
      const literal = LITERALS.get(word);
      if (literal !== undefined) {
        this.json += literal;
        return this.valueEnded(index);
      }
      if (isLiteralPrefix(word)) {
        return this.failMissing(
          `the literal ${excerpt(word)} at offset ${start} is cut short`,
          start,
          index >= this.end,
        );
      }
    }
    return this.readWord(start);
  }

  /** Unquoted text inside an object or array: one line, up to the next `,` `}` `]`, trimmed. */
  private readWord(start: number): number {
    const stop = this.wordEnd(start, false);
    const word = this.text.slice(start, stop);
    if (this.kinds.length === 0) {
      return this.fail(
        'not-json',
        `expected a JSON value at offset ${start}, found unquoted text ${excerpt(word)}`,
        start,
      );
    }
    this.json += JSON.stringify(word);
    return this.valueEnded(stop);
  }

  /**
   * Where unquoted text from `start` ends, trailing white space left out: before a character
   * that ends a word, a comment after white space, or (for a key) a colon.
   */
  private wordEnd(start: number, isKey: boolean): number {
    const text = this.text;
    const end = this.end;
    let index = start;
    while (index < end) {
      const code = text.charCodeAt(index);
      if (endsWord(code) || (isKey && code === COLON)) break;
      if (code === SLASH && index > start && isWhiteSpace(text.charCodeAt(index - 1))) {
        const next = index + 1 < end ? text.charCodeAt(index + 1) : 0;
        if (next === SLASH || next === ASTERISK) break;
      }
      index++;
    }
    while (index > start && isWhiteSpace(text.charCodeAt(index - 1))) index--;
    return index;
  }

  // ── keys ────────────────────────────────────────────────────────────────────────────────────

  private readKeyString(start: number, quote: number): number {
    const next = this.readString(start, quote);
    if (next === -1) return this.end;
    this.keyText = this.text.slice(start + 1, next - 1);
    this.keyAt = start;
    this.state = OBJECT_AFTER_KEY;
    return next;
  }

  private readKeyWord(start: number): number {
    const stop = this.wordEnd(start, true);
    this.keyText = this.text.slice(start, stop);
    this.keyAt = start;
    this.json += JSON.stringify(this.keyText);
    this.state = OBJECT_AFTER_KEY;
    return stop;
  }

  // ── strings ─────────────────────────────────────────────────────────────────────────────────

  /**
   * Writes the string that opens at `text[start]` as a strict JSON string. Returns the index after
   * its closing quote, or -1 (and fails) when it is never closed.
   */
  private readString(start: number, quote: number): number {
    const text = this.text;
    const end = this.end;
    const doubleQuoted = quote === QUOTATION_MARK;
    // Unchanged stretches are copied whole; a double-quoted string's own quotes come with them.
    let copyFrom = start;
    if (!doubleQuoted) {
      this.json += '"';
      copyFrom = start + 1;
    }
    let index = start + 1;
    while (index < end) {
      const code = text.charCodeAt(index);
      if (code === quote) {
        this.json += doubleQuoted
          ? text.slice(copyFrom, index + 1)
          : `${text.slice(copyFrom, index)}"`;
        return index + 1;
      }
      if (code === BACKSLASH) {
        if (index + 1 >= end) break;
        const escaped = text.charCodeAt(index + 1);
        if (isJsonEscape(escaped)) {
          index += 2;
        } else if (escaped === LOWER_U && this.isUnicodeEscape(index + 2)) {
          index += 6;
        } else if (escaped === APOSTROPHE) {
          this.json += `${text.slice(copyFrom, index)}'`;
          index += 2;
          copyFrom = index;
        } else {
          // An escape JSON does not know: the backslash is kept as text, not guessed at.
          this.json += `${text.slice(copyFrom, index)}\\\\`;
          index += 1;
          copyFrom = index;
        }
        continue;
      }
      if (code < 0x20 || (code === QUOTATION_MARK && !doubleQuoted)) {
        this.json += text.slice(copyFrom, index) + (code < 0x20 ? CONTROL_ESCAPES[code]! : '\\"');
        index += 1;
        copyFrom = index;
        continue;
      }
      index++;
    }
    this.failAtEnd(`the string opened at offset ${start} is not closed`);
    return -1;
  }

  private isUnicodeEscape(digits: number): boolean {
    if (digits + 4 > this.end) return false;
    for (let index = digits; index < digits + 4; index++) {
      if (!isHexDigit(this.text.charCodeAt(index))) return false;
    }
    return true;
  }

  // ── the end ─────────────────────────────────────────────────────────────────────────────────

  private finish(): JsonRepairResult {
    const end = this.end;
    const depth = this.kinds.length;
    if (this.openCommentAt !== -1 && this.requireComplete) {
      this.failAtEnd(`the comment opened at offset ${this.openCommentAt} is not closed`);
      return this.failure!;
    }
    switch (this.state) {
      case TOP_DONE:
        return { ok: true, json: this.json };
      case TOP_VALUE:
        if (this.requireComplete) {
          this.failAtEnd('no JSON value was written');
          return this.failure!;
        }
        this.fail('not-json', `no JSON value: the text (${end} characters) holds none`, end);
        return this.failure!;
      case OBJECT_AFTER_KEY:
        this.failMissing(`the key ${this.describeKey()} has no value`, end, true);
        return this.failure!;
      case OBJECT_AFTER_COLON:
        this.failMissing(
          `the value of the key ${this.describeKey()} is missing at the end of the text`,
          end,
          true,
        );
        return this.failure!;
    }
    if (this.requireComplete) {
      const innermost = this.kinds[depth - 1] === OBJECT ? '{' : '[';
      const brackets = depth === 1 ? '1 bracket is' : `${depth} brackets are`;
      this.failAtEnd(
        `${brackets} not closed (the innermost is the "${innermost}" at offset ${this.openedAt[depth - 1]})`,
      );
      return this.failure!;
    }
    // The caller's markup closed the block: the brackets still open close here.
    for (let level = depth - 1; level >= 0; level--) {
      this.json += this.kinds[level] === OBJECT ? '}' : ']';
    }
    return { ok: true, json: this.json };
  }
}
