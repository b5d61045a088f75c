import { type JsonSchema, setOwnProperty, type ToolDefinition } from '../core/index.ts';
import { isToolChoiceConflict, planToolChoice } from '../core/tool-choice-policy.ts';
import { HttpError } from '../http/http-error.ts';
import type { JsonTextReader } from '../http/json-shape.ts';
import { checkSchemaPatterns, UnsupportedPatternError } from '../schema/index.ts';
import type { ToolChoiceSetting } from './conversation.ts';

/** Field readers for request bodies: each says which field was wrong and what it should be. */

export type Fields = Readonly<Record<string, unknown>>;

/** Longest model id or tool name accepted (both are echoed and matched, never executed). */
const MAX_NAME_LENGTH = 256;

/** Most characters of a value a message quotes. */
const EXCERPT_CHARS = 40;

/**
 * The start of a value's JSON, at most `EXCERPT_CHARS` characters and `…` when cut. Written
 * piece by piece and stopped once long enough, so a huge value costs no more than a small one
 * (each level adds a bracket, so the depth it goes to is bounded too).
 */
function jsonExcerpt(value: unknown): string {
  let text = '';
  const full = () => text.length > EXCERPT_CHARS;
  const write = (item: unknown): void => {
    if (full()) return;
    if (typeof item === 'string') {
      text += JSON.stringify(item.length > EXCERPT_CHARS ? item.slice(0, EXCERPT_CHARS + 1) : item);
    } else if (Array.isArray(item)) {
      text += '[';
      for (let index = 0; index < item.length && !full(); index++) {
        if (index > 0) text += ',';
        write(item[index]);
      }
      text += ']';
    } else if (isFields(item)) {
      text += '{';
      let first = true;
      for (const key in item) {
        if (full()) break;
        if (!Object.hasOwn(item, key)) continue;
        text += `${first ? '' : ','}${JSON.stringify(key.slice(0, EXCERPT_CHARS + 1))}:`;
        first = false;
        write(item[key]);
      }
      text += '}';
    } else {
      text += JSON.stringify(item) ?? 'null';
    }
  };
  write(value);
  return full() ? `${text.slice(0, EXCERPT_CHARS)}…` : text;
}

/**
 * A value as an error names it: its type, then a short excerpt of its JSON (`the number 42`,
 * `the string "hi"`, `an object {"role":"user"}`); `null`, `true` and `false` as they are.
 */
export function describeValue(value: unknown): string {
  if (value === null || typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return `the string ${jsonExcerpt(value)}`;
  if (typeof value === 'number') return `the number ${jsonExcerpt(value)}`;
  if (Array.isArray(value)) return `an array ${jsonExcerpt(value)}`;
  if (isFields(value)) return `an object ${jsonExcerpt(value)}`;
  return typeof value;
}

export function invalid(path: string, message: string): HttpError {
  return new HttpError(400, `${path} ${message}`, { param: path });
}

/**
 * The 400 of a field that is not what it must be: missing (`messages is missing; it must be an
 * array of messages`), or present as something else (`… must be a string, not the number 42`).
 */
export function mustBe(value: unknown, path: string, expected: string): HttpError {
  return value === undefined
    ? invalid(path, `is missing; it must be ${expected}`)
    : invalid(path, `must be ${expected}, not ${describeValue(value)}`);
}

export function isFields(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `expected` says what the object holds, for the message (`an object`, `a message object`). */
export function fieldsAt(value: unknown, path: string, expected = 'an object'): Fields {
  if (!isFields(value)) throw mustBe(value, path, expected);
  return value;
}

export function arrayAt(value: unknown, path: string, expected = 'an array'): readonly unknown[] {
  if (!Array.isArray(value)) throw mustBe(value, path, expected);
  return value;
}

export function stringAt(value: unknown, path: string, expected = 'a string'): string {
  if (typeof value !== 'string') throw mustBe(value, path, expected);
  return value;
}

export function optionalStringAt(value: unknown, path: string): string | undefined {
  return value === undefined || value === null ? undefined : stringAt(value, path);
}

export function booleanAt(value: unknown, path: string, fallback: boolean): boolean {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean') throw mustBe(value, path, 'true or false');
  return value;
}

/** A model id or tool name: a non-empty string of bounded length. */
export function nameAt(value: unknown, path: string, expected = 'a tool name (a string)'): string {
  const name = stringAt(value, path, expected);
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

/**
 * Reads chat completions' `tools` (`[{type: 'function', function: {name, description,
 * parameters, strict}}]`; `strict: true` is kept on the tool, see `ConstrainedTool`), as the chat completions and Ollama APIs both send them. `typeMayBeLeftOut`:
 * Ollama reads function tools only, and some of its clients leave the type out.
 */
export function chatFunctionToolsAt(
  value: unknown,
  options: { readonly typeMayBeLeftOut: boolean },
): ToolDefinition[] {
  if (value === undefined || value === null) return [];
  const tools = arrayAt(value, 'tools', 'an array of tools').map((entry, index): ToolDefinition => {
    const path = `tools[${index}]`;
    const tool = fieldsAt(entry, path, 'a tool object ({type, function})');
    const typeLeftOut = tool.type === undefined || tool.type === null;
    if (tool.type !== 'function' && !(options.typeMayBeLeftOut && typeLeftOut))
      throw mustBe(
        tool.type,
        `${path}.type`,
        '"function" (the proxy describes function tools to the model)',
      );
    const fn = fieldsAt(
      tool.function,
      `${path}.function`,
      'an object ({name, description, parameters})',
    );
    const description = optionalStringAt(fn.description, `${path}.function.description`);
    // Kept for the proxy's constrained decoding (a strict tool is enforced by the server's grammar).
    const strict = booleanAt(fn.strict, `${path}.function.strict`, false);
    return {
      name: nameAt(fn.name, `${path}.function.name`),
      ...(description === undefined ? {} : { description }),
      inputSchema: schemaAt(fn.parameters, `${path}.function.parameters`),
      ...(strict ? { strict } : {}),
    };
  });
  checkUniqueNames(
    tools.map((tool) => tool.name),
    'tools',
  );
  return tools;
}

/**
 * A tool choice the policy cannot follow with the declared tools is a 400. Each API spells it
 * its own way: where its "required" choice is and what it is called, and where the tool's name is.
 */
export function checkToolChoiceFits(
  choice: ToolChoiceSetting,
  tools: readonly ToolDefinition[],
  spelling: { readonly requiredAt: string; readonly required: string; readonly nameAt: string },
): void {
  const planned = planToolChoice(choice, tools);
  if (!isToolChoiceConflict(planned)) return;
  if (planned.conflict === 'no-tools')
    throw invalid(
      spelling.requiredAt,
      `is ${spelling.required}, but the request declares no tools`,
    );
  throw invalid(
    spelling.nameAt,
    `names the tool "${planned.toolName}", which is not among the request's tools`,
  );
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
      throw mustBe(
        fields.type,
        `${path}[${index}].type`,
        '"text" here (only text is accepted in this place)',
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
      : `must be 1: the proxy reads one reply per request, not ${describeValue(value)}`,
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

/**
 * JSON text a request carries (a call's arguments), read within the request's limits: the value,
 * or a 400 for text that is not JSON or nests too deep, a 413 for too many values.
 */
export function jsonTextAt(text: string, path: string, texts: JsonTextReader): unknown {
  const read = texts.parse(text);
  if ('value' in read) return read.value;
  if (read.problem === 'syntax') throw invalid(path, `is not JSON text: ${read.message}`);
  if (read.problem === 'maxDepth')
    throw invalid(
      path,
      'nests arrays and objects deeper than the proxy reads (limits.maxJsonDepth)',
    );
  throw new HttpError(
    413,
    `${path} holds more JSON values than the proxy reads in one request (limits.maxJsonValues)`,
    { param: path },
  );
}
