import { jsonrepair } from 'jsonrepair';
import { type JsonSchema, setOwnProperty } from '../core/index.ts';
import {
  ARRAY,
  BOOLEAN,
  FRACTIONAL,
  isUnconstrained,
  itemSchema,
  NULL,
  NUMBER,
  OBJECT,
  propertySchema,
  resolveSchema,
  STRING,
  typeMask,
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

function coerceAt(
  value: unknown,
  schema: JsonSchema,
  root: JsonSchema,
  depth: number,
  mayWrap = true,
): unknown {
  if (depth > MAX_VALUE_DEPTH) return value;
  const resolved = resolveSchema(schema, root);
  if (resolved === false || isUnconstrained(resolved)) return value;
  let result = value;
  let wrapped = false;
  if (!matchesShallowly(value, resolved, root)) {
    const mask = typeMask(resolved, root);
    const converted = convert(value, resolved, root, mask);
    if (converted !== NO_CONVERSION) {
      result = converted;
    } else if (mayWrap && mask & ARRAY && isWrappable(value)) {
      // Last: a lone value becomes a list of one.
      const list = [value];
      if (matchesShallowly(list, resolved, root)) {
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
 * Null more likely means "no list" than a list of null; arrays are never wrapped (a value just
 * wrapped is not wrapped again either, or a recursive schema would nest it without end).
 */
function isWrappable(value: unknown): boolean {
  return value !== null && value !== undefined && !Array.isArray(value);
}

/** The first conversion that makes the value acceptable, in the order that loses least. */
function convert(value: unknown, schema: JsonSchema, root: JsonSchema, mask: number): Conversion {
  const accepts = (candidate: unknown) => matchesShallowly(candidate, schema, root);
  const allowed = matchAllowedValue(value, schema, root);
  if (allowed !== NO_CONVERSION) return allowed;
  const attempts: (() => Conversion)[] = [];
  if (typeof value === 'string') {
    if (mask & OBJECT) attempts.push(() => parseJsonText(value, 'object'));
    if (mask & ARRAY) attempts.push(() => parseJsonText(value, 'array'));
    if (mask & NUMBER) attempts.push(() => parseNumber(value, (mask & FRACTIONAL) !== 0));
    if (mask & BOOLEAN) attempts.push(() => parseBoolean(value));
    if (mask & NULL) attempts.push(() => parseNull(value, (mask & STRING) !== 0));
  } else if (isPlainObject(value) && mask & ARRAY) {
    attempts.push(() => unwrapList(value));
  }
  if ((typeof value === 'number' || typeof value === 'boolean') && mask & STRING) {
    attempts.push(() => String(value));
  }
  for (const attempt of attempts) {
    const candidate = attempt();
    if (candidate !== NO_CONVERSION && accepts(candidate)) return candidate;
  }
  return NO_CONVERSION;
}

/**
 * A scalar written loosely for one of the schema's `const`/`enum` values: `" Celsius "` for
 * `"celsius"`, `"1"` for `1`. Exact after trimming wins over case-insensitive; a case-insensitive
 * match that could mean two values is no match.
 */
function matchAllowedValue(value: unknown, schema: JsonSchema, root: JsonSchema): Conversion {
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
    return NO_CONVERSION;
  }
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
      if (matchesShallowly(candidate, schema, root)) return candidate;
    } else if (candidateText.trim().toLowerCase() === lower && !Object.is(candidate, loose)) {
      if (!matchesShallowly(candidate, schema, root)) continue;
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
  let parsed: unknown;
  try {
    // JSON.parse defines `__proto__` keys as own properties, never as prototypes.
    parsed = JSON.parse(trimmed);
  } catch {
    if (!trimmed.endsWith(close)) return NO_CONVERSION;
    try {
      parsed = JSON.parse(jsonrepair(trimmed));
    } catch {
      return NO_CONVERSION;
    }
  }
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
