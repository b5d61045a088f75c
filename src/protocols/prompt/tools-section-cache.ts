import { BoundedCache } from '../../core/bounded-cache.ts';
import type { ToolDefinition } from '../../core/index.ts';

/**
 * Remembers a protocol's tools section per list of tools. The AI SDK hands the middleware new
 * tool objects at every step, around the same schemas, and rendering the section (every schema
 * written out as JSON) costs more than reading a short response. A list is known by its tools'
 * names, descriptions and schema objects; like the parsers' other per-schema caches, this
 * assumes a schema object is not changed in place once in use.
 */
export function cacheToolsSection(
  format: (tools: readonly ToolDefinition[]) => string,
): (tools: readonly ToolDefinition[]) => string {
  const sections = new BoundedCache<string, string>(MAX_CACHED_LISTS);
  return (tools) => sections.getOrCreate(keyOf(tools), () => format(tools));
}

/** Distinct tool lists kept per protocol: an application has a few. */
const MAX_CACHED_LISTS = 64;

const schemaNumbers = new WeakMap<object, number>();
let nextSchemaNumber = 0;

function schemaKey(schema: unknown): string {
  if (typeof schema !== 'object' || schema === null) return String(schema);
  let number = schemaNumbers.get(schema);
  if (number === undefined) {
    number = nextSchemaNumber++;
    schemaNumbers.set(schema, number);
  }
  return `#${number}`;
}

function keyOf(tools: readonly ToolDefinition[]): string {
  let key = '';
  for (const tool of tools) {
    key += `${tool.name}\u0000${tool.description ?? '\u0001'}\u0000${schemaKey(tool.inputSchema)}\u0000`;
  }
  return key;
}
