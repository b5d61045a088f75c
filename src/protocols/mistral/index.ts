import { BoundedCache } from '../../core/bounded-cache.ts';
import type { ToolCallProtocol, ToolDefinition } from '../../core/index.ts';
import type { Opener } from '../../scan/opener-trie.ts';
import {
  bareArrayLiterals,
  bareArrayOpeners,
  isMarkupOpening,
  type JsonOpening,
  markupOpeners,
  openJsonCall,
} from '../codecs/json/json-call-formats-openers.ts';
import { defineProtocol } from '../define/define-protocol.ts';
import { CALLS_RUN_TOGETHER, type FormatEntry } from '../define/format-entry.ts';
import type { CallBody, CallContext } from '../engine/call-body.ts';
import { MISTRAL_THINK_TAGS } from '../engine/reasoning-tags.ts';
import type { CallOpener } from '../engine/stream-engine.ts';
import type { ResultTextGuard } from '../results/result-text.ts';
import { argumentsBody, argumentsBodyAfterBrace } from './arguments-body.ts';
import { MISTRAL_SHAPE, MistralCallsBody } from './calls-body.ts';
import { ClosedBlockBody } from './closed-block-body.ts';
import {
  formatMistralToolCall,
  formatMistralToolResponse,
  formatMistralTools,
  type MistralStyle,
} from './format.ts';

export type { MistralStyle } from './format.ts';

export interface MistralProtocolOptions {
  /**
   * How prompts and history are written: `v11` (Mistral Small 3.x, Devstral, Magistral, Ministral:
   * `[TOOL_CALLS]NAME[ARGS]{…}`) or `pre-v11` (Mistral 7B v0.3, Mixtral, Mistral Nemo:
   * `[TOOL_CALLS][{"name": …, "arguments": …}]`). Both are read either way. Default `v11`.
   */
  readonly style?: MistralStyle;
  /**
   * Read calls whose special tokens the server stripped: a bare `[{"name": …, "arguments": …}]`
   * array anywhere, and `NAME{…}` / `NAME[ARGS]{…}` naming a declared tool at the start of the
   * output. Only well-formed calls to declared tools count. Default `true`.
   */
  readonly strippedTokens?: boolean;
}

/** What a Mistral opener starts. */
type MistralOpening =
  | JsonOpening
  | { readonly toolCalls: true }
  /** A v11 call at the start of the output without `[TOOL_CALLS]`: `NAME{` or `NAME[ARGS]`. */
  | { readonly strippedCall: string; readonly afterBrace: boolean };

const TOOL_CALLS: MistralOpening = { toolCalls: true };

const FIXED_OPENERS: readonly CallOpener<MistralOpening>[] = [
  // A special token, written only to call: read inside [THINK] too (Magistral may call before
  // it closes its reasoning). Bare arrays and Ollama's closer are plain text, and are not.
  { literal: '[TOOL_CALLS]', delimited: false, inReasoning: true, data: TOOL_CALLS },
  // Ollama's Mistral template closes the array with it.
  ...markupOpeners(['[/TOOL_CALLS]']),
];

const BARE_ARRAYS = bareArrayOpeners(MISTRAL_SHAPE, bareArrayLiterals(['name']));

/**
 * What a text result may not hold as it is: the openers read anywhere in a reply (a stripped
 * call, `\nNAME{`, opens one only at the output's start).
 */
const RESULT_GUARD: ResultTextGuard = {
  tags: [],
  literals: [...FIXED_OPENERS, ...BARE_ARRAYS].map((opener) => opener.literal),
};

/** Distinct tool lists kept; an application has a few, so this only bounds odd callers. */
const MAX_CACHED_TOOL_LISTS = 64;

/** Opener arrays per list of tool names, so the engine compiles each once (see xml/index.ts). */
const openersByNames = new BoundedCache<string, readonly Opener<MistralOpening>[]>(
  MAX_CACHED_TOOL_LISTS,
);

/** `\nNAME{` and `\nNAME[ARGS]`: line openers, which the engine also matches at the output's start. */
function strippedCallOpeners(tools: readonly ToolDefinition[]): readonly Opener<MistralOpening>[] {
  const key = tools.map((tool) => tool.name).join('\u0000');
  let openers = openersByNames.get(key);
  if (openers === undefined) {
    openers = [
      ...FIXED_OPENERS,
      ...BARE_ARRAYS,
      ...tools.flatMap((tool): Opener<MistralOpening>[] => [
        {
          literal: `\n${tool.name}{`,
          delimited: false,
          data: { strippedCall: tool.name, afterBrace: true },
        },
        {
          literal: `\n${tool.name}[ARGS]`,
          delimited: false,
          data: { strippedCall: tool.name, afterBrace: false },
        },
      ]),
    ];
    openersByNames.set(key, openers);
  }
  return openers;
}

function openMistralCall(opening: MistralOpening, context: CallContext): CallBody {
  // An array of calls runs nothing before its `]`.
  if ('toolCalls' in opening) {
    return new ClosedBlockBody(context, (holding) => new MistralCallsBody(holding));
  }
  if ('strippedCall' in opening) {
    const tool = context.options.toolsByName.get(opening.strippedCall)!;
    // Without `[ARGS]` the name and brace may be ordinary text: only a well-formed call counts.
    return opening.afterBrace
      ? argumentsBodyAfterBrace(context, tool, true)
      : argumentsBody(context, tool, false);
  }
  if (isMarkupOpening(opening)) return openJsonCall(opening, context);
  return new ClosedBlockBody(context, (holding) => openJsonCall(opening, holding));
}

/**
 * Mistral's format, every tokenizer version: `[TOOL_CALLS][{"name": …, "arguments": …}]` before
 * v11, `[TOOL_CALLS]NAME[ARGS]{…}` (with `[CALL_ID]…` in v11) after, `[THINK]…[/THINK]` reasoning.
 */
export function mistralProtocol(options: MistralProtocolOptions = {}): ToolCallProtocol {
  const style = options.style ?? 'v11';
  const stripped = options.strippedTokens ?? true;
  const fixed: readonly Opener<MistralOpening>[] = stripped
    ? [...FIXED_OPENERS, ...BARE_ARRAYS]
    : FIXED_OPENERS;
  return defineProtocol<MistralOpening>({
    name: 'mistral',
    grammar: {
      reasoningTags: MISTRAL_THINK_TAGS,
      callOpeners: (parse) => (stripped ? strippedCallOpeners(parse.tools) : fixed),
      openCall: openMistralCall,
    },
    formatTools: (tools) => formatMistralTools(tools, style),
    formatToolCall: (calls) => formatMistralToolCall(calls, style),
    formatToolResponse: (results) => formatMistralToolResponse(results, style, RESULT_GUARD),
    formatToolResponseForAnyReader: (results) => formatMistralToolResponse(results, style),
  });
}

export const mistralFormat: FormatEntry = {
  name: 'mistral',
  aliases: ['mistral_nemo', 'magistral', 'devstral', 'mistral_v11', 'mistral_pre_v11'],
  families: 'Mistral, Mixtral, Mistral Nemo/Small, Ministral, Codestral, Devstral, Magistral',
  example: '[TOOL_CALLS]get_weather[ARGS]{"city": "Oslo"}',
  create: () => mistralProtocol(),
  models: [/mistral/, /mixtral/, /devstral/, /magistral/, /ministral/, /codestral/],
  agent: CALLS_RUN_TOGETHER,
};
