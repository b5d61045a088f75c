/**
 * GigaChat 3.5 (Sber): "GCML", DeepSeek V3.2's DSML with the marker word `GCML`
 * (llama.cpp `models/templates/GigaChat3.5.jinja`; SGLang's `gigachat35_detector.py`, vLLM's
 * `gigachat35_tool_parser.py`):
 *
 * `<｜GCML｜tool_calls>\n<｜GCML｜invoke name="get_weather">\n<｜GCML｜parameter name="city" string="true">Oslo</｜GCML｜parameter>\n</｜GCML｜invoke>\n</｜GCML｜tool_calls>`
 *
 * `string="true"` values are taken as written, `string="false"` values are JSON. Several invokes
 * may share the block. Results come back in a `function result` turn, one
 * `<function_response name="NAME">` element per call (the turn's header is the server's).
 * GigaChat 3 and 3.1 write one JSON call after `function call<|role_sep|>` or
 * `<|function_call|>`, a format of their own (not this one).
 */

import type { ParameterTagsSyntax } from '../codecs/tagged/parameter-tags-syntax.ts';
import type { FormatEntry } from '../define/format-entry.ts';
import { formatEntryFromSpec } from '../spec/define.ts';
import type { FormatSpec, TaggedCallForm } from '../spec/types.ts';

/** The block and its syntax with the bar `bar`: the tokenizer's full-width `｜`, or ASCII `|`. */
function gcmlForm(bar: string): TaggedCallForm {
  const prefix = `${bar}GCML${bar}`;
  const syntax: ParameterTagsSyntax = {
    callOpen: `<${prefix}invoke`,
    callClose: `</${prefix}invoke>`,
    parameterOpen: `<${prefix}parameter`,
    parameterClose: `</${prefix}parameter>`,
    layout: 'inline',
  };
  return {
    codec: 'tagged',
    open: `<${prefix}tool_calls>`,
    close: `</${prefix}tool_calls>`,
    syntax,
  };
}

export const gigachatGcmlSpec: FormatSpec = {
  spec: 1,
  name: 'gigachat-gcml',
  aliases: ['gigachat35', 'gigachat-3.5', 'gcml'],
  families: 'GigaChat 3.5',
  models: ['gigachat3.5', 'gigachat-3.5', 'gigachat3_5', 'gigachat-3_5'],
  calls: [gcmlForm('｜'), gcmlForm('|')],
  write: {
    section: { open: '<｜GCML｜tool_calls>\n', close: '</｜GCML｜tool_calls>' },
    call: '<｜GCML｜invoke name="{name}">\n{arguments}</｜GCML｜invoke>\n',
    // Every value as JSON (`string="false"`), which reads back exactly; the template writes
    // strings as they are with `string="true"`.
    parameter: '<｜GCML｜parameter name="{key}" string="false">{value_json}</｜GCML｜parameter>\n',
  },
  results: {
    each: '<function_response name="{name}">{output}</function_response>',
    join: '\n',
  },
  prompt: {
    text: [
      '# Tools',
      '',
      'You may call one or more of these functions, given as JSON:',
      '{tools}',
      '',
      'To call functions, write one tool_calls block holding an invoke per call, each argument in a parameter (string="true" with a string as it is, string="false" with a JSON value):',
      '{example}',
      '',
      'The results come back to you in a function result turn.',
    ].join('\n'),
  },
};

export const gigachatGcmlFormat: FormatEntry = formatEntryFromSpec(gigachatGcmlSpec, {
  toolNamesIn: (text) =>
    Array.from(
      text.matchAll(/<[｜|]GCML[｜|]invoke[ \t]+name="([^"<>\n]{1,100})"/g),
      (match) => match[1]!,
    ),
});
