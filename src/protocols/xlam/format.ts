import type { ToolCallToFormat, ToolDefinition, ToolResponseToFormat } from '../../core/index.ts';
import { jsonForPrompt } from '../codecs/json/json-text.ts';
import { exampleInput, inputAsValue } from '../prompt/example-input.ts';
import { openAIToolDeclaration } from '../prompt/tool-declarations.ts';
import { namedResultLines } from '../results/result-text.ts';

/** `[{"name": …, "arguments": {…}}, …]`: one list for the turn's calls. */
export function formatXlamToolCall(calls: readonly ToolCallToFormat[]): string {
  return jsonForPrompt(
    calls.map((call) => ({ name: call.toolName, arguments: inputAsValue(call.input) })),
  );
}

/** One JSON object per result, in the order of the calls (the template's `ipython` turns). */
export function formatXlamToolResponse(results: readonly ToolResponseToFormat[]): string {
  return namedResultLines(results);
}

/** xLAM's system instructions and its tools, each as indented JSON (its chat template's layout). */
export function formatXlamTools(tools: readonly ToolDefinition[]): string {
  const first = tools[0];
  return [
    'You have access to a set of tools. When using tools, make calls in a single JSON array: ',
    '',
    '[{"name": "tool_call_name", "arguments": {"arg1": "value1", "arg2": "value2"}}, ... (additional parallel tool calls as needed)]',
    '',
    "If no tool is suitable, state that explicitly. If the user's input lacks required parameters, ask for clarification. Do not interpret or respond until tool results are returned. Once they are available, process them or make additional calls if needed. For tasks that don't require tools, such as casual conversation or general advice, respond directly in plain text.",
    ...(first
      ? [
          '',
          'For example:',
          formatXlamToolCall([{ toolName: first.name, input: exampleInput(first.inputSchema) }]),
        ]
      : []),
    '',
    'The available tools are:',
    '',
    tools.map((tool) => jsonForPrompt(openAIToolDeclaration(tool), 4)).join('\n\n'),
  ].join('\n');
}
