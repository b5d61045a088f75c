import type { JsonSchema } from '../core/index.ts';
import { trySchemaPattern } from './pattern.ts';

/** The JSON types a schema can admit. `integer` is a `number` that is integral. */
export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'null' | 'object' | 'array';

/** A schema object (the non-boolean form of JsonSchema). */
export type SchemaObject = { readonly [keyword: string]: unknown };

/** How many `$ref`s in a row are followed before a chain is taken for a cycle. */
export const MAX_REF_HOPS = 32;

/** How deep the walks through `allOf`/`anyOf`/`oneOf`/`$ref` go before giving up. */
const MAX_WALK_DEPTH = 48;

/** How many schema nodes one walk may visit: bounds the work on pathological schemas. */
const WALK_BUDGET = 4096;

/**
 * The state of one walk through a schema. Recursive schemas (`{ anyOf: [{ $ref: '#' }] }`) and
 * deep or wide ones are cut off by depth and by a visit budget; a cut-off walk answers as if the
 * rest were unconstrained, and records that it did so for callers that must be conservative.
 */
export interface SchemaWalk {
  remaining: number;
  exhausted: boolean;
}

export function createWalk(): SchemaWalk {
  return { remaining: WALK_BUDGET, exhausted: false };
}

/** Counts one visit; false when the walk must stop here. */
export function enterNode(walk: SchemaWalk, depth: number): boolean {
  if (depth > MAX_WALK_DEPTH || walk.remaining <= 0) {
    walk.exhausted = true;
    return false;
  }
  walk.remaining--;
  return true;
}

// Type bits. Numbers are split into integral and fractional so that `integer` is a subset of
// `number` and intersections and unions of types are plain bit operations.
export const STRING = 1;
export const BOOLEAN = 2;
export const NULL = 4;
export const OBJECT = 8;
export const ARRAY = 16;
export const INTEGRAL = 32;
export const FRACTIONAL = 64;
export const NUMBER = INTEGRAL | FRACTIONAL;
export const ALL_TYPES = STRING | BOOLEAN | NULL | OBJECT | ARRAY | NUMBER;

const TYPE_BITS: Readonly<Record<string, number>> = {
  string: STRING,
  boolean: BOOLEAN,
  null: NULL,
  object: OBJECT,
  array: ARRAY,
  integer: INTEGRAL,
  number: NUMBER,
};

/** Keywords that describe but do not constrain; a schema made only of these admits anything. */
const ANNOTATIONS = new Set([
  'title',
  'description',
  '$comment',
  'default',
  'examples',
  'example',
  'deprecated',
  'readOnly',
  'writeOnly',
  '$schema',
  '$id',
  'id',
  '$anchor',
  'definitions',
  '$defs',
  'markdownDescription',
]);

export function isSchemaObject(value: unknown): value is SchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** True for `true`, a missing schema, and schemas made only of annotations (`{}` included). */
export function isUnconstrained(schema: unknown): boolean {
  if (schema === true || schema === undefined) return true;
  if (!isSchemaObject(schema)) return false;
  for (const key in schema) {
    if (Object.hasOwn(schema, key) && !ANNOTATIONS.has(key)) return false;
  }
  return true;
}

/** Reads an own property only: schema keys like `constructor` must not reach Object.prototype. */
export function own(schema: SchemaObject, keyword: string): unknown {
  return Object.hasOwn(schema, keyword) ? schema[keyword] : undefined;
}

/** The type bit of a value; 0 for what JSON cannot hold (undefined, NaN, functions…). */
export function valueTypeBit(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return STRING;
    case 'boolean':
      return BOOLEAN;
    case 'number':
      if (Number.isInteger(value)) return INTEGRAL;
      return Number.isFinite(value) ? FRACTIONAL : 0;
    case 'object':
      if (value === null) return NULL;
      return Array.isArray(value) ? ARRAY : OBJECT;
    default:
      return 0;
  }
}

function decodePointerSegment(segment: string): string {
  let decoded = segment;
  // A `$ref` is a URI fragment, so it may be percent-encoded.
  if (decoded.includes('%')) {
    try {
      decoded = decodeURIComponent(decoded);
    } catch {
      // Not valid percent-encoding: use the segment as written.
    }
  }
  return decoded.replaceAll('~1', '/').replaceAll('~0', '~');
}

/** The schema a local `$ref` points to inside `root`, or undefined when it cannot be found. */
function lookUpReference(reference: string, root: JsonSchema): unknown {
  let fragment: string;
  const hash = reference.indexOf('#');
  if (hash === 0) {
    fragment = reference.slice(1);
  } else {
    // `https://example.com/tool#/definitions/x` is local when it names the root's own `$id`.
    const rootId = isSchemaObject(root) ? own(root, '$id') : undefined;
    const base = hash < 0 ? reference : reference.slice(0, hash);
    if (typeof rootId !== 'string' || rootId.replace(/#$/, '') !== base) return undefined;
    fragment = hash < 0 ? '' : reference.slice(hash + 1);
  }
  if (fragment === '') return root;
  // Plain-name fragments (`#foo`, `$anchor`) are not supported: treated as unresolvable.
  if (!fragment.startsWith('/')) return undefined;
  let current: unknown = root;
  for (const segment of fragment.slice(1).split('/')) {
    const key = decodePointerSegment(segment);
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, key)) {
      return undefined;
    }
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function onlyReference(schema: SchemaObject): boolean {
  for (const key in schema) {
    if (Object.hasOwn(schema, key) && key !== '$ref' && !ANNOTATIONS.has(key)) return false;
  }
  return true;
}

/**
 * Follows local `$ref`s until a schema that says something itself. A `$ref` with constraining
 * siblings (`{ $ref, type }`) is returned as it is: the walks treat its `$ref` as one more
 * `allOf` member. Unresolvable, remote and cyclic references resolve to `true` (unconstrained):
 * coercion then leaves the value alone and validation reports what is wrong.
 */
export function resolveSchema(schema: JsonSchema | undefined, root?: JsonSchema): JsonSchema {
  const base = root ?? schema ?? true;
  let current: unknown = schema ?? true;
  for (let hops = 0; hops <= MAX_REF_HOPS; hops++) {
    if (typeof current === 'boolean') return current;
    if (!isSchemaObject(current)) return true;
    const reference = own(current, '$ref');
    if (typeof reference !== 'string' || !onlyReference(current)) return current;
    current = lookUpReference(reference, base);
  }
  return true;
}

/** The target of a `$ref` that sits beside other keywords, to be walked as an `allOf` member. */
function siblingReference(schema: SchemaObject, root: JsonSchema): JsonSchema | undefined {
  const reference = own(schema, '$ref');
  if (typeof reference !== 'string') return undefined;
  const target = lookUpReference(reference, root);
  return isSchemaObject(target) || typeof target === 'boolean' ? target : true;
}

/** Members every one of which the value must satisfy: `allOf`, plus a sibling `$ref`. */
export function conjuncts(schema: SchemaObject, root: JsonSchema): JsonSchema[] {
  const members: JsonSchema[] = [];
  const allOf = own(schema, 'allOf');
  if (Array.isArray(allOf)) {
    for (const member of allOf) if (isSchemaLike(member)) members.push(member);
  }
  const reference = siblingReference(schema, root);
  if (reference !== undefined) members.push(reference);
  return members;
}

/** The `anyOf` and `oneOf` groups: the value must satisfy some member of each. */
export function unions(schema: SchemaObject): JsonSchema[][] {
  const groups: JsonSchema[][] = [];
  for (const keyword of ['anyOf', 'oneOf']) {
    const group = own(schema, keyword);
    if (Array.isArray(group) && group.length > 0) groups.push(group.filter(isSchemaLike));
  }
  return groups;
}

function isSchemaLike(value: unknown): value is JsonSchema {
  return typeof value === 'boolean' || isSchemaObject(value);
}

/** The bits of the `type` keyword (with OpenAPI `nullable`), or ALL_TYPES when there is none. */
export function ownTypeBits(schema: SchemaObject): number {
  const type = own(schema, 'type');
  let bits = 0;
  if (typeof type === 'string') {
    bits = TYPE_BITS[type] ?? 0;
  } else if (Array.isArray(type)) {
    for (const name of type) if (typeof name === 'string') bits |= TYPE_BITS[name] ?? 0;
  }
  // An unknown or empty `type` is the schema's error to report, not a reason to reject values.
  if (bits === 0) return ALL_TYPES;
  if (own(schema, 'nullable') === true) bits |= NULL;
  return bits;
}

/** Type bits of the value-level keywords `const` and `enum`. */
function ownValueBits(schema: SchemaObject): number {
  let bits = ALL_TYPES;
  if (Object.hasOwn(schema, 'const')) bits &= valueTypeBit(schema.const);
  const allowed = own(schema, 'enum');
  if (Array.isArray(allowed)) {
    let enumBits = 0;
    for (const value of allowed) enumBits |= valueTypeBit(value);
    bits &= enumBits;
  }
  return bits;
}

/** The type bits a schema admits (see schemaTypes). */
export function typeMask(
  schema: JsonSchema | undefined,
  root: JsonSchema | undefined,
  walk: SchemaWalk = createWalk(),
  depth = 0,
): number {
  const base = root ?? schema ?? true;
  const resolved = resolveSchema(schema, base);
  if (typeof resolved === 'boolean') return resolved ? ALL_TYPES : 0;
  if (!enterNode(walk, depth)) return ALL_TYPES;
  let mask = ownTypeBits(resolved) & ownValueBits(resolved);
  for (const member of conjuncts(resolved, base)) {
    if (mask === 0) return 0;
    mask &= typeMask(member, base, walk, depth + 1);
  }
  for (const group of unions(resolved)) {
    if (mask === 0) return 0;
    let union = 0;
    for (const branch of group) union |= typeMask(branch, base, walk, depth + 1);
    mask &= union;
  }
  return mask;
}

/** Names for type bits: `number` when both number bits are set, `integer` for integral only. */
export function typeNames(mask: number): Set<JsonType> {
  const names = new Set<JsonType>();
  if (mask & STRING) names.add('string');
  if ((mask & NUMBER) === NUMBER || mask & FRACTIONAL) names.add('number');
  else if (mask & INTEGRAL) names.add('integer');
  if (mask & BOOLEAN) names.add('boolean');
  if (mask & NULL) names.add('null');
  if (mask & OBJECT) names.add('object');
  if (mask & ARRAY) names.add('array');
  return names;
}

/**
 * The JSON types a schema admits, from `type`, `nullable`, `const`, `enum`, intersected over
 * `allOf` and united over `anyOf`/`oneOf`. `number` includes integers; `integer` alone means
 * only integral numbers. `true` admits every type, `false` none.
 */
export function schemaTypes(schema: JsonSchema | undefined, root?: JsonSchema): Set<JsonType> {
  return typeNames(typeMask(schema, root));
}

/** A subschema found for a property or item, and whether a keyword named it specifically. */
interface Child {
  readonly schema: JsonSchema;
  /** Named by `properties`/`patternProperties`/a tuple position, not just a catch-all. */
  readonly explicit: boolean;
}

const UNCONSTRAINED_CHILD: Child = { schema: true, explicit: false };

function child(value: unknown, explicit: boolean): Child {
  return { schema: isSchemaLike(value) ? value : true, explicit };
}

function ownPropertyChild(schema: SchemaObject, key: string): Child {
  const properties = own(schema, 'properties');
  if (isSchemaObject(properties) && Object.hasOwn(properties, key)) {
    return child(properties[key], true);
  }
  const patterns = own(schema, 'patternProperties');
  if (isSchemaObject(patterns)) {
    for (const pattern in patterns) {
      if (!Object.hasOwn(patterns, pattern)) continue;
      // Matched in linear time: the key comes from a model, the pattern from whoever declared
      // the tool. A pattern the linear engine refuses names no key here (validation reports it).
      if (trySchemaPattern(pattern)?.test(key)) return child(patterns[pattern], true);
    }
  }
  const additional = own(schema, 'additionalProperties');
  return additional === undefined ? UNCONSTRAINED_CHILD : child(additional, false);
}

function ownItemChild(schema: SchemaObject, index: number): Child {
  const prefix = own(schema, 'prefixItems');
  const items = own(schema, 'items');
  if (Array.isArray(prefix)) {
    if (index < prefix.length) return child(prefix[index], true);
    if (isSchemaLike(items)) return child(items, true);
  } else if (Array.isArray(items)) {
    if (index < items.length) return child(items[index], true);
  } else if (items !== undefined) {
    return child(items, true);
  }
  const additional = own(schema, 'additionalItems');
  return additional === undefined ? UNCONSTRAINED_CHILD : child(additional, false);
}

/** All of these must hold: `false` wins, unconstrained parts drop out. */
function intersect(parts: readonly JsonSchema[]): JsonSchema {
  const kept: JsonSchema[] = [];
  for (const part of parts) {
    if (part === false) return false;
    if (!isUnconstrained(part) && !kept.includes(part)) kept.push(part);
  }
  if (kept.length === 0) return true;
  return kept.length === 1 ? kept[0]! : { allOf: kept };
}

/**
 * The subschema for a child of a value (property or item), through `allOf`, sibling `$ref`,
 * and `anyOf`/`oneOf`. For a union, only branches that admit the parent's kind count, and of
 * those the ones that name the child specifically win (a discriminated union's `x` comes from
 * the branch that declares `x`, not from another branch's catch-all).
 */
function childOf(
  schema: JsonSchema | undefined,
  root: JsonSchema,
  kindBit: number,
  ownChild: (schema: SchemaObject) => Child,
  walk: SchemaWalk,
  depth: number,
): Child {
  const resolved = resolveSchema(schema, root);
  if (typeof resolved === 'boolean') return { schema: resolved, explicit: false };
  if (!enterNode(walk, depth)) return UNCONSTRAINED_CHILD;
  const first = ownChild(resolved);
  const parts: JsonSchema[] = [first.schema];
  let explicit = first.explicit;
  for (const member of conjuncts(resolved, root)) {
    const found = childOf(member, root, kindBit, ownChild, walk, depth + 1);
    parts.push(found.schema);
    explicit ||= found.explicit;
  }
  for (const group of unions(resolved)) {
    const found = unionChild(group, root, kindBit, ownChild, walk, depth + 1);
    parts.push(found.schema);
    explicit ||= found.explicit;
  }
  return { schema: intersect(parts), explicit };
}

function unionChild(
  branches: readonly JsonSchema[],
  root: JsonSchema,
  kindBit: number,
  ownChild: (schema: SchemaObject) => Child,
  walk: SchemaWalk,
  depth: number,
): Child {
  const found: Child[] = [];
  for (const branch of branches) {
    if ((typeMask(branch, root, walk, depth) & kindBit) === 0) continue;
    found.push(childOf(branch, root, kindBit, ownChild, walk, depth));
  }
  const anyExplicit = found.some((candidate) => candidate.explicit);
  const chosen: JsonSchema[] = [];
  let sawForbidden = false;
  for (const candidate of found) {
    if (anyExplicit && !candidate.explicit) continue;
    // A branch that forbids the child is just not the branch this value follows.
    if (candidate.schema === false) {
      sawForbidden = true;
      continue;
    }
    if (isUnconstrained(candidate.schema)) return { schema: true, explicit: anyExplicit };
    if (!chosen.includes(candidate.schema)) chosen.push(candidate.schema);
  }
  if (chosen.length === 0) return { schema: !sawForbidden, explicit: anyExplicit };
  return {
    schema: chosen.length === 1 ? chosen[0]! : { anyOf: chosen },
    explicit: anyExplicit,
  };
}

/**
 * The subschema for property `key` of an object: `properties`, then `patternProperties`, then
 * `additionalProperties`, through `allOf` and unions. `true` when unconstrained, `false` when
 * the property is forbidden. Several applicable subschemas come back as one `allOf`/`anyOf`.
 */
export function propertySchema(
  schema: JsonSchema | undefined,
  key: string,
  root?: JsonSchema,
): JsonSchema {
  const base = root ?? schema ?? true;
  const lookup = (object: SchemaObject) => ownPropertyChild(object, key);
  return childOf(schema, base, OBJECT, lookup, createWalk(), 0).schema;
}

/**
 * The subschema for element `index` of an array: `prefixItems` (or a tuple `items` array),
 * then `items`, then `additionalItems`, through `allOf` and unions.
 */
export function itemSchema(
  schema: JsonSchema | undefined,
  index: number,
  root?: JsonSchema,
): JsonSchema {
  const base = root ?? schema ?? true;
  const lookup = (object: SchemaObject) => ownItemChild(object, index);
  return childOf(schema, base, ARRAY, lookup, createWalk(), 0).schema;
}
