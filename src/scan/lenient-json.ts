/**
 * JSON as a model wrote it: strict JSON as written, loose JSON repaired only where no data has to
 * be made up (see `json-repair.ts` for what is repaired and what is refused), and nothing nested
 * deeper than a cap, so no caller that walks the value recursively can overflow its stack.
 * Nothing here throws on any text, and the work is linear in the text's length.
 */

import { exceedsJsonDepth } from './json-depth.ts';
import { type JsonRepairFailure, repairJson } from './json-repair.ts';

export type { JsonRepairFailureReason as LenientJsonFailureReason } from './json-repair.ts';

/** Deepest nesting of objects and arrays accepted unless the caller says otherwise. */
export const DEFAULT_MAX_JSON_NESTING = 1000;

export interface LenientJsonOptions {
  /**
   * Deepest nesting of objects and arrays accepted; deeper text is refused as `too-deep`.
   * Default 1000 (`DEFAULT_MAX_JSON_NESTING`). Example: `{ maxDepth: 64 }`.
   */
  readonly maxDepth?: number;
  /**
   * The text must be complete JSON, every bracket, string and comment closed; otherwise the result
   * is `incomplete`. Set it when the text may have been cut off (a call at the end of a model's
   * output); leave it off when the caller's markup closed the block, so a closing bracket the
   * model forgot may be added. Default false. Example: `{ requireComplete: true }`.
   */
  readonly requireComplete?: boolean;
}

export type LenientJsonFailure = JsonRepairFailure;

export type LenientJsonResult =
  | {
      readonly ok: true;
      readonly value: unknown;
      /** False when the text was strict JSON, read as written. */
      readonly repaired: boolean;
    }
  | LenientJsonFailure;

/**
 * Reads `text` as JSON, repairing loose syntax when it is not strict JSON. Never throws for any
 * text; throws a RangeError only for an invalid `maxDepth`.
 */
export function readLenientJson(text: string, options: LenientJsonOptions = {}): LenientJsonResult {
  const maxDepth = checkedMaxDepth(options.maxDepth, 'readLenientJson');
  const strict = parseStrict(text, maxDepth);
  if (strict !== undefined) return { ok: true, value: strict, repaired: false };
  const repair = repairJson(text, {
    maxDepth,
    requireComplete: options.requireComplete ?? false,
  });
  if (!repair.ok) return repair;
  try {
    return { ok: true, value: JSON.parse(repair.json), repaired: true };
  } catch (error) {
    // The repair writes strict JSON; this is a guard, not a path any text is known to take.
    return {
      ok: false,
      reason: 'not-json',
      message: `the repaired text is not JSON: ${(error as Error).message}`,
      offset: 0,
    };
  }
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
  if (exceedsJsonDepth(text, 0, text.length, maxDepth)) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function checkedMaxDepth(maxDepth: number | undefined, caller: string): number {
  if (maxDepth === undefined) return DEFAULT_MAX_JSON_NESTING;
  if (!Number.isSafeInteger(maxDepth) || maxDepth < 0) {
    throw new RangeError(`${caller}: maxDepth must be an integer >= 0, got ${String(maxDepth)}`);
  }
  return maxDepth;
}
