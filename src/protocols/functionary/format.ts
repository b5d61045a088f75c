import type { ToolCallToFormat, ToolDefinition, ToolResponseToFormat } from '../../core/index.ts';
import { jsonForPrompt } from '../codecs/json/json-text.ts';
import { exampleInput, inputAsValue } from '../prompt/example-input.ts';
import { functionDeclaration } from '../prompt/tool-declarations.ts';
import { typescriptNamespace } from '../prompt/typescript-tools.ts';
import { jsonResultBody, type ResultBodyWriter } from '../results/result-text.ts';

/** v3.1: Llama 3.1 based, `<function=…>`; v3.2: `>>>` recipients and TypeScript tool types. */
export type FunctionaryVersion = 'v3.1' | 'v3.2';

export function formatFunctionaryToolCall(
  calls: readonly ToolCallToFormat[],
  version: FunctionaryVersion,
): string {
  return calls
    .map((call) => {
      const input = jsonForPrompt(inputAsValue(call.input));
      return version === 'v3.1'
        ? `<function=${call.toolName}>${input}</function>`
        : `>>>${call.toolName}\n${input}`;
    })
    .join('');
}

/**
 * Results as the templates give them back: one `tool` message each (v3.2), or `ipython` (v3.1),
 * in call order, the content as it is. `body` writes each output: the text itself (the format's
 * `resultText`, with `>>>`, `<function=` and special tokens broken) or prompt-safe JSON (the
 * default, for a reader of every format).
 */
export function formatFunctionaryToolResponse(
  results: readonly ToolResponseToFormat[],
  version: FunctionaryVersion,
  body: ResultBodyWriter = jsonResultBody,
): string {
  const role = version === 'v3.1' ? 'ipython' : 'tool';
  return results
    .map((result) => `<|start_header_id|>${role}<|end_header_id|>\n\n${body(result)}<|eot_id|>`)
    .join('');
}

/** v3.2's system message: the recipient convention, then the tools as TypeScript types. */
function formatV32Tools(tools: readonly ToolDefinition[]): string {
  return [
    'You are capable of executing available function(s) if required.',
    'Only execute function(s) when absolutely necessary.',
    'Ask for the required input to:recipient==all',
    'Use JSON for function arguments.',
    'Respond in this format:',
    // The template's own placeholders, shown to the model as written.
    `>>>$\{recipient}`,
    `$\{content}`,
    'Available functions:',
    '// Supported function definitions that should be called when necessary.',
    typescriptNamespace(tools),
  ].join('\n');
}

/** v3.1's system message (Llama 3.1 style): each function's JSON, then the tag syntax. */
function formatV31Tools(tools: readonly ToolDefinition[]): string {
  const functions = tools.map((tool) =>
    [
      `Use the function '${tool.name}' to '${tool.description ?? tool.name}'`,
      jsonForPrompt(functionDeclaration(tool)),
    ].join('\n'),
  );
  const first = tools[0];
  const example = first
    ? formatFunctionaryToolCall(
        [{ toolName: first.name, input: exampleInput(first.inputSchema) }],
        'v3.1',
      )
    : '<function=example_function_name>{"example_name": "example_value"}</function>';
  return [
    'You have access to the following functions:',
    '',
    functions.join('\n\n'),
    '',
    'Think very carefully before calling functions.',
    'If you choose to call a function ONLY reply in the following format:',
    '<{start_tag}={function_name}>{parameters}{end_tag}',
    'where',
    '',
    'start_tag => `<function`',
    'parameters => a JSON dict with the function argument name as key and function argument value as value.',
    'end_tag => `</function>`',
    '',
    'Here is an example,',
    example,
    '',
    'Reminder:',
    '- Function calls MUST follow the specified format, start with <function= and end with </function>',
    '- Required parameters MUST be specified',
    '- Put the entire function call reply on one line',
  ].join('\n');
}

export function formatFunctionaryTools(
  tools: readonly ToolDefinition[],
  version: FunctionaryVersion,
): string {
  return version === 'v3.1' ? formatV31Tools(tools) : formatV32Tools(tools);
}
