/**
 * Hunyuan-A13B (Tencent): all of a turn's calls as one JSON array in `<tool_calls>` …
 * `</tool_calls>`, after the content.
 *
 * From the chat template (vLLM `examples/tool_chat_template_hunyuan_a13b.jinja`): the calls are
 * `<tool_calls>[{"name": …, "arguments": …}, …]</tool_calls>`, a result comes back as
 * `<tool_response>RESULT</tool_response>`, and the tools are declared in the first message in
 * Chinese, with `tools|tojson`. The answer after reasoning sits in `<answer>` … `</answer>`
 * (vLLM's `hunyuan_a13b` reasoning parser), which is framing and dropped.
 * Hy3 and Hy4 write tagged calls in the same `<tool_calls>` and are formats of their own.
 */
import type { FormatEntry } from '../define/format-entry.ts';
import { formatEntryFromSpec } from '../spec/define.ts';
import type { FormatSpec } from '../spec/types.ts';

const CALL_FORMAT =
  '<tool_calls>[{"name": "func_name1", "arguments": {"argument1": "value1", "argument2": "value2"}},...]</tool_calls>';

export const hunyuanA13bSpec: FormatSpec = {
  spec: 1,
  name: 'hunyuan-a13b',
  aliases: ['hunyuan_a13b', 'hunyuan'],
  families: 'Hunyuan-A13B',
  models: ['hunyuan-a13b'],
  markup: ['<answer>', '</answer>'],
  calls: [{ codec: 'json', open: '<tool_calls>', close: '</tool_calls>', starts: '[' }],
  write: {
    section: { open: '<tool_calls>[', close: ']</tool_calls>' },
    call: '{"name": {name_json}, "arguments": {arguments}}',
    join: ', ',
  },
  results: { each: '<tool_response>{output}</tool_response>', join: '\n' },
  prompt: {
    // The template's first-message instructions, with the tools as it writes them.
    text: [
      '你是一位函数组合专家。你会得到一个问题和一组可能的函数。根据问题，你需要进行一个或多个函数/工具调用以实现目的。',
      '如果没有一个函数可以使用，请直接使用自然语言回复用户，以助手：开头。',
      '如果给定的问题缺少函数所需的参数，请使用自然语言进行提问，向用户询问必要信息，以助手：开头。',
      '如果调用结果已经足够回答用户问题，请对历史结果进行总结，使用自然语言回复用户，以助手：开头。',
      `你应该只在工具调用部分返回函数调用。如果你决定调用任何函数，你必须将其格式化为${CALL_FORMAT}。你不应该在回复中包含任何其他文本。以下是你可以调用的函数列表，格式为JSON。`,
      '',
      '{tool_list}',
      '',
      `如果你决定返回函数调用，请将其格式化为${CALL_FORMAT}，不得包含其他文本。`,
      '否则，请参考开头说的三种情况，以助手：开头进行回复。',
    ].join('\n'),
  },
};

export const hunyuanA13bFormat: FormatEntry = formatEntryFromSpec(hunyuanA13bSpec);
