import {
  APOSTROPHE,
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
} from '../../scan/char-codes.ts';
import { isWhiteSpace } from '../../scan/characters.ts';
import type { JsonTokenHandler } from '../../scan/json-tokenizer.ts';
import { LiteralFinder } from '../../scan/literal-finder.ts';
import { isNamePart } from '../common/python-call-values.ts';

/**
 * FunctionGemma's argument grammar, as its chat template writes values (`format_argument`) and
 * llama.cpp's and vLLM's readers take them, and nothing more:
 *
 *   value  = object | array | string | number | `true` | `false` | `null` (`True`/`False`/`None`)
 *   object = `{` [key `:` value {`,` key `:` value}] `}`     key = bare name | string
 *   array  = `[` [value {`,` value}] `]`                      string = `<escape>`…`<escape>`
 *
 * with white space between parts. A string's content is literal up to the next `<escape>` (any
 * markup in it is data). Anything else fails the value: another model's delimiter (`<|"|>`),
 * quotes, a tuple, a token (`<|…|>`, `<…>`), a word where a string needs its `<escape>` tokens.
 * Nothing is guessed.
 *
 * `bareText` is for output whose special tokens a server stripped (`<escape>` included): there a
 * string is the bare text up to the next `,`, `}` or `]` (a number or literal if it reads as
 * one), and it may not hold what would make that guess a wrong one: `<` (a token the server left,
 * such as Gemma 4's `<|"|>`), quotes, `{` or `[`.
 */
export interface GemmaValueOptions {
  readonly bareText: boolean;
  readonly maxDepth: number;
}

export type GemmaValueStatus = 'pending' | 'complete' | 'failed';

const ESCAPE = '<escape>';

// Where the reader is.
/** Where a value begins (`]` may come instead only right after `[`: see `valueMayClose`). */
const VALUE = 0;
/** Where a key begins (`}` may come instead only right after `{`: see `keyMayClose`). */
const KEY = 1;
const COLON_NEXT = 2;
/** After an item of an object or array: `,` or its closing bracket. */
const AFTER_ITEM = 3;
/** Inside the `<escape>` that opens a string: how much of it has been read is `tokenMatched`. */
const TOKEN_OPEN = 4;
const STRING = 5;
/** A number or literal word (or, with `bareText`, bare text), up to what ends it. */
const BARE = 6;
/** A key written as a name. */
const BARE_KEY = 7;
const DONE = 8;
const FAILED = 9;

const LITERAL_WORDS: ReadonlyMap<string, boolean | null> = new Map<string, boolean | null>([
  ['true', true],
  ['false', false],
  ['null', null],
  // The chat template renders Python's values as Jinja prints them.
  ['True', true],
  ['False', false],
  ['None', null],
]);

/** A decimal number as JSON or Python writes it. */
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** Letters, marks and digits beyond ASCII (a surrogate pair's halves are let through). */
const NON_ASCII_NAME_PART = /[\p{L}\p{M}\p{N}\uD800-\uDFFF]/u;

/**
 * A bare key is a name, as the template writes keys: ASCII letters, digits, `_`, `-`, `.`, and
 * letters or digits of other scripts, but no punctuation (`«city»` is not a key).
 */
function isKeyPart(code: number): boolean {
  if (code < FIRST_NON_ASCII) return isNamePart(code) || code === MINUS || code === DOT;
  return NON_ASCII_NAME_PART.test(String.fromCharCode(code));
}

/** Characters that end a bare value (white space too, unless the value is bare text). */
function endsBareValue(code: number): boolean {
  return code === COMMA || code === RIGHT_BRACE || code === RIGHT_BRACKET;
}

/** Characters bare text may not hold: the start of a token, a double quote, a nested value. */
function isForbiddenInBareText(code: number): boolean {
  return (
    code === LESS_THAN || code === QUOTATION_MARK || code === LEFT_BRACE || code === LEFT_BRACKET
  );
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

/**
 * What a bare token stands for: a number or literal, or why it is neither (a number JSON cannot
 * hold is not one).
 */
function tokenValue(token: string): number | boolean | null | { readonly notAValue: string } {
  const literal = LITERAL_WORDS.get(token);
  if (literal !== undefined) return literal;
  if (DECIMAL.test(token)) {
    const value = Number(token);
    if (Number.isFinite(value)) return value;
    return { notAValue: `${JSON.stringify(token)} is too large a number for JSON` };
  }
  return {
    notAValue: `${JSON.stringify(token)} is not a value: strings are written between <escape> tokens`,
  };
}

/**
 * Reads one FunctionGemma value as it streams, reporting it as JSON tokens. A plain state
 * machine: each character is looked at a bounded number of times, string content is searched
 * with a KMP finder for `<escape>`, and only a token cut by the end of a write carries over.
 */
export class GemmaValueReader {
  private readonly handler: JsonTokenHandler;
  private readonly options: GemmaValueOptions;
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
  private readonly finder = new LiteralFinder(ESCAPE);
  /** A high surrogate held back so a string piece never ends between the halves of a pair. */
  private heldHigh = '';
  private failureMessage: string | undefined;
  private tooDeepFailure = false;
  /** Where in the failed write the reader stopped (the character it could not read). */
  stoppedAt = -1;

  constructor(handler: JsonTokenHandler, options: GemmaValueOptions) {
    this.handler = handler;
    this.options = options;
  }

  get status(): GemmaValueStatus {
    return this.state === DONE ? 'complete' : this.state === FAILED ? 'failed' : 'pending';
  }

  get failure(): string | undefined {
    return this.failureMessage;
  }

  get tooDeep(): boolean {
    return this.tooDeepFailure;
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

  private open(index: number, code: number): number {
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

  private beginValue(text: string, index: number, code: number): number {
    this.isKey = false;
    if (code === RIGHT_BRACKET && this.valueMayClose) return this.closeContainer(text, index, code);
    if (code === LEFT_BRACE || code === LEFT_BRACKET) return this.open(index, code);
    if (code === LESS_THAN) return this.beginTokenOpen(index);
    if (
      this.options.bareText
        ? !isForbiddenInBareText(code) && !endsBareValue(code)
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
        : 'a value: a number, true, false, null, {…}, […] or a string between <escape> tokens',
    );
  }

  private beginKey(text: string, index: number, code: number): number {
    this.isKey = true;
    if (code === LESS_THAN) return this.beginTokenOpen(index);
    if (isKeyPart(code)) {
      this.keyText = '';
      this.state = BARE_KEY;
      return index;
    }
    return this.unexpected(text, index, 'a key: a name or a string between <escape> tokens');
  }

  // ── strings ─────────────────────────────────────────────────────────────────────────────────

  private beginTokenOpen(index: number): number {
    this.tokenMatched = 1;
    this.state = TOKEN_OPEN;
    return index + 1;
  }

  /** Inside the `<escape>` that opens a string: any other token is not this grammar's. */
  private readTokenOpen(text: string, index: number): number {
    if (text.charCodeAt(index) !== ESCAPE.charCodeAt(this.tokenMatched)) {
      return this.fail(
        index,
        `${JSON.stringify(ESCAPE.slice(0, this.tokenMatched) + text.charAt(index))}… is not FunctionGemma's: strings are written between <escape> tokens`,
      );
    }
    if (++this.tokenMatched < ESCAPE.length) return index + 1;
    this.finder.reset();
    if (this.isKey) this.keyText = '';
    else this.handler.startString();
    this.state = STRING;
    return index + 1;
  }

  private readString(text: string, index: number, end: number): number {
    const finder = this.finder;
    const held = finder.partial;
    const found = finder.find(text, index, end);
    if (found === -1) {
      // The characters that may begin the closing `<escape>` stay held (they are its first ones).
      const available = held + (end - index);
      const piece = ESCAPE.slice(0, held) + text.slice(index, end);
      this.content(piece.slice(0, available - finder.partial));
      return end;
    }
    const matchStart = found - ESCAPE.length;
    const fromHeld = held - Math.max(0, index - matchStart);
    this.content(ESCAPE.slice(0, fromHeld) + text.slice(index, Math.max(index, matchStart)));
    if (this.isKey) this.endKey(this.keyText);
    else this.endString();
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

  // ── numbers, literals, bare keys and bare text ──────────────────────────────────────────────

  private readBare(text: string, index: number, end: number): number {
    let stop = index;
    if (this.state === BARE_KEY) {
      while (stop < end && isKeyPart(text.charCodeAt(stop))) stop++;
      this.keyText += text.slice(index, stop);
      if (stop === end) return end;
      this.endKey(this.keyText);
      return stop;
    }
    const bareText = this.options.bareText;
    while (stop < end) {
      const code = text.charCodeAt(stop);
      if (endsBareValue(code) || (!bareText && isWhiteSpace(code))) break;
      if (bareText ? isForbiddenInBareText(code) : !isTokenPart(code)) {
        this.token += text.slice(index, stop);
        return this.fail(
          stop,
          `${JSON.stringify(this.token + text.charAt(stop))}… is not a value: ${
            bareText
              ? 'text without <escape> tokens may not hold "<", quotes, "{" or "["'
              : 'strings are written between <escape> tokens'
          }`,
        );
      }
      stop++;
    }
    this.token += text.slice(index, stop);
    if (stop === end) return end;
    return this.endBare(stop);
  }

  private endBare(index: number): number {
    const token = this.options.bareText ? this.token.trim() : this.token;
    this.token = '';
    const value = tokenValue(token);
    if (value === null || typeof value !== 'object') {
      this.handler.primitive(value);
      this.valueEnded();
      return index;
    }
    if (!this.options.bareText) return this.fail(index, value.notAValue);
    // Text whose `<escape>` tokens a server stripped (its white space around is the layout's).
    if (QUOTE_LIKE.has(token.charCodeAt(0)) || QUOTE_LIKE.has(token.charCodeAt(token.length - 1))) {
      return this.fail(
        index,
        `${JSON.stringify(token)} is not a value: a quotation mark around it is not FunctionGemma's string delimiter`,
      );
    }
    this.handler.startString();
    this.content(token);
    this.endString();
    return index;
  }
}

/** The characters a number or literal is made of: anything else (`<`, a quote) is not one. */
function isTokenPart(code: number): boolean {
  return isNamePart(code) || code === MINUS || code === PLUS || code === DOT;
}
