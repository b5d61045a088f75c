import { LOWER_X, NUMBER_SIGN, UPPER_X } from './char-codes.ts';

/** XML's five predefined entities: the only names ever expanded (there is no DTD). */
const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  lt: '<',
  gt: '>',
  amp: '&',
  quot: '"',
  apos: "'",
};

/**
 * Reads a reference's body (what stands between `&` and `;`): the text of one of the five
 * named entities, the code point of a character reference (`#65`, `#x41`) up to U+10FFFF, or
 * undefined. What a code point XML forbids (a surrogate, NUL) becomes is the caller's choice.
 */
export function readReference(body: string): string | number | undefined {
  if (body.charCodeAt(0) !== NUMBER_SIGN) {
    return Object.hasOwn(NAMED_ENTITIES, body) ? NAMED_ENTITIES[body] : undefined;
  }
  const hex = body.charCodeAt(1) === LOWER_X || body.charCodeAt(1) === UPPER_X;
  const digits = body.slice(hex ? 2 : 1);
  if (digits.length === 0 || !(hex ? /^[0-9a-fA-F]+$/ : /^[0-9]+$/).test(digits)) {
    return undefined;
  }
  const codePoint = Number.parseInt(digits, hex ? 16 : 10);
  return codePoint > 0x10ffff ? undefined : codePoint;
}

export function isSurrogate(codePoint: number): boolean {
  return codePoint >= 0xd800 && codePoint <= 0xdfff;
}
