/**
 * Apriel 1.5 / 1.6 Thinker (ServiceNow): reasoning first, with no tag (the generation prompt
 * opens it), up to `[BEGIN FINAL RESPONSE]`; then the answer, and all of a turn's calls as one
 * JSON array in `<tool_calls>` … `</tool_calls>`.
 *
 * From the chat templates (llama.cpp `models/templates/unsloth-Apriel-1.5.jinja` and
 * `Apriel-1.6-15b-Thinker-fixed.jinja`): 1.6 prefills `Here are my reasoning steps:\n`, writes
 * `<tool_calls>[{"name": …, "arguments": …, "id": …}]</tool_calls>` (the id is skipped) and ends
 * the turn with `<|end|>`, sometimes after `[END FINAL RESPONSE]` (both dropped). 1.5 renders the
 * arguments with Python's `str` (`{'city': 'Oslo'}`), which the models imitate: the JSON reader
 * takes single quotes and `True`/`False`/`None`. 1.5's instructions say `<tool_call>` while its
 * example shows `<tool_calls>`: both are read. A result is `<|begin_tool_result|>\nRESULT\n` (1.6).
 */
import type { FormatEntry } from '../define/format-entry.ts';
import { formatEntryFromSpec } from '../spec/define.ts';
import type { FormatSpec } from '../spec/types.ts';

export const aprielSpec: FormatSpec = {
  spec: 1,
  name: 'apriel',
  families: 'Apriel 1.5 / 1.6 Thinker',
  models: ['apriel'],
  reasoning: [
    { open: 'Here are my reasoning steps:', close: '[BEGIN FINAL RESPONSE]' },
    { open: '<thinking>', close: '</thinking>' },
    { open: '<think>', close: '</think>' },
  ],
  startInReasoning: true,
  // Outside reasoning `[BEGIN FINAL RESPONSE]` is framing too: an output read from text (the
  // reasoning left out, or a second answer) and the writer's own calls keep no marker in the text.
  markup: ['[BEGIN FINAL RESPONSE]', '[END FINAL RESPONSE]', '<|end|>'],
  calls: [
    { codec: 'json', open: '<tool_calls>', close: '</tool_calls>', starts: '[' },
    { codec: 'json', open: '<tool_call>', close: '</tool_call>' },
  ],
  write: {
    // The model's answer (its calls) follows the end of its reasoning: written so, it reads back
    // as calls from an output that starts in reasoning.
    section: { open: '[BEGIN FINAL RESPONSE]<tool_calls>[', close: ']</tool_calls>' },
    call: '{"name": {name_json}, "arguments": {arguments}}',
    join: ', ',
  },
  results: { each: '<|begin_tool_result|>\n{output}\n' },
  prompt: {
    // Apriel 1.6's wording; the template writes each tool with Python's `str`, this as JSON.
    text: [
      'You are provided with function signatures within <available_tools></available_tools> XML tags.',
      'You may call one or more functions to assist with the user query.',
      "Don't make assumptions about the arguments. You should infer the argument values from previous",
      'user responses and the system message.',
      'Here are the available tools: ',
      '<available_tools>',
      '{tools}',
      '',
      '</available_tools>.',
      '',
      'Return all function calls as a list of JSON objects within <tool_calls></tool_calls> XML tags.',
      'Each JSON object should contain a function name and arguments as follows:',
      '<tool_calls>[',
      '    {"name": <function-name-1>, "arguments": <args-dict-1>},',
      '    {"name": <function-name-2>, "arguments": <args-dict-2>},',
      '    ...',
      ']</tool_calls>',
    ].join('\n'),
  },
};

export const aprielFormat: FormatEntry = formatEntryFromSpec(aprielSpec);
