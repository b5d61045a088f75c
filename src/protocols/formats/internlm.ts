/**
 * InternLM2 / InternLM2.5 / InternLM3 / Intern-S1 (Shanghai AI Lab): one JSON call per
 * `<|action_start|><|plugin|>` … `<|action_end|>` pair, after the content.
 *
 * The chat template (vLLM `examples/tool_chat_template_internlm2_tool.jinja`) writes
 * `<|action_start|><|plugin|>\n{"name": …, "arguments": …}<|action_end|>`; the models write a
 * space between the two tokens (`<|action_start|> <|plugin|>`, as SGLang's detector and vLLM's
 * Intern-S1 tests read it), and `"parameters"` as often as `"arguments"`. Results come back in an
 * `environment name=<|plugin|>` turn as they are; the tools are declared as a JSON list of the
 * function objects in a `system name=<|plugin|>` turn. `<|action_start|><|interpreter|>` is the
 * code interpreter's, not a tool call: it stays text.
 */
import type { FormatEntry } from '../define/format-entry.ts';
import { formatEntryFromSpec } from '../spec/define.ts';
import type { FormatSpec } from '../spec/types.ts';

const CLOSE = '<|action_end|>';

export const internlmSpec: FormatSpec = {
  spec: 1,
  name: 'internlm',
  aliases: ['internlm2', 'intern-s1'],
  families: 'InternLM2, InternLM2.5, InternLM3, Intern-S1',
  models: ['internlm2', 'internlm3', 'intern-s1', 'interns1'],
  calls: [
    { codec: 'json', open: '<|action_start|><|plugin|>', close: CLOSE },
    { codec: 'json', open: '<|action_start|> <|plugin|>', close: CLOSE },
  ],
  write: {
    call: '<|action_start|><|plugin|>\n{"name": {name_json}, "arguments": {arguments}}<|action_end|>',
  },
  results: { each: '{output}', join: '\n' },
  prompt: {
    text: [
      'You have access to the following tools, given as a JSON list of functions:',
      '{function_list}',
      '',
      'To call a tool, write <|action_start|><|plugin|> then one JSON object with the function name and its arguments, then <|action_end|>:',
      '{example}',
      '',
      'Each call gets its own <|action_start|><|plugin|> … <|action_end|>. The results come back to you in an environment turn.',
    ].join('\n'),
  },
};

export const internlmFormat: FormatEntry = formatEntryFromSpec(internlmSpec);
