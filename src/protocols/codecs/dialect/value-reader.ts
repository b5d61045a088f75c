import {
  APOSTROPHE,
  BACKSLASH,
  COLON,
  COMMA,
  DOT,
  FIRST_NON_ASCII,
  HIGH_SURROGATE_FIRST,
  HIGH_SURROGATE_LAST,
  LEFT_BRACE,
  LEFT_BRACKET,
  LESS_THAN,
  MINUS,
  PLUS,
  QUOTATION_MARK,
  RIGHT_BRACE,
  RIGHT_BRACKET,
} from '../../../scan/char-codes.ts';
import { isWhiteSpace } from '../../../scan/characters.ts';
import type { JsonTokenHandler } from '../../../scan/json-tokenizer.ts';
import { LiteralFinder } from '../../../scan/literal-finder.ts';
import { isNamePart } from '../python/python-call-values.ts';

/**
 * The dialect's argument grammar: JSON with bare keys and strings between a format's own
 * delimiters, as the Gemma chat templates write values (`format_argument`) and llama.cpp's, vLLM's
 * and SGLang's readers take them, and nothing more:
 *
 *   value  = object | array | string | number | `true` | `false` | `null` (`True`/`False`/`None`)
 *   object = `{` [key `:` value {`,` key `:` value}] `}`     key = bare name | string
 *   array  = `[` [value {`,` value}] `]`                      string = OPEN … CLOSE
 *
 * with white space between parts. FunctionGemma's delimiters are `<escape>` and `<escape>`,
 * Gemma 4's `<|"|>` and `<|"|>`. A string's content is literal up to the closing delimiter (any
 * markup in it is data). With `quotedStrings`, a double-quoted JSON string (JSON's escapes) is a
 * string too. Anything else fails the value: another model's delimiter, quotes, a tuple, a token
 * (`<|…|>`, `<…>`), a word where a string needs its delimiters. Nothing is guessed.
 *
 * `bareText` is for output whose special tokens a server stripped (the delimiters included):
 * there a string is the bare text up to the next `,`, `}` or `]` (a number or literal if it reads
 * as one), and it may not hold what would make that guess a wrong one: `<` (a token the server
 * left), the delimiter's first character, quotes, `{` or `[`.
 */
export interface DialectValueOptions {
  /** The string delimiters: nothing between them is escaped. */
  readonly stringDelimiters: readonly [open: string, close: string];
  /** Also read double-quoted JSON strings, with JSON's escapes. */
  readonly quotedStrings: boolean;
  readonly bareText: boolean;
  readonly maxDepth: number;
  /** How messages name the delimiters (`<escape> tokens`). Default: the literals themselves. */
  readonly delimiterName?: string;
  /** The format's name in messages (`FunctionGemma`). Default `this format`. */
  readonly formatName?: string;
}

export type DialectValueStatus = 'pending' | 'complete' | 'failed';

// Where the reader is.
/** Where a value begins (`]` may come instead only right after `[`: see `valueMayClose`). */
const VALUE = 0;
/** Where a key begins (`}` may come instead only right after `{`: see `keyMayClose`). */
const KEY = 1;
const COLON_NEXT = 2;
/** After an item of an object or array: `,` or its closing bracket. */
const AFTER_ITEM = 3;
/** Inside the delimiter that opens a string: how much of it has been read is `tokenMatched`. */
const TOKEN_OPEN = 4;
const STRING = 5;
/** A number or literal word (or, with `bareText`, bare text), up to what ends it. */
const BARE = 6;
/** A key written as a name. */
const BARE_KEY = 7;
const DONE = 8;
const FAILED = 9;
/** Inside a double-quoted JSON string (`quotedStrings`). */
const QUOTED = 10;
/** Right after a backslash in a quoted string. */
const QUOTED_ESCAPE = 11;
/** Reading the four hex digits of a `\u` escape. */
const QUOTED_UNICODE = 12;

const LITERAL_WORDS: ReadonlyMap<string, boolean | null> = new Map<string, boolean | null>([
  ['true', true],
  ['false', false],
  ['null', null],
  // The chat templates render Python's values as Jinja prints them.
  ['True', true],
  ['False', false],
  ['None', null],
]);

/** A decimal number as JSON or Python writes it. */
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** Letters, marks and digits beyond ASCII (a surrogate pair's halves are let through). */
const NON_ASCII_NAME_PART = /[\p{L}\p{M}\p{N}\uD800-\uDFFF]/u;

/** JSON's one-character escapes. */
const QUOTED_ESCAPES: ReadonlyMap<number, string> = new Map([
  [QUOTATION_MARK, '"'],
  [BACKSLASH, '\\'],
  [0x2f, '/'],
  [0x62, '\b'],
  [0x66, '\f'],
  [0x6e, '\n'],
  [0x72, '\r'],
  [0x74, '\t'],
]);
const LOWER_U = 0x75;

/**
 * A bare key is a name, as the templates write keys: ASCII letters, digits, `_`, `-`, `.`, and
 * letters or digits of other scripts, but no punctuation (`«city»` is not a key).
 */
export function isDialectKeyPart(code: number): boolean {
  if (code < FIRST_NON_ASCII) return isNamePart(code) || code === MINUS || code === DOT;
  return NON_ASCII_NAME_PART.test(String.fromCharCode(code));
}

/** Characters that end a bare value (white space too, unless the value is bare text). */
function endsBareValue(code: number): boolean {
  return code === COMMA || code === RIGHT_BRACE || code === RIGHT_BRACKET;
}

/** Quotation marks of any script, and the backtick: a delimiter around bare text. */
const QUOTE_LIKE = new Set<number>([
  APOSTROPHE,
  QUOTATION_MARK,
  0x60, // `
  0xab, // «
  0xbb, // »
  0x2018, // ‘
  0x2019, // ’
  0x201a, // ‚
  0x201c, // “
  0x201d, // ”
  0x201e, // „
  0x2039, // ‹
  0x203a, // ›
  0x300c, // 「
  0x300d, // 」
]);

function isHexDigit(code: number): boolean {
  return (
    (code >= 0x30 && code <= 0x39) ||
    (code >= 0x41 && code <= 0x46) ||
    (code >= 0x61 && code <= 0x66)
  );
}

/** The characters a number or literal is made of: anything else (`<`, a quote) is not one. */
function isTokenPart(code: number): boolean {
  return isNamePart(code) || code === MINUS || code === PLUS || code === DOT;
}

/**
 * Reads one dialect value as it streams, reporting it as JSON tokens. A plain state machine:
 * each character is looked at a bounded number of times, string content is searched with a KMP
 * finder for the closing delimiter, and only a token cut by the end of a write carries over.
 */
export class DialectValueReader {
  private readonly handler: JsonTokenHandler;
  private readonly options: DialectValueOptions;
  private readonly open: string;
  private readonly openFirst: number;
  private readonly close: string;
  /** `strings are written between <escape> tokens`, for messages. */
  private readonly rule: string;
  private state = VALUE;
  /** Closing bracket codes of the open containers, innermost last. */
  private readonly containers: number[] = [];
  /** Whether `}` may come where a key may: right after `{`; a trailing comma is not the grammar's. */
  private keyMayClose = true;
  /** Whether `]` may come where a value may: right after `[`. */
  private valueMayClose = false;
  private isKey = false;
  private keyText = '';
  private token = '';
  private tokenMatched = 0;
  /** The hex digits of a `\u` escape read so far. */
  private hex = '';
  private readonly finder: LiteralFinder;
  /** A high surrogate held back so a string piece never ends between the halves of a pair. */
  private heldHigh = '';
  private failureMessage: string | undefined;
  private tooDeepFailure = false;
  /** Where in the failed write the reader stopped (the character it could not read). */
  stoppedAt = -1;

  constructor(handler: JsonTokenHandler, options: DialectValueOptions) {
    this.handler = handler;
    this.options = options;
    [this.open, this.close] = options.stringDelimiters;
    this.openFirst = this.open.charCodeAt(0);
    this.finder = new LiteralFinder(this.close);
    const name =
      options.delimiterName ??
      (this.open === this.close ? `${this.open} delimiters` : `${this.open} and ${this.close}`);
    this.rule = `strings are written between ${name}`;
  }

  get status(): DialectValueStatus {
    return this.state === DONE ? 'complete' : this.state === FAILED ? 'failed' : 'pending';
  }

  get failure(): string | undefined {
    return this.failureMessage;
  }

  get tooDeep(): boolean {
    return this.tooDeepFailure;
  }

  /** Whether the reader stands inside a string (its delimiter opened, not closed yet). */
  get inString(): boolean {
    return (
      this.state === STRING ||
      this.state === QUOTED ||
      this.state === QUOTED_ESCAPE ||
      this.state === QUOTED_UNICODE
    );
  }

  /**
   * Reads `text[start, end)`. Returns the index just after the value when it ended in this text,
   * or -1 when more is needed or the value is malformed (`status` says which).
   */
  write(text: string, start: number, end: number): number {
    let index = start;
    while (index < end) {
      switch (this.state) {
        case STRING:
          index = this.readString(text, index, end);
          break;
        case TOKEN_OPEN:
          index = this.readTokenOpen(text, index);
          break;
        case BARE:
        case BARE_KEY:
          index = this.readBare(text, index, end);
          break;
        case QUOTED:
          index = this.readQuoted(text, index, end);
          break;
        case QUOTED_ESCAPE:
          index = this.readQuotedEscape(text, index);
          break;
        case QUOTED_UNICODE:
          index = this.readQuotedUnicode(text, index);
          break;
        default:
          index = this.readBetween(text, index);
      }
      if (this.state === DONE) return index;
      if (this.state === FAILED) {
        this.stoppedAt = index;
        return -1;
      }
    }
    return -1;
  }

  // ── between tokens ──────────────────────────────────────────────────────────────────────────

  private fail(index: number, message: string, tooDeep = false): number {
    this.state = FAILED;
    this.failureMessage = message;
    this.tooDeepFailure = tooDeep;
    return index;
  }

  private unexpected(text: string, index: number, expected: string): number {
    return this.fail(
      index,
      `unexpected ${JSON.stringify(text.charAt(index))}, expected ${expected}`,
    );
  }

  private readBetween(text: string, index: number): number {
    const code = text.charCodeAt(index);
    if (isWhiteSpace(code)) return index + 1;
    switch (this.state) {
      case VALUE:
        return this.beginValue(text, index, code);
      case KEY:
        if (code === RIGHT_BRACE && this.keyMayClose) return this.closeContainer(text, index, code);
        return this.beginKey(text, index, code);
      case COLON_NEXT:
        if (code !== COLON) return this.unexpected(text, index, '":" after a key');
        this.state = VALUE;
        this.valueMayClose = false;
        return index + 1;
      default: {
        // AFTER_ITEM
        if (code === COMMA) {
          if (this.innermost() === RIGHT_BRACE) {
            this.state = KEY;
            this.keyMayClose = false;
          } else {
            this.state = VALUE;
            this.valueMayClose = false;
          }
          return index + 1;
        }
        return this.closeContainer(text, index, code);
      }
    }
  }

  private innermost(): number {
    return this.containers[this.containers.length - 1] ?? -1;
  }

  private closeContainer(text: string, index: number, code: number): number {
    const innermost = this.innermost();
    if (code !== innermost) {
      return this.unexpected(text, index, `"," or "${String.fromCharCode(innermost)}"`);
    }
    this.containers.pop();
    if (code === RIGHT_BRACE) this.handler.endObject();
    else this.handler.endArray();
    this.valueEnded();
    return index + 1;
  }

  private valueEnded(): void {
    this.state = this.containers.length === 0 ? DONE : AFTER_ITEM;
  }

  private openContainer(index: number, code: number): number {
    if (this.containers.length >= this.options.maxDepth) {
      return this.fail(index, `the value nests deeper than ${this.options.maxDepth} levels`, true);
    }
    if (code === LEFT_BRACE) {
      this.containers.push(RIGHT_BRACE);
      this.handler.startObject();
      this.state = KEY;
      this.keyMayClose = true;
    } else {
      this.containers.push(RIGHT_BRACKET);
      this.handler.startArray();
      this.state = VALUE;
      this.valueMayClose = true;
    }
    return index + 1;
  }

  /** Whether bare text (`bareText`) may not hold this character. */
  private isForbiddenInBareText(code: number): boolean {
    return (
      code === LESS_THAN ||
      code === this.openFirst ||
      code === QUOTATION_MARK ||
      code === LEFT_BRACE ||
      code === LEFT_BRACKET
    );
  }

  private beginValue(text: string, index: number, code: number): number {
    this.isKey = false;
    if (code === RIGHT_BRACKET && this.valueMayClose) return this.closeContainer(text, index, code);
    if (code === LEFT_BRACE || code === LEFT_BRACKET) return this.openContainer(index, code);
    if (code === this.openFirst) return this.beginTokenOpen(index);
    if (code === QUOTATION_MARK && this.options.quotedStrings) return this.beginQuoted(index);
    if (
      this.options.bareText
        ? !this.isForbiddenInBareText(code) && !endsBareValue(code)
        : isTokenPart(code)
    ) {
      this.token = '';
      this.state = BARE;
      return index;
    }
    return this.unexpected(
      text,
      index,
      this.containers.length === 0
        ? '"{"'
        : `a value: a number, true, false, null, {…}, […] or a string (${this.rule})`,
    );
  }

  private beginKey(text: string, index: number, code: number): number {
    this.isKey = true;
    if (code === this.openFirst) return this.beginTokenOpen(index);
    if (code === QUOTATION_MARK && this.options.quotedStrings) return this.beginQuoted(index);
    if (isDialectKeyPart(code)) {
      this.keyText = '';
      this.state = BARE_KEY;
      return index;
    }
    return this.unexpected(text, index, `a key: a name or a string (${this.rule})`);
  }

  // ── strings between delimiters ──────────────────────────────────────────────────────────────

  private beginTokenOpen(index: number): number {
    this.tokenMatched = 1;
    if (this.open.length === 1) return this.openString(index);
    this.state = TOKEN_OPEN;
    return index + 1;
  }

  private openString(index: number): number {
    this.finder.reset();
    if (this.isKey) this.keyText = '';
    else this.handler.startString();
    this.state = STRING;
    return index + 1;
  }

  /** Inside the delimiter that opens a string: any other token is not this grammar's. */
  private readTokenOpen(text: string, index: number): number {
    if (text.charCodeAt(index) !== this.open.charCodeAt(this.tokenMatched)) {
      return this.fail(
        index,
        `${JSON.stringify(this.open.slice(0, this.tokenMatched) + text.charAt(index))}… is not ${this.options.formatName ?? 'this format'}'s: ${this.rule}`,
      );
    }
    if (++this.tokenMatched < this.open.length) return index + 1;
    return this.openString(index);
  }

  private readString(text: string, index: number, end: number): number {
    const close = this.close;
    const finder = this.finder;
    const held = finder.partial;
    const found = finder.find(text, index, end);
    if (found === -1) {
      // The characters that may begin the closing delimiter stay held (they are its first ones).
      const available = held + (end - index);
      const piece = close.slice(0, held) + text.slice(index, end);
      this.content(piece.slice(0, available - finder.partial));
      return end;
    }
    const matchStart = found - close.length;
    const fromHeld = held - Math.max(0, index - matchStart);
    this.content(close.slice(0, fromHeld) + text.slice(index, Math.max(index, matchStart)));
    this.endStringOrKey();
    return found;
  }

  private content(piece: string): void {
    if (piece.length === 0) return;
    if (this.isKey) {
      this.keyText += piece;
      return;
    }
    let chunk = this.heldHigh.length > 0 ? this.heldHigh + piece : piece;
    this.heldHigh = '';
    const last = chunk.charCodeAt(chunk.length - 1);
    if (last >= HIGH_SURROGATE_FIRST && last <= HIGH_SURROGATE_LAST) {
      this.heldHigh = chunk.slice(-1);
      chunk = chunk.slice(0, -1);
    }
    if (chunk.length > 0) this.handler.stringChunk(chunk);
  }

  private endStringOrKey(): void {
    if (this.isKey) this.endKey(this.keyText);
    else this.endString();
  }

  private endString(): void {
    if (this.heldHigh.length > 0) {
      this.handler.stringChunk(this.heldHigh);
      this.heldHigh = '';
    }
    this.handler.endString();
    this.valueEnded();
  }

  private endKey(name: string): void {
    this.handler.key(name);
    this.keyText = '';
    this.state = COLON_NEXT;
  }

  // ── double-quoted JSON strings (`quotedStrings`) ────────────────────────────────────────────

  private beginQuoted(index: number): number {
    if (this.isKey) this.keyText = '';
    else this.handler.startString();
    this.state = QUOTED;
    return index + 1;
  }

  private readQuoted(text: string, index: number, end: number): number {
    let stop = index;
    while (stop < end) {
      const code = text.charCodeAt(stop);
      if (code === QUOTATION_MARK || code === BACKSLASH) break;
      stop++;
    }
    this.content(text.slice(index, stop));
    if (stop === end) return end;
    if (text.charCodeAt(stop) === QUOTATION_MARK) {
      this.endStringOrKey();
      return stop + 1;
    }
    this.state = QUOTED_ESCAPE;
    return stop + 1;
  }

  private readQuotedEscape(text: string, index: number): number {
    const code = text.charCodeAt(index);
    if (code === LOWER_U) {
      this.hex = '';
      this.state = QUOTED_UNICODE;
      return index + 1;
    }
    const decoded = QUOTED_ESCAPES.get(code);
    if (decoded === undefined) {
      return this.fail(index, `${JSON.stringify(`\\${text.charAt(index)}`)} is not a JSON escape`);
    }
    this.content(decoded);
    this.state = QUOTED;
    return index + 1;
  }

  private readQuotedUnicode(text: string, index: number): number {
    const code = text.charCodeAt(index);
    if (!isHexDigit(code)) {
      return this.fail(
        index,
        `${JSON.stringify(`\\u${this.hex}${text.charAt(index)}`)} is not a JSON escape`,
      );
    }
    this.hex += text.charAt(index);
    if (this.hex.length === 4) {
      this.content(String.fromCharCode(Number.parseInt(this.hex, 16)));
      this.state = QUOTED;
    }
    return index + 1;
  }

  // ── numbers, literals, bare keys and bare text ──────────────────────────────────────────────

  private readBare(text: string, index: number, end: number): number {
    let stop = index;
    if (this.state === BARE_KEY) {
      while (stop < end && isDialectKeyPart(text.charCodeAt(stop))) stop++;
      this.keyText += text.slice(index, stop);
      if (stop === end) return end;
      this.endKey(this.keyText);
      return stop;
    }
    const bareText = this.options.bareText;
    while (stop < end) {
      const code = text.charCodeAt(stop);
      if (endsBareValue(code) || (!bareText && isWhiteSpace(code))) break;
      if (bareText ? this.isForbiddenInBareText(code) : !isTokenPart(code)) {
        this.token += text.slice(index, stop);
        return this.fail(
          stop,
          `${JSON.stringify(this.token + text.charAt(stop))}… is not a value: ${
            bareText
              ? 'text without its string delimiters may not hold "<", quotes, "{" or "["'
              : this.rule
          }`,
        );
      }
      stop++;
    }
    this.token += text.slice(index, stop);
    if (stop === end) return end;
    return this.endBare(stop);
  }

  /** What a bare token stands for: a number or literal, or why it is neither. */
  private tokenValue(token: string): number | boolean | null | { readonly notAValue: string } {
    const literal = LITERAL_WORDS.get(token);
    if (literal !== undefined) return literal;
    if (DECIMAL.test(token)) {
      const value = Number(token);
      if (Number.isFinite(value)) return value;
      // A number JSON cannot hold is not one.
      return { notAValue: `${JSON.stringify(token)} is too large a number for JSON` };
    }
    return { notAValue: `${JSON.stringify(token)} is not a value: ${this.rule}` };
  }

  private endBare(index: number): number {
    const token = this.options.bareText ? this.token.trim() : this.token;
    this.token = '';
    const value = this.tokenValue(token);
    if (value === null || typeof value !== 'object') {
      this.handler.primitive(value);
      this.valueEnded();
      return index;
    }
    if (!this.options.bareText) return this.fail(index, value.notAValue);
    // Text whose delimiters a server stripped (its white space around is the layout's).
    if (QUOTE_LIKE.has(token.charCodeAt(0)) || QUOTE_LIKE.has(token.charCodeAt(token.length - 1))) {
      return this.fail(
        index,
        `${JSON.stringify(token)} is not a value: a quotation mark around it is not a string delimiter here`,
      );
    }
    this.handler.startString();
    this.content(token);
    this.endString();
    return index;
  }
}
