import type { JsonSchema } from '../core/index.ts';
import { ProxyError } from './errors.ts';

/** Field readers for request bodies: each says which field was wrong and what it should be. */

export type Fields = Readonly<Record<string, unknown>>;

/** Longest model id or tool name accepted (both are echoed and matched, never executed). */
const MAX_NAME_LENGTH = 256;

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`;
}

export function invalid(path: string, message: string): ProxyError {
  return new ProxyError(400, `${path} ${message}`, path);
}

export function isFields(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function fieldsAt(value: unknown, path: string): Fields {
  if (!isFields(value)) throw invalid(path, `must be an object, not ${describe(value)}`);
  return value;
}

export function arrayAt(value: unknown, path: string): readonly unknown[] {
  if (!Array.isArray(value)) throw invalid(path, `must be an array, not ${describe(value)}`);
  return value;
}

export function stringAt(value: unknown, path: string): string {
  if (typeof value !== 'string') throw invalid(path, `must be a string, not ${describe(value)}`);
  return value;
}

export function optionalStringAt(value: unknown, path: string): string | undefined {
  return value === undefined || value === null ? undefined : stringAt(value, path);
}

export function booleanAt(value: unknown, path: string, fallback: boolean): boolean {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean')
    throw invalid(path, `must be true or false, not ${describe(value)}`);
  return value;
}

/** A model id or tool name: a non-empty string of bounded length. */
export function nameAt(value: unknown, path: string): string {
  const name = stringAt(value, path);
  if (name.length === 0) throw invalid(path, 'must not be empty');
  if (name.length > MAX_NAME_LENGTH)
    throw invalid(
      path,
      `is ${name.length} characters long; at most ${MAX_NAME_LENGTH} are accepted`,
    );
  return name;
}

/** A JSON Schema given for a tool's input: an object (absent means any object). */
export function schemaAt(value: unknown, path: string): JsonSchema {
  if (value === undefined || value === null) return { type: 'object' };
  return fieldsAt(value, path) as JsonSchema;
}

/** Tool names must be unique: a call names its tool, so two of one name could not be told apart. */
export function checkUniqueNames(names: readonly string[], path: string): void {
  const seen = new Set<string>();
  for (const [index, name] of names.entries()) {
    if (seen.has(name))
      throw invalid(`${path}[${index}]`, `declares the tool "${name}" a second time`);
    seen.add(name);
  }
}

/** The text of content given as a string or as text parts (`{type: 'text', text}`), one per line. */
export function textOf(value: unknown, path: string): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  const parts = arrayAt(value, path);
  const texts: string[] = [];
  for (const [index, part] of parts.entries()) {
    const fields = fieldsAt(part, `${path}[${index}]`);
    if (fields.type !== 'text')
      throw invalid(
        `${path}[${index}].type`,
        `must be "text" here (only text is accepted in this place), not ${describe(fields.type)}`,
      );
    texts.push(stringAt(fields.text, `${path}[${index}].text`));
  }
  return texts.join('\n');
}
