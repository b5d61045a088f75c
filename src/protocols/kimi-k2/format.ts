import type { ToolCallToFormat, ToolDefinition, ToolResponseToFormat } from '../../core/index.ts';
import { jsonForPrompt } from '../codecs/json/json-text.ts';
import { exampleInput, inputAsValue } from '../prompt/example-input.ts';
import { openAIToolDeclaration } from '../prompt/tool-declarations.ts';
import { jsonResultBody, type ResultBodyWriter, resultNameText } from '../results/result-text.ts';

/** Kimi numbers a turn's calls: `functions.get_weather:0`, `functions.get_time:1`. */
function callId(toolName: string, index: number): string {
  return `functions.${toolName}:${index}`;
}

export function formatKimiK2ToolCall(calls: readonly ToolCallToFormat[]): string {
  const body = calls
    .map(
      (call, index) =>
        `<|tool_call_begin|>${callId(call.toolName, index)}<|tool_call_argument_begin|>${jsonForPrompt(inputAsValue(call.input))}<|tool_call_end|>`,
    )
    .join('');
  return `<|tool_calls_section_begin|>${body}<|tool_calls_section_end|>`;
}

/**
 * Kimi's template opens each result with `## Return of <call id>` and writes its content as it
 * is; the id is the one the call was written with (`functions.NAME:INDEX`, in call order). `body`
 * writes each output: the text as it is (the format's `resultText`, its openers and every special
 * token broken) or prompt-safe JSON (the default, for a reader of every format).
 */
export function formatKimiK2ToolResponse(
  results: readonly ToolResponseToFormat[],
  body: ResultBodyWriter = jsonResultBody,
): string {
  return results
    .map((result, index) => {
      const id = callId(resultNameText(result.toolName), index);
      return `## Return of ${id}\n${body(result)}`;
    })
    .join('\n\n');
}

/**
 * Kimi's chat template declares tools as the OpenAI JSON list in a `tool_declare` message; the
 * call syntax is the model's own and is shown once.
 */
export function formatKimiK2Tools(tools: readonly ToolDefinition[]): string {
  const declared = tools.map((tool) => openAIToolDeclaration(tool));
  const first = tools[0];
  const example = first
    ? formatKimiK2ToolCall([{ toolName: first.name, input: exampleInput(first.inputSchema) }])
    : '<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:0<|tool_call_argument_begin|>{…}<|tool_call_end|><|tool_calls_section_end|>';
  return [
    '# Tools',
    '',
    jsonForPrompt(declared),
    '',
    'To call tools, write one section with one entry per call, numbered from 0 in the turn:',
    example,
    '',
    'Each result comes back as "## Return of functions.NAME:INDEX" followed by its output.',
  ].join('\n');
}
