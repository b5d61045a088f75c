import type { ToolCallProtocol } from '../../core/index.ts';
import type { FormatEntry } from '../define/format-entry.ts';
import { textResultBody } from '../results/result-text.ts';
import { formatEntryFromSpec } from '../spec/define.ts';
import type { FormatSpec } from '../spec/types.ts';
import { formatKimiK2ToolResponse, formatKimiK2Tools } from './format.ts';

/**
 * The section tokens around a turn's calls, with the singular spelling some Kimi-K2 releases
 * write: framing only, dropped.
 */
const SECTION_TOKENS = [
  '<|tool_calls_section_begin|>',
  '<|tool_call_section_begin|>',
  '<|tool_calls_section_end|>',
  '<|tool_call_section_end|>',
];

const CALL_BEGIN = '<|tool_call_begin|>';

/**
 * Moonshot's Kimi-K2: `<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:0
 * <|tool_call_argument_begin|>{…}<|tool_call_end|>…<|tool_calls_section_end|>`, reasoning in
 * `<think>` (Kimi-K2-Thinking). Every opener is a special token: Kimi-K2-Thinking writes its
 * section before it closes its reasoning, and a section there is a call, never a mention of one
 * (`inReasoning`, `markupInReasoning`). Some outputs write the arguments double-encoded, as a
 * JSON string holding the object (`argumentsAsString`).
 */
export const kimiK2Spec: FormatSpec = {
  spec: 1,
  name: 'kimi-k2',
  aliases: ['kimi', 'kimi_k2', 'moonshot'],
  families: 'Kimi-K2, Kimi-K2-Thinking (Moonshot AI)',
  models: ['kimi-k2', 'kimi_k2'],
  example:
    '<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Oslo"}<|tool_call_end|><|tool_calls_section_end|>',
  markup: SECTION_TOKENS,
  markupInReasoning: true,
  calls: [
    {
      codec: 'json',
      open: CALL_BEGIN,
      close: '<|tool_call_end|>',
      inReasoning: true,
      nameHeader: {
        end: '<|tool_call_argument_begin|>',
        namePrefixes: ['functions.'],
        nameEnds: 'index',
      },
      argumentsAsString: true,
    },
  ],
  write: {
    section: { open: '<|tool_calls_section_begin|>', close: '<|tool_calls_section_end|>' },
    call: `${CALL_BEGIN}functions.{name}:{index}<|tool_call_argument_begin|>{arguments}<|tool_call_end|>`,
  },
  results: { each: '## Return of functions.{name}:{index}\n{output}', join: '\n\n' },
};

/** A text result as the template writes it, the text itself, with this parser's openers broken. */
const RESULT_TEXT = textResultBody({ tags: [], literals: [...SECTION_TOKENS, CALL_BEGIN] });

export const kimiK2Format: FormatEntry = formatEntryFromSpec(kimiK2Spec, {
  hooks: {
    // The tools as the OpenAI JSON list in Kimi's `tool_declare` message, the syntax shown once.
    formatTools: formatKimiK2Tools,
    formatToolResponse: (results) => formatKimiK2ToolResponse(results, RESULT_TEXT),
    formatToolResponseForAnyReader: (results) => formatKimiK2ToolResponse(results),
  },
  toolNamesIn: (text) => [
    ...new Set(
      [...text.matchAll(/<\|tool_call_begin\|>\s*(?:functions\.)?([^\s:<>]+)/g)].map(
        (match) => match[1]!,
      ),
    ),
  ],
});

export function kimiK2Protocol(): ToolCallProtocol {
  return kimiK2Format.create();
}
