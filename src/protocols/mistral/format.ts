import type { ToolCallToFormat, ToolDefinition, ToolResponseToFormat } from '../../core/index.ts';
import { jsonForPrompt } from '../codecs/json/json-text.ts';
import { exampleInput, inputAsValue } from '../prompt/example-input.ts';
import { openAIToolDeclaration } from '../prompt/tool-declarations.ts';
import {
  envelopeJson,
  type ResultTextGuard,
  resultEnvelope,
  resultOutputJson,
  resultTextForPrompt,
} from '../results/result-text.ts';

/** Which tokenizer generation's conventions prompts are written in. */
export type MistralStyle = 'v11' | 'pre-v11';

/**
 * Mistral's call ids are nine letters and digits; its templates keep the last nine characters of
 * a longer id. Undefined when the id has no letter or digit.
 */
export function mistralCallId(id: string | undefined): string | undefined {
  const alphanumeric = id?.replace(/[^A-Za-z0-9]/g, '') ?? '';
  return alphanumeric.length > 0 ? alphanumeric.slice(-9) : undefined;
}

function argumentsOf(call: ToolCallToFormat): unknown {
  const value = inputAsValue(call.input);
  return value === undefined ? {} : value;
}

export function formatMistralToolCall(
  calls: readonly ToolCallToFormat[],
  style: MistralStyle,
): string {
  if (style === 'pre-v11') {
    const list = calls.map((call) => {
      const id = mistralCallId(call.toolCallId);
      return { name: call.toolName, arguments: argumentsOf(call), ...(id ? { id } : {}) };
    });
    return `[TOOL_CALLS]${jsonForPrompt(list)}`;
  }
  return calls
    .map((call) => {
      const id = mistralCallId(call.toolCallId);
      const callId = id ? `[CALL_ID]${id}` : '';
      return `[TOOL_CALLS]${call.toolName}${callId}[ARGS]${jsonForPrompt(argumentsOf(call))}`;
    })
    .join('');
}

function resultContent(result: ToolResponseToFormat): unknown {
  return result.isError ? { error: result.output } : result.output;
}

/**
 * `[TOOL_RESULTS]…[/TOOL_RESULTS]` per result: before v11 a JSON object with `content` and
 * `call_id`; from v11 on the call id, `[TOOL_CONTENT]` and the content (the id is left out when
 * there is none, as v13 does). A v11 text result is the text itself, as mistral-common writes it,
 * when `text` guards it (the openers this parser reads broken; `[/TOOL_RESULTS]` and every other
 * bracketed token are broken in any text result); otherwise, and for a reader of every format,
 * the content is prompt-safe JSON (see result-text.ts).
 */
export function formatMistralToolResponse(
  results: readonly ToolResponseToFormat[],
  style: MistralStyle,
  text?: ResultTextGuard,
): string {
  return results
    .map((result) => {
      const id = mistralCallId(result.toolCallId);
      if (style === 'pre-v11') {
        const envelope = resultEnvelope({ content: resultContent(result), call_id: id });
        return `[TOOL_RESULTS]${envelopeJson(envelope)}[/TOOL_RESULTS]`;
      }
      const content = resultContent(result);
      const body =
        text && typeof content === 'string'
          ? resultTextForPrompt(content, text)
          : resultOutputJson(content);
      return `[TOOL_RESULTS]${id ? `${id}[TOOL_CONTENT]` : ''}${body}[/TOOL_RESULTS]`;
    })
    .join('');
}

/** `[AVAILABLE_TOOLS][…][/AVAILABLE_TOOLS]`, as mistral-common renders the tools, and how to call them. */
export function formatMistralTools(tools: readonly ToolDefinition[], style: MistralStyle): string {
  const list = tools.map((tool) => openAIToolDeclaration(tool));
  const first = tools[0];
  const example = first
    ? formatMistralToolCall(
        [{ toolName: first.name, input: exampleInput(first.inputSchema) }],
        style,
      )
    : undefined;
  const how =
    style === 'pre-v11'
      ? 'If you call one or more tools, write [TOOL_CALLS] followed by a single JSON array of the calls: [TOOL_CALLS][{"name": tool name, "arguments": tool arguments}, additional tool calls].'
      : 'To call a tool, write [TOOL_CALLS], the tool name, [ARGS] and the arguments as a JSON object: [TOOL_CALLS]tool name[ARGS]{arguments}. Repeat this for each call.';
  return [
    `[AVAILABLE_TOOLS]${jsonForPrompt(list)}[/AVAILABLE_TOOLS]`,
    '',
    how,
    ...(example ? ['For example:', example] : []),
    'If you call tools, do not interpret them or otherwise respond until you receive the results: each comes back in [TOOL_RESULTS]…[/TOOL_RESULTS], in the order of the calls.',
  ].join('\n');
}
