/**
 * JSON as a model wrote it: strict JSON as written, loose JSON read only where no data has to be
 * made up, and nothing nested deeper than a cap, so no caller that walks the value recursively
 * can overflow its stack. Nothing here throws on any text, and the work is linear in the text.
 *
 * Loose JSON is what the streaming tokenizer accepts (single quotes, unquoted keys, Python's
 * `True`/`False`/`None`, comments, trailing and missing commas, escapes JSON does not define kept
 * as written, unescaped inner quotes, doubled braces: see `JsonTokenizerOptions.strict`), read by
 * that same tokenizer, so the streaming
 * and whole-text paths share one definition of it; the one repair added here is closing the
 * brackets a writer forgot, when the caller's own markup showed that the block had ended.
 * Everything else is refused with what was wrong and where: a missing value or key
 * (`{"file": }`), a hole (`[1,,2]`), a cut-short literal (`tru`), text that is not JSON.
 */

import { parseJsonText } from '../core/parse-json.ts';
import { DEFAULT_MAX_DEPTH } from '../core/protocol.ts';
import { UNCONSTRAINED_POLICY } from '../core/value-policy.ts';
import {
  DIGIT_NINE,
  DIGIT_ZERO,
  LEFT_BRACE,
  LEFT_BRACKET,
  LOWER_F,
  LOWER_N,
  LOWER_T,
  MINUS,
  QUOTATION_MARK,
  RIGHT_BRACE,
  RIGHT_BRACKET,
} from './char-codes.ts';
import { isMarkupSpace, isWhiteSpace } from './characters.ts';
import { exceedsJsonDepth } from './json-depth.ts';
import { createJsonTokenizer } from './json-tokenizer.ts';
import { createJsonValueStreamer } from './json-value-streamer.ts';

export type LenientJsonFailureReason = 'not-json' | 'too-deep' | 'incomplete';

export interface LenientJsonOptions {
  /**
   * Deepest nesting of objects and arrays accepted; deeper text is refused as `too-deep`.
   * Default 1000 (`DEFAULT_MAX_DEPTH`). Example: `{ maxDepth: 64 }`.
   */
  readonly maxDepth?: number;
  /**
   * The text must be complete JSON, every bracket and string closed; otherwise the result is
   * `incomplete`. Set it when the text may have been cut off (a call at the end of a model's
   * output); leave it off when the caller's markup closed the block, so a closing bracket the
   * model forgot may be added. Default false. Example: `{ requireComplete: true }`.
   */
  readonly requireComplete?: boolean;
}

export interface LenientJsonFailure {
  readonly ok: false;
  readonly reason: LenientJsonFailureReason;
  /** Says what was wrong and where, for the model and the developer. */
  readonly message: string;
  /** Where in the text it went wrong (UTF-16 units). */
  readonly offset: number;
}

export type LenientJsonResult =
  | {
      readonly ok: true;
      readonly value: unknown;
      /** False when the text was strict JSON, read as written. */
      readonly repaired: boolean;
    }
  | LenientJsonFailure;

/**
 * Reads `text` as JSON, loosely when it is not strict JSON. Never throws for any text; throws a
 * RangeError only for an invalid `maxDepth`.
 */
export function readLenientJson(text: string, options: LenientJsonOptions = {}): LenientJsonResult {
  const maxDepth = checkedMaxDepth(options.maxDepth, 'readLenientJson');
  const strict = parseStrict(text, maxDepth);
  if (strict !== undefined) return { ok: true, value: strict, repaired: false };
  return readLoose(text, maxDepth, options.requireComplete ?? false);
}

/** The value of `text` read by `readLenientJson`, or undefined when it cannot be read. */
export function parseLenientJson(text: string, options?: LenientJsonOptions): unknown {
  const read = readLenientJson(text, options);
  return read.ok ? read.value : undefined;
}

/**
 * JSON text parsed as written; undefined when it is not JSON or nests deeper than `maxDepth`
 * (default 1000). No JSON text parses to undefined. `JSON.parse` defines `__proto__` keys as own
 * properties, never as prototypes.
 */
export function parseJson(text: string, options: { readonly maxDepth?: number } = {}): unknown {
  return parseStrict(text, checkedMaxDepth(options.maxDepth, 'parseJson'));
}

/**
 * Strict JSON within the depth cap, or undefined. The depth is checked on the text first, so a
 * deep value is never built; the check is exact for strict JSON, the only text `JSON.parse` takes.
 */
function parseStrict(text: string, maxDepth: number): unknown {
  // Text that cannot begin a JSON value is refused without an exception (they cost more than
  // the parse, and broken calls often hold markup rather than JSON).
  if (!beginsJsonValue(text)) return undefined;
  if (exceedsJsonDepth(text, 0, text.length, maxDepth)) return undefined;
  try {
    return parseJsonText(text);
  } catch {
    return undefined;
  }
}

function beginsJsonValue(text: string): boolean {
  let index = 0;
  while (index < text.length && isWhiteSpace(text.charCodeAt(index))) index++;
  if (index >= text.length) return false;
  const code = text.charCodeAt(index);
  return (
    code === LEFT_BRACE ||
    code === LEFT_BRACKET ||
    code === QUOTATION_MARK ||
    code === MINUS ||
    (code >= DIGIT_ZERO && code <= DIGIT_NINE) ||
    code === LOWER_T ||
    code === LOWER_F ||
    code === LOWER_N
  );
}

function ignore(): void {}

/** Loose JSON through the streaming tokenizer, its tokens built into a value. */
function readLoose(text: string, maxDepth: number, requireComplete: boolean): LenientJsonResult {
  const value = createJsonValueStreamer(UNCONSTRAINED_POLICY, ignore);
  const tokenizer = createJsonTokenizer(value, { maxDepth });
  const stop = tokenizer.write(text);
  let closing = '';
  if (tokenizer.status === 'pending' && !requireComplete) {
    // The caller's markup ended the block: close what the writer left open. Inside a string, a
    // comment or a literal, or after a key, that does not complete it, and the text is refused.
    closing = tokenizer.closingBrackets();
    tokenizer.write(closing);
  }
  if (tokenizer.status === 'pending') tokenizer.finish();
  const failure = tokenizer.failure;
  if (failure?.tooDeep) {
    return { ok: false, reason: 'too-deep', message: failure.message, offset: failure.offset };
  }
  if (failure !== undefined && failure.offset < text.length) {
    return { ok: false, reason: 'not-json', message: failure.message, offset: failure.offset };
  }
  if (failure !== undefined) {
    const message =
      closing === ''
        ? failure.message
        : `the JSON ends at offset ${text.length} before it is complete, and closing its open brackets (${closing}) does not complete it`;
    return { ok: false, reason: 'incomplete', message, offset: text.length };
  }
  const after = stop === -1 ? text.length : stop;
  const extra = afterValue(text, after);
  if (extra !== -1) {
    return {
      ok: false,
      reason: 'not-json',
      message: `text follows the JSON value at offset ${extra}`,
      offset: extra,
    };
  }
  return { ok: true, value: value.value, repaired: true };
}

/**
 * Where text other than white space or stray closing brackets (`{"a": 1}}`, which drop nothing)
 * follows the value; -1 when none does.
 */
function afterValue(text: string, from: number): number {
  for (let index = from; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (!isMarkupSpace(code) && code !== RIGHT_BRACE && code !== RIGHT_BRACKET) return index;
  }
  return -1;
}

function checkedMaxDepth(maxDepth: number | undefined, caller: string): number {
  if (maxDepth === undefined) return DEFAULT_MAX_DEPTH;
  if (!Number.isSafeInteger(maxDepth) || maxDepth < 0) {
    throw new RangeError(`${caller}: maxDepth must be an integer >= 0, got ${String(maxDepth)}`);
  }
  return maxDepth;
}
