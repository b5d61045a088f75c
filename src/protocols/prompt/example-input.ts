import { type JsonSchema, setOwnProperty } from '../../core/index.ts';
import { parseJsonText } from '../../core/parse-json.ts';
import { propertiesOf, requiredOf } from './describe-tool.ts';

/** A plausible input for a schema, for the one example call each tool prompt shows. */
export function exampleInput(schema: JsonSchema, depth = 0): unknown {
  if (typeof schema !== 'object' || schema === null || depth > 4) return 'value';
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if (schema.const !== undefined) return schema.const;
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  const variants = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(variants) && variants.length > 0) return exampleInput(variants[0]!, depth + 1);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'string':
      return 'example';
    case 'integer':
      return 1;
    case 'number':
      return 1.5;
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array':
      return [exampleInput((schema.items as JsonSchema) ?? {}, depth + 1)];
    default: {
      const properties = propertiesOf(schema);
      const required = requiredOf(schema);
      const chosen = properties.filter(([name]) => required.has(name));
      const result: Record<string, unknown> = {};
      for (const [name, property] of chosen.length > 0 ? chosen : properties.slice(0, 2)) {
        setOwnProperty(result, name, exampleInput(property, depth + 1));
      }
      return result;
    }
  }
}

/** Parses JSON text input when a call's input was given as text. */
export function inputAsValue(input: unknown): unknown {
  if (typeof input !== 'string') return input;
  try {
    return parseJsonText(input);
  } catch {
    return input;
  }
}
