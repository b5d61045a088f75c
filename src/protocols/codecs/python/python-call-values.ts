import {
  APOSTROPHE,
  BACKSLASH,
  CARRIAGE_RETURN,
  COLON,
  COMMA,
  DIGIT_NINE,
  DIGIT_SEVEN,
  DIGIT_ZERO,
  DOT,
  FIRST_NON_ASCII,
  HIGH_SURROGATE_FIRST,
  HIGH_SURROGATE_LAST,
  LEFT_BRACE,
  LEFT_BRACKET,
  LEFT_PARENTHESIS,
  LINE_FEED,
  LOWER_A,
  LOWER_E,
  LOWER_U,
  LOWER_X,
  LOWER_Z,
  MINUS,
  PLUS,
  QUOTATION_MARK,
  RIGHT_BRACE,
  RIGHT_BRACKET,
  RIGHT_PARENTHESIS,
  UNDERSCORE,
  UPPER_A,
  UPPER_E,
  UPPER_U,
  UPPER_Z,
} from '../../../scan/char-codes.ts';
import { isWhiteSpace } from '../../../scan/characters.ts';
import { hexDigitValue, type JsonTokenHandler } from '../../../scan/json-tokenizer.ts';

/**
 * Reads one Python literal value (a keyword argument's value in `f(a=1, b="x")`) as it streams,
 * reporting it as JSON tokens: strings in single, double or triple quotes with Python's escapes
 * (and adjacent strings joined, as Python joins them), numbers, `True`/`False`/`None` (and their
 * JSON spellings), lists, tuples (as arrays) and dicts. A plain state machine: each character is
 * looked at a bounded number of times, string content is skipped with `indexOf`, and a token cut
 * by the end of a write carries over only its own few characters.
 *
 * Bare values. Some chat templates print a string argument as it is, without quotes
 * (`"%s"|format(v)`: `f(city=Oslo, q=tide tables)`). Where the caller allows it for the value
 * (`bareText`: the property admits strings), a top-level value that is not a Python literal is
 * read as a string: it starts at its first character that is not white space and runs to the
 * first `,` or `)` outside the brackets (`(`, `[`, `{`) opened within it; quotes inside it are
 * plain characters (an apostrophe in prose would never close). White space before that
 * delimiter is not part of it. A `]` or `}` it did not open is an error (`x=1]`: the brackets
 * around the value broke). A value that starts with a quote or a bracket is a Python literal
 * as always (text after its end is an error, not more of the value), and so is a whole word or
 * number that is one (`True`, `None`, `3`), so `x=None` is null and `x=None of them` is a string.
 * A bare value the input ends inside (no delimiter) is never complete. In the same places a
 * string in double quotes ends only at a `"` that `,`, `)` or another string follows: a `"`
 * followed by other text is part of it (`continuesQuotedText`).
 */
export type PythonValueStatus = 'pending' | 'complete' | 'failed';

// Where the reader is.
const VALUE = 0;
const KEY = 1;
const COLON_NEXT = 2;
const AFTER_ITEM = 3;
const QUOTE_OPEN = 4;
const STRING = 5;
const ESCAPE = 6;
const ESCAPE_DIGITS = 7;
const TRIPLE_CLOSE = 8;
const AFTER_STRING = 9;
const WORD = 10;
const NUMBER = 11;
const DONE = 12;
const FAILED = 13;
/** A bare value (see `bareText`): text up to the next top-level `,` or `)`. */
const BARE = 14;
/** White space after a top-level word or number: a delimiter makes it a literal, text a bare value. */
const TOKEN_SPACE = 15;

/** Words that are values, as Python and JSON spell them. */
const LITERAL_WORDS: ReadonlyMap<string, boolean | null> = new Map<string, boolean | null>([
  ['True', true],
  ['False', false],
  ['None', null],
  ['true', true],
  ['false', false],
  ['null', null],
]);

/** Characters that stand for another after a backslash in a Python string. */
const SIMPLE_ESCAPES: ReadonlyMap<number, string> = new Map([
  [0x5c, '\\'],
  [0x27, "'"],
  [0x22, '"'],
  [0x61, '\x07'], // a
  [0x62, '\b'],
  [0x66, '\f'],
  [0x6e, '\n'],
  [0x72, '\r'],
  [0x74, '\t'],
  [0x76, '\v'],
]);

/** A decimal number as Python writes it, underscores removed. */
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const PREFIXED_INTEGER = /^([+-]?)0([xXoObB])([0-9a-fA-F]+)$/;

export function isNameStart(code: number): boolean {
  return (
    (code >= LOWER_A && code <= LOWER_Z) ||
    (code >= UPPER_A && code <= UPPER_Z) ||
    code === UNDERSCORE ||
    code >= FIRST_NON_ASCII
  );
}

export function isNamePart(code: number): boolean {
  return isNameStart(code) || (code >= DIGIT_ZERO && code <= DIGIT_NINE);
}

function isDigit(code: number): boolean {
  return code >= DIGIT_ZERO && code <= DIGIT_NINE;
}

/** Characters a number token may hold (its sign is read first). */
function isNumberPart(code: number): boolean {
  return isNamePart(code) || code === DOT;
}

/** Where `character` is in `text[from, end)`, or `end`. */
function search(text: string, character: string, from: number, end: number): number {
  const found = text.indexOf(character, from);
  return found === -1 || found >= end ? end : found;
}

function closerOf(open: number): number {
  return open === LEFT_BRACKET
    ? RIGHT_BRACKET
    : open === LEFT_PARENTHESIS
      ? RIGHT_PARENTHESIS
      : RIGHT_BRACE;
}

/** Whether a token is a number as Python writes it (whether or not JSON can hold its value). */
function isNumberToken(token: string): boolean {
  const text = token.includes('_') ? token.replaceAll('_', '') : token;
  return PREFIXED_INTEGER.test(text) || DECIMAL.test(text);
}

/** A number token's value, or a reason it is not one JSON can hold. */
function numberValue(token: string): number | string {
  const text = token.includes('_') ? token.replaceAll('_', '') : token;
  const prefixed = PREFIXED_INTEGER.exec(text);
  if (prefixed) {
    const radix = { x: 16, o: 8, b: 2 }[prefixed[2]!.toLowerCase() as 'x' | 'o' | 'b'];
    const value = Number.parseInt(prefixed[3]!, radix);
    if (Number.isNaN(value)) return `${JSON.stringify(token)} is not a number`;
    return prefixed[1] === '-' ? -value : value;
  }
  if (!DECIMAL.test(text)) return `${JSON.stringify(token)} is not a number`;
  const value = Number(text);
  if (!Number.isFinite(value)) return `${JSON.stringify(token)} is too large for JSON`;
  return value;
}

export class PythonValueReader {
  private readonly handler: JsonTokenHandler;
  private readonly baseDepth: number;
  /** Containers the value may open: `baseDepth`, and one more for a dict that is the arguments. */
  private maxDepth: number;

  private state = VALUE;
  /** Closing bracket codes of the open containers, innermost last. */
  private readonly containers: number[] = [];
  private failureMessage: string | undefined;
  private tooDeepFailure = false;
  /** Why the value, well-formed, is not one JSON can hold (bytes, an infinite float). */
  invalid: string | undefined;

  // Strings.
  private quote = QUOTATION_MARK;
  private triple = false;
  private raw = false;
  private isKey = false;
  private keyText = '';
  private quotesSeen = 0;
  /** A high surrogate held back so a piece never ends between the halves of a pair. */
  private heldHigh = '';
  private escapeDigits = 0;
  private escapeValue = 0;
  private escapeWanted = 0;
  private escapeRadix = 16;
  private escapeText = '';
  // Words, numbers and bare values: the text so far.
  private token = '';
  /**
   * `indexOf` results in the current text up to `searchedEnd` (which stands for "none before
   * it"), so no stretch is searched twice however many values one text holds.
   */
  private nextApostrophe = -1;
  private nextDoubleQuote = -1;
  private nextBackslash = -1;
  /** Where the last write stopped reading `searchedText`. */
  private stoppedReading = 0;
  private searchedText: string | undefined;
  private searchedEnd = -1;

  /** Asked (once per value, only when one is bare) whether a bare value may be a string. */
  private readonly bareText: (() => boolean) | undefined;
  private bareAllowed: boolean | undefined;
  /** Brackets opened inside the bare value being read. */
  private bareDepth = 0;
  /** White space read after a bare value's text or a top-level token, not given out yet. */
  private pendingSpace = '';

  constructor(handler: JsonTokenHandler, maxDepth: number, bareText?: () => boolean) {
    this.handler = handler;
    this.baseDepth = maxDepth;
    this.maxDepth = maxDepth;
    this.bareText = bareText;
  }

  /** Whether the value being read may be bare text (asked of the caller once per value). */
  private mayBeBare(): boolean {
    if (this.containers.length > 0 || this.isKey || this.bareText === undefined) return false;
    this.bareAllowed ??= this.bareText();
    return this.bareAllowed;
  }

  get status(): PythonValueStatus {
    return this.state === DONE ? 'complete' : this.state === FAILED ? 'failed' : 'pending';
  }

  get failure(): string | undefined {
    return this.failureMessage;
  }

  /** Where in the failed write the reader stopped (the character it could not read). */
  stoppedAt = -1;

  get tooDeep(): boolean {
    return this.tooDeepFailure;
  }

  /**
   * The value was bare text, ended by a `,` or `)` that may be its own (`x=smile :)`): what
   * follows that delimiter has to confirm it.
   */
  endedBare = false;

  /**
   * Reads `text[start, end)`. Returns the index of the first character after the value (white
   * space after a string is read, in case another string follows) when the value ended in this
   * text, or -1 when more is needed or the value is malformed (`status` says which).
   */
  /**
   * Makes the reader ready for the next value (a reader is reused for each argument).
   * `extraDepth`: containers the value may open beyond the reader's depth (the dict that stands
   * for a call's arguments is the arguments' own level).
   */
  reset(extraDepth = 0): void {
    this.maxDepth = this.baseDepth + extraDepth;
    this.endedBare = false;
    this.state = VALUE;
    this.containers.length = 0;
    this.failureMessage = undefined;
    this.tooDeepFailure = false;
    this.invalid = undefined;
    this.token = '';
    this.keyText = '';
    this.heldHigh = '';
    this.bareAllowed = undefined;
    this.bareDepth = 0;
    this.pendingSpace = '';
  }

  write(text: string, start: number, end: number): number {
    // The positions found are kept for the writes of one text. Strings compare by value, so the
    // next chunk can be "the same text": reading that starts before where the last write stopped
    // is a new text, whose positions must be searched again.
    if (this.searchedText !== text || this.searchedEnd !== end || start < this.stoppedReading) {
      this.searchedText = text;
      this.searchedEnd = end;
      this.nextApostrophe = this.nextDoubleQuote = this.nextBackslash = -1;
    }
    const next = this.readFrom(text, start, end);
    this.stoppedReading = next === -1 ? end : next;
    return next;
  }

  private readFrom(text: string, start: number, end: number): number {
    let index = start;
    while (index < end) {
      switch (this.state) {
        case STRING:
          index = this.readString(text, index, end);
          break;
        case NUMBER:
        case WORD:
          index = this.readToken(text, index, end);
          break;
        case ESCAPE:
          index = this.readEscape(text, index);
          break;
        case ESCAPE_DIGITS:
          index = this.readEscapeDigits(text, index);
          break;
        case QUOTE_OPEN:
          index = this.readQuoteOpen(text, index);
          break;
        case TRIPLE_CLOSE:
          index = this.readTripleClose(text, index);
          break;
        case AFTER_STRING:
          index = this.readAfterString(text, index);
          break;
        case BARE:
          index = this.readBare(text, index, end);
          break;
        case TOKEN_SPACE:
          index = this.readTokenSpace(text, index);
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

  /**
   * The input ended: a top-level number, word or string that only waited for what follows it is
   * complete. Returns whether the value is.
   */
  finish(): boolean {
    if (this.state === DONE) return true;
    if (this.containers.length === 0) {
      if (this.state === AFTER_STRING) {
        this.endString();
        return this.status === 'complete';
      }
      if (this.state === NUMBER || this.state === WORD || this.state === TOKEN_SPACE) {
        // The end of the input delimits a literal, never bare text.
        this.state = this.state === TOKEN_SPACE ? this.tokenState : this.state;
        this.bareAllowed = false;
        this.endToken('');
        return this.status === 'complete';
      }
    }
    return false;
  }

  // ── between tokens ──────────────────────────────────────────────────────────────────────────

  private fail(message: string, tooDeep = false): void {
    this.state = FAILED;
    this.failureMessage = message;
    this.tooDeepFailure = tooDeep;
  }

  private failAt(text: string, index: number, expected: string): number {
    this.fail(`unexpected ${JSON.stringify(text.charAt(index))}, expected ${expected}`);
    return index;
  }

  private readBetween(text: string, index: number): number {
    const code = text.charCodeAt(index);
    if (isWhiteSpace(code)) return index + 1;
    switch (this.state) {
      case VALUE:
        return this.beginValue(text, index, code, false);
      case KEY:
        if (code === RIGHT_BRACE) return this.closeContainer(text, index, code);
        return this.beginValue(text, index, code, true);
      case COLON_NEXT:
        if (code !== COLON) return this.failAt(text, index, '":" after a dict key');
        this.state = VALUE;
        return index + 1;
      default: {
        // AFTER_ITEM
        if (code === COMMA) {
          this.state = this.innermost() === RIGHT_BRACE ? KEY : VALUE;
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
    if (code !== this.innermost()) {
      const closer = String.fromCharCode(this.innermost());
      return this.failAt(text, index, `"," or "${closer}"`);
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

  /** After `,` in a list or tuple, the closing bracket may come instead of a value. */
  private beginValue(text: string, index: number, code: number, isKey: boolean): number {
    this.isKey = isKey;
    if (
      !isKey &&
      this.containers.length > 0 &&
      (code === RIGHT_BRACKET || code === RIGHT_PARENTHESIS) &&
      this.state === VALUE
    ) {
      return this.closeContainer(text, index, code);
    }
    if (code === APOSTROPHE || code === QUOTATION_MARK) {
      this.openString(code, false);
      return index + 1;
    }
    if (!isKey && (code === LEFT_BRACKET || code === LEFT_PARENTHESIS || code === LEFT_BRACE)) {
      if (this.containers.length >= this.maxDepth) {
        this.fail(`the value nests deeper than ${this.maxDepth} levels`, true);
        return index;
      }
      this.containers.push(closerOf(code));
      if (code === LEFT_BRACE) {
        this.handler.startObject();
        this.state = KEY;
      } else {
        this.handler.startArray();
        this.state = VALUE;
      }
      return index + 1;
    }
    if (isDigit(code) || code === MINUS || code === PLUS || code === DOT) {
      this.token = '';
      this.state = NUMBER;
      return index;
    }
    if (isNameStart(code)) {
      this.token = '';
      this.state = WORD;
      return index;
    }
    if (this.mayBeBare()) {
      this.handler.startString();
      if (code === COMMA || code === RIGHT_PARENTHESIS) {
        // Nothing before the delimiter: the template printed an empty string.
        this.endBare();
        return index;
      }
      this.state = BARE;
      return index;
    }
    return this.failAt(text, index, isKey ? 'a dict key' : 'a value');
  }

  // ── strings ─────────────────────────────────────────────────────────────────────────────────

  private openString(quote: number, raw: boolean): void {
    this.quote = quote;
    this.raw = raw;
    this.triple = false;
    this.quotesSeen = 1;
    this.state = QUOTE_OPEN;
    if (this.isKey) this.keyText = '';
    else this.handler.startString();
  }

  /** After an opening quote: `''` is empty, `'''` opens a triple-quoted string. */
  private readQuoteOpen(text: string, index: number): number {
    const code = text.charCodeAt(index);
    if (code === this.quote) {
      this.quotesSeen++;
      if (this.quotesSeen === 3) {
        this.triple = true;
        this.state = STRING;
      }
      return index + 1;
    }
    if (this.quotesSeen === 2) {
      this.state = AFTER_STRING;
      return index;
    }
    this.state = STRING;
    return index;
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

  private readString(text: string, start: number, end: number): number {
    // Content and simple escapes are joined into one piece per write: a piece per escape would
    // cost every consumer an event for each few characters of code.
    let piece = '';
    let index = start;
    while (true) {
      let stop: number;
      if (this.quote === APOSTROPHE) {
        if (this.nextApostrophe < index) this.nextApostrophe = search(text, "'", index, end);
        stop = this.nextApostrophe;
      } else {
        if (this.nextDoubleQuote < index) this.nextDoubleQuote = search(text, '"', index, end);
        stop = this.nextDoubleQuote;
      }
      if (this.nextBackslash < index) this.nextBackslash = search(text, '\\', index, end);
      if (this.nextBackslash < stop) stop = this.nextBackslash;
      piece += text.slice(index, stop);
      if (stop >= end) {
        this.content(piece);
        return end;
      }
      if (text.charCodeAt(stop) === BACKSLASH) {
        const simple =
          this.raw || stop + 1 >= end ? undefined : SIMPLE_ESCAPES.get(text.charCodeAt(stop + 1));
        if (simple !== undefined) {
          piece += simple;
          index = stop + 2;
          continue;
        }
        this.content(piece);
        this.state = ESCAPE;
        return stop + 1;
      }
      this.content(piece);
      if (this.triple) {
        this.quotesSeen = 1;
        this.state = TRIPLE_CLOSE;
        return stop + 1;
      }
      this.state = AFTER_STRING;
      return stop + 1;
    }
  }

  /** Inside a triple-quoted string, after one or two quotes: three close it. */
  private readTripleClose(text: string, index: number): number {
    if (text.charCodeAt(index) === this.quote) {
      this.quotesSeen++;
      if (this.quotesSeen === 3) this.state = AFTER_STRING;
      return index + 1;
    }
    this.content(String.fromCharCode(this.quote).repeat(this.quotesSeen));
    this.state = STRING;
    return index;
  }

  private readEscape(text: string, index: number): number {
    const code = text.charCodeAt(index);
    this.state = STRING;
    if (this.raw) {
      // A raw string keeps its backslashes; `\'` still does not end it.
      this.content(`\\${text.charAt(index)}`);
      return index + 1;
    }
    const simple = SIMPLE_ESCAPES.get(code);
    if (simple !== undefined) {
      this.content(simple);
      return index + 1;
    }
    if (code === LINE_FEED || code === CARRIAGE_RETURN) return index + 1; // a line continued
    if (code >= DIGIT_ZERO && code <= DIGIT_SEVEN) {
      this.beginDigits(8, 3, '\\');
      this.escapeDigits = 0;
      return index;
    }
    const wanted = code === LOWER_X ? 2 : code === LOWER_U ? 4 : code === UPPER_U ? 8 : 0;
    if (wanted > 0) {
      this.beginDigits(16, wanted, `\\${text.charAt(index)}`);
      return index + 1;
    }
    // Python keeps an unknown escape (`\d`, `\N{…}`) as written.
    this.content(`\\${text.charAt(index)}`);
    return index + 1;
  }

  private beginDigits(radix: number, wanted: number, written: string): void {
    this.escapeRadix = radix;
    this.escapeWanted = wanted;
    this.escapeDigits = 0;
    this.escapeValue = 0;
    this.escapeText = written;
    this.state = ESCAPE_DIGITS;
  }

  private readEscapeDigits(text: string, index: number): number {
    const code = text.charCodeAt(index);
    const digit =
      this.escapeRadix === 8
        ? code >= DIGIT_ZERO && code <= DIGIT_SEVEN
          ? code - DIGIT_ZERO
          : -1
        : hexDigitValue(code);
    if (digit !== -1) {
      this.escapeValue = this.escapeValue * this.escapeRadix + digit;
      this.escapeDigits++;
      this.escapeText += text.charAt(index);
      if (this.escapeDigits === this.escapeWanted) {
        this.endEscapeDigits();
        return index + 1;
      }
      return index + 1;
    }
    if (this.escapeRadix === 8 && this.escapeDigits > 0) {
      this.endEscapeDigits();
      return index;
    }
    this.fail(`the escape ${JSON.stringify(this.escapeText)} is cut short`);
    return index;
  }

  private endEscapeDigits(): void {
    this.state = STRING;
    if (this.escapeValue > 0x10ffff) {
      this.fail(`the escape ${JSON.stringify(this.escapeText)} is not a character`);
      return;
    }
    this.content(String.fromCodePoint(this.escapeValue));
  }

  /** After a closing quote: another string may follow, and Python joins the two. */
  private readAfterString(text: string, index: number): number {
    const code = text.charCodeAt(index);
    if (isWhiteSpace(code)) {
      // Kept for a quote that turns out to be the text's (see `continuesQuotedText`).
      if (this.containers.length === 0 && !this.isKey) this.pendingSpace += text.charAt(index);
      return index + 1;
    }
    if (code === APOSTROPHE || code === QUOTATION_MARK) {
      this.pendingSpace = '';
      this.quote = code;
      this.raw = false;
      this.triple = false;
      this.quotesSeen = 1;
      this.state = QUOTE_OPEN;
      return index + 1;
    }
    if (this.continuesQuotedText(code)) {
      this.content(String.fromCharCode(this.quote) + this.pendingSpace);
      this.pendingSpace = '';
      this.state = STRING;
      return index;
    }
    this.pendingSpace = '';
    this.endString();
    return index;
  }

  /**
   * Llama 4's template writes `param="` + the value + `"` without escaping the quotes inside it
   * (`content="<p class="x">"`). Where a bare value could stand (a top-level value of a property
   * that admits strings), a `"` that closes a one-quote string and is followed by neither `,`,
   * `)` nor another string is one of the text's: the string goes on to a quote that is. Only
   * `"`: an apostrophe is the quote of Python's repr and of models writing Python, where
   * `'x 'y'` is a broken literal (vLLM's parser drops that call too), not a template's text.
   */
  private continuesQuotedText(code: number): boolean {
    return (
      this.quote === QUOTATION_MARK &&
      code !== COMMA &&
      code !== RIGHT_PARENTHESIS &&
      !this.triple &&
      this.mayBeBare()
    );
  }

  private endString(): void {
    if (this.isKey) {
      this.handler.key(this.keyText);
      this.keyText = '';
      this.state = COLON_NEXT;
      return;
    }
    if (this.heldHigh.length > 0) {
      this.handler.stringChunk(this.heldHigh);
      this.heldHigh = '';
    }
    this.handler.endString();
    this.valueEnded();
  }

  // ── numbers and words ──────────────────────────────────────────────────────────

  private readToken(text: string, index: number, end: number): number {
    let stop = index;
    if (this.state === NUMBER) {
      while (stop < end) {
        const code = text.charCodeAt(stop);
        if (code === MINUS || code === PLUS) {
          // A sign begins the number or follows its exponent mark.
          const length = this.token.length + (stop - index);
          const previous =
            stop > index ? text.charCodeAt(stop - 1) : this.token.charCodeAt(length - 1);
          if (length !== 0 && previous !== LOWER_E && previous !== UPPER_E) break;
        } else if (!isNumberPart(code)) break;
        stop++;
      }
    } else {
      while (stop < end && isNamePart(text.charCodeAt(stop))) stop++;
    }
    this.token += text.slice(index, stop);
    if (stop === end) return end;
    return this.endToken(text.charAt(stop), stop);
  }

  /** A number or word ended before `next` (empty at the end of the input). */
  private endToken(next: string, index = -1): number {
    const code = next.length > 0 ? next.charCodeAt(0) : -1;
    if (code !== -1 && code !== COMMA && code !== RIGHT_PARENTHESIS && this.mayBeBare()) {
      if (isWhiteSpace(code)) {
        // `x=3 ,` is 3, `x=tide tables` is text: what follows the white space decides.
        this.tokenState = this.state;
        this.state = TOKEN_SPACE;
        this.pendingSpace = '';
        return index;
      }
      if (!this.isStringPrefix(code)) return this.beginBareWith(this.token, index);
    }
    const token = this.token;
    this.token = '';
    if (this.state === NUMBER) {
      const value = numberValue(token);
      if (typeof value === 'string') {
        // `3rd` is text; `1e999` is a number, one JSON cannot hold.
        if (!isNumberToken(token) && this.mayBeBare()) return this.bareToken(token, index);
        this.invalid = value;
        if (this.isKey) {
          this.handler.key(token);
          this.state = COLON_NEXT;
          return index;
        }
        this.handler.primitive(null);
      } else if (this.isKey) {
        this.handler.key(String(value));
        this.state = COLON_NEXT;
        return index;
      } else this.handler.primitive(value);
      this.valueEnded();
      return index;
    }
    // A word: a literal, a string prefix, or a bare key.
    if ((code === APOSTROPHE || code === QUOTATION_MARK) && token.length <= 2) {
      const prefix = token.toLowerCase();
      if (prefix === 'r' || prefix === 'u' || prefix === 'ur' || prefix === 'ru') {
        this.openString(code, prefix.includes('r'));
        return index + 1;
      }
      if (/^(?:[bf]|[bf]r|r[bf])$/.test(prefix)) {
        this.invalid = `a ${prefix.includes('b') ? 'bytes' : 'formatted'} string is not a value JSON can hold`;
        this.openString(code, prefix.includes('r'));
        return index + 1;
      }
    }
    const literal = LITERAL_WORDS.get(token);
    if (literal !== undefined) {
      if (this.isKey) {
        this.handler.key(String(literal));
        this.state = COLON_NEXT;
        return index;
      }
      this.handler.primitive(literal);
      this.valueEnded();
      return index;
    }
    if (this.mayBeBare()) return this.bareToken(token, index);
    this.fail(
      `${JSON.stringify(token)} is not a value: write strings in quotes (variables cannot be used)`,
    );
    return index;
  }

  // ── bare values ─────────────────────────────────────────────────────────────────────────────

  /** The token state (NUMBER or WORD) that white space interrupted. */
  private tokenState = WORD;

  /** A string prefix (`r`, `b`, `rb`…) followed by its quote. */
  private isStringPrefix(code: number): boolean {
    return (
      (code === APOSTROPHE || code === QUOTATION_MARK) &&
      this.state === WORD &&
      this.token.length <= 2 &&
      /^(?:[rubf]|ur|ru|[bf]r|r[bf])$/i.test(this.token)
    );
  }

  /** A whole top-level token, delimited, that is no literal: the bare string it spells. */
  private bareToken(token: string, index: number): number {
    this.handler.startString();
    this.content(token);
    this.endBare();
    return index;
  }

  /** Text that continues a token (`a.txt`, `tide tables`): a bare value that begins with it. */
  private beginBareWith(written: string, index: number): number {
    this.token = '';
    this.handler.startString();
    this.content(written);
    this.state = BARE;
    return index;
  }

  /** After a top-level token and white space: a delimiter ends the token, anything else is text. */
  private readTokenSpace(text: string, index: number): number {
    const code = text.charCodeAt(index);
    if (isWhiteSpace(code)) {
      this.pendingSpace += text.charAt(index);
      return index + 1;
    }
    const space = this.pendingSpace;
    this.pendingSpace = '';
    if (code === COMMA || code === RIGHT_PARENTHESIS) {
      this.state = this.tokenState;
      // The token is read as it would be at the delimiter (a literal, else a bare string).
      return this.endToken(text.charAt(index), index);
    }
    return this.beginBareWith(this.token + space, index);
  }

  /** Bare text up to the next `,` or `)` outside the brackets it opened (see `bareText`). */
  private readBare(text: string, start: number, end: number): number {
    let index = start;
    // Where the white space before `index` began in this text (-1: none).
    let spaceFrom = -1;
    while (index < end) {
      const code = text.charCodeAt(index);
      if (isWhiteSpace(code)) {
        if (spaceFrom === -1) spaceFrom = index;
        index++;
        continue;
      }
      if (this.bareDepth === 0 && (code === COMMA || code === RIGHT_PARENTHESIS)) {
        const contentEnd = spaceFrom === -1 ? index : spaceFrom;
        if (contentEnd > start) this.content(this.pendingSpace + text.slice(start, contentEnd));
        this.endBare();
        return index;
      }
      if (code === LEFT_PARENTHESIS || code === LEFT_BRACKET || code === LEFT_BRACE) {
        this.bareDepth++;
      } else if (code === RIGHT_PARENTHESIS || code === RIGHT_BRACKET || code === RIGHT_BRACE) {
        if (this.bareDepth === 0) {
          // `x=1]`: the brackets around the value broke, it is no text a template printed.
          this.fail(`an unmatched ${JSON.stringify(text.charAt(index))} in a value without quotes`);
          return index;
        }
        this.bareDepth--;
      }
      spaceFrom = -1;
      index++;
    }
    // White space at the end of this text is held: it is the value's only if more text follows.
    const contentEnd = spaceFrom === -1 ? end : spaceFrom;
    if (contentEnd > start) {
      this.content(this.pendingSpace + text.slice(start, contentEnd));
      this.pendingSpace = '';
    }
    this.pendingSpace += text.slice(contentEnd, end);
    return end;
  }

  private endBare(): void {
    this.endedBare = true;
    this.pendingSpace = '';
    this.bareDepth = 0;
    if (this.heldHigh.length > 0) {
      this.handler.stringChunk(this.heldHigh);
      this.heldHigh = '';
    }
    this.handler.endString();
    this.valueEnded();
  }
}
