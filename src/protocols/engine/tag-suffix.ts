/**
 * The suffix of a suffixed reasoning tag (Hunyuan Hy3/Hy4's `<think:6124c78e>`): after the tag's
 * literal comes `>`, or `:` and 1–64 characters (none white space, `<` or `>`) and `>`. Read in
 * at most 66 characters, so a text of many `<think:` costs a bounded amount per opener.
 */
import { COLON, GREATER_THAN, LESS_THAN } from '../../scan/char-codes.ts';
import { isWhiteSpace } from '../../scan/characters.ts';
import { workMeter } from './work-meter.ts';

/** Most characters between a suffix's `:` and its `>`. */
export const MAX_TAG_SUFFIX = 64;
/** What follows the literal is not a suffix: the literal was text. */
export const NOT_A_SUFFIX = -1;
/** The text ends before the suffix does: more text decides. */
export const SUFFIX_CUT = -2;

/**
 * Reads `>` or `:SUFFIX>` at `text[at]`: the index just after its `>`, `NOT_A_SUFFIX`, or
 * `SUFFIX_CUT` when the text ends first (`NOT_A_SUFFIX` when it is the output's last).
 */
export function readTagSuffix(text: string, at: number, finalText: boolean): number {
  const cut = finalText ? NOT_A_SUFFIX : SUFFIX_CUT;
  if (at >= text.length) return cut;
  const first = text.charCodeAt(at);
  if (first === GREATER_THAN) return at + 1;
  if (first !== COLON) return NOT_A_SUFFIX;
  // The `>` stands at `at + 2` at the earliest and `at + 1 + MAX_TAG_SUFFIX` at the latest.
  const last = at + 1 + MAX_TAG_SUFFIX;
  const end = Math.min(text.length, last + 1);
  workMeter.characters += end - at;
  for (let index = at + 1; index < end; index++) {
    const code = text.charCodeAt(index);
    if (code === GREATER_THAN) return index === at + 1 ? NOT_A_SUFFIX : index + 1;
    if (code === LESS_THAN || isWhiteSpace(code)) return NOT_A_SUFFIX;
  }
  return end > last ? NOT_A_SUFFIX : cut;
}
