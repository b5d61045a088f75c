/**
 * `JSON.parse`, safe from a V8 bug that renames object keys.
 *
 * V8 in Node 24 and 26 (nodejs/node#63785, Chromium 521080746, open as of 2026-11) can read an
 * escaped key through a map transition an earlier parse made: after any
 * `JSON.parse('{"x":0,"\\\\":1}')` in the process, `JSON.parse('{"x":0,"\\u0062":1}')` gives the
 * key `\` instead of `b`. Keys with escapes come from models (`"\u003e"` is how toolwire's own
 * writers keep `>` out of markup), clients and servers, and an earlier text chosen by an attacker
 * can set the trap, so arguments would change silently. Texts without an escaped key (nearly all)
 * go to the native parser; the rest are read here, strictly, with exactly `JSON.parse`'s result.
 */
import { setOwnProperty } from './safe-object.ts';

const BACKSLASH = 0x5c;
const QUOTE = 0x22;
const COLON = 0x3a;
const COMMA = 0x2c;
const LEFT_BRACE = 0x7b;
const RIGHT_BRACE = 0x7d;
const LEFT_BRACKET = 0x5b;
const RIGHT_BRACKET = 0x5d;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const DIGIT_ZERO = 0x30;
const DIGIT_NINE = 0x39;
const LOWER_E = 0x65;
const UPPER_E = 0x45;

/** `JSON.parse(text)`, with the same result and the same SyntaxError for text that is not JSON. */
export function parseJsonText(text: string): unknown {
  return hasEscapedKey(text) ? new StrictJsonReader(text).read() : JSON.parse(text);
}

/**
 * Whether a string that is followed by `:` (a key, in valid JSON) holds a backslash. Strings are
 * found from the start, so in valid JSON their bounds are exact; in text that is not JSON the
 * answer does not matter, since the native parser then throws. Linear: each string is searched
 * once, and each run of backslashes before a quote is counted once.
 */
export function hasEscapedKey(text: string): boolean {
  let backslash = text.indexOf('\\');
  let open = backslash === -1 ? -1 : text.indexOf('"');
  while (open !== -1 && backslash !== -1) {
    const close = closingQuote(text, open);
    if (close === -1) return false;
    if (backslash < close) {
      if (text.charCodeAt(afterSpace(text, close + 1)) === COLON) return true;
      backslash = text.indexOf('\\', close + 1);
    }
    open = text.indexOf('"', close + 1);
  }
  return false;
}

/** The index of the quote closing the string opened at `open`, or -1. */
function closingQuote(text: string, open: number): number {
  let from = open + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote === -1) return -1;
    let before = quote - 1;
    while (before > open && text.charCodeAt(before) === BACKSLASH) before--;
    if ((quote - 1 - before) % 2 === 0) return quote;
    from = quote + 1;
  }
}

function isJsonSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

function afterSpace(text: string, index: number): number {
  let at = index;
  while (at < text.length && isJsonSpace(text.charCodeAt(at))) at++;
  return at;
}

function isDigit(code: number): boolean {
  return code >= DIGIT_ZERO && code <= DIGIT_NINE;
}

/** An open object or array, and for an object the key of the member being read. */
interface Frame {
  readonly container: Record<string, unknown> | unknown[];
  key: string;
}

/**
 * A strict JSON reader for the few texts with escaped keys: an explicit stack rather than
 * recursion (any depth), strings decoded by the native parser (a lone string has no keys).
 */
class StrictJsonReader {
  private readonly text: string;
  private at = 0;

  constructor(text: string) {
    this.text = text;
  }

  read(): unknown {
    const stack: Frame[] = [];
    let value: unknown;
    for (;;) {
      this.at = afterSpace(this.text, this.at);
      const code = this.text.charCodeAt(this.at);
      if (code === LEFT_BRACE || code === LEFT_BRACKET) {
        const object = code === LEFT_BRACE;
        this.at = afterSpace(this.text, this.at + 1);
        const empty = this.text.charCodeAt(this.at) === (object ? RIGHT_BRACE : RIGHT_BRACKET);
        if (!empty) {
          stack.push({ container: object ? {} : [], key: object ? this.readKey() : '' });
          continue;
        }
        this.at++;
        value = object ? {} : [];
      } else value = this.readScalar(code);

      // Close every container the value completes; stop at the next member to read.
      for (;;) {
        const frame = stack.at(-1);
        if (frame === undefined) {
          this.at = afterSpace(this.text, this.at);
          if (this.at < this.text.length) this.fail('Unexpected non-whitespace character');
          return value;
        }
        const { container } = frame;
        if (Array.isArray(container)) container.push(value);
        else setOwnProperty(container, frame.key, value);
        this.at = afterSpace(this.text, this.at);
        const next = this.text.charCodeAt(this.at);
        if (next === COMMA) {
          this.at++;
          if (!Array.isArray(container)) frame.key = this.readKey();
          break;
        }
        if (next !== (Array.isArray(container) ? RIGHT_BRACKET : RIGHT_BRACE)) {
          this.fail(`Expected ',' or '${Array.isArray(container) ? ']' : '}'}'`);
        }
        this.at++;
        stack.pop();
        value = container;
      }
    }
  }

  /** A key and its colon, with the white space around them. */
  private readKey(): string {
    this.at = afterSpace(this.text, this.at);
    if (this.text.charCodeAt(this.at) !== QUOTE) this.fail('Expected a double-quoted key');
    const key = this.readString();
    this.at = afterSpace(this.text, this.at);
    if (this.text.charCodeAt(this.at) !== COLON) this.fail("Expected ':' after a key");
    this.at++;
    return key;
  }

  private readScalar(code: number): unknown {
    if (code === QUOTE) return this.readString();
    if (code === MINUS || isDigit(code)) return this.readNumber();
    for (const [word, value] of LITERALS) {
      if (this.text.startsWith(word, this.at)) {
        this.at += word.length;
        return value;
      }
    }
    return this.fail(this.at < this.text.length ? 'Unexpected character' : 'Unexpected end');
  }

  private readString(): string {
    const open = this.at;
    const close = closingQuote(this.text, open);
    if (close === -1) this.fail('Unterminated string');
    const content = this.text.slice(open + 1, close);
    this.at = close + 1;
    if (content.indexOf('\\') === -1) {
      for (let index = 0; index < content.length; index++) {
        if (content.charCodeAt(index) < 0x20) this.fail('Bad control character in string', open);
      }
      return content;
    }
    try {
      return JSON.parse(`"${content}"`) as string;
    } catch {
      return this.fail('Bad string', open);
    }
  }

  /** `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, read by hand. */
  private readNumber(): number {
    const text = this.text;
    const start = this.at;
    let at = start;
    if (text.charCodeAt(at) === MINUS) at++;
    if (text.charCodeAt(at) === DIGIT_ZERO) at++;
    else if (isDigit(text.charCodeAt(at))) at = this.digitsFrom(at);
    else this.fail('No number after minus sign', at);
    if (text.charCodeAt(at) === DOT) {
      if (!isDigit(text.charCodeAt(at + 1))) this.fail('Unterminated fractional number', at + 1);
      at = this.digitsFrom(at + 1);
    }
    const mark = text.charCodeAt(at);
    if (mark === LOWER_E || mark === UPPER_E) {
      at++;
      const sign = text.charCodeAt(at);
      if (sign === PLUS || sign === MINUS) at++;
      if (!isDigit(text.charCodeAt(at))) this.fail('Exponent part is missing a number', at);
      at = this.digitsFrom(at);
    }
    this.at = at;
    return Number(text.slice(start, at));
  }

  private digitsFrom(index: number): number {
    let at = index;
    while (isDigit(this.text.charCodeAt(at))) at++;
    return at;
  }

  private fail(what: string, at = this.at): never {
    throw new SyntaxError(`${what} in JSON at position ${at}`);
  }
}

const LITERALS: readonly (readonly [string, unknown])[] = [
  ['true', true],
  ['false', false],
  ['null', null],
];
