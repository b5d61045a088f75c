import type {
  JsonSchema,
  ToolCallToFormat,
  ToolDefinition,
  ToolResponseToFormat,
} from '../../core/index.ts';
import { jsonForPrompt } from '../codecs/json/json-text.ts';
import {
  descriptionOf,
  propertiesOf,
  requiredOf,
  schemaObjectOf,
  textOf,
} from '../prompt/describe-tool.ts';
import { exampleInput, inputAsValue } from '../prompt/example-input.ts';
import { envelopeJson, resultEnvelope, resultOutputJson } from '../results/result-text.ts';

/** `<|tools_prefix|>[{"NAME": {…}}, …]<|tools_suffix|>`: one list for the turn's calls. */
export function formatApertusToolCall(calls: readonly ToolCallToFormat[]): string {
  const list = calls.map((call) => ({ [call.toolName]: inputAsValue(call.input) }));
  return `<|tools_prefix|>${jsonForPrompt(list)}<|tools_suffix|>`;
}

/**
 * The results as Apertus' template writes them after the calls: one JSON list, a value per
 * call, in the order of the calls, each prompt-safe (see result-text.ts).
 */
export function formatApertusToolResponse(results: readonly ToolResponseToFormat[]): string {
  const values = results.map((result) =>
    result.isError
      ? envelopeJson(resultEnvelope({ error: result.output }))
      : resultOutputJson(result.output),
  );
  return `[${values.join(',')}]`;
}

/** A parameter's type as the template's TypeScript-like signatures write it. */
function typeScriptType(schema: JsonSchema, depth = 0): string {
  const fields = schemaObjectOf(schema);
  if (fields === undefined || depth > 4) return 'any';
  if (Array.isArray(fields.enum))
    return fields.enum.map((value) => JSON.stringify(value) ?? 'null').join(' | ');
  const variants = fields.anyOf ?? fields.oneOf;
  if (Array.isArray(variants))
    return variants.map((variant) => typeScriptType(variant, depth + 1)).join(' | ');
  const type = Array.isArray(fields.type) ? fields.type.map(String).join(' | ') : fields.type;
  switch (type) {
    case 'string':
    case 'boolean':
      return type;
    case 'number':
    case 'integer':
      return 'number';
    case 'array':
      return `${typeScriptType((fields.items ?? {}) as JsonSchema, depth + 1)}[]`;
    case 'object':
      return 'object';
    default:
      return typeof type === 'string' ? type : 'any';
  }
}

/** One tool as `// description` and `type NAME = (_: {…}) => any;`, as the chat template renders it. */
function signature(tool: ToolDefinition): string {
  const properties = propertiesOf(tool.inputSchema);
  const required = requiredOf(tool.inputSchema);
  const lines = [`// ${textOf(tool.description) ?? tool.name}`];
  if (properties.length === 0) {
    lines.push(`type ${tool.name} = () => any;`);
    return lines.join('\n');
  }
  lines.push(`type ${tool.name} = (_: {`);
  properties.forEach(([name, property], index) => {
    const description = descriptionOf(property);
    if (description) lines.push(`// ${description}`);
    const optional = required.has(name) ? '' : '?';
    lines.push(
      `${name}${optional}: ${typeScriptType(property)}${index < properties.length - 1 ? ',' : ''}`,
    );
  });
  lines.push('}) => any;');
  return lines.join('\n');
}

/** The developer section's `Tool Capabilities:` list, and how a call is written. */
export function formatApertusTools(tools: readonly ToolDefinition[]): string {
  const first = tools[0];
  return [
    'Tool Capabilities:',
    tools.map(signature).join('\n'),
    '',
    'To call tools, write <|tools_prefix|> followed by a JSON list with one object per call, whose only key is the tool name and whose value holds the arguments, then <|tools_suffix|>.',
    ...(first
      ? [
          'For example:',
          formatApertusToolCall([{ toolName: first.name, input: exampleInput(first.inputSchema) }]),
        ]
      : []),
    'The results come back as a JSON list, one value per call, in the order of the calls.',
  ].join('\n');
}
