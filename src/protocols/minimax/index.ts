import type { ToolCallProtocol } from '../../core/index.ts';
import type { Opener } from '../../scan/opener-trie.ts';
import { defineProtocol } from '../common/define-protocol.ts';
import { CALLS_RUN_TOGETHER, type FormatEntry } from '../common/format-entry.ts';
import {
  ParameterTagsBody,
  type ParameterTagsOpener,
  type ParameterTagsSyntax,
} from '../common/parameter-tags-body.ts';
import { THINK_TAGS } from '../common/reasoning-tags.ts';
import type { ResultTextGuard } from '../common/result-text.ts';
import { formatMinimaxToolCall, formatMinimaxToolResponse, formatMinimaxTools } from './format.ts';

/** `<invoke name="f">` `<parameter name="k">v</parameter>` `</invoke>`, values inline. */
const MINIMAX_SYNTAX: ParameterTagsSyntax = {
  callOpen: '<invoke',
  callClose: '</invoke>',
  parameterOpen: '<parameter',
  parameterClose: '</parameter>',
  layout: 'inline',
};

const OPENERS: readonly Opener<ParameterTagsOpener>[] = [
  {
    literal: '<minimax:tool_call>',
    delimited: false,
    data: { syntax: MINIMAX_SYNTAX, blockClose: '</minimax:tool_call>' },
  },
  // Servers that skip special tokens drop `<minimax:tool_call>`; `<invoke name="…">` remains.
  {
    literal: '<invoke ',
    delimited: false,
    data: {
      syntax: MINIMAX_SYNTAX,
      bare: { consumed: ' ', strayClose: '</minimax:tool_call>' },
    },
  },
];

/** What a text result may not hold as it is: this parser's openers, the result block's tags. */
const RESULT_GUARD: ResultTextGuard = {
  tags: ['response', 'minimax:', 'invoke', 'parameter'],
  literals: OPENERS.map((opener) => opener.literal),
};

/**
 * MiniMax-M2's format:
 * `<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Oslo</parameter>\n</invoke>\n</minimax:tool_call>`,
 * several `<invoke>`s per block, reasoning in `<think>`.
 */
export function minimaxProtocol(): ToolCallProtocol {
  return defineProtocol<ParameterTagsOpener>({
    name: 'minimax',
    grammar: {
      reasoningTags: THINK_TAGS,
      callOpeners: () => OPENERS,
      openCall: (opener, context) => new ParameterTagsBody(context, opener),
    },
    formatTools: formatMinimaxTools,
    formatToolCall: formatMinimaxToolCall,
    formatToolResponse: (results) => formatMinimaxToolResponse(results, RESULT_GUARD),
    formatToolResponseForAnyReader: (results) => formatMinimaxToolResponse(results),
  });
}

export const minimaxFormat: FormatEntry = {
  name: 'minimax',
  aliases: ['minimax-m2', 'minimax_m2', 'minimax-m2.1', 'minimax-m2.5'],
  families: 'MiniMax-M2, M2.1, M2.5',
  example:
    '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Oslo</parameter>\n</invoke>\n</minimax:tool_call>',
  create: minimaxProtocol,
  models: [/minimax-?m2/],
  agent: CALLS_RUN_TOGETHER,
};
