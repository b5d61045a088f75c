import type { JsonSchema } from '../core/index.ts';
import { compileSchemaPattern, UnsupportedPatternError } from './pattern.ts';
import { isSchemaObject, type SchemaObject } from './resolve.ts';

/** Keywords whose value is one subschema. */
const SCHEMA_KEYWORDS = [
  'additionalProperties',
  'additionalItems',
  'items',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'unevaluatedProperties',
  'unevaluatedItems',
  'contentSchema',
];
/** Keywords whose value is a list of subschemas. */
const LIST_KEYWORDS = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'];
/** Keywords whose value maps names to subschemas. */
const MAP_KEYWORDS = [
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
  'dependencies',
];

function escapePointer(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

/**
 * Checks every pattern of a schema (`pattern`, the keys of `patternProperties`, those under
 * `propertyNames` and in every subschema) against the linear-time engine, before any model
 * text is matched: a server calls this on the tools of a request to refuse it at once. Throws
 * the first UnsupportedPatternError, with `schemaPath` the JSON Pointer of the keyword
 * (`/properties/id/pattern`, `/patternProperties/(a)\\1`). Iterative: any depth is fine.
 */
export function checkSchemaPatterns(schema: JsonSchema): void {
  const pending: [SchemaObject, string][] = [];
  const seen = new Set<object>();
  const visit = (value: unknown, path: string) => {
    if (isSchemaObject(value) && !seen.has(value)) {
      seen.add(value);
      pending.push([value, path]);
    }
  };
  visit(schema, '');
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [node, path] = next;
    const pattern = Object.hasOwn(node, 'pattern') ? node.pattern : undefined;
    if (typeof pattern === 'string') compileAt(pattern, `${path}/pattern`);
    const patterns = Object.hasOwn(node, 'patternProperties') ? node.patternProperties : undefined;
    if (isSchemaObject(patterns)) {
      for (const key of Object.keys(patterns)) {
        compileAt(key, `${path}/patternProperties/${escapePointer(key)}`);
      }
    }
    for (const keyword of SCHEMA_KEYWORDS) {
      if (Object.hasOwn(node, keyword)) visit(node[keyword], `${path}/${keyword}`);
    }
    for (const keyword of LIST_KEYWORDS) {
      const list = Object.hasOwn(node, keyword) ? node[keyword] : undefined;
      if (!Array.isArray(list)) continue;
      for (let index = 0; index < list.length; index++) {
        visit(list[index], `${path}/${keyword}/${index}`);
      }
    }
    for (const keyword of MAP_KEYWORDS) {
      const map = Object.hasOwn(node, keyword) ? node[keyword] : undefined;
      if (!isSchemaObject(map)) continue;
      for (const key of Object.keys(map)) {
        visit(map[key], `${path}/${keyword}/${escapePointer(key)}`);
      }
    }
  }
}

function compileAt(pattern: string, schemaPath: string): void {
  try {
    compileSchemaPattern(pattern);
  } catch (error) {
    if (error instanceof UnsupportedPatternError) throw error.at(schemaPath);
    throw error;
  }
}
