import type { ToolCallToFormat, ToolDefinition, ToolResponseToFormat } from '../../core/index.ts';
import { jsonForPrompt } from '../codecs/json/json-text.ts';
import { describeToolSection } from '../prompt/describe-tool.ts';
import { exampleInput } from '../prompt/example-input.ts';
import { envelopeJson, resultEnvelope } from '../results/result-text.ts';

/** A JSON array written one element per line (`[]` when there is none). */
function jsonArrayLines(lines: readonly string[]): string {
  return lines.length === 0 ? '[]' : `[\n${lines.join(',\n')}\n]`;
}

/**
 * A failure's content: an Error is told by its message (as JSON it would be `{}`); any other value
 * is shown as it is.
 */
function failureContent(output: unknown): unknown {
  return output instanceof Error ? output.message : output;
}

/**
 * One `<results>` block: `{tool, status, content}` per call, in call order (Cogency's execute
 * protocol); the content prompt-safe (see result-text.ts).
 */
export function formatExecuteToolResponse(results: readonly ToolResponseToFormat[]): string {
  const lines = results.map(
    (result) =>
      `  ${envelopeJson(
        resultEnvelope({
          tool: result.toolName,
          status: result.isError ? 'failure' : 'success',
          content: result.isError ? failureContent(result.output) : result.output,
        }),
      )}`,
  );
  return `<results>\n${jsonArrayLines(lines)}\n</results>`;
}

export function formatExecuteTools(
  tools: readonly ToolDefinition[],
  formatExecuteToolCall: (calls: readonly ToolCallToFormat[]) => string,
): string {
  const sections = tools.map((tool) =>
    describeToolSection(
      tool,
      { parameters: 'Arguments', schema: 'JSON Schema of args' },
      jsonForPrompt,
    ),
  );
  const example = formatExecuteToolCall(
    tools
      .slice(0, 2)
      .map((tool) => ({ toolName: tool.name, input: exampleInput(tool.inputSchema) })),
  );
  return [
    '# Tools',
    '',
    'Think first inside <think>...</think> if you need to; it is never run or shown.',
    'To use tools, write one <execute> block holding a JSON array of calls:',
    '',
    '<execute>',
    '[',
    '  {"name": "tool_name", "args": {"arg_name": "value"}}',
    ']',
    '</execute>',
    '',
    'Rules:',
    '- Every element is {"name": ..., "args": {...}}; "name" is one of the tools below.',
    '- The calls of one block run in parallel; put calls that depend on each other in separate blocks.',
    '- Results come back as <results>[{"tool": ..., "status": "success" | "failure", "content": ...}]</results>, in the order of the calls.',
    '- When you need no more tools, answer in plain text.',
    '',
    'Example:',
    example,
    '',
    '## Available tools',
    '',
    sections.join('\n\n'),
  ].join('\n');
}
