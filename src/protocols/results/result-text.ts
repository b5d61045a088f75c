import type { ToolResponseToFormat } from '../../core/index.ts';
import { jsonForPrompt, resultJsonForPrompt } from '../codecs/json/json-text.ts';

/**
 * How every format writes a tool result into a prompt, so that no result is ever read back as a
 * call, by any format's parser or by `auto`, and no result spells a special token a server would
 * tokenize as a real one (`<|im_start|>`, `<｜tool▁calls▁begin｜>`, `[TOOL_CALLS]`): the output,
 * text included, is written as prompt-safe JSON (`resultJsonForPrompt`). A text result becomes
 * a JSON string, which a model reads as the same text; `<` `>` `[` `]` `{` `}` inside it are
 * \u escapes, so neither a tag, a special token, a bracketed marker nor a JSON or Python call
 * survives in it. The format keeps its own framing around it (its template's tags, an envelope
 * object with its keys).
 *
 * A format whose chat template puts a result's text in the prompt as it is writes it so too
 * (`textResultBody`), breaking only what its own parser would read as markup and the special
 * tokens: the model then reads the result as its template renders it. Such a result is no call of
 * that format, but may read as one to another format's parser that knows the tool names (xml's
 * `<NAME>`), so the format also gives a writer of the same framing around JSON bodies
 * (`jsonResultBody`), which `auto`, reading every format, writes results with.
 */

/**
 * Writes one result's body inside a format's framing: its output, after `Error: ` for a failure
 * where the format says so. A format's result writer takes one, so the same framing serves its
 * model (the text as it is) and `auto` (prompt-safe JSON).
 */
export type ResultBodyWriter = (result: ToolResponseToFormat) => string;

/** The body as prompt-safe JSON: read as a call by no format's parser. */
export const jsonResultBody: ResultBodyWriter = (result) => resultBodyText(result);

/** The body as the template renders it: the text itself, only `guard`'s markup broken. */
export function textResultBody(guard: ResultTextGuard): ResultBodyWriter {
  return (result) => resultTextBody(result, guard);
}

/**
 * The output of a result as prompt-safe JSON text (text results as a JSON string), compact or
 * laid out with `indent`.
 */
export function resultOutputJson(output: unknown, indent?: number): string {
  return resultJsonForPrompt(output, indent);
}

/** Tool names written as they are: what OpenAI's API and the chat templates allow, and `.` `:`. */
const PLAIN_NAME = /^[A-Za-z0-9_.:-]+$/;

/**
 * A tool's name where a format writes it into a result's framing (`## Return of
 * functions.NAME:0`, `<|start|>functions.NAME`): as it is when it is a plain name, else as a
 * prompt-safe JSON string. A result's name is whatever the model called, so a name holding
 * special tokens or a call must not write them.
 */
export function resultNameText(name: string): string {
  return PLAIN_NAME.test(name) ? name : resultJsonForPrompt(name);
}

/** The output as prompt-safe JSON, after `Error: ` for a failure (most templates' wording). */
export function resultBodyText(result: ToolResponseToFormat, indent?: number): string {
  const output = resultOutputJson(result.output, indent);
  return result.isError ? `Error: ${output}` : output;
}

/**
 * An object a format writes around results (`{"name": …, "content": …}`): its keys are the
 * format's own and written as they are; each value is prompt-safe JSON, and a nested envelope is
 * written the same way. A class, so that no output (whatever keys it has) passes for one.
 */
export class ResultEnvelope {
  readonly fields: readonly (readonly [string, unknown])[];

  /** `fields` in order; a value may be another envelope. An undefined one is left out, as JSON does. */
  constructor(fields: Record<string, unknown>) {
    this.fields = Object.entries(fields).filter(([, value]) => value !== undefined);
  }
}

/** An envelope of `fields`, in order (a value may be another envelope). */
export function resultEnvelope(fields: Record<string, unknown>): ResultEnvelope {
  return new ResultEnvelope(fields);
}

/**
 * An envelope as JSON text: compact, or laid out as `JSON.stringify(…, null, indent)` would,
 * its values at their depth. A JSON reader decodes it to the envelope's fields and values.
 */
export function envelopeJson(envelope: ResultEnvelope, indent?: number): string {
  return writeEnvelope(envelope, indent ?? 0, '');
}

function writeEnvelope(envelope: ResultEnvelope, indent: number, margin: string): string {
  if (envelope.fields.length === 0) return '{}';
  const inner = margin + ' '.repeat(indent);
  const members = envelope.fields.map(([key, value]) => {
    const text =
      value instanceof ResultEnvelope
        ? writeEnvelope(value, indent, inner)
        : indentLines(resultJsonForPrompt(value, indent), inner);
    return `${jsonForPrompt(key)}:${indent > 0 ? ' ' : ''}${text}`;
  });
  if (indent === 0) return `{${members.join(',')}}`;
  return `{\n${inner}${members.join(`,\n${inner}`)}\n${margin}}`;
}

/** JSON text whose lines after the first start at `margin` (JSON strings hold no raw line break). */
function indentLines(text: string, margin: string): string {
  return margin.length === 0 ? text : text.replaceAll('\n', `\n${margin}`);
}

/** `{"name": …, "<key>": output}`, or `{"name": …, "error": …}` for a failure, as JSON text. */
export function namedResultJson(
  result: ToolResponseToFormat,
  key: 'content' | 'output' = 'content',
): string {
  return envelopeJson(
    resultEnvelope(
      result.isError
        ? { name: result.toolName, error: result.output }
        : { name: result.toolName, [key]: result.output },
    ),
  );
}

/**
 * Results one named envelope per line, in the order of the calls (the templates that give each
 * result a turn of its own).
 */
export function namedResultLines(
  results: readonly ToolResponseToFormat[],
  key: 'content' | 'output' = 'content',
): string {
  return results.map((result) => namedResultJson(result, key)).join('\n');
}

/**
 * The markup a format reads in a result's text: the names of its tags (`tool_call` stands for
 * `<tool_call`, `</tool_call` and `<tool_call…>`), whatever its call or result block opens or
 * closes with.
 */
export interface ResultTextGuard {
  readonly tags: readonly string[];
  /**
   * Markup broken wherever it stands in the text, at its first character that is not white
   * space: the format's call openers as its parser reads them (`>>>`, `{"name"`, `\ncall:`).
   */
  readonly literals?: readonly string[];
}

/**
 * A text result as the model's chat template renders it: the text itself, so `<path>` and
 * `{"a":1}` reach the model as they are. Only what could be read as markup is broken, each by
 * writing its first character as a \u escape (a spelling models read as that character):
 * the `<` opening or closing one of the format's `guard` tags (a `</tool_response>` closing the
 * result block early, a `<tool_call>` in it) or a tag that opens a call in any format, and the `<`, `>` and `[` of chat-template special
 * tokens (`<|im_start|>`, `<｜tool▁sep｜>`, `[TOOL_CALLS]`), which a server would tokenize as real
 * ones. One pass, no backtracking. A value that is not text is prompt-safe JSON, as before.
 */
export function resultTextForPrompt(output: unknown, guard: ResultTextGuard): string {
  if (typeof output !== 'string') return resultOutputJson(output);
  const literals = literalsByFirstCharacter(guard);
  let out = '';
  let from = 0;
  /** Where a literal that starts with white space (`\ncall:`) is broken: its first other character. */
  let breakAt = -1;
  for (let index = 0; index < output.length; index++) {
    const character = output.charAt(index);
    let broken = index === breakAt || opensMarkup(output, index, character, guard.tags);
    if (!broken) {
      const found = literals
        .get(character)
        ?.find(({ literal }) => output.startsWith(literal, index));
      if (found !== undefined) {
        if (found.offset === 0) broken = true;
        else breakAt = Math.max(breakAt, index + found.offset);
      }
    }
    if (broken) {
      out += `${output.slice(from, index)}\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
      from = index + 1;
    }
  }
  return out + output.slice(from);
}

/** Whether `character`, at `index`, begins or ends a guarded tag or a special token. */
function opensMarkup(
  output: string,
  index: number,
  character: string,
  tags: readonly string[],
): boolean {
  if (character === '<') {
    const next = output[index + 1];
    return next === '|' || next === '｜' || opensGuardedTag(output, index + 1, tags);
  }
  if (character === '>') {
    const previous = output[index - 1];
    return previous === '|' || previous === '｜';
  }
  return character === '[' && opensBracketToken(output, index + 1);
}

/** A guarded literal, and where it is broken: its first character that is not white space. */
interface GuardedLiteral {
  readonly literal: string;
  readonly offset: number;
}

/** Each guard's literals grouped by their first character, made once per guard. */
const literalGroups = new WeakMap<
  ResultTextGuard,
  ReadonlyMap<string, readonly GuardedLiteral[]>
>();

function literalsByFirstCharacter(
  guard: ResultTextGuard,
): ReadonlyMap<string, readonly GuardedLiteral[]> {
  let groups = literalGroups.get(guard);
  if (groups === undefined) {
    const grouping = new Map<string, GuardedLiteral[]>();
    for (const literal of guard.literals ?? []) {
      const offset = literal.length - literal.trimStart().length;
      if (offset === literal.length) continue;
      const first = literal.charAt(0);
      const group = grouping.get(first);
      if (group) group.push({ literal, offset });
      else grouping.set(first, [{ literal, offset }]);
    }
    groups = grouping;
    literalGroups.set(guard, groups);
  }
  return groups;
}

/** A text result's body after `Error: ` for a failure, written as `resultTextForPrompt` does. */
export function resultTextBody(result: ToolResponseToFormat, guard: ResultTextGuard): string {
  const output = resultTextForPrompt(result.output, guard);
  return result.isError ? `Error: ${output}` : output;
}

/**
 * Tags that open a call in some format whatever the tools are called, broken in every text result
 * on top of the format's own: FunctionGemma's explicit call, the `<tool_call>` family, MiniMax's and
 * Seed-OSS's prefixed ones, `<execute>`. (Markup that needs a declared tool's name, xml's `<NAME>`,
 * is another format's to read only, and stays as it is.)
 */
const CALL_TAGS_OF_EVERY_FORMAT = [
  'start_function_call',
  'end_function_call',
  'tool_call',
  'function_call',
  'minimax:',
  'seed:',
  'execute',
];

/** Whether `text` at `start` (just after a `<`) names one of `tags`, as an opener or a closer. */
function opensGuardedTag(text: string, start: number, tags: readonly string[]): boolean {
  const from = text[start] === '/' ? start + 1 : start;
  return (
    tags.some((tag) => text.startsWith(tag, from)) ||
    CALL_TAGS_OF_EVERY_FORMAT.some((tag) => text.startsWith(tag, from))
  );
}

/** Whether `text` at `start` (just after a `[`) begins a bracketed token: `/` or a capital. */
function opensBracketToken(text: string, start: number): boolean {
  const code = text.charCodeAt(start);
  return code === 0x2f || (code >= 0x41 && code <= 0x5a);
}
