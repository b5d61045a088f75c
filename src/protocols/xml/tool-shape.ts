import {
  type JsonSchema,
  type ToolDefinition,
  UNCONSTRAINED_POLICY,
  type ValuePolicy,
} from '../../core/index.ts';
import { createValuePolicy, textReading } from '../../schema/index.ts';

/** What the whole-call reader needs to know about one declared parameter. */
export interface XmlParameter {
  readonly name: string;
  readonly policy: ValuePolicy;
  /** A string value is taken as written (the streaming body streams it). */
  readonly isString: boolean;
  /** Repeated tags may make an array of it (the streaming body gathers them at the call's end). */
  readonly isRepeatable: boolean;
}

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
  /** The declared parameters (none when the tool declares none, and so accepts any). */
  readonly parameters: readonly XmlParameter[];
}

function declaredProperties(schema: JsonSchema): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const properties = schema.properties;
  if (typeof properties !== 'object' || properties === null) return [];
  return Object.keys(properties);
}

/**
 * Shapes by input schema: a shape depends on nothing else, and the AI SDK makes new tool objects
 * for every step around the same schemas.
 */
const shapes = new WeakMap<object, XmlToolShape>();

/**
 * A value's text is the string itself: where the schema admits nothing else (coerceText's rule
 * for unions), and where there is no schema, as in the XML protocol values are strings.
 */
export function readsAsString(policy: ValuePolicy): boolean {
  return policy === UNCONSTRAINED_POLICY || textReading(policy).asString;
}

export function xmlToolShape(tool: ToolDefinition): XmlToolShape {
  const schema = tool.inputSchema;
  const cacheable = typeof schema === 'object' && schema !== null;
  let shape = cacheable ? shapes.get(schema) : undefined;
  if (shape) return shape;
  const names = declaredProperties(tool.inputSchema);
  const known = new Set(names);
  const policy = createValuePolicy(tool.inputSchema);
  shape = {
    policy,
    directParameter: names.length === 1 ? names[0] : undefined,
    // A tool that declares no parameters accepts any: then any tag may start the next one.
    isParameterName: known.size === 0 ? () => true : (name) => known.has(name),
    parameters: names.map((name) => {
      const parameterPolicy = policy.property(name);
      const isString = readsAsString(parameterPolicy);
      return {
        name,
        policy: parameterPolicy,
        isString,
        isRepeatable: !isString && parameterPolicy.streams('array'),
      };
    }),
  };
  if (cacheable) shapes.set(schema, shape);
  return shape;
}
