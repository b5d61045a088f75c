/**
 * Jamba (AI21: Jamba 1.5, 1.6, 1.7, Jamba2, Jamba Reasoning): all of a turn's calls as one JSON
 * array between the special tokens `<tool_calls>` and `</tool_calls>`, after the content (often
 * a leading space).
 *
 * From the chat template (`ai21labs/AI21-Jamba-Mini-1.7`'s `chat_template`): the calls are
 * `<tool_calls>[\n{"name": …, "arguments": …},\n…\n]</tool_calls>`; a result is a `tool` turn
 * holding the text as it is; the tools are declared in the system turn as
 * `<tool_definitions>\n# Tools\n\n## Functions\n\n{function JSON, indent 2}…\n</tool_definitions>`,
 * with no instruction (the model is trained on the calls). vLLM's `jamba` parser reads the array.
 */
import type { FormatEntry } from '../define/format-entry.ts';
import { formatEntryFromSpec } from '../spec/define.ts';
import type { FormatSpec } from '../spec/types.ts';

export const jambaSpec: FormatSpec = {
  spec: 1,
  name: 'jamba',
  aliases: ['ai21-jamba'],
  families: 'Jamba 1.5/1.6/1.7, Jamba2, Jamba Reasoning',
  models: ['jamba'],
  calls: [{ codec: 'json', open: '<tool_calls>', close: '</tool_calls>', starts: '[' }],
  write: {
    section: { open: '<tool_calls>[\n', close: '\n]</tool_calls>' },
    call: '{"name": {name_json}, "arguments": {arguments}}',
    join: ',\n',
  },
  results: { each: '{output}', join: '\n' },
  prompt: {
    text: [
      '<tool_definitions>',
      '# Tools',
      '',
      '## Functions',
      '',
      '{functions}',
      '</tool_definitions>',
      '',
      'To call functions, write them as a JSON list in <tool_calls></tool_calls>:',
      '{example}',
    ].join('\n'),
  },
};

export const jambaFormat: FormatEntry = formatEntryFromSpec(jambaSpec);
