/** The characters of tag names in the XML protocol, shared by the streaming and whole-call readers. */
import {
  COLON,
  DIGIT_NINE,
  DIGIT_ZERO,
  DOT,
  LOWER_A,
  LOWER_Z,
  MINUS,
  UNDERSCORE,
  UPPER_A,
  UPPER_Z,
} from '../../scan/char-codes.ts';

/** A tag longer than this is read as text: it bounds what a parser holds while reading one. */
export const MAX_TAG_LENGTH = 256;

export function isNameStart(code: number): boolean {
  return (
    (code >= UPPER_A && code <= UPPER_Z) ||
    (code >= LOWER_A && code <= LOWER_Z) ||
    code === UNDERSCORE
  );
}

export function isNameCharacter(code: number): boolean {
  return (
    isNameStart(code) ||
    (code >= DIGIT_ZERO && code <= DIGIT_NINE) ||
    code === MINUS ||
    code === DOT ||
    code === COLON
  );
}
