import type { ToolDefinition } from '../../core/index.ts';

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
