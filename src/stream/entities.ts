import {
  DIGIT_NINE,
  DIGIT_ZERO,
  LOWER_A,
  LOWER_Z,
  NUMBER_SIGN,
  UPPER_A,
  UPPER_Z,
} from '../scan/char-codes.ts';
import { isSurrogate, readReference } from '../scan/xml-references.ts';

/** Longest entity body the decoder waits for (`#x10FFFF` is 8; names are shorter). */
export const MAX_ENTITY_CHARS = 10;

/**
 * The text an entity body (between `&` and `;`) stands for, or `undefined` when it is not one
 * of XML's five names or a character reference to a Unicode code point. Surrogate code points
 * read as U+FFFD, as a lone surrogate would after UTF-8.
 */
export function decodeEntity(body: string): string | undefined {
  const read = readReference(body);
  if (typeof read !== 'number') return read;
  return isSurrogate(read) ? '\uFFFD' : String.fromCodePoint(read);
}

/** Characters an entity body may contain (ASCII letters, digits, `#`). */
export function isEntityChar(code: number): boolean {
  return (
    (code >= LOWER_A && code <= LOWER_Z) ||
    (code >= UPPER_A && code <= UPPER_Z) ||
    (code >= DIGIT_ZERO && code <= DIGIT_NINE) ||
    code === NUMBER_SIGN
  );
}
