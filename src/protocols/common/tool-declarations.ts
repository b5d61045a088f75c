import type { ToolDefinition, ToolResponseToFormat } from '../../core/index.ts';
import { jsonForPrompt } from './json-text.ts';

/** A tool as most chat templates declare it: `{name, description?, parameters}`. */
export function functionDeclaration(tool: ToolDefinition): {
  name: string;
  description?: string;
  parameters: ToolDefinition['inputSchema'];
} {
  return {
    name: tool.name,
    ...(tool.description ? { description: tool.description } : {}),
    parameters: tool.inputSchema,
  };
}

/** A tool as OpenAI's API lists it, which many templates copy: `{type: 'function', function}`. */
export function openAIToolDeclaration(tool: ToolDefinition): {
  type: 'function';
  function: ReturnType<typeof functionDeclaration>;
} {
  return { type: 'function', function: functionDeclaration(tool) };
}

/**
 * Results one JSON object per line, in the order of the calls: `{name, <key>: output}`, or
 * `{name, error}` for a failure (the templates that give each result a turn of its own).
 */
export function jsonResultLines(
  results: readonly ToolResponseToFormat[],
  key: 'content' | 'output' = 'content',
): string {
  return results
    .map((result) =>
      jsonForPrompt(
        result.isError
          ? { name: result.toolName, error: result.output }
          : { name: result.toolName, [key]: result.output },
      ),
    )
    .join('\n');
}
