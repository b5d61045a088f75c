import type { JsonSchema } from '../core/index.ts';
import {
  conjuncts,
  createWalk,
  enterNode,
  own,
  ownTypeBits,
  resolveSchema,
  type SchemaObject,
  type SchemaWalk,
  unions,
  valueTypeBit,
} from './resolve.ts';

const MAX_EQUALITY_DEPTH = 64;

/** Structural equality of JSON values, as `const` and `enum` compare them. */
export function jsonEqual(left: unknown, right: unknown, depth = 0): boolean {
  if (left === right) return true;
  if (depth > MAX_EQUALITY_DEPTH) return false;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) {
    return false;
  }
  if (Array.isArray(left) !== Array.isArray(right)) return false;
  if (Array.isArray(left) && Array.isArray(right)) {
    if (left.length !== right.length) return false;
    for (let index = 0; index < left.length; index++) {
      if (!jsonEqual(left[index], right[index], depth + 1)) return false;
    }
    return true;
  }
  const leftKeys = Object.keys(left);
  if (leftKeys.length !== Object.keys(right).length) return false;
  for (const key of leftKeys) {
    if (!Object.hasOwn(right, key)) return false;
    const leftValue = (left as Record<string, unknown>)[key];
    const rightValue = (right as Record<string, unknown>)[key];
    if (!jsonEqual(leftValue, rightValue, depth + 1)) return false;
  }
  return true;
}

function ownValuesAccept(schema: SchemaObject, value: unknown): boolean {
  if (Object.hasOwn(schema, 'const') && !jsonEqual(schema.const, value)) return false;
  const allowed = own(schema, 'enum');
  if (Array.isArray(allowed) && !allowed.some((candidate) => jsonEqual(candidate, value))) {
    return false;
  }
  return true;
}

/**
 * Whether the value has a type the schema admits and passes its `const`/`enum`, looking through
 * `allOf`, `$ref` and unions but not into members or at bounds (`minimum`, `pattern`…): the
 * question coercion asks before converting anything. A walk that is cut off answers true.
 */
export function matchesShallowly(
  value: unknown,
  schema: JsonSchema | undefined,
  root: JsonSchema,
  walk: SchemaWalk = createWalk(),
  depth = 0,
): boolean {
  const resolved = resolveSchema(schema, root);
  if (typeof resolved === 'boolean') return resolved;
  if (!enterNode(walk, depth)) return true;
  if ((ownTypeBits(resolved) & valueTypeBit(value)) === 0) return false;
  if (!ownValuesAccept(resolved, value)) return false;
  for (const member of conjuncts(resolved, root)) {
    if (!matchesShallowly(value, member, root, walk, depth + 1)) return false;
  }
  for (const group of unions(resolved)) {
    if (!group.some((branch) => matchesShallowly(value, branch, root, walk, depth + 1))) {
      return false;
    }
  }
  return true;
}

/**
 * Every value some `const`/`enum` in the schema names (through `allOf`, `$ref`, unions): the
 * candidates a loosely written value may be matched to. Callers check each against the whole
 * schema.
 */
export function allowedValues(
  schema: JsonSchema | undefined,
  root: JsonSchema,
  walk: SchemaWalk = createWalk(),
  depth = 0,
  found: unknown[] = [],
): unknown[] {
  const resolved = resolveSchema(schema, root);
  if (typeof resolved === 'boolean' || !enterNode(walk, depth)) return found;
  if (Object.hasOwn(resolved, 'const')) found.push(resolved.const);
  const listed = own(resolved, 'enum');
  if (Array.isArray(listed)) found.push(...listed);
  for (const member of conjuncts(resolved, root)) {
    allowedValues(member, root, walk, depth + 1, found);
  }
  for (const group of unions(resolved)) {
    for (const branch of group) allowedValues(branch, root, walk, depth + 1, found);
  }
  return found;
}

/**
 * Whether any `const`/`enum` applies at this level (through `allOf`, `$ref`, unions). A cut-off
 * walk answers true: callers use this to promise that nothing will be rewritten.
 */
export function hasValueConstraints(
  schema: JsonSchema | undefined,
  root: JsonSchema,
  walk: SchemaWalk = createWalk(),
  depth = 0,
): boolean {
  const resolved = resolveSchema(schema, root);
  if (typeof resolved === 'boolean') return false;
  if (!enterNode(walk, depth)) return true;
  if (Object.hasOwn(resolved, 'const') || Array.isArray(own(resolved, 'enum'))) return true;
  for (const member of conjuncts(resolved, root)) {
    if (hasValueConstraints(member, root, walk, depth + 1)) return true;
  }
  for (const group of unions(resolved)) {
    for (const branch of group) {
      if (hasValueConstraints(branch, root, walk, depth + 1)) return true;
    }
  }
  return false;
}
