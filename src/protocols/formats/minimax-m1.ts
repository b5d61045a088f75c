/**
 * MiniMax-M1: one compact JSON call object per line between `<tool_calls>` and `</tool_calls>`,
 * after the content. (MiniMax-M2's `<minimax:tool_call>` XML is the `minimax` format.)
 *
 * From the chat template (vLLM `examples/tool_chat_template_minimax_m1.jinja`): the calls are
 * `<tool_calls>\n{"name": …, "arguments": …}\n…</tool_calls>`; a result is a `tool` turn of
 * `tool result: RESULT\n\n` (with `tool name: NAME\n` before it when named); the tools are
 * declared one JSON object per line inside `<tools>` with the instructions below, word for word.
 * vLLM's parser reads line by line and skips a line that is not a call: `perLine` does the same,
 * and reports the line. Calls written inside `<think>` are the model's thoughts, not calls.
 */
import type { FormatEntry } from '../define/format-entry.ts';
import { formatEntryFromSpec } from '../spec/define.ts';
import type { FormatSpec } from '../spec/types.ts';

export const minimaxM1Spec: FormatSpec = {
  spec: 1,
  name: 'minimax-m1',
  aliases: ['minimax_m1'],
  families: 'MiniMax-M1',
  models: ['minimax-m1', 'minimax_m1'],
  calls: [{ codec: 'json', open: '<tool_calls>', close: '</tool_calls>', perLine: true }],
  write: {
    section: { open: '<tool_calls>\n', close: '</tool_calls>' },
    call: '{"name": {name_json}, "arguments": {arguments}}\n',
  },
  results: { each: 'tool name: {name}\ntool result: {output}\n\n' },
  prompt: {
    text: [
      'You are provided with these tools:',
      '<tools>',
      '{tools}',
      '</tools>',
      '',
      'If you need to call tools, please respond with <tool_calls></tool_calls> XML tags, and provide tool-name and json-object of arguments, following the format below:',
      '<tool_calls>',
      '{"name": <tool-name>, "arguments": <args-json-object>}',
      '...',
      '</tool_calls>',
    ].join('\n'),
  },
};

export const minimaxM1Format: FormatEntry = formatEntryFromSpec(minimaxM1Spec);
