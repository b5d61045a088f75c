import type { ToolCallProtocol } from '../../core/index.ts';
import type { FormatEntry } from '../define/format-entry.ts';
import { formatToolResponses, formatToolResponsesForAnyReader } from '../qwen3-coder/format.ts';
import { formatEntryFromSpec } from '../spec/define.ts';
import type { FormatSpec } from '../spec/types.ts';
import { formatGlmTools } from './format.ts';

/**
 * GLM-4.5/4.6/4.7's format: `<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Oslo</arg_value>\n</tool_call>`
 * (GLM-4.7 writes no line breaks), reasoning in `<think>`. The name follows `<tool_call>`, and
 * `<arg_value>` is data: its white space is the value's (the tagged codec's `exact` layout).
 */
export const glmSpec: FormatSpec = {
  spec: 1,
  name: 'glm',
  aliases: ['glm45', 'glm-4.5', 'glm4_moe', 'glm_4_5', 'glm4.5', 'glm-4.6', 'glm-4.7'],
  families: 'GLM-4.5, GLM-4.6, GLM-4.7, Poolside Laguna',
  example:
    '<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Oslo</arg_value>\n</tool_call>',
  calls: [
    {
      codec: 'tagged',
      open: '<tool_call>',
      close: '</tool_call>',
      syntax: {
        callOpen: '',
        callClose: '',
        parameterOpen: '<arg_key>',
        keyClose: '</arg_key>',
        valueOpen: '<arg_value>',
        parameterClose: '</arg_value>',
        layout: 'exact',
      },
    },
  ],
  write: {
    call: '<tool_call>{name}\n{arguments}</tool_call>',
    parameter: '<arg_key>{key}</arg_key>\n<arg_value>{value}</arg_value>\n',
    join: '\n',
  },
  // GLM's template puts results after `<|observation|>`, each in `<tool_response>`; the special
  // token itself is the server's to add.
  results: { each: '<tool_response>\n{output}\n</tool_response>', join: '\n' },
};

export const glmFormat: FormatEntry = formatEntryFromSpec(glmSpec, {
  // Poolside's Laguna writes GLM-4.5's calls (vLLM's poolside_v1 parser is a GLM-4 parser).
  models: [/glm-?4/, /laguna/],
  hooks: {
    formatTools: formatGlmTools,
    // Results keep the qwen3-coder family's guard, shared with seed-oss.
    formatToolResponse: formatToolResponses,
    formatToolResponseForAnyReader: formatToolResponsesForAnyReader,
  },
});

export function glmProtocol(): ToolCallProtocol {
  return glmFormat.create();
}
