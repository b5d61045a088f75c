/** The characters of tag names in the XML protocol, shared by the streaming and whole-call readers. */

/** A tag longer than this is read as text: it bounds what a parser holds while reading one. */
export const MAX_TAG_LENGTH = 256;

export function isNameStart(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
}

export function isNameCharacter(code: number): boolean {
  return (
    isNameStart(code) || (code >= 48 && code <= 57) || code === 45 || code === 46 || code === 58
  );
}
