import type { ToolCallToFormat, ToolDefinition, ToolResponseToFormat } from '../../core/index.ts';
import { jsonForPrompt } from '../codecs/json/json-text.ts';
import { exampleInput, inputAsValue } from '../prompt/example-input.ts';
import { openAIToolDeclaration } from '../prompt/tool-declarations.ts';
import { namedResultJson, type ResultTextGuard, resultTextBody } from '../results/result-text.ts';

export function formatHermesToolCall(calls: readonly ToolCallToFormat[], tag: string): string {
  return calls
    .map(
      (call) =>
        `<${tag}>\n${jsonForPrompt({ name: call.toolName, arguments: inputAsValue(call.input) })}\n</${tag}>`,
    )
    .join('\n');
}

/**
 * `<tool_response>` per result, in call order, as the template renders a tool message: a text
 * result as the text itself (see result-text.ts), with only what hermes's parser reads as a call
 * (`guard`: its openers, its result tag) and special tokens broken; other values prompt-safe JSON.
 */
export function formatHermesToolResponse(
  results: readonly ToolResponseToFormat[],
  tag: string,
  guard: ResultTextGuard,
): string {
  return results
    .map((result) => `<${tag}>\n${resultTextBody(result, guard)}\n</${tag}>`)
    .join('\n');
}

/**
 * `<tool_response>{"name": …, "content": …}</tool_response>`, one per result, all prompt-safe
 * JSON: for `auto`, which prompts in hermes by default and reads every format.
 */
export function formatHermesToolResponseJson(
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
