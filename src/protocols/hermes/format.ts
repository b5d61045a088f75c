import type { ToolCallToFormat, ToolDefinition, ToolResponseToFormat } from '../../core/index.ts';
import { exampleInput, inputAsValue } from '../common/example-input.ts';
import { jsonForPrompt } from '../common/json-text.ts';
import { namedResultJson } from '../common/result-text.ts';
import { openAIToolDeclaration } from '../common/tool-declarations.ts';

export function formatHermesToolCall(calls: readonly ToolCallToFormat[], tag: string): string {
  return calls
    .map(
      (call) =>
        `<${tag}>\n${jsonForPrompt({ name: call.toolName, arguments: inputAsValue(call.input) })}\n</${tag}>`,
    )
    .join('\n');
}

/**
 * `<tool_response>{"name": …, "content": …}</tool_response>`, one per result, in call order; the
 * content prompt-safe (see result-text.ts). It stays prompt-safe JSON, text too, rather than the
 * text as it is (qwen3-coder's way): `auto` prompts in hermes and reads every format, so a hermes
 * result must be a call to none of them, whatever tool names the request declares.
 */
export function formatHermesToolResponse(
  results: readonly ToolResponseToFormat[],
  tag: string,
): string {
  return results.map((result) => `<${tag}>\n${namedResultJson(result)}\n</${tag}>`).join('\n');
}

export function formatHermesTools(
  tools: readonly ToolDefinition[],
  callTag: string,
  responseTag: string,
): string {
  const signatures = tools.map((tool) => jsonForPrompt(openAIToolDeclaration(tool))).join('\n');
  const example = tools[0]
    ? formatHermesToolCall(
        [{ toolName: tools[0].name, input: exampleInput(tools[0].inputSchema) }],
        callTag,
      )
    : `<${callTag}>\n{"name": "<function-name>", "arguments": {}}\n</${callTag}>`;
  return [
    '# Tools',
    '',
    'You may call one or more functions to assist with the user query.',
    '',
    'You are provided with function signatures within <tools></tools> XML tags:',
    '<tools>',
    signatures,
    '</tools>',
    '',
    `For each function call, return a JSON object with the function name and arguments within <${callTag}></${callTag}> XML tags:`,
    `<${callTag}>`,
    '{"name": <function-name>, "arguments": <args-json-object>}',
    `</${callTag}>`,
    '',
    'For example:',
    example,
    '',
    `Each result comes back within <${responseTag}></${responseTag}> tags, in the order of the calls.`,
  ].join('\n');
}
