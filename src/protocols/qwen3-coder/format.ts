import type {
  JsonSchema,
  ToolCallToFormat,
  ToolDefinition,
  ToolResponseToFormat,
} from '../../core/index.ts';
import { jsonForPrompt } from '../codecs/json/json-text.ts';
import { propertiesOf, textOf } from '../prompt/describe-tool.ts';
import { exampleInput } from '../prompt/example-input.ts';
import {
  jsonResultBody,
  type ResultBodyWriter,
  type ResultTextGuard,
  textResultBody,
} from '../results/result-text.ts';

/** The keys of a schema the template writes as their own tags; the others follow as JSON. */
const PARAMETER_KEYS = new Set(['name', 'type', 'description']);

function schemaObject(schema: JsonSchema): Record<string, unknown> {
  return typeof schema === 'object' && schema !== null ? (schema as Record<string, unknown>) : {};
}

/** `<key>value</key>` for each key not handled already, as Qwen3-Coder's template renders them. */
function extraKeys(fields: Record<string, unknown>, handled: ReadonlySet<string>): string {
  let text = '';
  for (const [key, value] of Object.entries(fields)) {
    if (handled.has(key) || value === undefined) continue;
    const rendered =
      typeof value === 'object' && value !== null ? jsonForPrompt(value) : String(value);
    text += `\n<${key}>${rendered}</${key}>`;
  }
  return text;
}

function describeFunction(tool: ToolDefinition): string {
  const schema = schemaObject(tool.inputSchema);
  let text = `<function>\n<name>${tool.name}</name>`;
  const description = textOf(tool.description);
  if (description) text += `\n<description>${description.trim()}</description>`;
  text += '\n<parameters>';
  for (const [name, property] of propertiesOf(tool.inputSchema)) {
    const fields = schemaObject(property);
    text += `\n<parameter>\n<name>${name}</name>`;
    if (fields.type !== undefined) text += `\n<type>${String(fields.type)}</type>`;
    if (typeof fields.description === 'string') {
      text += `\n<description>${fields.description.trim()}</description>`;
    }
    text += `${extraKeys(fields, PARAMETER_KEYS)}\n</parameter>`;
  }
  text += `${extraKeys(schema, new Set(['type', 'properties']))}\n</parameters>\n</function>`;
  return text;
}

/**
 * The tools section of Qwen3-Coder's chat template (also Qwen3.5's): each tool as `<function>`
 * with its `<parameters>`, then the call format and its reminders.
 */
export function formatQwen3CoderTools(
  tools: readonly ToolDefinition[],
  formatQwen3CoderToolCall: (calls: readonly ToolCallToFormat[]) => string,
): string {
  const example = tools[0]
    ? `\n\nFor example:\n${formatQwen3CoderToolCall([
        { toolName: tools[0].name, input: exampleInput(tools[0].inputSchema) },
      ])}`
    : '';
  return [
    '# Tools',
    '',
    'You have access to the following functions:',
    '',
    `<tools>\n${tools.map(describeFunction).join('\n')}\n</tools>`,
    '',
    'If you choose to call a function ONLY reply in the following format with NO suffix:',
    '',
    '<tool_call>',
    '<function=example_function_name>',
    '<parameter=example_parameter_1>',
    'value_1',
    '</parameter>',
    '<parameter=example_parameter_2>',
    'This is the value for the second parameter',
    'that can span',
    'multiple lines',
    '</parameter>',
    '</function>',
    '</tool_call>',
    '',
    '<IMPORTANT>',
    'Reminder:',
    '- Function calls MUST follow the specified format: an inner <function=...></function> block must be nested within <tool_call></tool_call> XML tags',
    '- Required parameters MUST be specified',
    '- You may provide optional reasoning for your function call in natural language BEFORE the function call, but NOT after',
    '- If there is no function call available, answer the question like normal with your current knowledge and do not tell the user about function calls',
    `</IMPORTANT>${example}`,
  ].join('\n');
}

/**
 * The tags read in a result: this format's call, result block and reasoning tags, and those of
 * the formats that write results with this writer (glm's `<arg_key>`, seed-oss's `<seed:…>`).
 */
const RESULT_GUARD: ResultTextGuard = {
  tags: [
    'tool_call',
    'function',
    'parameter',
    'tool_response',
    'think',
    'arg_key',
    'arg_value',
    'seed:',
  ],
};

const RESULT_TEXT = textResultBody(RESULT_GUARD);

/**
 * Results as the template renders tool messages in a user turn: `<tool_response>` each, a text
 * result as the text itself (see result-text.ts): only this format's own tags and special tokens
 * in it are broken, so no result closes its block early or holds a call of this format. Other
 * values are prompt-safe JSON.
 */
export function formatToolResponses(
  results: readonly ToolResponseToFormat[],
  body: ResultBodyWriter = RESULT_TEXT,
): string {
  return results.map((result) => `<tool_response>\n${body(result)}\n</tool_response>`).join('\n');
}

/** The same results with JSON bodies, for a reader of every format (`auto`). */
export function formatToolResponsesForAnyReader(results: readonly ToolResponseToFormat[]): string {
  return formatToolResponses(results, jsonResultBody);
}
