/**
 * Character classes tested by code, for loops that look at one character at a time (a regular
 * expression per character costs a string and a call each).
 */
import {
  CARRIAGE_RETURN,
  DIGIT_NINE,
  DIGIT_ZERO,
  LINE_FEED,
  LOWER_A,
  LOWER_Z,
  MINUS,
  SPACE,
  TAB,
  UNDERSCORE,
  UPPER_A,
  UPPER_Z,
} from './char-codes.ts';

/** Space, tab, line feed or carriage return: what JSON and XML count as white space. */
export function isMarkupSpace(code: number): boolean {
  return code === SPACE || code === LINE_FEED || code === TAB || code === CARRIAGE_RETURN;
}

/** Exactly what `/\s/` matches: white space and line terminators, Unicode's included. */
export function isWhiteSpace(code: number): boolean {
  if (code <= SPACE) return code === SPACE || (code >= TAB && code <= CARRIAGE_RETURN);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/** Exactly what `/[\w-]/` matches: ASCII letters, digits, `_` and `-`. */
export function isWordOrHyphen(code: number): boolean {
  return (
    (code >= LOWER_A && code <= LOWER_Z) ||
    (code >= UPPER_A && code <= UPPER_Z) ||
    (code >= DIGIT_ZERO && code <= DIGIT_NINE) ||
    code === UNDERSCORE ||
    code === MINUS
  );
}
