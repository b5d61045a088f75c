import {
  BACKSLASH,
  LEFT_BRACE,
  LEFT_BRACKET,
  QUOTATION_MARK,
  RIGHT_BRACE,
  RIGHT_BRACKET,
} from './char-codes.ts';

/**
 * Whether the JSON text `text[start, end)` nests objects and arrays deeper than `maxDepth`.
 * Parsing deep JSON is safe, but everything after it (coercion, validation, serialising) walks
 * the value recursively; this check lets a caller refuse such text first.
 *
 * Text with no more opening brackets than `maxDepth` cannot be deeper, and counting them jumps
 * from bracket to bracket; only text with more is read character by character (strings skipped).
 */
export function exceedsJsonDepth(
  text: string,
  start: number,
  end: number,
  maxDepth: number,
): boolean {
  if (end - start <= 2 * maxDepth) return false;
  if (countOpeningBrackets(text, start, end, maxDepth + 1) <= maxDepth) return false;
  let depth = 0;
  let inString = false;
  for (let index = start; index < end; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === BACKSLASH) index++;
      else if (code === QUOTATION_MARK) inString = false;
    } else if (code === QUOTATION_MARK) inString = true;
    else if (code === LEFT_BRACE || code === LEFT_BRACKET) {
      if (++depth > maxDepth) return true;
    } else if (code === RIGHT_BRACE || code === RIGHT_BRACKET) depth--;
  }
  return false;
}

/** Counts `{` and `[` in the range, stopping once `limit` are found. */
function countOpeningBrackets(text: string, start: number, end: number, limit: number): number {
  let count = 0;
  for (const bracket of ['{', '[']) {
    let at = text.indexOf(bracket, start);
    while (at !== -1 && at < end) {
      if (++count >= limit) return count;
      at = text.indexOf(bracket, at + 1);
    }
  }
  return count;
}
