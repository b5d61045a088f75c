import type { JsonSchema, ToolDefinition, ValuePolicy } from '../../core/index.ts';
import { createValuePolicy } from '../../schema/index.ts';

/** What the XML body needs to know about a tool, computed once per tool definition. */
export interface XmlToolShape {
  readonly policy: ValuePolicy;
  /**
   * The parameter that text written directly inside the tool tag belongs to, when the tool has
   * exactly one parameter (`<attempt_completion>Done.</attempt_completion>`).
   */
  readonly directParameter: string | undefined;
  /** Whether `<name>` after a closing tag starts the next parameter of this tool. */
  isParameterName(name: string): boolean;
  /** The declared parameter names (empty when the tool declares none and so accepts any). */
  readonly parameterNames: readonly string[];
}

function declaredProperties(schema: JsonSchema): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const properties = schema.properties;
  if (typeof properties !== 'object' || properties === null) return [];
  return Object.keys(properties);
}

const shapes = new WeakMap<ToolDefinition, XmlToolShape>();

export function xmlToolShape(tool: ToolDefinition): XmlToolShape {
  let shape = shapes.get(tool);
  if (shape) return shape;
  const names = declaredProperties(tool.inputSchema);
  const known = new Set(names);
  shape = {
    policy: createValuePolicy(tool.inputSchema),
    directParameter: names.length === 1 ? names[0] : undefined,
    parameterNames: names,
    // A tool that declares no parameters accepts any: then any tag may start the next one.
    isParameterName: known.size === 0 ? () => true : (name) => known.has(name),
  };
  shapes.set(tool, shape);
  return shape;
}
