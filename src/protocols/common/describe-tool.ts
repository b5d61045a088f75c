import type { JsonSchema, ToolDefinition } from '../../core/index.ts';

/** A short type label for a schema, as a prompt shows it (`string`, `integer[]`, `"a" | "b"`). */
export function schemaTypeLabel(schema: JsonSchema): string {
  if (typeof schema !== 'object' || schema === null) return 'any';
  if (Array.isArray(schema.enum))
    return schema.enum.map((value) => JSON.stringify(value)).join(' | ');
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  const variants = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(variants)) return variants.map(schemaTypeLabel).join(' | ');
  if (Array.isArray(schema.type)) return schema.type.join(' | ');
  if (schema.type === 'array') return `${schemaTypeLabel((schema.items as JsonSchema) ?? {})}[]`;
  return typeof schema.type === 'string' ? schema.type : 'object';
}

/** One line per parameter: name, type, required or optional, description. */
export function describeParameters(tool: ToolDefinition): string[] {
  const schema = tool.inputSchema;
  if (typeof schema !== 'object' || schema === null) return [];
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  return Object.entries(properties).map(([name, property]) => {
    const description =
      typeof property === 'object' && typeof property.description === 'string'
        ? `: ${property.description}`
        : '';
    const presence = required.has(name) ? 'required' : 'optional';
    return `- ${name} (${schemaTypeLabel(property)}, ${presence})${description}`;
  });
}

/** A tool's section of a prompt: name, description, parameters, and its schema. */
export function describeToolSection(
  tool: ToolDefinition,
  labels: { readonly parameters: string; readonly schema: string },
  renderSchema: (schema: JsonSchema) => string,
): string {
  const lines = [`### ${tool.name}`];
  if (tool.description) lines.push(tool.description);
  const parameters = describeParameters(tool);
  lines.push(
    parameters.length > 0
      ? `${labels.parameters}:\n${parameters.join('\n')}`
      : `No ${labels.parameters.toLowerCase()}.`,
  );
  lines.push(`${labels.schema}: ${renderSchema(tool.inputSchema)}`);
  return lines.join('\n');
}
