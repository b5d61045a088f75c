import type { ToolCallToFormat, ToolDefinition } from '../../core/index.ts';
import { jsonForPrompt } from '../codecs/json/json-text.ts';
import { exampleInput } from '../prompt/example-input.ts';
import { openAIToolDeclaration } from '../prompt/tool-declarations.ts';

/**
 * The tools section of GLM-4.5/4.6's chat template: each tool's JSON inside `<tools>`, then the
 * call format.
 */
export function formatGlmTools(
  tools: readonly ToolDefinition[],
  formatGlmToolCall: (calls: readonly ToolCallToFormat[]) => string,
): string {
  const listed = tools.map((tool) => jsonForPrompt(openAIToolDeclaration(tool))).join('\n');
  const example = tools[0]
    ? `\n\nFor example:\n${formatGlmToolCall([
        { toolName: tools[0].name, input: exampleInput(tools[0].inputSchema) },
      ])}`
    : '';
  return [
    '# Tools',
    '',
    'You may call one or more functions to assist with the user query.',
    '',
    'You are provided with function signatures within <tools></tools> XML tags:',
    '<tools>',
    listed,
    '</tools>',
    '',
    'For each function call, output the function name and arguments within the following XML format:',
    '<tool_call>{function-name}',
    '<arg_key>{arg-key-1}</arg_key>',
    '<arg_value>{arg-value-1}</arg_value>',
    '<arg_key>{arg-key-2}</arg_key>',
    '<arg_value>{arg-value-2}</arg_value>',
    '...',
    `</tool_call>${example}`,
  ].join('\n');
}
