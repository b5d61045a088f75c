import { ToolwireError } from '../../../core/errors.ts';
import { parseJsonText } from '../../../core/parse-json.ts';
import { FIRST_NON_ASCII } from '../../../scan/char-codes.ts';
import { inputAsValue } from '../../prompt/example-input.ts';
import type { DialectCallForm } from '../../spec/types.ts';
import { isNameStart } from '../python/python-call-values.ts';
import { isDialectKeyPart } from './value-reader.ts';

/** A string the dialect cannot write between its delimiters, and the form cannot quote. */
export class DialectStringError extends ToolwireError {
  constructor(close: string) {
    super(
      'invalid-tool-input',
      `a string of the arguments holds ${close}, which ends a string of this format and has no escape; it cannot be written`,
    );
  }
}

/**
 * A key written bare: a name as the reader reads keys (isDialectKeyPart), beginning like one
 * (`00` stays a string, as the templates' keys are names), and not with the string delimiter's
 * first character, which would open a string there.
 */
function isBareKey(key: string, open: string): boolean {
  if (key.length === 0 || key.charCodeAt(0) === open.charCodeAt(0)) return false;
  const first = key.charCodeAt(0);
  if (first < FIRST_NON_ASCII ? !isNameStart(first) : !isDialectKeyPart(first)) return false;
  for (let index = 1; index < key.length; index++) {
    if (!isDialectKeyPart(key.charCodeAt(index))) return false;
  }
  return true;
}

/** The literals a dialect writes values with, taken once per form. */
interface Delimiters {
  readonly open: string;
  readonly close: string;
  readonly quoted: boolean;
}

/**
 * A string between the delimiters, when its content reads back whole: the closing delimiter's
 * first occurrence must be the one written after it (a string holding the delimiter, or ending
 * with the start of one that overlaps it, would end early). Otherwise a double-quoted JSON string
 * when the form reads those (`quotedStrings`), else refused: nothing in the dialect escapes it.
 */
function stringText(value: string, { open, close, quoted }: Delimiters): string {
  const written = value + close;
  if (written.indexOf(close) === value.length) return open + written;
  if (quoted) return JSON.stringify(value);
  throw new DialectStringError(close);
}

function valueText(value: unknown, delimiters: Delimiters): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return stringText(value, delimiters);
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : 'null';
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) {
    return `[${value.map((item) => valueText(item, delimiters)).join(',')}]`;
  }
  return objectText(value as Record<string, unknown>, delimiters);
}

function objectText(value: Record<string, unknown>, delimiters: Delimiters): string {
  const parts: string[] = [];
  for (const [key, item] of Object.entries(value)) {
    const keyText = isBareKey(key, delimiters.open) ? key : stringText(key, delimiters);
    parts.push(`${keyText}:${valueText(item, delimiters)}`);
  }
  return `{${parts.join(',')}}`;
}

/**
 * A call's arguments in the form's dialect: `{city:<|"|>Oslo<|"|>,days:3}`. Keys are bare where
 * they are names, else strings; strings sit between the form's delimiters as they are; numbers,
 * booleans and `null` are bare; keys keep the input's order. The input is normalised as JSON
 * (a string holding JSON is parsed; `undefined` members dropped); anything but an object writes
 * `{}`, the arguments of a call with none.
 *
 * A string holding the closing delimiter cannot stand between the delimiters (nothing escapes
 * it): it is written as a quoted JSON string when the form reads those (`quotedStrings`), and
 * refused otherwise (a `DialectStringError`, kind `invalid-tool-input`), never written so that
 * it would read back as something else.
 */
export function writeDialectArguments(input: unknown, form: DialectCallForm): string {
  const [open, close] = form.stringDelimiters;
  const delimiters: Delimiters = { open, close, quoted: form.quotedStrings === true };
  const value = inputAsValue(input);
  const normalised: unknown =
    value === undefined ? undefined : parseJsonText(JSON.stringify(value) ?? 'null');
  if (normalised === null || typeof normalised !== 'object' || Array.isArray(normalised)) {
    return '{}';
  }
  return objectText(normalised as Record<string, unknown>, delimiters);
}
