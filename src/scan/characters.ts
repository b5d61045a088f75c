/**
 * Character classes tested by code, for loops that look at one character at a time (a regular
 * expression per character costs a string and a call each).
 */

/** Space, tab, line feed or carriage return: what JSON and XML count as white space. */
export function isMarkupSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x09 || code === 0x0d;
}

/** Exactly what `/\s/` matches: white space and line terminators, Unicode's included. */
export function isWhiteSpace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
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
    (code >= 0x61 && code <= 0x7a) ||
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x30 && code <= 0x39) ||
    code === 0x5f ||
    code === 0x2d
  );
}
