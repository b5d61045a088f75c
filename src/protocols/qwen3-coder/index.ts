import type { ToolCallProtocol } from '../../core/index.ts';
import type { ParameterTagsSyntax } from '../codecs/tagged/parameter-tags-body.ts';
import type { FormatEntry } from '../define/format-entry.ts';
import { formatEntryFromSpec } from '../spec/define.ts';
import type { FormatSpec } from '../spec/types.ts';
import {
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

/**
 * Qwen3-Coder's and Qwen3.5's own format:
 * `<tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n</function>\n</tool_call>`,
 * reasoning in `<think>`. Values are text typed by the tool's schema.
 */
export const qwen3CoderSpec: FormatSpec = {
  spec: 1,
  name: 'qwen3-coder',
  aliases: ['qwen3_coder', 'qwen3coder', 'qwen3_coder_xml', 'qwen3.5', 'qwen3_5'],
  families: 'Qwen3-Coder, Qwen3.5',
  example:
    '<tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n</function>\n</tool_call>',
  calls: [
    { codec: 'tagged', open: '<tool_call>', close: '</tool_call>', syntax: QWEN3_CODER_SYNTAX },
    // Qwen3-Coder sometimes drops `<tool_call>` (and still writes `</tool_call>` after the call).
    {
      codec: 'tagged',
      open: '<function=',
      syntax: QWEN3_CODER_SYNTAX,
      openConsumed: '=',
      strayClose: '</tool_call>',
    },
    // Step 3.5 writes `<function bash>` (a space for `=`), with or without `<tool_call>`: read
    // only when the word names a declared tool.
    {
      codec: 'tagged',
      open: '<function ',
      syntax: QWEN3_CODER_SYNTAX,
      openConsumed: ' ',
      strayClose: '</tool_call>',
    },
  ],
  write: {
    call: '<tool_call>\n<function={name}>\n{arguments}</function>\n</tool_call>',
    parameter: '<parameter={key}>{value}</parameter>\n',
    join: '\n',
  },
  results: { each: '<tool_response>\n{output}\n</tool_response>', join: '\n' },
};

export const qwen3CoderFormat: FormatEntry = formatEntryFromSpec(qwen3CoderSpec, {
  // StepFun's Step-3.5 and Step-3.7 write Qwen3-Coder's calls (their templates open <think>).
  models: [/qwen3-?coder/, /qwen3[._-]?5/, /step-?3\.[57]/],
  hooks: {
    formatTools: formatQwen3CoderTools,
    formatToolResponse: formatToolResponses,
    formatToolResponseForAnyReader: formatToolResponsesForAnyReader,
  },
});

export function qwen3CoderProtocol(): ToolCallProtocol {
  return qwen3CoderFormat.create();
}
