/** Longest entity body the decoder waits for (`#x10FFFF` is 8; names are shorter). */
export const MAX_ENTITY_CHARS = 10;

const NAMED: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
};

/**
 * The text an entity body (between `&` and `;`) stands for, or `undefined` when it is not one
 * of XML's five names or a character reference to a Unicode scalar value. Surrogate code points
 * read as U+FFFD, as a lone surrogate would after UTF-8.
 */
export function decodeEntity(body: string): string | undefined {
  if (body.charCodeAt(0) !== 35 /* # */)
    return Object.hasOwn(NAMED, body) ? NAMED[body] : undefined;
  const hex = body.charCodeAt(1) === 120 || body.charCodeAt(1) === 88; // x X
  const digits = body.slice(hex ? 2 : 1);
  if (digits.length === 0 || !(hex ? /^[0-9a-fA-F]+$/ : /^[0-9]+$/).test(digits)) return undefined;
  const code = Number.parseInt(digits, hex ? 16 : 10);
  if (code > 0x10ffff) return undefined;
  if (code >= 0xd800 && code <= 0xdfff) return '\uFFFD';
  return String.fromCodePoint(code);
}

/** Characters an entity body may contain (ASCII letters, digits, `#`). */
export function isEntityChar(code: number): boolean {
  return (
    (code >= 97 && code <= 122) ||
    (code >= 65 && code <= 90) ||
    (code >= 48 && code <= 57) ||
    code === 35
  );
}
