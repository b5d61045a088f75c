import { type JsonSchema, setOwnProperty } from '../core/index.ts';
import { checkSchemaPatterns, UnsupportedPatternError } from '../schema/index.ts';
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

/**
 * A JSON Schema given for a tool's input: an object (absent means any object). Its patterns are
 * checked now, so one that cannot be matched in linear time (a backreference, lookaround) is a
 * 400 naming it, not a schema that fails every call later.
 */
export function schemaAt(value: unknown, path: string): JsonSchema {
  if (value === undefined || value === null) return { type: 'object' };
  const schema = fieldsAt(value, path) as JsonSchema;
  try {
    checkSchemaPatterns(schema);
  } catch (error) {
    if (!(error instanceof UnsupportedPatternError)) throw error;
    throw invalid(
      `${path}${fieldPathOf(error.schemaPath)}`,
      `${JSON.stringify(error.pattern)} ${error.reason}`,
    );
  }
  return schema;
}

/** A JSON Pointer (`/properties/id/pattern`) as the field path a 400 names (`.properties.id.pattern`). */
function fieldPathOf(pointer: string): string {
  let path = '';
  for (const token of pointer.split('/').slice(1)) {
    const key = token.replaceAll('~1', '/').replaceAll('~0', '~');
    path += /^\d+$/.test(key)
      ? `[${key}]`
      : /^[A-Za-z_$][\w$]*$/.test(key)
        ? `.${key}`
        : `[${JSON.stringify(key)}]`;
  }
  return path;
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

/**
 * What the proxy does with one field of a request: `read` (it reads the field itself and sends
 * upstream what it means, its own way), `dropped` (it means nothing to a chat completions
 * server), or a refusal (a check saying why the value is refused, or undefined to read it).
 * A field no list names goes upstream as the client sent it (`temperature`, vLLM's
 * `skip_special_tokens`, …).
 */
export type FieldRule =
  | 'read'
  | 'dropped'
  | { readonly refuse: (value: unknown) => string | undefined };

/** One reply per request: the proxy reads one, and a retry would multiply the generations. */
const ONE_REPLY: FieldRule = {
  refuse: (value) =>
    value === undefined || value === null || value === 1
      ? undefined
      : `must be 1: the proxy reads one reply per request, not ${JSON.stringify(value)}`,
};

const DEPRECATED_TOOLS: FieldRule = {
  refuse: (value) =>
    value === undefined
      ? undefined
      : 'is the API\'s deprecated form of tools: send "tools" and "tool_choice" instead',
};

/**
 * Chat completions fields that ask the model server for several replies or for its own tool
 * handling, or that the proxy sets itself: from either API, none reaches the model server as
 * the client sent it.
 */
const CHAT_COMPLETIONS_CONTROLLED: ReadonlyArray<readonly [string, FieldRule]> = [
  ['model', 'read'],
  ['messages', 'read'],
  ['stream', 'read'],
  ['n', ONE_REPLY],
  // vLLM's and older OpenAI servers' extra generations, of which one is returned.
  ['best_of', ONE_REPLY],
  ['functions', DEPRECATED_TOOLS],
  ['function_call', DEPRECATED_TOOLS],
];

/** The fields of a chat completions request the proxy reads, refuses or drops. */
export const CHAT_COMPLETIONS_FIELDS: ReadonlyMap<string, FieldRule> = new Map([
  ...CHAT_COMPLETIONS_CONTROLLED,
  ['tools', 'read'],
  ['tool_choice', 'read'],
  ['parallel_tool_calls', 'read'],
  ['stream_options', 'read'],
]);

/** A chat completions field sent on Messages, which has its own way of saying it. */
function messagesHasItsOwn(instead: string): FieldRule {
  return {
    refuse: (value) =>
      value === undefined
        ? undefined
        : `is a chat completions field; a Messages request says this with ${instead}`,
  };
}

/**
 * The fields of a Messages request the proxy reads (sampling settings are sent under their chat
 * completions names), refuses or drops (Anthropic's own services).
 */
export const MESSAGES_FIELDS: ReadonlyMap<string, FieldRule> = new Map([
  ...CHAT_COMPLETIONS_CONTROLLED,
  ['system', 'read'],
  ['max_tokens', 'read'],
  ['temperature', 'read'],
  ['top_p', 'read'],
  ['top_k', 'read'],
  ['stop_sequences', 'read'],
  ['tools', 'read'],
  ['tool_choice', 'read'],
  ['parallel_tool_calls', messagesHasItsOwn('tool_choice.disable_parallel_tool_use')],
  ['stream_options', messagesHasItsOwn('stream (a stream always ends with the usage)')],
  ['metadata', 'dropped'],
  ['thinking', 'dropped'],
  ['service_tier', 'dropped'],
  ['container', 'dropped'],
  ['mcp_servers', 'dropped'],
  ['context_management', 'dropped'],
]);

/**
 * The fields of a request that go upstream as sent: those its API's list does not name. Throws
 * the 400 of the first field the list refuses.
 */
export function passedFields(
  fields: Fields,
  rules: ReadonlyMap<string, FieldRule>,
): Record<string, unknown> {
  const passed: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    const rule = rules.get(key);
    if (rule === undefined) setOwnProperty(passed, key, value);
    else if (typeof rule === 'object') {
      const why = rule.refuse(value);
      if (why !== undefined) throw invalid(key, why);
    }
  }
  return passed;
}
