/**
 * The JSON Schema of a whole reply, for servers that take nothing else (Ollama's `format`, LM
 * Studio's `response_format`), where the choice demands a call and the format's reply can be
 * JSON alone: its writer writes a batch of calls as one JSON value (xLAM's
 * `[{"name": …, "arguments": {…}}]`, Llama 3's `{"name": …, "parameters": {…}}`) and its reader
 * reads such a value back as calls (asked of it, see `bareJsonReading`).
 *
 * What a server writes under it, the parser reads as valid calls to declared tools:
 * - one branch per tool under `oneOf`, its name a `const`, its arguments the tool's input schema;
 * - the call object's keys those the writer writes, all required, no others, in the writer's
 *   order (schema converters write properties in order; Llama 3's reader needs `name` first);
 * - a list of calls where the format reads one (one call at most when not parallel), else a lone
 *   call object;
 * - any JSON white space between tokens (the bare-JSON readers take it: codecs/json/json-lead.ts).
 * Ollama turns the schema into a grammar with llama.cpp's json-schema-to-grammar, LM Studio with
 * the same (llama.cpp engine) or Outlines (MLX engine). So the schema holds no `$ref`: a tool's
 * local references are inlined (its `$defs` would not be at the root, where `#/$defs/…` points),
 * and a recursive schema, which not every converter takes, is refused; a bare `true` where a
 * schema stands is written `{}` (llama.cpp refuses a boolean schema).
 */
import type { JsonSchema, ToolCallProtocol, ToolDefinition } from '../../core/index.ts';
import { parseJsonText } from '../../core/parse-json.ts';
import { defineFormat } from '../spec/define.ts';
import type { FormatSpec } from '../spec/types.ts';
import { callWriter } from '../spec/writers.ts';
import { type CallsGrammarRequest, toolsInScope } from './calls-grammar.ts';
import { GrammarUnsupportedError } from './grammar-error.ts';
import type { ReplyShape } from './reply-shape.ts';

const NAME = '\u0001name\u0001';
const ARGUMENTS = { '\u0001arguments\u0001': true };

function parses(text: string): { value: unknown } | undefined {
  try {
    return { value: parseJsonText(text) };
  } catch {
    return undefined;
  }
}

/** What reads a reply: the format's protocol (`parseGeneratedText`). */
export type ReplyReader = Pick<ToolCallProtocol, 'parseGeneratedText'>;

/** Which replies of JSON alone a format's reader reads as calls. */
interface BareJsonReading {
  /** A list of call objects (`[{…}, {…}]`). */
  readonly list: boolean;
  /** One call object alone (`{…}`). */
  readonly lone: boolean;
}

const PROBE_TOOLS: readonly ToolDefinition[] = ['probe_tool', 'other_tool'].map((name) => ({
  name,
  inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
}));
const PROBE_CALLS = [
  { toolName: 'probe_tool', input: { text: 'a' } },
  { toolName: 'other_tool', input: { text: 'b' } },
];

/** Whether `reader`, with its own defaults, reads `text` as exactly `calls`, no fault. */
function readsAs(reader: ReplyReader, text: string, calls: typeof PROBE_CALLS): boolean {
  const events = reader.parseGeneratedText(text, { tools: PROBE_TOOLS });
  if (events.some((event) => event.type === 'error')) return false;
  const read = events.flatMap((event) =>
    event.type === 'tool-call' && event.problems === undefined
      ? [{ toolName: event.toolName, input: event.input }]
      : [],
  );
  return (
    JSON.stringify(read) ===
    JSON.stringify(calls.map((call) => ({ ...call, input: JSON.stringify(call.input) })))
  );
}

const readings = new WeakMap<object, BareJsonReading>();

/** White space a server's schema grammar may write between any two tokens. */
const ODD_SPACE = ' \t\r\n ';

/** `value` as JSON with white space between every two tokens. */
function spacedJson(value: unknown): string {
  if (Array.isArray(value)) {
    return `[${ODD_SPACE}${value.map(spacedJson).join(`${ODD_SPACE},${ODD_SPACE}`)}${ODD_SPACE}]`;
  }
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  const members = Object.entries(value).map(
    ([key, member]) => `${JSON.stringify(key)}${ODD_SPACE}:${ODD_SPACE}${spacedJson(member)}`,
  );
  return `{${ODD_SPACE}${members.join(`${ODD_SPACE},${ODD_SPACE}`)}${ODD_SPACE}}`;
}

/**
 * Whether the reader reads the writer's JSON alone, a list or a lone call object, compact,
 * indented and with white space between every two tokens (asked once per reader): a format whose
 * writer writes JSON may still read calls only inside its markup, or only in some layouts.
 */
function bareJsonReading(
  written: unknown,
  write: (calls: typeof PROBE_CALLS) => string,
  reader: ReplyReader,
): BareJsonReading {
  const known = readings.get(reader);
  if (known) return known;
  const both = parses(write(PROBE_CALLS))?.value;
  const first = Array.isArray(both) ? both[0] : parses(write(PROBE_CALLS.slice(0, 1)))?.value;
  const readsInLayouts = (value: unknown, calls: typeof PROBE_CALLS) =>
    value !== undefined &&
    [JSON.stringify(value), JSON.stringify(value, null, 2), spacedJson(value)].every((text) =>
      readsAs(reader, text, calls),
    );
  const reading = {
    list: Array.isArray(written) && Array.isArray(both) && readsInLayouts(both, PROBE_CALLS),
    lone: readsInLayouts(first, PROBE_CALLS.slice(0, 1)),
  };
  readings.set(reader, reading);
  return reading;
}

/** The spec's own reader, made once per spec, where the caller passed no protocol. */
const specReaders = new WeakMap<FormatSpec, ReplyReader>();
function specReader(spec: FormatSpec): ReplyReader {
  let reader = specReaders.get(spec);
  if (!reader) {
    reader = defineFormat(spec);
    specReaders.set(spec, reader);
  }
  return reader;
}

/** The schema of a written call object, the name and arguments taken from `tool`. */
function callSchemaOf(value: unknown, tool: ToolDefinition, format: string): JsonSchema {
  if (value === NAME) return { const: tool.name };
  if (typeof value === 'number') return { type: 'integer', minimum: 0 };
  if (Array.isArray(value)) return { const: value };
  if (typeof value !== 'object' || value === null) return { const: value };
  if (JSON.stringify(value) === JSON.stringify(ARGUMENTS)) return argumentsSchemaOf(tool, format);
  const properties: Record<string, JsonSchema> = {};
  for (const [key, member] of Object.entries(value)) {
    properties[key === NAME ? tool.name : key] = callSchemaOf(member, tool, format);
  }
  return {
    type: 'object',
    properties,
    required: Object.keys(properties),
    additionalProperties: false,
  };
}

export function replyJsonSchema(
  shape: ReplyShape,
  request: CallsGrammarRequest,
  /**
   * The format's protocol, whose reader is asked what it reads; default: the spec's own (without
   * the readers its hooks add).
   */
  reader: ReplyReader = specReader(shape.spec),
): JsonSchema {
  if (request.toolChoice === 'auto' || request.toolChoice === 'none') {
    throw new GrammarUnsupportedError(
      shape.format,
      `a JSON Schema holds the whole reply, so it is only for a tool choice that demands a call (not "${request.toolChoice}")`,
    );
  }
  const tools = toolsInScope(shape.format, request);
  const write = callWriter(shape.spec);
  const one = parses(write([{ toolName: NAME, input: ARGUMENTS }]));
  if (!one) {
    throw new GrammarUnsupportedError(shape.format, 'its calls are not written as JSON alone');
  }
  const callObject = Array.isArray(one.value) ? one.value[0] : one.value;
  if (Array.isArray(one.value)) {
    const two = parses(
      write([
        { toolName: NAME, input: ARGUMENTS },
        { toolName: NAME, input: ARGUMENTS },
      ]),
    );
    if (one.value.length !== 1 || !Array.isArray(two?.value) || two.value.length !== 2) {
      throw new GrammarUnsupportedError(
        shape.format,
        'its batch of calls is not a JSON list of calls',
      );
    }
  }
  if (typeof callObject !== 'object' || callObject === null || Array.isArray(callObject)) {
    throw new GrammarUnsupportedError(shape.format, 'its calls are not written as JSON objects');
  }
  const reading = bareJsonReading(one.value, write, reader);
  if (!reading.list && !reading.lone) {
    throw new GrammarUnsupportedError(
      shape.format,
      'its reader does not read a reply of JSON alone as calls, in every layout of white space',
    );
  }
  const branches = tools.map((tool) => callSchemaOf(callObject, tool, shape.format));
  const call: JsonSchema =
    branches.length === 1 ? (branches[0] as JsonSchema) : { oneOf: branches };
  // A lone call object where the format reads one and a list would hold no more than one call.
  if (!reading.list || (reading.lone && !request.parallelToolCalls)) return call;
  return {
    type: 'array',
    items: call,
    minItems: 1,
    ...(request.parallelToolCalls ? {} : { maxItems: 1 }),
  };
}

// ── a tool's input schema, as the servers' converters take it ─────────────────────────────────

/** Keywords whose value is data, never a schema. */
const DATA_KEYWORDS: ReadonlySet<string> = new Set(['const', 'enum', 'default', 'examples']);
/** Keywords whose value maps names to schemas. */
const SCHEMA_MAP_KEYWORDS: ReadonlySet<string> = new Set([
  'properties',
  'patternProperties',
  'dependentSchemas',
]);
/** Keywords whose value is a schema or a list of schemas. */
const SCHEMA_KEYWORDS: ReadonlySet<string> = new Set([
  'items',
  'prefixItems',
  'additionalItems',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'anyOf',
  'oneOf',
  'allOf',
]);
/** Keywords a boolean is the usual value of, which the converters read as it is. */
const BOOLEAN_KEYWORDS: ReadonlySet<string> = new Set([
  'additionalProperties',
  'unevaluatedProperties',
  'additionalItems',
  'unevaluatedItems',
  'items',
]);
/** Keywords that locate or annotate the schema, dropped once its references are inlined. */
const DROPPED_KEYWORDS: ReadonlySet<string> = new Set([
  '$defs',
  'definitions',
  '$schema',
  '$id',
  '$anchor',
  '$comment',
]);
/** The most schema objects a tool's schema may grow to once its `$ref`s are inlined. */
const MAX_INLINED_NODES = 20_000;

/** The object a local JSON pointer (`/$defs/point`) names in `root`, or undefined. */
function pointedAt(root: unknown, pointer: string): unknown {
  let node = root;
  for (const encoded of pointer.split('/').slice(1)) {
    let token: string;
    try {
      token = decodeURIComponent(encoded).replaceAll('~1', '/').replaceAll('~0', '~');
    } catch {
      return undefined;
    }
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, token)) return undefined;
    node = (node as Record<string, unknown>)[token];
  }
  return node;
}

/**
 * A `$ref` beside other keywords (a `description`, most often): both hold. They are merged where
 * no keyword differs, since llama.cpp's converter reads an `allOf` as a merge of object
 * properties only (an `allOf` around a string schema would become an empty object).
 */
function besideReference(target: JsonSchema, siblings: Record<string, unknown>): JsonSchema {
  if (typeof target !== 'object') return { allOf: [target, siblings] };
  const differs = Object.entries(siblings).some(
    ([key, value]) =>
      Object.hasOwn(target, key) && JSON.stringify(target[key]) !== JSON.stringify(value),
  );
  return differs ? { allOf: [target, siblings] } : { ...target, ...siblings };
}

/** Inlines a tool's local `$ref`s and writes its boolean schemas as the converters take them. */
class SchemaInliner {
  private nodes = 0;
  private readonly root: JsonSchema;
  private readonly refuse: (problem: string) => never;

  constructor(root: JsonSchema, refuse: (problem: string) => never) {
    this.root = root;
    this.refuse = refuse;
  }

  /** `schema` with no `$ref`; `expanding` holds the pointers being inlined (a cycle's guard). */
  schema(schema: unknown, expanding: readonly string[]): JsonSchema {
    if (schema === true) return {};
    if (schema === false) return this.refuse('a `false` schema allows no value');
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
      return this.refuse(`${JSON.stringify(schema)} is not a schema`);
    }
    if (++this.nodes > MAX_INLINED_NODES) {
      this.refuse(`its schema grows past ${MAX_INLINED_NODES} schemas once its $refs are inlined`);
    }
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(schema)) {
      if (key === '$ref' || DROPPED_KEYWORDS.has(key)) continue;
      if (DATA_KEYWORDS.has(key)) out[key] = value;
      else if (SCHEMA_MAP_KEYWORDS.has(key) && typeof value === 'object' && value !== null) {
        out[key] = Object.fromEntries(
          Object.entries(value).map(([name, member]) => [name, this.schema(member, expanding)]),
        );
      } else if (SCHEMA_KEYWORDS.has(key)) {
        out[key] =
          typeof value === 'boolean' && BOOLEAN_KEYWORDS.has(key)
            ? value
            : Array.isArray(value)
              ? value.map((member) => this.schema(member, expanding))
              : this.schema(value, expanding);
      } else out[key] = value;
    }
    const reference = (schema as { $ref?: unknown }).$ref;
    if (reference === undefined) return out;
    const target = this.referenced(reference, expanding);
    return Object.keys(out).length === 0 ? target : besideReference(target, out);
  }

  private referenced(reference: unknown, expanding: readonly string[]): JsonSchema {
    if (typeof reference !== 'string' || !reference.startsWith('#')) {
      return this.refuse(`$ref ${JSON.stringify(reference)} is not a reference inside the schema`);
    }
    const pointer = reference.slice(1);
    if (expanding.includes(pointer)) {
      return this.refuse(
        `it is recursive ($ref "${reference}" refers to a schema that holds it), which a JSON Schema for Ollama or LM Studio cannot be`,
      );
    }
    const target = pointedAt(this.root, pointer);
    if (target === undefined) return this.refuse(`$ref "${reference}" points at nothing`);
    return this.schema(target, [...expanding, pointer]);
  }
}

/** The tool's input schema as the call's arguments: an object, every `$ref` inlined. */
function argumentsSchemaOf(tool: ToolDefinition, format: string): JsonSchema {
  const refuse = (problem: string): never => {
    throw new GrammarUnsupportedError(format, `tool "${tool.name}": ${problem}`);
  };
  const schema = new SchemaInliner(tool.inputSchema, refuse).schema(tool.inputSchema, ['']);
  if (typeof schema !== 'object') return refuse('its input schema is not an object schema');
  const type = schema.type;
  if (type === undefined) return { type: 'object', ...schema };
  if (type === 'object') return schema;
  if (Array.isArray(type) && type.includes('object')) return { ...schema, type: 'object' };
  return refuse(`its input schema is of type ${JSON.stringify(type)}, not an object`);
}
