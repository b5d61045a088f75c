import { type JsonSchema, setOwnProperty } from '../core/index.ts';
import { parseJson, parseLenientJson } from '../scan/lenient-json.ts';
import {
  ALL_TYPES,
  ARRAY,
  BOOLEAN,
  conjuncts,
  FRACTIONAL,
  isUnconstrained,
  itemSchema,
  NULL,
  NUMBER,
  OBJECT,
  own,
  ownTypeBits,
  propertySchema,
  resolveSchema,
  type SchemaObject,
  STRING,
  typeMask,
  unions,
  valueTypeBit,
} from './resolve.ts';
import { allowedValues, matchesShallowly } from './shallow-match.ts';

/** Values nested deeper than this are left as they are (and cyclic values end here). */
const MAX_VALUE_DEPTH = 256;

const NUMBER_LITERAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const INTEGER_LITERAL = /^[+-]?\d+$/;

/** Returned by a conversion that does not apply. */
const NO_CONVERSION: unique symbol = Symbol('no conversion');
type Conversion = unknown | typeof NO_CONVERSION;

/**
 * Coerces a value toward what its schema wants, the way models get types wrong: numbers and
 * booleans written as text (XML parameters are always text), objects and arrays written as JSON
 * text, a lone value where a list is wanted, an enum value in the wrong case. A value whose type
 * the schema already admits is kept; a value nothing applies to is left for validation to
 * report. Pure (the input is never mutated; unchanged parts are returned as they are), total
 * (never throws) and cheap (no schema compilation).
 */
export function coerceBySchema(value: unknown, schema?: JsonSchema, root?: JsonSchema): unknown {
  const base = root ?? schema ?? true;
  try {
    return coerceAt(value, schema ?? true, base, 0);
  } catch {
    // Totality: a value with throwing getters or a proxy is returned as it came.
    return value;
  }
}

/**
 * Types a value a model wrote as text (an XML or parameter-tag value: formats with no syntax
 * for types) by its schema. The one rule for every such format, for unions above all:
 *
 * - Where the schema admits no string, the text converts as coerceBySchema converts a string
 *   (numbers, booleans, null, objects and arrays written as JSON, loosely written enum values).
 * - Where it admits strings only, the text is the string (or the enum value it loosely names).
 * - Where it admits strings and other types (`["string","integer"]`, `["string","null"]`,
 *   `nullable`, `anyOf`/`oneOf` with a string branch, no schema at all), text that is a JSON
 *   document (RFC 8259: white space around it allowed, nothing repaired) whose value is of a
 *   type the schema admits besides string is that value: `null`; `true`/`false`; a number
 *   (integral where only integers are admitted, and only if it prints back as written); an
 *   object or an array the schema admits at that level (what is inside is validation's to
 *   judge, so a wrong object is reported, not passed on as a string). Any other text, a JSON
 *   string literal included, is the string exactly as written: white space kept, no case
 *   folding, nothing guessed. (llama.cpp and vLLM type union values the same way.)
 *
 * Pure and total, like coerceBySchema.
 */
export function coerceText(text: string, schema?: JsonSchema, root?: JsonSchema): unknown {
  const base = root ?? schema ?? true;
  try {
    const resolved = resolveSchema(schema ?? true, base);
    const mask =
      typeof resolved === 'boolean' ? (resolved ? ALL_TYPES : 0) : typeMask(resolved, base);
    if ((mask & STRING) === 0 || (mask & ~STRING) === 0) return coerceAt(text, resolved, base, 0);
    const typed = jsonTextValue(text, mask);
    if (typed !== NO_CONVERSION && matchesShallowly(typed, resolved, base)) {
      return coerceAt(typed, resolved, base, 0);
    }
    return coerceAt(text, resolved, base, 0);
  } catch {
    return text;
  }
}

/** The value of `text` as strict JSON when it is of a type in `mask` other than string. */
function jsonTextValue(text: string, mask: number): Conversion {
  const value = parseJson(text);
  if (value === undefined || typeof value === 'string') return NO_CONVERSION;
  if ((valueTypeBit(value) & mask & ~STRING) === 0) return NO_CONVERSION;
  if (typeof value === 'number') {
    const trimmed = text.trim();
    if (INTEGER_LITERAL.test(trimmed) && !printsAsWritten(trimmed, value)) return NO_CONVERSION;
  }
  return value;
}

function coerceAt(
  value: unknown,
  schema: JsonSchema,
  root: JsonSchema,
  depth: number,
  mayWrap = true,
): unknown {
  if (depth > MAX_VALUE_DEPTH) return value;
  const resolved = resolveSchema(schema, root);
  if (typeof resolved === 'boolean') return value;
  const facts = factsOf(resolved);
  if (facts.unconstrained) return value;
  let result = value;
  let wrapped = false;
  if (!accepts(value, resolved, root, facts)) {
    const mask = facts.flat ? facts.typeMask : typeMask(resolved, root);
    const converted = convert(value, resolved, root, mask, facts);
    if (converted !== NO_CONVERSION) {
      result = converted;
    } else if (mayWrap && mask & ARRAY && isWrappable(value)) {
      // Last: a lone value becomes a list of one.
      const list = [value];
      if (accepts(list, resolved, root, facts)) {
        result = list;
        wrapped = true;
      }
    }
  }
  if (Array.isArray(result)) return coerceItems(result, resolved, root, depth, wrapped);
  if (isPlainObject(result)) return coerceProperties(result, resolved, root, depth);
  return result;
}

/**
 * What coercion asks of a schema object, worked out once per object: parsers coerce nearly
 * every value of every call, and walking the schema each time cost about a microsecond a value.
 * `flat` schemas (no `allOf`, `$ref` or unions, by far the most common) are answered from here
 * alone; the others take the general walk, which depends on the root.
 */
interface SchemaFacts {
  /** Only annotations: every value is kept. */
  readonly unconstrained: boolean;
  readonly flat: boolean;
  /** For flat schemas: the `type` bits, and those narrowed by `const`/`enum`. */
  readonly typeBits: number;
  readonly typeMask: number;
  readonly hasConst: boolean;
  readonly constValue: unknown;
  readonly enumValues: readonly unknown[] | undefined;
}

const schemaFacts = new WeakMap<SchemaObject, SchemaFacts>();

function factsOf(schema: SchemaObject): SchemaFacts {
  let facts = schemaFacts.get(schema);
  if (facts === undefined) {
    // Whether a schema is flat does not depend on the root: only what its `$ref` points to does.
    const flat = conjuncts(schema, true).length === 0 && unions(schema).length === 0;
    const listed = own(schema, 'enum');
    facts = {
      unconstrained: isUnconstrained(schema),
      flat,
      typeBits: ownTypeBits(schema),
      typeMask: flat ? typeMask(schema, schema) : 0,
      hasConst: Object.hasOwn(schema, 'const'),
      constValue: schema.const,
      enumValues: Array.isArray(listed) ? listed : undefined,
    };
    schemaFacts.set(schema, facts);
  }
  return facts;
}

/** matchesShallowly, answered from the facts when the schema is flat. */
function accepts(value: unknown, schema: SchemaObject, root: JsonSchema, facts: SchemaFacts) {
  if (!facts.flat) return matchesShallowly(value, schema, root);
  if ((facts.typeBits & valueTypeBit(value)) === 0) return false;
  if (!facts.hasConst && facts.enumValues === undefined) return true;
  if (typeof value === 'object' && value !== null) return matchesShallowly(value, schema, root);
  // A scalar equals a `const`/`enum` value as JSON exactly when it is identical to it.
  return (
    (!facts.hasConst || facts.constValue === value) &&
    (facts.enumValues === undefined || facts.enumValues.includes(value))
  );
}

/**
 * Null more likely means "no list" than a list of null; arrays are never wrapped (a value just
 * wrapped is not wrapped again either, or a recursive schema would nest it without end).
 */
function isWrappable(value: unknown): boolean {
  return value !== null && value !== undefined && !Array.isArray(value);
}

/** The first conversion that makes the value acceptable, in the order that loses least. */
function convert(
  value: unknown,
  schema: SchemaObject,
  root: JsonSchema,
  mask: number,
  facts: SchemaFacts,
): Conversion {
  const allowed = matchAllowedValue(value, schema, root, facts);
  if (allowed !== NO_CONVERSION) return allowed;
  // Straight-line rather than a list of attempts: this runs for most values a model writes as
  // text (every XML number and boolean), and closures per call showed up in profiles.
  if (typeof value === 'string') {
    if (mask & OBJECT) {
      const candidate = parseJsonText(value, 'object');
      if (acceptable(candidate, schema, root, facts)) return candidate;
    }
    if (mask & ARRAY) {
      const candidate = parseJsonText(value, 'array');
      if (acceptable(candidate, schema, root, facts)) return candidate;
    }
    if (mask & NUMBER) {
      const candidate = parseNumber(value, (mask & FRACTIONAL) !== 0);
      if (acceptable(candidate, schema, root, facts)) return candidate;
    }
    if (mask & BOOLEAN) {
      const candidate = parseBoolean(value);
      if (acceptable(candidate, schema, root, facts)) return candidate;
    }
    if (mask & NULL) {
      const candidate = parseNull(value, (mask & STRING) !== 0);
      if (acceptable(candidate, schema, root, facts)) return candidate;
    }
  } else if (isPlainObject(value) && mask & ARRAY) {
    const candidate = unwrapList(value);
    if (acceptable(candidate, schema, root, facts)) return candidate;
  }
  if ((typeof value === 'number' || typeof value === 'boolean') && mask & STRING) {
    const candidate = String(value);
    if (acceptable(candidate, schema, root, facts)) return candidate;
  }
  return NO_CONVERSION;
}

function acceptable(
  candidate: Conversion,
  schema: SchemaObject,
  root: JsonSchema,
  facts: SchemaFacts,
): boolean {
  return candidate !== NO_CONVERSION && accepts(candidate, schema, root, facts);
}

/**
 * A scalar written loosely for one of the schema's `const`/`enum` values: `" Celsius "` for
 * `"celsius"`, `"1"` for `1`. Exact after trimming wins over case-insensitive; a case-insensitive
 * match that could mean two values is no match.
 */
function matchAllowedValue(
  value: unknown,
  schema: SchemaObject,
  root: JsonSchema,
  facts: SchemaFacts,
): Conversion {
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
    return NO_CONVERSION;
  }
  if (facts.flat && !facts.hasConst && facts.enumValues === undefined) return NO_CONVERSION;
  const candidates = allowedValues(schema, root);
  if (candidates.length === 0) return NO_CONVERSION;
  const text = String(value).trim();
  const lower = text.toLowerCase();
  let loose: Conversion = NO_CONVERSION;
  let ambiguous = false;
  for (const candidate of candidates) {
    if (candidate !== null && typeof candidate === 'object') continue;
    const candidateText = String(candidate);
    if (candidateText === text || (typeof candidate === 'string' && candidate.trim() === text)) {
      if (accepts(candidate, schema, root, facts)) return candidate;
    } else if (candidateText.trim().toLowerCase() === lower && !Object.is(candidate, loose)) {
      if (!accepts(candidate, schema, root, facts)) continue;
      ambiguous ||= loose !== NO_CONVERSION;
      loose = candidate;
    }
  }
  return ambiguous ? NO_CONVERSION : loose;
}

/**
 * JSON text of an object or array. Broken JSON (single quotes, trailing commas, Python
 * literals) is repaired only when the text is bracketed as the kind wanted, so prose is never
 * "repaired" into structure.
 */
function parseJsonText(text: string, kind: 'object' | 'array'): Conversion {
  const trimmed = text.trim();
  const [open, close] = kind === 'object' ? ['{', '}'] : ['[', ']'];
  if (!trimmed.startsWith(open)) return NO_CONVERSION;
  // Repaired only when it is closed: text cut short is not taken for a value.
  const parsed = trimmed.endsWith(close) ? parseLenientJson(trimmed) : parseJson(trimmed);
  const isArray = Array.isArray(parsed);
  const isObject = typeof parsed === 'object' && parsed !== null && !isArray;
  return (kind === 'array' ? isArray : isObject) ? parsed : NO_CONVERSION;
}

function parseNumber(text: string, fractionAllowed: boolean): Conversion {
  const trimmed = text.trim();
  if (!NUMBER_LITERAL.test(trimmed)) return NO_CONVERSION;
  const parsed = Number(trimmed);
  if (!Number.isFinite(parsed)) return NO_CONVERSION;
  // An id like "12345678901234567890" would silently change: keep the text.
  if (INTEGER_LITERAL.test(trimmed) && !printsAsWritten(trimmed, parsed)) return NO_CONVERSION;
  if (!fractionAllowed && !Number.isInteger(parsed)) return NO_CONVERSION;
  return parsed;
}

/**
 * Whether an integer literal comes back when its number is printed: "32170083830782430" does
 * (the number prints as the same digits), "12345678901234567890" does not.
 */
function printsAsWritten(literal: string, parsed: number): boolean {
  // Every safe integer prints as the digits it was read from (leading zeros and a sign aside,
  // which BigInt reads the same way).
  if (Number.isSafeInteger(parsed)) return true;
  try {
    return BigInt(literal) === BigInt(String(parsed));
  } catch {
    // Past 1e21 numbers print in exponent form: keep such text as it is.
    return false;
  }
}

function parseBoolean(text: string): Conversion {
  const normalized = text.trim().toLowerCase();
  if (normalized === 'true') return true;
  if (normalized === 'false') return false;
  return NO_CONVERSION;
}

function parseNull(text: string, stringAdmitted: boolean): Conversion {
  const trimmed = text.trim();
  if (trimmed.toLowerCase() === 'null') return null;
  // An empty XML element for a value that may be null but never text.
  if (trimmed === '' && !stringAdmitted) return null;
  return NO_CONVERSION;
}

/** `{ item: [...] }` or `{ item: x }`: how XML writes a list (`<item>` children). */
function unwrapList(value: Record<string, unknown>): Conversion {
  const keys = Object.keys(value);
  if (keys.length !== 1 || keys[0] !== 'item') return NO_CONVERSION;
  const items = value.item;
  return Array.isArray(items) ? items : [items];
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function coerceItems(
  items: readonly unknown[],
  schema: JsonSchema,
  root: JsonSchema,
  depth: number,
  wrapped: boolean,
): unknown[] {
  let copy: unknown[] | undefined;
  for (let index = 0; index < items.length; index++) {
    const itemSchemaHere = itemSchema(schema, index, root);
    if (isUnconstrained(itemSchemaHere)) continue;
    const item = items[index];
    const coerced = coerceAt(item, itemSchemaHere, root, depth + 1, !wrapped);
    if (coerced === item) continue;
    copy ??= items.slice();
    copy[index] = coerced;
  }
  return copy ?? (items as unknown[]);
}

function coerceProperties(
  object: Record<string, unknown>,
  schema: JsonSchema,
  root: JsonSchema,
  depth: number,
): Record<string, unknown> {
  const keys = Object.keys(object);
  let changed: Map<string, unknown> | undefined;
  for (const key of keys) {
    const propertySchemaHere = propertySchema(schema, key, root);
    if (isUnconstrained(propertySchemaHere)) continue;
    const member = object[key];
    const coerced = coerceAt(member, propertySchemaHere, root, depth + 1);
    if (coerced === member) continue;
    changed ??= new Map();
    changed.set(key, coerced);
  }
  if (!changed) return object;
  // A fresh object, keys in their order; setOwnProperty keeps `__proto__` an own key.
  const copy: Record<string, unknown> = {};
  for (const key of keys)
    setOwnProperty(copy, key, changed.has(key) ? changed.get(key) : object[key]);
  return copy;
}
