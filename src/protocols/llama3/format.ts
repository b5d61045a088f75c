import type { ToolCallToFormat, ToolDefinition, ToolResponseToFormat } from '../../core/index.ts';
import { jsonForPrompt } from '../codecs/json/json-text.ts';
import { pythonCall } from '../codecs/python/python-call-format.ts';
import { exampleInput, inputAsValue } from '../prompt/example-input.ts';
import { openAIToolDeclaration } from '../prompt/tool-declarations.ts';
import { namedResultLines } from '../results/result-text.ts';

/** Llama 3.1's built-in tools, called as `<|python_tag|>NAME.call(query="…")`. */
const BUILT_IN_SEARCH_TOOLS = new Set(['brave_search', 'wolfram_alpha']);

function codeOf(call: ToolCallToFormat): string {
  const input = inputAsValue(call.input);
  const code = (input as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

/**
 * Calls as Llama 3.1 writes them: `{"name": …, "parameters": …}` one per line; a built-in
 * search tool and the code interpreter after `<|python_tag|>`, ended by `<|eom_id|>`.
 */
export function formatLlama3ToolCall(calls: readonly ToolCallToFormat[], codeTool: string): string {
  return calls
    .map((call) => {
      if (BUILT_IN_SEARCH_TOOLS.has(call.toolName)) {
        return `<|python_tag|>${pythonCall(call, '.call')}<|eom_id|>`;
      }
      if (call.toolName === codeTool) return `<|python_tag|>${codeOf(call)}<|eom_id|>`;
      return jsonForPrompt({ name: call.toolName, parameters: inputAsValue(call.input) });
    })
    .join('\n');
}

/** Results as Llama's `ipython` turn holds them: `{"output": …}`, named, in call order. */
export function formatLlama3ToolResponse(results: readonly ToolResponseToFormat[]): string {
  return namedResultLines(results, 'output');
}

/** The tools section as Llama 3.1's template words it (tools passed in the first user turn). */
export function formatLlama3Tools(tools: readonly ToolDefinition[], codeTool: string): string {
  const builtIns = tools.filter((tool) => BUILT_IN_SEARCH_TOOLS.has(tool.name));
  const hasCode = tools.some((tool) => tool.name === codeTool);
  const lines: string[] = [];
  if (builtIns.length > 0 || hasCode) {
    lines.push('Environment: ipython');
    if (builtIns.length > 0) lines.push(`Tools: ${builtIns.map((tool) => tool.name).join(', ')}`);
    lines.push('');
  }
  const signatures = tools
    .map((tool) => jsonForPrompt(openAIToolDeclaration(tool), 4))
    .join('\n\n');
  const example = tools.find(
    (tool) => tool.name !== codeTool && !BUILT_IN_SEARCH_TOOLS.has(tool.name),
  );
  lines.push(
    'Given the following functions, please respond with a JSON for a function call with its proper arguments that best answers the given prompt.',
    '',
    'Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}. Do not use variables.',
    '',
    signatures,
  );
  if (example) {
    lines.push(
      '',
      'For example:',
      formatLlama3ToolCall(
        [{ toolName: example.name, input: exampleInput(example.inputSchema) }],
        codeTool,
      ),
    );
  }
  if (builtIns.length > 0) {
    lines.push(
      '',
      `Call ${builtIns[0]!.name} as <|python_tag|>${builtIns[0]!.name}.call(query="…")`,
    );
  }
  if (hasCode) lines.push('', 'To run Python code, write <|python_tag|> followed by the code.');
  lines.push('', 'Each result comes back as {"name": …, "output": …}, in the order of the calls.');
  return lines.join('\n');
}
