/**
 * LongCat (Meituan): one call per `<longcat_tool_call>` pair, in two dialects.
 *
 * - JSON, as vLLM's `longcat_tool_parser.py` and SGLang's `longcat_detector.py` read it (the
 *   template pads it with line breaks, vLLM's tests do not):
 *   `<longcat_tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</longcat_tool_call>`
 * - GLM-4.5's tagged shape with prefixed tags (LongCat-Flash-Thinking / LongCat-2.0, seen in
 *   real outputs and agents' parsers):
 *   `<longcat_tool_call>get_weather\n<longcat_arg_key>city</longcat_arg_key>\n<longcat_arg_value>Oslo</longcat_arg_value>\n</longcat_tool_call>`
 *
 * The first character after the tag decides: the JSON forms' openers hold the `{`, and the
 * longest opener wins. The chat template was not reached: results are written in
 * `<longcat_tool_response>`, the tag a self-hosting router reports the template renders.
 */

import type { ParameterTagsSyntax } from '../codecs/tagged/parameter-tags-syntax.ts';
import type { FormatEntry } from '../define/format-entry.ts';
import { formatEntryFromSpec } from '../spec/define.ts';
import type { CallFormSpec, FormatSpec } from '../spec/types.ts';

const OPEN = '<longcat_tool_call>';
const CLOSE = '</longcat_tool_call>';

const LONGCAT_TAGGED_SYNTAX: ParameterTagsSyntax = {
  callOpen: '',
  callClose: '',
  parameterOpen: '<longcat_arg_key>',
  keyClose: '</longcat_arg_key>',
  valueOpen: '<longcat_arg_value>',
  parameterClose: '</longcat_arg_value>',
  // As GLM's `<arg_value>`: every character between the tags is the value's.
  layout: 'exact',
};

/** `{` right after the tag, or after the line break or space models put there. */
const jsonForms = ['{', '\n{', ' {'].map(
  (start): CallFormSpec => ({
    codec: 'json',
    open: OPEN + start,
    openHoldsJson: '{',
    close: CLOSE,
  }),
);

export const longcatSpec: FormatSpec = {
  spec: 1,
  name: 'longcat',
  aliases: ['longcat-flash'],
  families: 'LongCat-Flash-Chat, LongCat-Flash-Thinking, LongCat 2.0',
  models: ['longcat'],
  calls: [
    ...jsonForms,
    { codec: 'tagged', open: OPEN, close: CLOSE, syntax: LONGCAT_TAGGED_SYNTAX },
  ],
  write: {
    form: 1,
    call: `${OPEN}\n{"name": {name_json}, "arguments": {arguments}}\n${CLOSE}`,
    join: '\n',
  },
  results: {
    each: '<longcat_tool_response>\n{output}\n</longcat_tool_response>',
    join: '\n',
  },
  prompt: {
    text: [
      '# Tools',
      '',
      'You may call one or more of these functions, given as JSON:',
      '{tools}',
      '',
      'To call a function, write one JSON object with its name and arguments between <longcat_tool_call> and </longcat_tool_call>:',
      '{example}',
      '',
      'Each call gets its own <longcat_tool_call> pair. The results come back to you after your calls.',
    ].join('\n'),
  },
};

export const longcatFormat: FormatEntry = formatEntryFromSpec(longcatSpec, {
  // JSON `"name"` values, and the name after the tag in the tagged dialect.
  toolNamesIn: (text) => [
    ...new Set([
      ...Array.from(
        text.matchAll(/"name"\s{0,8}:\s{0,8}"([^"\\\n]{1,100})"/g),
        (match) => match[1]!,
      ),
      ...Array.from(
        text.matchAll(/<longcat_tool_call>[ \t\n]{0,8}([A-Za-z_][\w.-]{0,99})/g),
        (match) => match[1]!,
      ),
    ]),
  ],
});
