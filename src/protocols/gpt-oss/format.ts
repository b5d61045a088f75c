import type { ToolDefinition, ToolResponseToFormat } from '../../core/index.ts';
import { typescriptNamespace } from '../prompt/typescript-tools.ts';
import {
  envelopeJson,
  resultEnvelope,
  resultNameText,
  resultOutputJson,
} from '../results/result-text.ts';

/**
 * A result as harmony writes it: a message from the tool to the assistant, on commentary. The
 * output is JSON text, strings too, so no result can hold a call of any format; an error is the
 * same text in `{"error": …}`, so a result and an error cost the same per character.
 */
export function formatGptOssToolResponse(results: readonly ToolResponseToFormat[]): string {
  return results
    .map((result) => {
      const output = result.isError
        ? envelopeJson(resultEnvelope({ error: result.output }))
        : resultOutputJson(result.output);
      return `<|start|>functions.${resultNameText(result.toolName)} to=assistant<|channel|>commentary<|message|>${output}<|end|>`;
    })
    .join('\n');
}

/**
 * Harmony's developer message for tools (`# Tools` / `## functions` / the namespace), with the
 * system message's line that sends tool calls to the commentary channel.
 */
export function formatGptOssTools(tools: readonly ToolDefinition[]): string {
  return [
    '# Valid channels: analysis, commentary, final. Channel must be included for every message.',
    "Calls to these tools must go to the commentary channel: 'functions'.",
    '',
    '# Tools',
    '',
    '## functions',
    '',
    typescriptNamespace(tools),
  ].join('\n');
}
