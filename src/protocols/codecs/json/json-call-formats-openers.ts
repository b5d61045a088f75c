import type { Opener } from '../../../scan/opener-trie.ts';
import type { CallBody, CallContext } from '../../engine/call-body.ts';
import { MarkupBody } from '../../engine/markup-body.ts';
import { type JsonCallShape, JsonCallsBody, type JsonCallsBodyConfig } from './json-calls-body.ts';
import { JSON_SPACE_CHARACTERS } from './json-lead.ts';

/**
 * Openers shared by the formats whose calls are JSON arrays (Mistral before v11, Granite 3,
 * Command R, FireFunction, xLAM, Apertus): framing tokens that are dropped, and the bare arrays
 * models write when a server has stripped the special token in front of them.
 */

/** An opener that is framing and nothing more (`[/TOOL_CALLS]`, `<|START_RESPONSE|>`). */
export interface MarkupOpening {
  readonly markup: true;
}

const MARKUP: MarkupOpening = { markup: true };

/** What a JSON-format opener starts: a block of JSON calls, or framing to drop. */
export type JsonOpening = JsonCallsBodyConfig | MarkupOpening;

export function markupOpeners(literals: readonly string[]): Opener<MarkupOpening>[] {
  return literals.map((literal) => ({ literal, delimited: false, data: MARKUP }));
}

export function isMarkupOpening(opening: object): opening is MarkupOpening {
  return (opening as Partial<MarkupOpening>).markup === true;
}

/** The body of a JSON-format opener. */
export function openJsonCall(opening: JsonOpening, context: CallContext): CallBody {
  if (isMarkupOpening(opening)) return new MarkupBody(context);
  return new JsonCallsBody(context, opening);
}

/** White space models put after `[` (a batch's first line break and indent). */
const AFTER_BRACKET = ['', ' ', '\n', '\n  ', '\n    ', '\n\t'];
/** White space models put after `{` (the same, one level deeper). */
const AFTER_BRACE = ['', ' ', '\n', '\n  ', '\n    ', '\n      ', '\n\t'];

/**
 * The ways a bare array of calls begins, `[{"name"` with the white space templates print: one
 * literal per layout and per first key (`name`, or `tool_call_id` for Command R).
 */
export function bareArrayLiterals(firstKeys: readonly string[]): string[] {
  const literals: string[] = [];
  for (const key of firstKeys) {
    for (const outer of AFTER_BRACKET) {
      for (const inner of AFTER_BRACE) literals.push(`[${outer}{${inner}"${key}"`);
    }
  }
  return literals;
}

/** The first key of a literal `bareArrayLiterals` made (`[\n  {"name"` -> `name`). */
function firstKeyOf(literal: string): string {
  return literal.slice(literal.lastIndexOf('"', literal.length - 2) + 1, -1);
}

/**
 * The openers of a bare array in a layout no literal lists: `[` or `[{` and one JSON white-space
 * character, the rest of the lead checked by the body. A format that reads bare arrays anywhere
 * must keep these out of the results it writes, as it keeps its literals out.
 */
export const BARE_ARRAY_LEAD_LITERALS: readonly string[] = ['[', '[{'].flatMap((start) =>
  JSON_SPACE_CHARACTERS.map((space) => `${start}${space}`),
);

/**
 * Openers of bare arrays of calls: read as calls only when the whole array is well-formed JSON
 * naming declared tools; anything else stays text (the JSON may be the model's answer). The
 * `literals` (`bareArrayLiterals`) are the layouts templates print; every other layout of JSON
 * white space (`[ \t {\t"name"`, which a server's JSON-Schema grammar may write) opens at `[` or
 * `[{` and one white-space character, and the body checks the rest of the lead for the
 * literals' first keys (see `JsonLead`). The trie reads the longest literal that matches, so a
 * listed layout is read as it always was.
 */
export function bareArrayOpeners(
  shape: JsonCallShape,
  literals: readonly string[],
  /** The keys a call object may begin with; default: those the literals end with. */
  firstKeys: readonly string[] = literals.map(firstKeyOf),
): Opener<JsonCallsBodyConfig>[] {
  const openers: Opener<JsonCallsBodyConfig>[] = literals.map((literal) => ({
    literal,
    delimited: false,
    data: { shape, speculative: true, jsonPrefix: literal },
  }));
  const keys = [...new Set(firstKeys)];
  if (keys.length === 0) return openers;
  for (const literal of BARE_ARRAY_LEAD_LITERALS) {
    const lead = { objectToOpen: !literal.startsWith('[{'), keys };
    openers.push({
      literal,
      delimited: false,
      data: { shape, speculative: true, jsonPrefix: literal, lead },
    });
  }
  return openers;
}
