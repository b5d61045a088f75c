import type { ToolCallToFormat, ToolDefinition, ToolResponseToFormat } from '../../core/index.ts';
import { jsonForPrompt } from '../codecs/json/json-text.ts';
import { exampleInput } from '../prompt/example-input.ts';
import { functionDeclaration } from '../prompt/tool-declarations.ts';
import { namedResultLines } from '../results/result-text.ts';

/** One JSON object per result, in the order of the calls (the template's `tool` turns). */
export function formatFirefunctionToolResponse(results: readonly ToolResponseToFormat[]): string {
  return namedResultLines(results);
}

/** FireFunction v2's system prompt: when to call, the `functools` rules, the functions as JSON. */
export function formatFirefunctionTools(
  tools: readonly ToolDefinition[],
  formatFirefunctionToolCall: (calls: readonly ToolCallToFormat[]) => string,
): string {
  const functions = tools.map((tool) => functionDeclaration(tool));
  const first = tools[0];
  return [
    'In addition to plain text responses, you can choose to call one or more of the provided functions.',
    '',
    'Use the following rule to decide when to call a function:',
    '  * if the response can be generated from your internal knowledge (e.g., as in the case of queries like "What is the capital of Poland?"), do so',
    '  * if you need external information that can be obtained by calling one or more of the provided functions, generate function calls',
    '',
    'If you decide to call functions:',
    '  * prefix function calls with functools marker (no closing marker required)',
    '  * all function calls should be generated in a single JSON list formatted as functools[{"name": [function name], "arguments": [function arguments as JSON]}, ...]',
    '  * follow the provided JSON schema. Do not hallucinate arguments or values. Do not blindly copy values from the provided samples',
    '  * respect the argument type formatting. E.g., if the type is number and format is float, write value 7 as 7.0',
    '  * make sure you pick the right functions that match the user intent',
    ...(first
      ? [
          '',
          'For example:',
          formatFirefunctionToolCall([
            { toolName: first.name, input: exampleInput(first.inputSchema) },
          ]),
        ]
      : []),
    '',
    'Available functions as JSON spec:',
    jsonForPrompt(functions, 2),
  ].join('\n');
}
