import type { ToolCallToFormat, ToolDefinition, ToolResponseToFormat } from '../../core/index.ts';
import { jsonForPrompt } from '../codecs/json/json-text.ts';
import { exampleInput, inputAsValue } from '../prompt/example-input.ts';
import { envelopeJson, resultEnvelope } from '../results/result-text.ts';

/**
 * The call's id as Command R's template writes it: the template numbers a conversation's calls
 * `"0"`, `"1"`, …; an id the caller gave is kept so a result can name its call.
 */
function callIdOf(id: string | undefined, index: number): string {
  return id ?? String(index);
}

/** `<|START_ACTION|>[…]<|END_ACTION|>`, laid out as the R7B template prints it. */
export function formatCommandRToolCall(calls: readonly ToolCallToFormat[]): string {
  const entries = calls.map((call, index) =>
    jsonForPrompt({
      tool_call_id: callIdOf(call.toolCallId, index),
      tool_name: call.toolName,
      parameters: inputAsValue(call.input),
    }),
  );
  return `<|START_ACTION|>[\n    ${entries.join(',\n    ')}\n]<|END_ACTION|>`;
}

/**
 * `<|START_TOOL_RESULT|>[…]<|END_TOOL_RESULT|>`: each result linked to its call by
 * `tool_call_id`, its output as result `"0"`, prompt-safe (see result-text.ts).
 */
export function formatCommandRToolResponse(results: readonly ToolResponseToFormat[]): string {
  const entries = results.map((result, index) =>
    envelopeJson(
      resultEnvelope({
        tool_call_id: callIdOf(result.toolCallId, index),
        results: resultEnvelope({ '0': result.output }),
        is_error: result.isError ? true : null,
      }),
      4,
    ),
  );
  return `<|START_TOOL_RESULT|>[\n${entries.join(',\n')}\n]<|END_TOOL_RESULT|>`;
}

/** The "Tool Use" and "Available Tools" sections of Command R7B's system preamble. */
export function formatCommandRTools(tools: readonly ToolDefinition[]): string {
  const list = tools
    .map(
      (tool) =>
        `    ${jsonForPrompt({ name: tool.name, description: tool.description ?? '', parameters: tool.inputSchema, responses: null })}`,
    )
    .join(',\n');
  const first = tools[0];
  return [
    '## Tool Use',
    'Think about how you can make best use of the provided tools to help with the task and come up with a high level plan that you will execute first.',
    '',
    '0. Start by writing <|START_THINKING|> followed by a detailed step by step plan of how you will solve the problem. For each step explain your thinking fully and give details of required tool calls (if needed). When you finish, close it out with <|END_THINKING|>.',
    '',
    'Then carry out your plan by repeatedly executing the following steps.',
    '1. Action: write <|START_ACTION|> followed by a list of JSON-formatted tool calls, with each one containing "tool_name" and "parameters" fields. When there are multiple tool calls which are completely independent of each other (i.e. they can be executed in parallel), you should list them out all together in one step. When you finish, close it out with <|END_ACTION|>.',
    '2. Observation: you will then receive results of those tool calls in JSON format in the very next turn, wrapped around by <|START_TOOL_RESULT|> and <|END_TOOL_RESULT|>. Each result is linked to its originating tool call via its "tool_call_id". NEVER hallucinate results.',
    '3. Reflection: start the next turn by writing <|START_THINKING|> followed by what you have figured out so far and what you will do next. When you finish, close it out with <|END_THINKING|>.',
    '',
    '4. Response: when you are ready to respond to the user, write <|START_RESPONSE|> followed by your response. When you finish, close it out with <|END_RESPONSE|>.',
    ...(first
      ? [
          '',
          'For example:',
          formatCommandRToolCall([
            { toolName: first.name, input: exampleInput(first.inputSchema) },
          ]),
        ]
      : []),
    '',
    '## Available Tools',
    'Here is the list of tools that you have available to you.',
    'You can ONLY use the tools listed here. When a tool is not listed below, it is NOT available and you should NEVER attempt to use it.',
    'Each tool is represented as a JSON object with fields like "name", "description", "parameters" (per JSON Schema), and optionally, "responses" (per JSON Schema).',
    '',
    '```json',
    '[',
    list,
    ']',
    '```',
  ].join('\n');
}
