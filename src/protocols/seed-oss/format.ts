import type { ToolCallToFormat, ToolDefinition } from '../../core/index.ts';
import {
  descriptionOf,
  propertiesOf,
  requiredOf,
  schemaObjectOf,
  textOf,
} from '../prompt/describe-tool.ts';
import { exampleInput } from '../prompt/example-input.ts';

/** Seed-OSS's template shows parameter types as Python types. */
function pythonType(type: unknown): string {
  if (type === 'string') return 'str';
  if (type === 'number' || type === 'integer') return 'int';
  if (type === 'boolean') return 'bool';
  if (type === 'array') return 'list';
  return 'Any';
}

function describeFunction(tool: ToolDefinition): string {
  const properties = propertiesOf(tool.inputSchema);
  const required = requiredOf(tool.inputSchema);
  const typeOf = (property: unknown) => pythonType(schemaObjectOf(property)?.type);
  const signature = properties.map(([name, property]) => `${name}: ${typeOf(property)}`).join(', ');
  const args = properties.map(([name, property]) => {
    const description = descriptionOf(property) ?? '';
    return `\n    - ${name} (${typeOf(property)}) [${required.has(name) ? 'required' : 'optional'}]: ${description}`;
  });
  return [
    `Function:\ndef ${tool.name}(${signature}):`,
    '    """',
    `    ${(textOf(tool.description) ?? '').trim()}`,
    args.length > 0 ? `\n    Args:${args.join('\n')}` : '',
    '    """',
  ].join('\n');
}

/**
 * The tools section of Seed-OSS's chat template: each tool as a Python signature with its
 * docstring, then the call format.
 */
export function formatSeedOssTools(
  tools: readonly ToolDefinition[],
  formatSeedOssToolCall: (calls: readonly ToolCallToFormat[]) => string,
): string {
  const example = tools[0]
    ? `\n\nFor example:\n${formatSeedOssToolCall([
        { toolName: tools[0].name, input: exampleInput(tools[0].inputSchema) },
      ])}`
    : '';
  return [
    'You may call one or more functions to assist with the user query.',
    '',
    tools.map(describeFunction).join('\n\n'),
    '',
    'To call a tool, use this format:',
    '<seed:tool_call>',
    '<function=example_function_name>',
    '<parameter=example_parameter_1>value_1</parameter>',
    '<parameter=example_parameter_2>This is the value for the second parameter',
    'that can span',
    'multiple lines</parameter>',
    '</function>',
    `</seed:tool_call>${example}`,
  ].join('\n');
}
