import { BoundedCache } from '../core/bounded-cache.ts';
import {
  type JsonSchema,
  type StreamableKind,
  UNCONSTRAINED_POLICY,
  type ValuePolicy,
} from '../core/index.ts';
import { coerceBySchema, coerceText } from './coerce.ts';
import {
  ARRAY,
  createWalk,
  isUnconstrained,
  itemSchema,
  OBJECT,
  propertySchema,
  resolveSchema,
  STRING,
  typeMask,
} from './resolve.ts';
import { hasValueConstraints } from './shallow-match.ts';
import { createTextReading, registerTextReading } from './text-value.ts';

/** Child policies kept per parent; keys come from model output, so the cache is bounded. */
const MAX_CACHED_CHILDREN = 256;

/** Policies of whole tool schemas, so a parser may ask for one per call at no cost. */
const rootPolicies = new WeakMap<object, ValuePolicy>();

/**
 * How values may stream at the place `schema` describes (see ValuePolicy). It mirrors
 * coerceBySchema: a value whose type the schema admits and that no `const`/`enum` could rewrite
 * is kept as it is, and arrays are never restructured at their own level. So a string streams
 * when strings are admitted and no `const`/`enum` applies (a string the schema admits is never
 * turned into a number, even if numbers are admitted too); an object streams when objects are
 * admitted, unless arrays are admitted too and a `const`/`enum` could make coercion wrap or
 * unwrap it; an array streams when arrays are admitted.
 */
export function createValuePolicy(schema?: JsonSchema, root?: JsonSchema): ValuePolicy {
  const base = root ?? schema ?? true;
  const isRoot = typeof schema === 'object' && base === schema;
  if (isRoot) {
    const cached = rootPolicies.get(schema);
    if (cached) return cached;
  }
  const policy = buildPolicy(schema, base);
  if (isRoot) rootPolicies.set(schema, policy);
  return policy;
}

function buildPolicy(schema: JsonSchema | undefined, root: JsonSchema): ValuePolicy {
  const resolved = resolveSchema(schema, root);
  // Coercion leaves every value alone here, so everything may stream.
  if (resolved === false || isUnconstrained(resolved)) return UNCONSTRAINED_POLICY;

  const walk = createWalk();
  const mask = typeMask(resolved, root, walk);
  // A schema too tangled to walk fully gets no promises: every value is held and coerced.
  const known = !walk.exhausted;
  const rewritable = hasValueConstraints(resolved, root);
  const streamable: Record<StreamableKind, boolean> = {
    string: known && (mask & STRING) !== 0 && !rewritable,
    object: known && (mask & OBJECT) !== 0 && ((mask & ARRAY) === 0 || !rewritable),
    array: known && (mask & ARRAY) !== 0,
  };

  const properties = new BoundedCache<string, ValuePolicy>(MAX_CACHED_CHILDREN);
  const items = new BoundedCache<number, ValuePolicy>(MAX_CACHED_CHILDREN);
  const built: ValuePolicy = {
    streams: (kind) => streamable[kind] === true,
    property: (key) =>
      properties.getOrCreate(key, () => buildPolicy(propertySchema(resolved, key, root), root)),
    item: (index) =>
      items.getOrCreate(index, () => buildPolicy(itemSchema(resolved, index, root), root)),
    coerce: (value) => coerceBySchema(value, resolved, root),
  };
  // Formats that read values as text ask textReading(policy): the text is the string itself
  // only where strings are all the schema admits here, else coerceText types it.
  const asString = streamable.string && (mask & ~STRING) === 0;
  registerTextReading(
    built,
    createTextReading(mask, asString, rewritable || !known, (text) =>
      coerceText(text, resolved, root),
    ),
  );
  return built;
}
