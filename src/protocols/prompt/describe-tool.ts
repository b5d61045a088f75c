import type { JsonSchema, ToolDefinition } from '../../core/index.ts';

/**
 * The parts of a tool's JSON Schema that tools sections describe, read defensively: schemas come
 * from clients as any JSON (`properties: {a: null}`, `required: "x"`, a description that is a
 * number), and a describer must describe what is there and pass over what is not, never throw.
 */

/** A schema object (not null, not a list, not `true`), or undefined. */
export function schemaObjectOf(schema: unknown): Record<string, unknown> | undefined {
  return typeof schema === 'object' && schema !== null && !Array.isArray(schema)
    ? (schema as Record<string, unknown>)
    : undefined;
}

/** The declared properties, name and schema, in order; none unless `properties` is an object. */
export function propertiesOf(schema: unknown): [string, JsonSchema][] {
  const properties = schemaObjectOf(schemaObjectOf(schema)?.properties);
  return properties ? (Object.entries(properties) as [string, JsonSchema][]) : [];
}

/** The names `required` lists (its strings; nothing unless it is a list). */
export function requiredOf(schema: unknown): ReadonlySet<string> {
  const required = schemaObjectOf(schema)?.required;
  if (!Array.isArray(required)) return new Set();
  return new Set(required.filter((name): name is string => typeof name === 'string'));
}

/** A description worth showing: text that is not empty, else undefined. */
export function descriptionOf(schema: unknown): string | undefined {
  return textOf(schemaObjectOf(schema)?.description);
}

/** `value` when it is text that is not empty (a tool's description may be any JSON). */
export function textOf(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/**
 * How deep describers follow a schema's nesting before they describe the rest generically
 * (`any`, `object`): deeper than any real tool, and shallow enough for the stack.
 */
export const MAX_DESCRIBED_DEPTH = 32;

/** A short type label for a schema, as a prompt shows it (`string`, `integer[]`, `"a" | "b"`). */
export function schemaTypeLabel(schema: JsonSchema, depth = 0): string {
  const fields = schemaObjectOf(schema);
  if (fields === undefined || depth > MAX_DESCRIBED_DEPTH) return 'any';
  if (Array.isArray(fields.enum))
    return fields.enum.map((value) => JSON.stringify(value) ?? 'null').join(' | ');
  if (fields.const !== undefined) return JSON.stringify(fields.const) ?? 'null';
  const variants = fields.anyOf ?? fields.oneOf;
  if (Array.isArray(variants))
    return variants.map((variant) => schemaTypeLabel(variant, depth + 1)).join(' | ');
  if (Array.isArray(fields.type)) return fields.type.map(String).join(' | ');
  if (fields.type === 'array')
    return `${schemaTypeLabel((fields.items ?? {}) as JsonSchema, depth + 1)}[]`;
  return typeof fields.type === 'string' ? fields.type : 'object';
}

/** One line per parameter: name, type, required or optional, description. */
export function describeParameters(tool: ToolDefinition): string[] {
  const required = requiredOf(tool.inputSchema);
  return propertiesOf(tool.inputSchema).map(([name, property]) => {
    const description = descriptionOf(property);
    const presence = required.has(name) ? 'required' : 'optional';
    return `- ${name} (${schemaTypeLabel(property)}, ${presence})${description ? `: ${description}` : ''}`;
  });
}

/** A tool's section of a prompt: name, description, parameters, and its schema. */
export function describeToolSection(
  tool: ToolDefinition,
  labels: { readonly parameters: string; readonly schema: string },
  renderSchema: (schema: JsonSchema) => string,
): string {
  const lines = [`### ${tool.name}`];
  const description = textOf(tool.description);
  if (description) lines.push(description);
  const parameters = describeParameters(tool);
  lines.push(
    parameters.length > 0
      ? `${labels.parameters}:\n${parameters.join('\n')}`
      : `No ${labels.parameters.toLowerCase()}.`,
  );
  lines.push(`${labels.schema}: ${renderSchema(tool.inputSchema)}`);
  return lines.join('\n');
}
