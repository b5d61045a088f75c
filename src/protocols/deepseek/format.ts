import type { ToolCallToFormat, ToolDefinition, ToolResponseToFormat } from '../../core/index.ts';
import { jsonForPrompt } from '../codecs/json/json-text.ts';
import { writeName, writeValueText } from '../codecs/tagged/parameter-tags-syntax.ts';
import { exampleInput, inputAsValue } from '../prompt/example-input.ts';
import { functionDeclaration, openAIToolDeclaration } from '../prompt/tool-declarations.ts';
import { jsonResultBody, type ResultBodyWriter } from '../results/result-text.ts';

/** Whose conventions a prompt follows: V3 and R1, V3.1 (also V3.2-Exp), or V3.2's DSML. */
export type DeepseekVersion = 'v3' | 'v3.1' | 'v3.2';

const CALLS_BEGIN = '<｜tool▁calls▁begin｜>';
const CALLS_END = '<｜tool▁calls▁end｜>';
const CALL_BEGIN = '<｜tool▁call▁begin｜>';
const CALL_END = '<｜tool▁call▁end｜>';
const SEPARATOR = '<｜tool▁sep｜>';

function formatOneCall(call: ToolCallToFormat, version: DeepseekVersion): string {
  const input = inputAsValue(call.input);
  if (version === 'v3') {
    return `${CALL_BEGIN}function${SEPARATOR}${call.toolName}\n\`\`\`json\n${jsonForPrompt(input)}\n\`\`\`${CALL_END}`;
  }
  return `${CALL_BEGIN}${call.toolName}${SEPARATOR}${jsonForPrompt(input)}${CALL_END}`;
}

const DSML = '｜DSML｜';

/** V3.2: strings as they are, other values as JSON (the template's `string` attribute says which). */
function formatDsmlCalls(calls: readonly ToolCallToFormat[]): string {
  const invokes = calls.map((call) => {
    const input = inputAsValue(call.input);
    const entries =
      input !== null && typeof input === 'object' && !Array.isArray(input)
        ? Object.entries(input)
        : [];
    const parameters = entries.map(([key, value]) => {
      const isString = typeof value === 'string';
      return `<${DSML}parameter name="${writeName(key)}" string="${isString}">${writeValueText(value, 'inline')}</${DSML}parameter>`;
    });
    return `<${DSML}invoke name="${writeName(call.toolName)}">\n${parameters.join('\n')}\n</${DSML}invoke>`;
  });
  return `<${DSML}function_calls>\n${invokes.join('\n')}\n</${DSML}function_calls>`;
}

export function formatDeepseekToolCall(
  calls: readonly ToolCallToFormat[],
  version: DeepseekVersion,
): string {
  if (version === 'v3.2') return formatDsmlCalls(calls);
  return `${CALLS_BEGIN}${calls.map((call) => formatOneCall(call, version)).join('')}${CALLS_END}`;
}

/**
 * V3 and R1 wrap a turn's results in `<｜tool▁outputs▁begin｜>`; V3.1 writes each result in its
 * own `<｜tool▁output▁begin｜>…<｜tool▁output▁end｜>`, in call order; V3.2 in `<result>`. `body`
 * writes each output: the text as it is, as the templates put it (the format's `resultText`), or
 * prompt-safe JSON (the default, for a reader of every format).
 */
export function formatDeepseekToolResponse(
  results: readonly ToolResponseToFormat[],
  version: DeepseekVersion,
  body: ResultBodyWriter = jsonResultBody,
): string {
  if (version === 'v3.2') {
    const each = results.map((result) => `<result>${body(result)}</result>`);
    return `<function_results>\n${each.join('\n')}\n</function_results>`;
  }
  const each = results.map(
    (result) => `<｜tool▁output▁begin｜>${body(result)}<｜tool▁output▁end｜>`,
  );
  return version === 'v3'
    ? `<｜tool▁outputs▁begin｜>${each.join('\n')}<｜tool▁outputs▁end｜>`
    : each.join('');
}

function exampleCall(tools: readonly ToolDefinition[], version: DeepseekVersion): string {
  const first = tools[0];
  return formatDeepseekToolCall(
    [
      {
        toolName: first?.name ?? 'example_function_name',
        input: first ? exampleInput(first.inputSchema) : {},
      },
    ],
    version,
  );
}

/** V3.1's template: each tool with its description and JSON Schema, then the call syntax. */
function formatV31Tools(tools: readonly ToolDefinition[]): string {
  const sections = tools.map((tool) =>
    [
      `### ${tool.name}`,
      `Description: ${tool.description ?? ''}`,
      '',
      `Parameters: ${jsonForPrompt(tool.inputSchema)}`,
    ].join('\n'),
  );
  return [
    '## Tools',
    'You have access to the following tools:',
    '',
    sections.join('\n\n'),
    '',
    'IMPORTANT: ALWAYS adhere to this exact format for tool use:',
    `${CALLS_BEGIN}${CALL_BEGIN}tool_call_name${SEPARATOR}tool_call_arguments${CALL_END}{{additional_tool_calls}}${CALLS_END}`,
    '',
    'Where:',
    '',
    '- `tool_call_name` must be an exact match to one of the available tools',
    "- `tool_call_arguments` must be valid JSON that strictly follows the tool's Parameters Schema",
    '- For multiple tool calls, chain them directly without separators or spaces',
    '',
    'For example:',
    exampleCall(tools, 'v3.1'),
  ].join('\n');
}

/** V3 and R1 (llama.cpp's fixed R1 template): the OpenAI tool list and an example call. */
function formatV3Tools(tools: readonly ToolDefinition[]): string {
  const declared = tools.map((tool) => openAIToolDeclaration(tool));
  return [
    "You can call any of the following tools to satisfy the user's requests:",
    jsonForPrompt(declared, 2),
    '',
    'Example function call syntax:',
    '',
    exampleCall(tools, 'v3'),
  ].join('\n');
}

/** V3.2's template: the DSML syntax, then each tool's JSON Schema in `<functions>`. */
function formatV32Tools(tools: readonly ToolDefinition[]): string {
  const schemas = tools.map((tool) => jsonForPrompt(functionDeclaration(tool)));
  return [
    '## Tools',
    '',
    "You have access to a set of tools you can use to answer the user's question.",
    `You can invoke functions by writing a "<${DSML}function_calls>" block like the following as part of your reply to the user:`,
    `<${DSML}function_calls>`,
    `<${DSML}invoke name="$FUNCTION_NAME">`,
    `<${DSML}parameter name="$PARAMETER_NAME" string="true|false">$PARAMETER_VALUE</${DSML}parameter>`,
    '...',
    `</${DSML}invoke>`,
    `</${DSML}function_calls>`,
    '',
    'String and scalar parameters should be specified as is without any escaping or quotes, while lists and objects should use JSON format. The "string" attribute should be set to "true" for string type parameters and "false" for other types (numbers, booleans, arrays, objects).',
    '',
    'Here are the functions available in JSONSchema format:',
    '<functions>',
    ...schemas,
    '</functions>',
  ].join('\n');
}

export function formatDeepseekTools(
  tools: readonly ToolDefinition[],
  version: DeepseekVersion,
): string {
  if (version === 'v3.2') return formatV32Tools(tools);
  return version === 'v3' ? formatV3Tools(tools) : formatV31Tools(tools);
}
