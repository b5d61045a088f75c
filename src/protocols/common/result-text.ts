import type { ToolResponseToFormat } from '../../core/index.ts';
import { jsonForPrompt, resultJsonForPrompt } from './json-text.ts';

/**
 * How every format writes a tool result into a prompt, so that no result is ever read back as a
 * call, by any format's parser or by `auto`, and no result spells a special token a server would
 * tokenize as a real one (`<|im_start|>`, `<｜tool▁calls▁begin｜>`, `[TOOL_CALLS]`): the output,
 * text included, is written as prompt-safe JSON (`resultJsonForPrompt`). A text result becomes
 * a JSON string, which a model reads as the same text; `<` `>` `[` `]` `{` `}` inside it are
 * \u escapes, so neither a tag, a special token, a bracketed marker nor a JSON or Python call
 * survives in it. The format keeps its own framing around it (its template's tags, an envelope
 * object with its keys).
 */

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
