/**
 * An incremental, lenient JSON tokenizer for one top-level value, fed in chunks as a model writes
 * it. Every character is examined once (string contents are skipped with `indexOf`), a token split
 * across chunks carries over only its own few characters, and nothing ever throws: input that
 * cannot be read stops the tokenizer with a failure the caller can fall back from.
 */

import { DEFAULT_MAX_DEPTH } from '../core/protocol.ts';
import {
  APOSTROPHE,
  ASTERISK,
  BACKSLASH,
  CARRIAGE_RETURN,
  COLON,
  COMMA,
  DIGIT_NINE,
  DIGIT_ZERO,
  DOLLAR,
  DOT,
  GRAVE_ACCENT,
  HIGH_SURROGATE_FIRST,
  HIGH_SURROGATE_LAST,
  LEFT_BRACE,
  LEFT_BRACKET,
  LESS_THAN,
  LINE_FEED,
  LOWER_A,
  LOWER_B,
  LOWER_E,
  LOWER_F,
  LOWER_N,
  LOWER_R,
  LOWER_T,
  LOWER_U,
  LOWER_Z,
  MINUS,
  PLUS,
  QUOTATION_MARK,
  RIGHT_BRACE,
  RIGHT_BRACKET,
  SLASH,
  UNDERSCORE,
  UPPER_A,
  UPPER_E,
  UPPER_F,
  UPPER_N,
  UPPER_T,
  UPPER_Z,
} from './char-codes.ts';
import { isMarkupSpace } from './characters.ts';
import { canonicalStringContent } from './json-writer.ts';
import { workMeter } from './work-meter.ts';

/** What the tokenizer reports, in document order. */
export interface JsonTokenHandler {
  startObject(): void;
  endObject(): void;
  startArray(): void;
  endArray(): void;
  /** An object key, decoded. */
  key(name: string): void;
  startString(): void;
  /**
   * Decoded text of a string value, in pieces as it arrives. A piece never ends inside an escape
   * or between the two halves of a surrogate pair.
   */
  stringChunk(decoded: string): void;
  /**
   * A piece of a value string as `JSON.stringify` writes it, between the quotes: the source's own
   * text, its `\u` and `\/` escapes rewritten where it has any (see
   * JsonTokenizerOptions.sourceStrings). It holds only the escapes JSON.stringify writes and no
   * surrogate.
   * Called only when the tokenizer was asked for source pieces; pieces of one string come in
   * order, mixed with `stringChunk` pieces.
   */
  stringSource?(escaped: string): void;
  endString(): void;
  /** A number, `true`/`false`/`null` (or Python's `True`/`False`/`None`), once its token ended. */
  primitive(value: number | boolean | null): void;
}

/** A handler that takes every token and keeps none: for values read only to be skipped. */
export const DISCARDING_HANDLER: JsonTokenHandler = {
  startObject() {},
  endObject() {},
  startArray() {},
  endArray() {},
  key() {},
  startString() {},
  stringChunk() {},
  endString() {},
  primitive() {},
};

export type JsonTokenizerStatus = 'pending' | 'complete' | 'failed';

export interface JsonTokenizerFailure {
  readonly message: string;
  /** Offset of the offending character, in UTF-16 units over everything written. */
  readonly offset: number;
  /** The JSON nests deeper than `maxDepth` (no repair should try to read it). */
  readonly tooDeep?: boolean;
}

export interface JsonTokenizerOptions {
  /** Deepest nesting of objects and arrays accepted. Default 1000 (`DEFAULT_MAX_DEPTH`). */
  readonly maxDepth?: number;
  /**
   * Accept JSON as written and nothing looser: no single quotes, unquoted keys, Python
   * literals, comments, trailing or missing commas, `\'` or raw control characters in strings. Default
   * `false`.
   *
   * Loose JSON also reads three slips models make, each decided by the next character, never by
   * reading anything again: an escape JSON does not define (`\$`, `\d`, `\.`, `C:\users`) keeps
   * its backslash, as Python's string literals do, so code and patterns reach the tool as the model
   * meant them; a quote inside a string that is not followed by what may follow a string there (a
   * `,`, the container's closing bracket, a key's `:`) is a literal quote (`"He said "hi" to me"`);
   * and a value whose first object opens with `{{` has every brace doubled (a template's escape,
   * `{{"name": …, "arguments": {{…}}}}`), each pair read as one brace: a single brace then fails.
   */
  readonly strict?: boolean;
  /**
   * Whether a value string at this container depth (1: in the root container) may hold an
   * unescaped inner quote (see `strict`). Elsewhere a quote closes its string at once, so the
   * string's end is reported without waiting for the next character (a call's name, read by a
   * caller that streams the call as soon as its name is whole). Default: at every depth.
   */
  readonly innerQuotesAt?: (depth: number) => boolean;
  /**
   * Hand long pieces of double-quoted value strings to `handler.stringSource` as the source writes
   * them (`\u` and `\/` escapes written as JSON.stringify writes them), when nothing else keeps
   * that from being their canonical JSON text, instead of decoding them: a caller that writes
   * the value as canonical JSON then neither decodes nor escapes them again. Keys, short pieces and
   * anything else still come decoded (`stringChunk`). Default `false`; needs `stringSource`.
   */
  readonly sourceStrings?: boolean;
}

export interface JsonTokenizer {
  /**
   * Feeds `text[start, end)`. Returns the index just after the top-level value when it ended in
   * this text, or -1 when everything was consumed and the value is not finished (or the tokenizer
   * failed). Once the value is complete, returns `start` without reading anything.
   */
  write(text: string, start?: number, end?: number): number;
  /**
   * The input is over: completes a top-level number still waiting for its end. Returns whether the
   * value is complete; when it is not, the tokenizer fails with an end-of-input message.
   */
  finish(): boolean;
  readonly status: JsonTokenizerStatus;
  readonly failure: JsonTokenizerFailure | undefined;
  /**
   * Inside a handler call, the offset (over everything written) of the character that caused it:
   * the first character of the value being started (`{`, `[`, a quote, a number's first digit;
   * also for `primitive` and `endString`), or the bracket being closed. Lets a caller cut the raw
   * text of one element out of what it wrote.
   */
  readonly offset: number;
  /**
   * The brackets that would close the objects and arrays still open, innermost first (`}]` for
   * `[{"a": 1`): lets a reader close JSON whose closing brackets the writer forgot.
   */
  closingBrackets(): string;
}

// Where the tokenizer is. Between tokens:
const EXPECT_VALUE = 0;
const EXPECT_VALUE_OR_ARRAY_END = 1;
const EXPECT_KEY_OR_OBJECT_END = 2;
const EXPECT_COLON = 3;
const EXPECT_COMMA_OR_END = 4;
// Inside a token:
const IN_STRING = 5;
const IN_ESCAPE = 6;
const IN_UNICODE_ESCAPE = 7;
const IN_NUMBER = 8;
const IN_LITERAL = 9;
const IN_IDENTIFIER_KEY = 10;
const IN_COMMENT_START = 11;
const IN_LINE_COMMENT = 12;
const IN_BLOCK_COMMENT = 13;
const IN_BLOCK_COMMENT_STAR = 14;
// Final:
const COMPLETE = 15;
const FAILED = 16;
// Loose JSON's repairs, decided by the character that follows:
/** A quote that closes the string only if what follows it can come after a string there. */
const IN_QUOTE_CANDIDATE = 17;
/** The value's first `{`: a second one right after it means every brace is doubled. */
const IN_FIRST_BRACE = 18;
/** Doubled braces: the second `{` of a pair. */
const IN_SECOND_OPENING_BRACE = 19;
/** Doubled braces: the second `}` of a pair. */
const IN_SECOND_CLOSING_BRACE = 20;

// How the value writes its objects' braces (`{{…}}`: escaped for a template, see IN_FIRST_BRACE).
const BRACES_UNKNOWN = 0;
const BRACES_SINGLE = 1;
const BRACES_DOUBLED = 2;

// Where a number is in the JSON number grammar.
const NUMBER_AFTER_MINUS = 0;
const NUMBER_AFTER_LEADING_ZERO = 1;
const NUMBER_INTEGER_DIGITS = 2;
const NUMBER_AFTER_DOT = 3;
const NUMBER_FRACTION_DIGITS = 4;
const NUMBER_AFTER_EXPONENT_MARK = 5;
const NUMBER_AFTER_EXPONENT_SIGN = 6;
const NUMBER_EXPONENT_DIGITS = 7;

const OBJECT = 0;
const ARRAY = 1;

/** Characters that stand for themselves after a backslash. */
const SIMPLE_ESCAPES: readonly (string | undefined)[] = (() => {
  const table: (string | undefined)[] = [];
  table[QUOTATION_MARK] = '"';
  table[APOSTROPHE] = "'";
  table[BACKSLASH] = '\\';
  table[SLASH] = '/';
  table[LOWER_B] = '\b';
  table[LOWER_F] = '\f';
  table[LOWER_N] = '\n';
  table[LOWER_R] = '\r';
  table[LOWER_T] = '\t';
  return table;
})();

function isDigit(code: number): boolean {
  return code >= DIGIT_ZERO && code <= DIGIT_NINE;
}

function isIdentifierStart(code: number): boolean {
  return (
    (code >= LOWER_A && code <= LOWER_Z) ||
    (code >= UPPER_A && code <= UPPER_Z) ||
    code === UNDERSCORE ||
    code === DOLLAR
  );
}

function isIdentifierPart(code: number): boolean {
  return isIdentifierStart(code) || isDigit(code);
}

/** A hex digit's value, or -1 for any other character. */
export function hexDigitValue(code: number): number {
  if (code >= DIGIT_ZERO && code <= DIGIT_NINE) return code - DIGIT_ZERO;
  if (code >= LOWER_A && code <= LOWER_F) return code - LOWER_A + 10;
  if (code >= UPPER_A && code <= UPPER_F) return code - UPPER_A + 10;
  return -1;
}

/** Number states where the token may end. */
function isNumberComplete(numberState: number): boolean {
  return (
    numberState === NUMBER_AFTER_LEADING_ZERO ||
    numberState === NUMBER_INTEGER_DIGITS ||
    numberState === NUMBER_FRACTION_DIGITS ||
    numberState === NUMBER_EXPONENT_DIGITS
  );
}

/**
 * Index of `character` in `text[from, end)`, or `end`. `indexOf` is fastest but searches to the
 * end of `text`; when the caller fed only part of it, a bounded loop keeps the work proportional
 * to what was fed.
 */
function findCharacter(
  text: string,
  character: string,
  code: number,
  from: number,
  end: number,
): number {
  if (end === text.length) {
    const found = text.indexOf(character, from);
    workMeter.characters += (found === -1 ? end : found) - from;
    return found === -1 ? end : found;
  }
  workMeter.characters += end - from;
  for (let index = from; index < end; index++) {
    if (text.charCodeAt(index) === code) return index;
  }
  return end;
}

/**
 * Index of the first backslash in `text[from, limit)`, or -1. Searched within a slice (which
 * shares the text's characters): a search on to the text's end cost a whole text of many calls
 * its rest at every string of every call, since each call's tokenizer searches afresh.
 */
function backslashBefore(text: string, from: number, limit: number): number {
  workMeter.characters += limit - from;
  const found = text.slice(from, limit).indexOf('\\');
  return found === -1 ? -1 : from + found;
}

/** Below this many characters, decoding escape by escape is cheaper than calling JSON.parse. */
const MIN_NATIVE_DECODE = 32;

/**
 * String content shorter than this (what a small chunk holds) is looked through in one pass for
 * its quote and backslashes: two `indexOf` calls cost more on so few characters. At most
 * MIN_NATIVE_DECODE, which such a span never reaches.
 */
const SHORT_SPAN = 16;

/** The longest escape, `\uXXXX`. */
const LONGEST_ESCAPE = 6;

/**
 * Where string content in `text[from, end)` (`from` not inside an escape, no closing quote before
 * `end`) can be cut with no escape left unfinished: before the last run of backslashes when an
 * escape may start in it and run past `end`. The native reader checks the rest: it refuses
 * content that ends inside an escape.
 */
function completeEscapesEnd(text: string, from: number, end: number): number {
  let last = end - 1;
  const lowest = Math.max(from, end - LONGEST_ESCAPE);
  while (last >= lowest && text.charCodeAt(last) !== BACKSLASH) last--;
  if (last < lowest) return end;
  while (last > from && text.charCodeAt(last - 1) === BACKSLASH) last--;
  return last;
}

/**
 * The decoded content of `text[from, to)`, the rest of a double-quoted string, when it is strict
 * JSON (what models nearly always write); undefined otherwise. The native reader is much faster
 * than decoding escape by escape, and for strict JSON it decodes exactly the same way.
 */
function decodeJsonStringContent(text: string, from: number, to: number): string | undefined {
  try {
    return JSON.parse(`"${text.slice(from, to)}"`) as string;
  } catch {
    return undefined;
  }
}

/**
 * What may keep string content from being its own canonical JSON text: a raw control character
 * or surrogate, or a backslash followed by anything but the short escapes JSON.stringify writes
 * (`\u`, `\/`, and loose JSON's `\d`, are written otherwise). A single character or pair, no
 * backtracking. A backslash that is itself escaped (`\\u`) matches too: that only sends the
 * piece to `canonicalStringContent`, which reads its escapes in order.
 */
const MAY_NOT_BE_CANONICAL = /[\u0000-\u001f\ud800-\udfff]|\\[^"\\bfnrt]/;

/**
 * Plain string content (no escape) from this length on is passed as it is written when it is
 * canonical: from here the writer would otherwise escape it with JSON.stringify. Content with
 * escapes is passed from MIN_NATIVE_DECODE on, where it would otherwise be decoded natively.
 */
const MIN_PLAIN_SOURCE_PIECE = 64;

/**
 * The decoded text of string content that is canonical JSON text (a `stringSource` piece): its
 * escapes are all JSON's, so the native reader reads it.
 */
export function decodeCanonicalString(escaped: string): string {
  return escaped.indexOf('\\') === -1 ? escaped : (JSON.parse(`"${escaped}"`) as string);
}

/**
 * The character at `index`, quoted. One UTF-16 unit, so a message never depends on whether the
 * other half of a surrogate pair was in the same write.
 */
function describeCharacter(text: string, index: number): string {
  return JSON.stringify(text.charAt(index));
}

/** A character JSON strings may not hold raw (U+0000–U+001F). */
const CONTROL_CHARACTER = /[\u0000-\u001f]/g;

/**
 * Whether `code`, right after a value in a container, begins the container's next member: a key
 * (quoted or not) in an object; any value in an array.
 */
function startsMemberWithoutComma(container: number | undefined, code: number): boolean {
  if (code === QUOTATION_MARK || code === APOSTROPHE) return true;
  if (container === OBJECT) return isIdentifierStart(code);
  return (
    code === LEFT_BRACE ||
    code === LEFT_BRACKET ||
    code === MINUS ||
    isDigit(code) ||
    isLiteralStart(code)
  );
}

/** The first letters of `true`, `false`, `null` and Python's `True`, `False`, `None`. */
function isLiteralStart(code: number): boolean {
  return (
    code === LOWER_T ||
    code === LOWER_F ||
    code === LOWER_N ||
    code === UPPER_T ||
    code === UPPER_F ||
    code === UPPER_N
  );
}

export function createJsonTokenizer(
  handler: JsonTokenHandler,
  options: JsonTokenizerOptions = {},
): JsonTokenizer {
  return new StreamingJsonTokenizer(
    handler,
    options.maxDepth ?? DEFAULT_MAX_DEPTH,
    options.strict ?? false,
    options.innerQuotesAt,
    options.sourceStrings === true && handler.stringSource !== undefined,
  );
}

/**
 * A class rather than a closure factory: one tokenizer is made per tool call, and a class costs
 * one object where closures cost one per function (about 2.5 KB per tokenizer, by allocation
 * profile).
 */
class StreamingJsonTokenizer implements JsonTokenizer {
  private readonly handler: JsonTokenHandler;
  private readonly maxDepth: number;
  private readonly strict: boolean;
  /** A comma was the last token (in strict mode, a closing bracket may not follow it). */
  private afterComma = false;

  private state = EXPECT_VALUE;
  private failureInfo: JsonTokenizerFailure | undefined = undefined;
  /** OBJECT or ARRAY for each open container, innermost last. */
  private readonly containers: number[] = [];
  /** Characters consumed by earlier writes, for failure offsets. */
  private consumedBefore = 0;
  /** Offset of `text[0]` in the whole input, during a write. */
  private offsetBase = 0;
  /** See JsonTokenizer.offset. */
  private eventOffset = 0;

  // Strings.
  private quoteCode = QUOTATION_MARK;
  private stringIsKey = false;
  /** Decoded text not yet reported: a key until it closes, a value's piece until the write ends. */
  private stringText = '';
  private unicodeDigitCount = 0;
  private unicodeValue = 0;
  // Cached positions of the next quote and backslash in the current text, so long strings with
  // many escapes do not search the same stretch twice. Reset on each write.
  private nextDoubleQuote = -1;
  /** In strict mode, the next raw control character in the current text (its length: none). */
  private nextControl = -1;
  private nextSingleQuote = -1;
  private nextBackslash = -1;
  /** Where the string being read closes in the current write (-1: not in it; -2: unknown). */
  private closingQuoteAt = -2;
  /** The native reader refused string content in this write: read it escape by escape. */
  private nativeDecodeFailed = false;

  // Numbers and unquoted keys: the part written by earlier writes, and where it starts in this one.
  private tokenText = '';
  private tokenStart = 0;
  private numberState = NUMBER_AFTER_MINUS;

  // Literals: which word is being matched and how far.
  private literalWord = '';
  private literalValue: boolean | null = null;
  private literalPosition = 0;

  private stateBeforeComment = EXPECT_VALUE;

  /** IN_QUOTE_CANDIDATE: the quote and the white space read after it. */
  private heldQuote = '';
  /** IN_UNICODE_ESCAPE: the hex digits as written, kept if the escape turns out not to be one. */
  private unicodeDigits = '';
  private braces = BRACES_UNKNOWN;

  private readonly innerQuotesAt: ((depth: number) => boolean) | undefined;
  /** See JsonTokenizerOptions.sourceStrings (the handler has `stringSource`). */
  private readonly sourceStrings: boolean;

  constructor(
    handler: JsonTokenHandler,
    maxDepth: number,
    strict: boolean,
    innerQuotesAt: ((depth: number) => boolean) | undefined,
    sourceStrings: boolean,
  ) {
    this.handler = handler;
    this.maxDepth = maxDepth;
    this.strict = strict;
    this.innerQuotesAt = innerQuotesAt;
    this.sourceStrings = sourceStrings;
  }

  /**
   * Passes `text[from, to)`, content of the value string being read, as it is written, when it
   * is at least `minLength` long and is canonical JSON text, or is once its `\u` and `\/` escapes
   * are written as JSON.stringify writes them (`canonicalStringContent`); returns false
   * (and does nothing) otherwise. What was decoded before it goes first, keeping the order.
   */
  private passedAsSource(text: string, from: number, to: number, minLength: number): boolean {
    if (
      !this.sourceStrings ||
      this.stringIsKey ||
      this.quoteCode !== QUOTATION_MARK ||
      to - from < minLength
    ) {
      return false;
    }
    // A slice shares the text's characters, so the test reads only the piece.
    const source = text.slice(from, to);
    const piece = MAY_NOT_BE_CANONICAL.test(source) ? canonicalStringContent(source) : source;
    if (piece === undefined) return false;
    if (this.stringText !== '') {
      this.handler.stringChunk(this.stringText);
      this.stringText = '';
    }
    this.handler.stringSource!(piece);
    return true;
  }

  /** The next raw control character in `text` from `from` (remembered for the write). */
  private nextControlCharacter(text: string, from: number): number {
    if (this.nextControl < from) {
      CONTROL_CHARACTER.lastIndex = from;
      this.nextControl = CONTROL_CHARACTER.exec(text)?.index ?? text.length;
    }
    return this.nextControl;
  }

  /** In strict mode, `what` (loose syntax) at `index` of the current write fails the tokenizer. */
  private refusesLoose(index: number, what: string): boolean {
    if (!this.strict) return false;
    const offset = this.offsetBase + index;
    this.fail(`${what} at offset ${offset} is not valid JSON`, offset);
    return true;
  }

  get status(): JsonTokenizerStatus {
    const state = this.state;
    return state === COMPLETE ? 'complete' : state === FAILED ? 'failed' : 'pending';
  }

  get failure(): JsonTokenizerFailure | undefined {
    return this.failureInfo;
  }

  get offset(): number {
    return this.eventOffset;
  }

  closingBrackets(): string {
    // A first `{` waits for the next character to open its object; half a doubled `}` is closing.
    let brackets = this.state === IN_FIRST_BRACE ? '}' : '';
    const closeObject = this.braces === BRACES_DOUBLED ? '}}' : '}';
    let index = this.containers.length - 1;
    if (this.state === IN_SECOND_CLOSING_BRACE) {
      brackets += '}';
      index--;
    }
    for (; index >= 0; index--) {
      brackets += this.containers[index] === OBJECT ? closeObject : ']';
    }
    return brackets;
  }

  write(text: string, start = 0, end: number = text.length): number {
    if (this.state === COMPLETE) return start;
    if (this.state === FAILED) return -1;
    if (end > text.length) end = text.length;
    if (start < 0) start = 0;
    if (start >= end) return -1;

    this.offsetBase = this.consumedBefore - start;
    this.nextDoubleQuote = -1;
    this.nextControl = -1;
    this.nextSingleQuote = -1;
    this.nextBackslash = -1;
    this.closingQuoteAt = -2;
    this.nativeDecodeFailed = false;
    if (this.state === IN_NUMBER || this.state === IN_IDENTIFIER_KEY) this.tokenStart = start;

    let index = start;
    while (index < end) {
      switch (this.state) {
        case IN_STRING:
          index = this.readString(text, index, end);
          break;
        case IN_ESCAPE:
          index = this.readEscape(text, index);
          break;
        case IN_UNICODE_ESCAPE:
          index = this.readUnicodeEscape(text, index, end);
          break;
        case IN_NUMBER:
          index = this.readNumber(text, index, end);
          break;
        case IN_LITERAL:
          index = this.readLiteral(text, index, end);
          break;
        case IN_IDENTIFIER_KEY:
          index = this.readIdentifierKey(text, index, end);
          break;
        case IN_COMMENT_START:
        case IN_LINE_COMMENT:
        case IN_BLOCK_COMMENT:
        case IN_BLOCK_COMMENT_STAR:
          index = this.readComment(text, index, end);
          break;
        case IN_QUOTE_CANDIDATE:
          index = this.readQuoteCandidate(text, index, end);
          break;
        case IN_FIRST_BRACE:
        case IN_SECOND_OPENING_BRACE:
        case IN_SECOND_CLOSING_BRACE:
          index = this.readBrace(text, index);
          break;
        default:
          index = this.readBetweenTokens(text, index);
      }
      if (this.state === COMPLETE) {
        this.consumedBefore += index - start;
        return index;
      }
      if (this.state === FAILED) return -1;
    }
    this.carryOver(text, end);
    this.consumedBefore += end - start;
    return -1;
  }

  finish(): boolean {
    if (this.state === IN_QUOTE_CANDIDATE) {
      // Nothing follows the quote: it closed the string.
      this.heldQuote = '';
      this.closeString();
    }
    if (this.state === COMPLETE) return true;
    if (this.state === FAILED) return false;
    if (
      this.state === IN_NUMBER &&
      this.containers.length === 0 &&
      isNumberComplete(this.numberState)
    ) {
      this.handler.primitive(Number(this.tokenText));
      this.tokenText = '';
      this.state = COMPLETE;
      return true;
    }
    this.fail(
      `unexpected end of input at offset ${this.consumedBefore}, ${this.describeEndState()}`,
      this.consumedBefore,
    );
    return false;
  }

  private fail(message: string, offset: number, tooDeep = false): void {
    this.state = FAILED;
    this.failureInfo = tooDeep ? { message, offset, tooDeep } : { message, offset };
  }

  private failUnexpected(text: string, index: number, expected: string): void {
    const offset = this.offsetBase + index;
    this.fail(
      `unexpected ${describeCharacter(text, index)} at offset ${offset}, expected ${expected}`,
      offset,
    );
  }

  private expectationAfterValue(): string {
    return this.containers[this.containers.length - 1] === OBJECT ? '"," or "}"' : '"," or "]"';
  }

  private describeExpectation(between: number): string {
    switch (between) {
      case EXPECT_VALUE:
        return 'a value';
      case EXPECT_VALUE_OR_ARRAY_END:
        return 'a value or "]"';
      case EXPECT_KEY_OR_OBJECT_END:
        return 'a key or "}"';
      case EXPECT_COLON:
        return '":"';
      default:
        return this.expectationAfterValue();
    }
  }

  /** A value ended: the top-level one completes the tokenizer. */
  private valueEnded(): void {
    this.state = this.containers.length === 0 ? COMPLETE : EXPECT_COMMA_OR_END;
  }

  private openContainer(kind: number, index: number): void {
    if (this.containers.length >= this.maxDepth) {
      const offset = this.offsetBase + index;
      this.fail(`nesting deeper than ${this.maxDepth} levels at offset ${offset}`, offset, true);
      return;
    }
    this.containers.push(kind);
    if (kind === OBJECT) {
      this.handler.startObject();
      this.state = EXPECT_KEY_OR_OBJECT_END;
    } else {
      this.handler.startArray();
      this.state = EXPECT_VALUE_OR_ARRAY_END;
    }
  }

  private closeContainer(index: number): void {
    this.eventOffset = this.offsetBase + index;
    const kind = this.containers.pop();
    if (kind === OBJECT) this.handler.endObject();
    else this.handler.endArray();
    this.valueEnded();
  }

  private startString(code: number, isKey: boolean): void {
    this.quoteCode = code;
    this.stringIsKey = isKey;
    this.stringText = '';
    this.state = IN_STRING;
    if (!isKey) this.handler.startString();
  }

  private startLiteral(word: string, value: boolean | null): void {
    this.literalWord = word;
    this.literalValue = value;
    this.literalPosition = 1;
    this.state = IN_LITERAL;
  }

  /** Reads the first character of a value. Returns the next index. */
  private beginValue(text: string, index: number, code: number): number {
    this.eventOffset = this.offsetBase + index;
    switch (code) {
      case LEFT_BRACE:
        if (this.braces === BRACES_SINGLE || this.strict) this.openContainer(OBJECT, index);
        else this.state = this.braces === BRACES_DOUBLED ? IN_SECOND_OPENING_BRACE : IN_FIRST_BRACE;
        return index + 1;
      case LEFT_BRACKET:
        this.openContainer(ARRAY, index);
        return index + 1;
      case APOSTROPHE:
        if (this.refusesLoose(index, 'a single-quoted string')) return index;
        this.startString(code, false);
        return index + 1;
      case QUOTATION_MARK:
        this.startString(code, false);
        return index + 1;
      case LOWER_T:
        this.startLiteral('true', true);
        return index + 1;
      case LOWER_F:
        this.startLiteral('false', false);
        return index + 1;
      case LOWER_N:
        this.startLiteral('null', null);
        return index + 1;
      case UPPER_T:
        if (this.refusesLoose(index, "Python's True")) return index;
        this.startLiteral('True', true);
        return index + 1;
      case UPPER_F:
        if (this.refusesLoose(index, "Python's False")) return index;
        this.startLiteral('False', false);
        return index + 1;
      case UPPER_N:
        if (this.refusesLoose(index, "Python's None")) return index;
        this.startLiteral('None', null);
        return index + 1;
    }
    if (code === MINUS || isDigit(code)) {
      this.numberState =
        code === MINUS
          ? NUMBER_AFTER_MINUS
          : code === DIGIT_ZERO
            ? NUMBER_AFTER_LEADING_ZERO
            : NUMBER_INTEGER_DIGITS;
      this.tokenText = '';
      this.tokenStart = index;
      this.state = IN_NUMBER;
      return index + 1;
    }
    this.failUnexpected(text, index, this.describeExpectation(this.state));
    return index;
  }

  /** Reads one character between tokens (white space, comments, punctuation, a token's start). */
  private readBetweenTokens(text: string, index: number): number {
    const code = text.charCodeAt(index);
    if (isMarkupSpace(code)) return index + 1;
    if (code === SLASH) {
      if (this.refusesLoose(index, 'a comment')) return index;
      this.stateBeforeComment = this.state;
      this.state = IN_COMMENT_START;
      return index + 1;
    }
    const afterComma = this.afterComma;
    this.afterComma = false;
    switch (this.state) {
      case EXPECT_VALUE:
        return this.beginValue(text, index, code);
      case EXPECT_VALUE_OR_ARRAY_END:
        // A "]" here also accepts a trailing comma.
        if (code === RIGHT_BRACKET) {
          if (afterComma && this.refusesLoose(index, 'a trailing comma')) return index;
          this.closeContainer(index);
          return index + 1;
        }
        return this.beginValue(text, index, code);
      case EXPECT_KEY_OR_OBJECT_END:
        // A "}" here also accepts a trailing comma.
        if (code === RIGHT_BRACE) {
          if (afterComma && this.refusesLoose(index, 'a trailing comma')) return index;
          return this.closeObject(index);
        }
        if (code === QUOTATION_MARK || code === APOSTROPHE) {
          if (code === APOSTROPHE && this.refusesLoose(index, 'a single-quoted key')) {
            return index;
          }
          this.startString(code, true);
          return index + 1;
        }
        if (isIdentifierStart(code)) {
          if (this.refusesLoose(index, 'an unquoted key')) return index;
          this.tokenText = '';
          this.tokenStart = index;
          this.state = IN_IDENTIFIER_KEY;
          return index + 1;
        }
        this.failUnexpected(text, index, 'a key or "}"');
        return index;
      case EXPECT_COLON:
        if (code === COLON) {
          this.state = EXPECT_VALUE;
          return index + 1;
        }
        this.failUnexpected(text, index, '":"');
        return index;
      default: {
        const innermost = this.containers[this.containers.length - 1];
        if (code === COMMA) {
          this.state = innermost === OBJECT ? EXPECT_KEY_OR_OBJECT_END : EXPECT_VALUE_OR_ARRAY_END;
          this.afterComma = this.strict;
          return index + 1;
        }
        if (code === RIGHT_BRACE && innermost === OBJECT) return this.closeObject(index);
        if (code === RIGHT_BRACKET && innermost === ARRAY) {
          this.closeContainer(index);
          return index + 1;
        }
        if (!this.strict && startsMemberWithoutComma(innermost, code)) {
          // A comma left out between members (`{"a": 1 "b": 2}`): nothing is made up by reading
          // one there. The character is read again as the next member's first.
          this.state = innermost === OBJECT ? EXPECT_KEY_OR_OBJECT_END : EXPECT_VALUE_OR_ARRAY_END;
          return index;
        }
        this.failUnexpected(text, index, this.expectationAfterValue());
        return index;
      }
    }
  }

  /** Skips string content up to the next quote, backslash or the end. Returns the next index. */
  private readString(text: string, index: number, end: number): number {
    if (end - index < SHORT_SPAN) return this.readShortString(text, index, end);
    let quote: number;
    if (this.quoteCode === QUOTATION_MARK) {
      if (this.nextDoubleQuote < index) {
        this.nextDoubleQuote = findCharacter(text, '"', QUOTATION_MARK, index, end);
      }
      quote = this.nextDoubleQuote;
    } else {
      if (this.nextSingleQuote < index) {
        this.nextSingleQuote = findCharacter(text, "'", APOSTROPHE, index, end);
      }
      quote = this.nextSingleQuote;
    }
    if (this.nextBackslash < index) {
      // Only a backslash before the quote matters now; -1 when there is none (searched again
      // from past the quote, should the string go on).
      this.nextBackslash =
        quote < end
          ? backslashBefore(text, index, quote)
          : findCharacter(text, '\\', BACKSLASH, index, end);
    }
    const backslash = this.nextBackslash === -1 ? end : this.nextBackslash;
    const stop = Math.min(quote, backslash);
    if (
      stop === backslash &&
      end - index >= MIN_NATIVE_DECODE &&
      stop < end &&
      this.quoteCode === QUOTATION_MARK &&
      !this.nativeDecodeFailed
    ) {
      // An escape: let the native JSON reader decode the rest of the string in this write at
      // once, rather than one escape at a time.
      const close = this.closingQuote(text, stop, end);
      const decodeEnd = close === -1 ? completeEscapesEnd(text, index, end) : close;
      if (decodeEnd - index >= MIN_NATIVE_DECODE) {
        if (this.passedAsSource(text, index, decodeEnd, MIN_NATIVE_DECODE)) {
          return close === -1 ? decodeEnd : this.quoteFound(text, close, end);
        }
        const decoded = decodeJsonStringContent(text, index, decodeEnd);
        if (decoded !== undefined) {
          this.stringText += decoded;
          return close === -1 ? decodeEnd : this.quoteFound(text, close, end);
        }
        // Not strict JSON (a raw control character, `\'`…): read it one escape at a time.
        this.nativeDecodeFailed = true;
      }
    }
    if (stop > index) {
      if (this.strict && this.nextControlCharacter(text, index) < stop) {
        // The text before it is string content, kept as usual; the failure is at the character.
        this.stringText += text.slice(index, this.nextControl);
        this.refusesLoose(this.nextControl, 'a raw control character in a string');
        return this.nextControl;
      }
      if (!this.passedAsSource(text, index, stop, MIN_PLAIN_SOURCE_PIECE))
        this.stringText += text.slice(index, stop);
    }
    if (stop >= end) return end;
    if (stop === backslash) {
      this.state = IN_ESCAPE;
      return stop + 1;
    }
    return this.quoteFound(text, stop, end);
  }

  /**
   * `readString` for a span shorter than SHORT_SPAN (a small chunk): one pass that stops at the
   * quote or a backslash, rather than two searches. The span is too short for the native reader.
   * The position found is remembered as a search would remember it, so the caches stay right.
   */
  private readShortString(text: string, index: number, end: number): number {
    const quoteCode = this.quoteCode;
    let stop = index;
    while (stop < end) {
      const code = text.charCodeAt(stop);
      if (code === quoteCode || code === BACKSLASH) break;
      stop++;
    }
    const atEscape = stop < end && text.charCodeAt(stop) === BACKSLASH;
    if (atEscape) this.nextBackslash = stop;
    else if (quoteCode === QUOTATION_MARK) this.nextDoubleQuote = stop;
    else this.nextSingleQuote = stop;
    if (stop > index) {
      if (this.strict && this.nextControlCharacter(text, index) < stop) {
        this.stringText += text.slice(index, this.nextControl);
        this.refusesLoose(this.nextControl, 'a raw control character in a string');
        return this.nextControl;
      }
      this.stringText += text.slice(index, stop);
    }
    if (stop >= end) return end;
    if (atEscape) {
      this.state = IN_ESCAPE;
      return stop + 1;
    }
    return this.quoteFound(text, stop, end);
  }

  /**
   * The string's quote at `text[quote]`. In loose JSON it closes the string only when what
   * follows it (after white space) may follow a string there; otherwise the model left an inner
   * quote unescaped, and it is content. When the write ends first, the quote waits.
   */
  private quoteFound(text: string, quote: number, end: number): number {
    // A key's quote always closes it: keys are short, and a slip there is not worth a guess.
    const depth = this.containers.length;
    if (
      this.strict ||
      this.stringIsKey ||
      depth === 0 ||
      (this.innerQuotesAt !== undefined && !this.innerQuotesAt(depth))
    ) {
      return this.endString(quote);
    }
    let index = quote + 1;
    while (index < end && isMarkupSpace(text.charCodeAt(index))) index++;
    if (index === end) {
      this.heldQuote = text.slice(quote, end);
      this.state = IN_QUOTE_CANDIDATE;
      return end;
    }
    if (this.followsString(text.charCodeAt(index), index > quote + 1)) return this.endString(quote);
    this.stringText += text.slice(quote, index);
    return index;
  }

  /** After a held quote: white space waits, anything else decides (see `quoteFound`). */
  private readQuoteCandidate(text: string, start: number, end: number): number {
    let index = start;
    while (index < end && isMarkupSpace(text.charCodeAt(index))) index++;
    if (index === end) {
      this.heldQuote += text.slice(start, end);
      return end;
    }
    const held = this.heldQuote + text.slice(start, index);
    this.heldQuote = '';
    if (this.followsString(text.charCodeAt(index), held.length > 1)) {
      this.closeString();
      return index;
    }
    this.stringText += held;
    this.state = IN_STRING;
    return index;
  }

  /**
   * Whether `code`, after a value string's closing quote (and white space when `spaced`), may
   * follow the string: a `,` or its container's closing bracket; markup (`<`, a backtick: a
   * block's closer after JSON the model cut short, `{"a": "x"<|tool_call_end|>`); after white
   * space, a comment, the next member's quote or an array's next container (a comma left out),
   * or `+` (the model joined strings as in code: refused where it stands rather than read as
   * content); anything after a string that is the whole value.
   */
  private followsString(code: number, spaced: boolean): boolean {
    const innermost = this.containers[this.containers.length - 1];
    if (innermost === undefined) return true;
    if (
      code === COMMA ||
      code === (innermost === OBJECT ? RIGHT_BRACE : RIGHT_BRACKET) ||
      code === LESS_THAN ||
      code === GRAVE_ACCENT
    ) {
      return true;
    }
    if (!spaced) return false;
    return (
      code === QUOTATION_MARK ||
      code === APOSTROPHE ||
      code === SLASH ||
      code === PLUS ||
      (innermost === ARRAY && (code === LEFT_BRACE || code === LEFT_BRACKET))
    );
  }

  /**
   * Where the double-quoted string being read closes in `text[from, end)`, or -1; `from` is at an
   * escape's backslash or in plain content. A quote counts when an even run of backslashes (run
   * from `from` at most) precedes it. Remembered for the write, so each character is looked at
   * a bounded number of times however many escapes the string has.
   */
  private closingQuote(text: string, from: number, end: number): number {
    let close = this.closingQuoteAt;
    if (close === -1 || close >= from) return close;
    let search = from;
    while (true) {
      close = findCharacter(text, '"', QUOTATION_MARK, search, end);
      if (close >= end) {
        close = -1;
        break;
      }
      let backslash = close - 1;
      while (backslash >= from && text.charCodeAt(backslash) === BACKSLASH) backslash--;
      if ((close - 1 - backslash) % 2 === 0) break;
      search = close + 1;
    }
    this.closingQuoteAt = close;
    return close;
  }

  /** The string closes at `text[quote]`: report it. Returns the next index. */
  private endString(quote: number): number {
    this.closeString();
    return quote + 1;
  }

  private closeString(): void {
    const decoded = this.stringText;
    this.stringText = '';
    if (this.stringIsKey) {
      this.handler.key(decoded);
      this.state = EXPECT_COLON;
    } else {
      if (decoded !== '') this.handler.stringChunk(decoded);
      this.handler.endString();
      this.valueEnded();
    }
  }

  /** A `}` closes the innermost object; with doubled braces, once its second `}` comes. */
  private closeObject(index: number): number {
    if (this.braces === BRACES_DOUBLED) this.state = IN_SECOND_CLOSING_BRACE;
    else this.closeContainer(index);
    return index + 1;
  }

  /** The character after a `{` (or a doubled `}`): see IN_FIRST_BRACE and the two after it. */
  private readBrace(text: string, index: number): number {
    const code = text.charCodeAt(index);
    switch (this.state) {
      case IN_FIRST_BRACE:
        // `{{` never begins JSON: the braces are doubled, and this one is the first's pair.
        this.braces = code === LEFT_BRACE ? BRACES_DOUBLED : BRACES_SINGLE;
        this.openContainer(OBJECT, index);
        return code === LEFT_BRACE ? index + 1 : index;
      case IN_SECOND_OPENING_BRACE:
        if (code !== LEFT_BRACE) {
          this.failUnexpected(text, index, 'a second "{" (every brace is doubled)');
          return index;
        }
        this.openContainer(OBJECT, index);
        return index + 1;
      default:
        if (code !== RIGHT_BRACE) {
          this.failUnexpected(text, index, 'a second "}" (every brace is doubled)');
          return index;
        }
        this.closeContainer(index);
        return index + 1;
    }
  }

  private readEscape(text: string, index: number): number {
    const code = text.charCodeAt(index);
    if (code === LOWER_U) {
      this.unicodeDigitCount = 0;
      this.unicodeValue = 0;
      this.unicodeDigits = '';
      this.state = IN_UNICODE_ESCAPE;
      return index + 1;
    }
    const decoded = SIMPLE_ESCAPES[code];
    if (code === APOSTROPHE && this.refusesLoose(index - 1, "the escape \\'")) return index;
    if (decoded === undefined && !this.strict) {
      // Not a JSON escape: the backslash stands, as written (see JsonTokenizerOptions.strict).
      this.stringText += `\\${text.charAt(index)}`;
      this.state = IN_STRING;
      return index + 1;
    }
    if (decoded === undefined) {
      const offset = this.offsetBase + index - 1;
      this.fail(
        `invalid escape ${JSON.stringify(`\\${text.charAt(index)}`)} at offset ${offset}`,
        offset,
      );
      return index;
    }
    this.stringText += decoded;
    this.state = IN_STRING;
    return index + 1;
  }

  private readUnicodeEscape(text: string, index: number, end: number): number {
    while (index < end) {
      const digit = hexDigitValue(text.charCodeAt(index));
      if (digit < 0 && !this.strict) {
        // `\u` without four hex digits (`C:\users`) is not an escape: it stands as written.
        this.stringText += `\\u${this.unicodeDigits}`;
        this.state = IN_STRING;
        return index;
      }
      if (digit < 0) {
        this.failUnexpected(text, index, 'a hex digit in a \\u escape');
        return index;
      }
      this.unicodeDigits += text.charAt(index);
      this.unicodeValue = this.unicodeValue * 16 + digit;
      index++;
      if (++this.unicodeDigitCount === 4) {
        this.stringText += String.fromCharCode(this.unicodeValue);
        this.state = IN_STRING;
        return index;
      }
    }
    return index;
  }

  private readNumber(text: string, index: number, end: number): number {
    while (index < end) {
      const code = text.charCodeAt(index);
      switch (this.numberState) {
        case NUMBER_AFTER_MINUS:
          if (!isDigit(code)) {
            this.failUnexpected(text, index, 'a digit');
            return index;
          }
          this.numberState =
            code === DIGIT_ZERO ? NUMBER_AFTER_LEADING_ZERO : NUMBER_INTEGER_DIGITS;
          break;
        case NUMBER_AFTER_LEADING_ZERO:
          if (isDigit(code)) {
            this.failUnexpected(text, index, '"." or an exponent after a leading 0');
            return index;
          }
          if (code === DOT) this.numberState = NUMBER_AFTER_DOT;
          else if (code === LOWER_E || code === UPPER_E) {
            this.numberState = NUMBER_AFTER_EXPONENT_MARK;
          } else return this.endNumber(text, index);
          break;
        case NUMBER_INTEGER_DIGITS:
          if (isDigit(code)) break;
          if (code === DOT) this.numberState = NUMBER_AFTER_DOT;
          else if (code === LOWER_E || code === UPPER_E) {
            this.numberState = NUMBER_AFTER_EXPONENT_MARK;
          } else return this.endNumber(text, index);
          break;
        case NUMBER_AFTER_DOT:
          if (!isDigit(code)) {
            this.failUnexpected(text, index, 'a digit after "."');
            return index;
          }
          this.numberState = NUMBER_FRACTION_DIGITS;
          break;
        case NUMBER_FRACTION_DIGITS:
          if (isDigit(code)) break;
          if (code === LOWER_E || code === UPPER_E) this.numberState = NUMBER_AFTER_EXPONENT_MARK;
          else return this.endNumber(text, index);
          break;
        case NUMBER_AFTER_EXPONENT_MARK:
          if (code === PLUS || code === MINUS) this.numberState = NUMBER_AFTER_EXPONENT_SIGN;
          else if (isDigit(code)) this.numberState = NUMBER_EXPONENT_DIGITS;
          else {
            this.failUnexpected(text, index, 'a digit or sign in the exponent');
            return index;
          }
          break;
        case NUMBER_AFTER_EXPONENT_SIGN:
          if (!isDigit(code)) {
            this.failUnexpected(text, index, 'a digit in the exponent');
            return index;
          }
          this.numberState = NUMBER_EXPONENT_DIGITS;
          break;
        default:
          if (!isDigit(code)) return this.endNumber(text, index);
      }
      index++;
    }
    return index;
  }

  /** The number ended just before `index` (that character is not part of it). */
  private endNumber(text: string, index: number): number {
    const numberText = this.tokenText + text.slice(this.tokenStart, index);
    this.tokenText = '';
    this.handler.primitive(Number(numberText));
    this.valueEnded();
    return index;
  }

  private readLiteral(text: string, index: number, end: number): number {
    const word = this.literalWord;
    while (index < end) {
      if (text.charCodeAt(index) !== word.charCodeAt(this.literalPosition)) {
        this.failUnexpected(text, index, `"${word}"`);
        return index;
      }
      index++;
      if (++this.literalPosition === word.length) {
        this.handler.primitive(this.literalValue);
        this.valueEnded();
        return index;
      }
    }
    return index;
  }

  private readIdentifierKey(text: string, index: number, end: number): number {
    while (index < end && isIdentifierPart(text.charCodeAt(index))) index++;
    if (index < end) {
      const name = this.tokenText + text.slice(this.tokenStart, index);
      this.tokenText = '';
      this.handler.key(name);
      this.state = EXPECT_COLON;
    }
    return index;
  }

  private readComment(text: string, index: number, end: number): number {
    switch (this.state) {
      case IN_COMMENT_START: {
        const code = text.charCodeAt(index);
        if (code === SLASH) this.state = IN_LINE_COMMENT;
        else if (code === ASTERISK) this.state = IN_BLOCK_COMMENT;
        else {
          this.failUnexpected(text, index, '"/" or "*" to begin a comment');
          return index;
        }
        return index + 1;
      }
      case IN_LINE_COMMENT:
        while (index < end) {
          const code = text.charCodeAt(index);
          if (code === LINE_FEED || code === CARRIAGE_RETURN) {
            this.state = this.stateBeforeComment;
            return index + 1;
          }
          index++;
        }
        return index;
      case IN_BLOCK_COMMENT: {
        const star = findCharacter(text, '*', ASTERISK, index, end);
        if (star >= end) return end;
        this.state = IN_BLOCK_COMMENT_STAR;
        return star + 1;
      }
      default: {
        const code = text.charCodeAt(index);
        if (code === SLASH) this.state = this.stateBeforeComment;
        else if (code !== ASTERISK) this.state = IN_BLOCK_COMMENT;
        return index + 1;
      }
    }
  }

  /** The write ended inside a token: keep what belongs to it, report the string read so far. */
  private carryOver(text: string, end: number): void {
    const state = this.state;
    if (state === IN_NUMBER || state === IN_IDENTIFIER_KEY) {
      this.tokenText += text.slice(this.tokenStart, end);
      this.tokenStart = 0;
    } else if (
      !this.stringIsKey &&
      this.stringText !== '' &&
      (state === IN_STRING ||
        state === IN_ESCAPE ||
        state === IN_UNICODE_ESCAPE ||
        state === IN_QUOTE_CANDIDATE)
    ) {
      const stringText = this.stringText;
      const last = stringText.charCodeAt(stringText.length - 1);
      if (last >= HIGH_SURROGATE_FIRST && last <= HIGH_SURROGATE_LAST) {
        // Hold the first half of a pair until the next write shows what follows it.
        if (stringText.length > 1) this.handler.stringChunk(stringText.slice(0, -1));
        this.stringText = stringText.slice(-1);
      } else {
        this.handler.stringChunk(stringText);
        this.stringText = '';
      }
    }
  }

  private describeEndState(): string {
    switch (this.state) {
      case IN_STRING:
      case IN_ESCAPE:
      case IN_UNICODE_ESCAPE:
        return this.stringIsKey ? 'inside a key' : 'inside a string';
      case IN_NUMBER:
        return isNumberComplete(this.numberState)
          ? `expected ${this.expectationAfterValue()}`
          : 'inside a number';
      case IN_LITERAL:
        return `expected "${this.literalWord}"`;
      case IN_FIRST_BRACE:
        return 'expected a key or "}"';
      case IN_SECOND_OPENING_BRACE:
        return 'expected a second "{" (every brace is doubled)';
      case IN_SECOND_CLOSING_BRACE:
        return 'expected a second "}" (every brace is doubled)';
      case IN_IDENTIFIER_KEY:
        return 'expected ":"';
      case IN_COMMENT_START:
      case IN_LINE_COMMENT:
      case IN_BLOCK_COMMENT:
      case IN_BLOCK_COMMENT_STAR:
        return `inside a comment, expected ${this.describeExpectation(this.stateBeforeComment)}`;
      default:
        return `expected ${this.describeExpectation(this.state)}`;
    }
  }
}
