import type { ToolCallProtocol } from '../../core/index.ts';
import { defineProtocol } from '../common/define-protocol.ts';
import { CALLS_RUN_TOGETHER, type FormatEntry } from '../common/format-entry.ts';
import { MarkupBody } from '../common/markup-body.ts';
import { type NamedJsonConfig, namedJsonBody } from '../common/named-json-body.ts';
import { THINK_TAGS } from '../common/reasoning-tags.ts';
import type { CallOpener } from '../engine/stream-engine.ts';
import { formatKimiK2ToolCall, formatKimiK2ToolResponse, formatKimiK2Tools } from './format.ts';

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

/**
 * A call's id as Kimi writes it, `functions.NAME:INDEX`; vLLM's parser also sees `NAME:INDEX`.
 * An id without its index (`functions.bad.0`) is not one of Kimi's.
 */
const CALL_ID = /^\s*(?:functions\.)?([^\s:<>]+):\d+\s*$/;

export function toolNameInKimiId(id: string): string | undefined {
  return CALL_ID.exec(id)?.[1];
}

type KimiOpener = { readonly kind: 'section' } | { readonly kind: 'call' };

const CALL_CONFIG: NamedJsonConfig = {
  terminator: '<|tool_call_argument_begin|>',
  readName: toolNameInKimiId,
  json: { closer: '<|tool_call_end|>', speculative: false },
};

/**
 * Every opener is a special token: Kimi-K2-Thinking writes its section before it closes its
 * reasoning, and a section there is a call, never a mention of one (`inReasoning`).
 */
const OPENERS: readonly CallOpener<KimiOpener>[] = [
  ...SECTION_TOKENS.map((literal) => ({
    literal,
    delimited: false,
    inReasoning: true,
    data: { kind: 'section' } as const,
  })),
  { literal: '<|tool_call_begin|>', delimited: false, inReasoning: true, data: { kind: 'call' } },
];

/**
 * Moonshot's Kimi-K2: `<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:0
 * <|tool_call_argument_begin|>{…}<|tool_call_end|>…<|tool_calls_section_end|>`, reasoning in
 * `<think>` (Kimi-K2-Thinking).
 */
export function kimiK2Protocol(): ToolCallProtocol {
  return defineProtocol<KimiOpener>({
    name: 'kimi-k2',
    grammar: {
      reasoningTags: THINK_TAGS,
      callOpeners: () => OPENERS,
      openCall: (opener, context) =>
        opener.kind === 'section' ? new MarkupBody(context) : namedJsonBody(context, CALL_CONFIG),
    },
    formatTools: formatKimiK2Tools,
    formatToolCall: formatKimiK2ToolCall,
    formatToolResponse: formatKimiK2ToolResponse,
  });
}

export const kimiK2Format: FormatEntry = {
  name: 'kimi-k2',
  aliases: ['kimi', 'kimi_k2', 'moonshot'],
  families: 'Kimi-K2, Kimi-K2-Thinking (Moonshot AI)',
  example:
    '<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Oslo"}<|tool_call_end|><|tool_calls_section_end|>',
  create: () => kimiK2Protocol(),
  models: [/kimi-k2/, /kimi_k2/],
  agent: CALLS_RUN_TOGETHER,
  toolNamesIn: (text) => [
    ...new Set(
      [...text.matchAll(/<\|tool_call_begin\|>\s*(?:functions\.)?([^\s:<>]+)/g)].map(
        (match) => match[1]!,
      ),
    ),
  ],
};
