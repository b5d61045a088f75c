import type { ToolCallProtocol } from '../../core/index.ts';
import type { FormatEntry } from '../define/format-entry.ts';
import type { ResultTextGuard } from '../results/result-text.ts';
import { formatEntryFromSpec } from '../spec/define.ts';
import type { FormatSpec } from '../spec/types.ts';
import { formatMinimaxToolResponse, formatMinimaxTools } from './format.ts';

/** `<invoke name="f">` `<parameter name="k">v</parameter>` `</invoke>`, values inline. */
const MINIMAX_SYNTAX = {
  callOpen: '<invoke',
  callClose: '</invoke>',
  parameterOpen: '<parameter',
  parameterClose: '</parameter>',
  layout: 'inline',
} as const;

/**
 * MiniMax-M2's format:
 * `<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Oslo</parameter>\n</invoke>\n</minimax:tool_call>`,
 * several `<invoke>`s per block, reasoning in `<think>`.
 */
export const minimaxSpec: FormatSpec = {
  spec: 1,
  name: 'minimax',
  aliases: ['minimax-m2', 'minimax_m2', 'minimax-m2.1', 'minimax-m2.5'],
  families: 'MiniMax-M2, M2.1, M2.5',
  example:
    '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Oslo</parameter>\n</invoke>\n</minimax:tool_call>',
  calls: [
    {
      codec: 'tagged',
      open: '<minimax:tool_call>',
      close: '</minimax:tool_call>',
      syntax: MINIMAX_SYNTAX,
    },
    // Servers that skip special tokens drop `<minimax:tool_call>`; `<invoke name="…">` remains.
    {
      codec: 'tagged',
      open: '<invoke ',
      syntax: MINIMAX_SYNTAX,
      openConsumed: ' ',
      strayClose: '</minimax:tool_call>',
    },
  ],
  write: {
    section: { open: '<minimax:tool_call>\n', close: '</minimax:tool_call>' },
    call: '<invoke name="{name}">\n{arguments}</invoke>\n',
    parameter: '<parameter name="{key}">{value}</parameter>\n',
  },
  results: { each: '<response>{output}</response>', join: '\n' },
};

/** What a result's text may not hold as it is: this parser's openers, the result block's tags. */
const RESULT_GUARD: ResultTextGuard = {
  tags: ['response', 'minimax:', 'invoke', 'parameter'],
  literals: minimaxSpec.calls.map((form) => form.open),
};

export const minimaxFormat: FormatEntry = formatEntryFromSpec(minimaxSpec, {
  models: [/minimax-?m2/],
  hooks: {
    formatTools: formatMinimaxTools,
    // An object result goes in `{"result": …}` (hermes reads JSON calls in `<response>`).
    formatToolResponse: (results) => formatMinimaxToolResponse(results, RESULT_GUARD),
    formatToolResponseForAnyReader: (results) => formatMinimaxToolResponse(results),
  },
});

export function minimaxProtocol(): ToolCallProtocol {
  return minimaxFormat.create();
}
