import type { ToolCallToFormat, ToolDefinition, ToolResponseToFormat } from '../../core/index.ts';
import { jsonForPrompt } from '../codecs/json/json-text.ts';
import { exampleInput, inputAsValue } from '../prompt/example-input.ts';
import { functionDeclaration } from '../prompt/tool-declarations.ts';
import { namedResultLines } from '../results/result-text.ts';

/** `<|tool_call|>[{"name": …, "arguments": …}, …]`: one list for the whole turn. */
export function formatGraniteToolCall(calls: readonly ToolCallToFormat[]): string {
  const list = calls.map((call) => ({ name: call.toolName, arguments: inputAsValue(call.input) }));
  return `<|tool_call|>${jsonForPrompt(list)}`;
}

/**
 * Granite's template gives each result its own `tool_response` turn holding the content as is;
 * in one message they come one per line, as JSON, in the order of the calls.
 */
export function formatGraniteToolResponse(results: readonly ToolResponseToFormat[]): string {
  return namedResultLines(results);
}

/**
 * Granite 3.x's tool-calling system prompt and its `available_tools` list (each tool's function
 * object as JSON, one after the other).
 */
export function formatGraniteTools(tools: readonly ToolDefinition[]): string {
  const list = tools.map((tool) => jsonForPrompt(functionDeclaration(tool), 4)).join('\n\n');
  const first = tools[0];
  return [
    "You are a helpful AI assistant with access to the following tools. When a tool is required to answer the user's query, respond with <|tool_call|> followed by a JSON list of tools used. If a tool does not exist in the provided list of tools, notify the user that you do not have the ability to fulfill the request.",
    '',
    'Available tools:',
    list,
    ...(first
      ? [
          '',
          'For example:',
          formatGraniteToolCall([{ toolName: first.name, input: exampleInput(first.inputSchema) }]),
        ]
      : []),
  ].join('\n');
}
