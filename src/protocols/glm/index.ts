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
import { formatToolResponses, formatToolResponsesForAnyReader } from '../qwen3-coder/format.ts';
import { formatGlmToolCall, formatGlmTools } from './format.ts';

/** The name right after `<tool_call>`, then `<arg_key>k</arg_key><arg_value>v</arg_value>` pairs. */
const GLM_SYNTAX: ParameterTagsSyntax = {
  callOpen: '',
  callClose: '',
  parameterOpen: '<arg_key>',
  keyClose: '</arg_key>',
  valueOpen: '<arg_value>',
  parameterClose: '</arg_value>',
  // `<arg_value>` is data: its white space is the value's (see ParameterTagsSyntax.layout).
  layout: 'exact',
};

const OPENERS: readonly Opener<ParameterTagsOpener>[] = [
  {
    literal: '<tool_call>',
    delimited: false,
    data: { syntax: GLM_SYNTAX, blockClose: '</tool_call>' },
  },
];

/**
 * GLM-4.5/4.6/4.7's format: `<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Oslo</arg_value>\n</tool_call>`
 * (GLM-4.7 writes no line breaks), reasoning in `<think>`.
 */
export function glmProtocol(): ToolCallProtocol {
  return defineProtocol<ParameterTagsOpener>({
    name: 'glm',
    grammar: {
      reasoningTags: THINK_TAGS,
      callOpeners: () => OPENERS,
      openCall: (opener, context) => new ParameterTagsBody(context, opener),
    },
    formatTools: formatGlmTools,
    formatToolCall: formatGlmToolCall,
    // GLM's template puts results after `<|observation|>`, each in `<tool_response>`; the
    // special token itself is the server's to add.
    formatToolResponse: formatToolResponses,
    formatToolResponseForAnyReader: formatToolResponsesForAnyReader,
  });
}

export const glmFormat: FormatEntry = {
  name: 'glm',
  aliases: ['glm45', 'glm-4.5', 'glm4_moe', 'glm_4_5', 'glm4.5', 'glm-4.6', 'glm-4.7'],
  families: 'GLM-4.5, GLM-4.6, GLM-4.7',
  example:
    '<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Oslo</arg_value>\n</tool_call>',
  create: glmProtocol,
  // Poolside's Laguna writes GLM-4.5's calls (vLLM's poolside_v1 parser is a GLM-4 parser).
  models: [/glm-?4/, /laguna/],
  agent: CALLS_RUN_TOGETHER,
};
