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
import {
  formatQwen3CoderToolCall,
  formatQwen3CoderTools,
  formatToolResponses,
  formatToolResponsesForAnyReader,
} from './format.ts';

/** `<function=NAME>` `<parameter=KEY>` value `</parameter>` `</function>`, values on their own lines. */
export const QWEN3_CODER_SYNTAX: ParameterTagsSyntax = {
  callOpen: '<function',
  callClose: '</function>',
  parameterOpen: '<parameter',
  parameterClose: '</parameter>',
  layout: 'block',
  nearMisses: true,
};

const OPENERS: readonly Opener<ParameterTagsOpener>[] = [
  {
    literal: '<tool_call>',
    delimited: false,
    data: { syntax: QWEN3_CODER_SYNTAX, blockClose: '</tool_call>' },
  },
  // Qwen3-Coder sometimes drops `<tool_call>` (and still writes `</tool_call>` after the call).
  {
    literal: '<function=',
    delimited: false,
    data: { syntax: QWEN3_CODER_SYNTAX, bare: { consumed: '=', strayClose: '</tool_call>' } },
  },
  // Step 3.5 writes `<function bash>` (a space for `=`), with or without `<tool_call>`: read
  // only when the word names a declared tool.
  {
    literal: '<function ',
    delimited: false,
    data: { syntax: QWEN3_CODER_SYNTAX, bare: { consumed: ' ', strayClose: '</tool_call>' } },
  },
];

/**
 * Qwen3-Coder's and Qwen3.5's own format:
 * `<tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n</function>\n</tool_call>`,
 * reasoning in `<think>`. Values are text typed by the tool's schema.
 */
export function qwen3CoderProtocol(): ToolCallProtocol {
  return defineProtocol<ParameterTagsOpener>({
    name: 'qwen3-coder',
    grammar: {
      reasoningTags: THINK_TAGS,
      callOpeners: () => OPENERS,
      openCall: (opener, context) => new ParameterTagsBody(context, opener),
    },
    formatTools: formatQwen3CoderTools,
    formatToolCall: formatQwen3CoderToolCall,
    formatToolResponse: formatToolResponses,
    formatToolResponseForAnyReader: formatToolResponsesForAnyReader,
  });
}

export const qwen3CoderFormat: FormatEntry = {
  name: 'qwen3-coder',
  aliases: ['qwen3_coder', 'qwen3coder', 'qwen3_coder_xml', 'qwen3.5', 'qwen3_5'],
  families: 'Qwen3-Coder, Qwen3.5',
  example:
    '<tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n</function>\n</tool_call>',
  create: qwen3CoderProtocol,
  models: [/qwen3-?coder/, /qwen3[._-]?5/],
  agent: CALLS_RUN_TOGETHER,
};
