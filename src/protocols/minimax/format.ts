import type { ToolCallToFormat, ToolDefinition, ToolResponseToFormat } from '../../core/index.ts';
import { jsonForPrompt } from '../codecs/json/json-text.ts';
import { exampleInput } from '../prompt/example-input.ts';
import { functionDeclaration } from '../prompt/tool-declarations.ts';
import {
  envelopeJson,
  type ResultTextGuard,
  resultEnvelope,
  resultOutputJson,
  resultTextForPrompt,
} from '../results/result-text.ts';

/**
 * The tools section of MiniMax-M2's chat template: each tool's JSON in `<tool>` inside
 * `<tools>`, then the call format.
 */
export function formatMinimaxTools(
  tools: readonly ToolDefinition[],
  formatMinimaxToolCall: (calls: readonly ToolCallToFormat[]) => string,
): string {
  const listed = tools
    .map((tool) => `<tool>${jsonForPrompt(functionDeclaration(tool))}</tool>`)
    .join('\n');
  const example = tools[0]
    ? `\n\nFor example:\n${formatMinimaxToolCall([
        { toolName: tools[0].name, input: exampleInput(tools[0].inputSchema) },
      ])}`
    : '';
  return [
    '# Tools',
    'You may call one or more tools to assist with the user query.',
    'Here are the tools available in JSONSchema format:',
    '',
    '<tools>',
    listed,
    '</tools>',
    '',
    'When making tool calls, use XML format to invoke tools and pass parameters:',
    '',
    '<minimax:tool_call>',
    '<invoke name="tool-name-1">',
    '<parameter name="param-key-1">param-value-1</parameter>',
    '<parameter name="param-key-2">param-value-2</parameter>',
    '...',
    '</invoke>',
    `</minimax:tool_call>${example}`,
  ].join('\n');
}

/**
 * Results as the template renders tool messages: `<response>` each. A text result is the text
 * itself, as the template writes it, when `text` guards it (what this parser reads as a call and
 * the `</response>` closer broken), else prompt-safe JSON (for a reader of every format). An
 * object or an array goes in `{"result": …}` as prompt-safe JSON: hermes reads JSON calls in
 * `<response>` tags, so a result that is a call's JSON stays data.
 */
export function formatMinimaxToolResponse(
  results: readonly ToolResponseToFormat[],
  text?: ResultTextGuard,
): string {
  return results
    .map((result) => {
      const output =
        typeof result.output === 'object' && result.output !== null
          ? envelopeJson(resultEnvelope({ result: result.output }))
          : text
            ? resultTextForPrompt(result.output, text)
            : resultOutputJson(result.output);
      return `<response>${result.isError ? `Error: ${output}` : output}</response>`;
    })
    .join('\n');
}
