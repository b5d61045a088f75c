import type { JsonSchema, ToolDefinition } from '../../core/index.ts';
import {
  descriptionOf,
  MAX_DESCRIBED_DEPTH,
  propertiesOf,
  requiredOf,
  schemaObjectOf,
  textOf,
} from './describe-tool.ts';

/**
 * Tools as TypeScript-like declarations in a `functions` namespace: how OpenAI's harmony format
 * (gpt-oss) and Functionary v3.2 present tools to the model, each type derived from the tool's
 * JSON Schema.
 */
export function typescriptNamespace(tools: readonly ToolDefinition[]): string {
  const declarations = tools.map((tool) => {
    const lines: string[] = [];
    const description = textOf(tool.description);
    if (description) lines.push(...commentLines(description, ''));
    const parameters = objectBody(tool.inputSchema, '', 0);
    lines.push(
      parameters === undefined
        ? `type ${tool.name} = () => any;`
        : `type ${tool.name} = (_: {\n${parameters}}) => any;`,
    );
    return lines.join('\n');
  });
  return [
    'namespace functions {',
    '',
    ...declarations.flatMap((text) => [text, '']),
    '} // namespace functions',
  ].join('\n');
}

function commentLines(text: string, indent: string): string[] {
  return text.split('\n').map((line) => `${indent}// ${line}`);
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** A property name as TypeScript writes a key: as it is, or quoted when it is no identifier. */
function propertyKey(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

/** The properties of an object schema, one per line (undefined when it declares none). */
function objectBody(schema: JsonSchema, indent: string, depth: number): string | undefined {
  const properties = propertiesOf(schema);
  if (properties.length === 0) return undefined;
  const required = requiredOf(schema);
  let body = '';
  for (const [name, property] of properties) {
    const description = descriptionOf(property);
    if (description) body += `${commentLines(description, indent).join('\n')}\n`;
    const optional = required.has(name) ? '' : '?';
    const fallback = schemaObjectOf(property)?.default;
    const note =
      fallback === undefined
        ? ''
        : ` // default: ${typeof fallback === 'string' ? fallback : JSON.stringify(fallback)}`;
    body += `${indent}${propertyKey(name)}${optional}: ${typeOf(property, indent, depth + 1)},${note}\n`;
  }
  return body;
}

/**
 * A TypeScript type for a schema: unions for enums and `anyOf`, `T[]` for arrays. Nesting
 * deeper than MAX_DESCRIBED_DEPTH is `any`; a `type` list names each type (a string) once, so
 * the work is the size of the schema.
 */
export function typeOf(schema: JsonSchema, indent = '', depth = 0): string {
  const fields = schemaObjectOf(schema);
  if (fields === undefined || depth > MAX_DESCRIBED_DEPTH) return 'any';
  if (Array.isArray(fields.enum))
    return fields.enum.map((value) => JSON.stringify(value) ?? 'null').join(' | ');
  if (fields.const !== undefined) return JSON.stringify(fields.const) ?? 'null';
  const variants = fields.anyOf ?? fields.oneOf;
  if (Array.isArray(variants))
    return variants.map((variant) => typeOf(variant, indent, depth + 1)).join(' | ');
  if (Array.isArray(fields.type)) {
    const types = new Set(fields.type.filter((type) => typeof type === 'string'));
    if (types.size === 0) return 'any';
    return [...types]
      .map((type) => typeOf({ ...fields, type } as JsonSchema, indent, depth + 1))
      .join(' | ');
  }
  switch (fields.type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array': {
      const items = typeOf((fields.items ?? {}) as JsonSchema, indent, depth + 1);
      return /[ |]/.test(items) && !items.startsWith('{') ? `(${items})[]` : `${items}[]`;
    }
    case 'object': {
      const inner = `${indent}  `;
      const body = objectBody(fields as JsonSchema, inner, depth);
      return body === undefined ? 'object' : `{\n${body}${indent}}`;
    }
    default:
      return 'any';
  }
}
