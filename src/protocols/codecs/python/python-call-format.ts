import type { ToolCallToFormat } from '../../../core/index.ts';
import { inputAsValue } from '../../prompt/example-input.ts';

/** Characters a Python string literal in a prompt writes as an escape. */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\u007f\u2028\u2029\ud800-\udfff]/g;

function escapeCharacter(character: string): string {
  switch (character) {
    case '"':
      return '\\"';
    case '\\':
      return '\\\\';
    case '\n':
      return '\\n';
    case '\r':
      return '\\r';
    case '\t':
      return '\\t';
    default: {
      const code = character.charCodeAt(0);
      return code < 0x100
        ? `\\x${code.toString(16).padStart(2, '0')}`
        : `\\u${code.toString(16).padStart(4, '0')}`;
    }
  }
}

/** A string as a double-quoted Python literal that reads back to exactly the same text. */
export function pythonString(text: string): string {
  // A surrogate pair stays as it is; a lone half is escaped (it cannot be written raw).
  return `"${text.replace(NEEDS_ESCAPE, (character, offset: number) => {
    const code = character.charCodeAt(0);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(offset + 1);
      if (next >= 0xdc00 && next <= 0xdfff) return character;
    } else if (code >= 0xdc00 && code <= 0xdfff) {
      const previous = text.charCodeAt(offset - 1);
      if (previous >= 0xd800 && previous <= 0xdbff) return character;
    }
    return escapeCharacter(character);
  })}"`;
}

/** A JSON value as a Python literal (`True`, `None`, `{"k": [1, 2]}`). */
export function pythonLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : 'None';
  if (typeof value === 'string') return pythonString(value);
  if (Array.isArray(value)) return `[${value.map(pythonLiteral).join(', ')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).map(
      ([key, item]) => `${pythonString(key)}: ${pythonLiteral(item)}`,
    );
    return `{${entries.join(', ')}}`;
  }
  return pythonString(String(value));
}

/** `name(a=1, b="x")`: a call with keyword arguments (argument names are written as they are). */
export function pythonCall(call: ToolCallToFormat, nameSuffix = ''): string {
  const input = inputAsValue(call.input);
  const entries =
    input !== null && typeof input === 'object' && !Array.isArray(input)
      ? Object.entries(input as Record<string, unknown>)
      : [];
  const argumentsText = entries.map(([key, value]) => `${key}=${pythonLiteral(value)}`).join(', ');
  return `${call.toolName}${nameSuffix}(${argumentsText})`;
}
