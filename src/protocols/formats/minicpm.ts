/**
 * MiniCPM 4 / 5 (OpenBMB): one `<function name="NAME">` element per call, anywhere in the text,
 * no section around it, each argument in a `<param name="KEY">` element whose value may sit in
 * `<![CDATA[…]]>`:
 *
 * `<function name="get_weather"><param name="city">Oslo</param><param name="days">3</param></function>`
 *
 * Read as vLLM's `minicpm5xml_tool_parser.py` and SGLang's `minicpm5_detector.py` /
 * `minicpm4_xml_detector.py` read it: the byte-level tokenizer may write the space before `name`
 * as `Ġ` or drop it (`<function\u0120name="…">`, `<functionname="…">`, the same for `<param`);
 * a value is typed by the tool's schema (a string as written, anything else JSON). Unlike vLLM,
 * a call whose params break a schema rule is still read, with its problems reported (toolwire's
 * rule). The chat template was not reached: results are written in ChatML's `<tool_response>`.
 */

import type { ParameterTagsSyntax } from '../codecs/tagged/parameter-tags-syntax.ts';
import type { FormatEntry } from '../define/format-entry.ts';
import { formatEntryFromSpec } from '../spec/define.ts';
import type { FormatSpec, TaggedCallForm } from '../spec/types.ts';

const MINICPM_SYNTAX: ParameterTagsSyntax = {
  // A call's own tag: another `<function…` after a call's params implies its missing closer.
  callOpen: '<function',
  callClose: '</function>',
  parameterOpen: '<param',
  parameterClose: '</param>',
  layout: 'inline',
  cdata: true,
  spaceMarkers: true,
};

/** The opener as the tokenizer may spell it; the opener takes ` name=` of the header. */
const openers = ['<function name=', '<function\u0120name=', '<functionname='].map(
  (open): TaggedCallForm => ({
    codec: 'tagged',
    open,
    openConsumed: ' name=',
    syntax: MINICPM_SYNTAX,
  }),
);

export const minicpmSpec: FormatSpec = {
  spec: 1,
  name: 'minicpm',
  aliases: ['minicpm4', 'minicpm5', 'minicpm-xml'],
  families: 'MiniCPM 4, MiniCPM 4.1, MiniCPM 5, MiniCPM-V 4',
  models: ['minicpm4', 'minicpm-4', 'minicpm5', 'minicpm-5', 'minicpm-v-4', 'minicpm-v4'],
  calls: openers,
  write: {
    call: '<function name="{name}">{arguments}</function>',
    join: '\n',
    parameter: '<param name="{key}">{value}</param>',
  },
  results: { each: '<tool_response>\n{output}\n</tool_response>', join: '\n' },
  prompt: {
    text: [
      '# Tools',
      '',
      'You may call one or more of these functions, given as JSON:',
      '{tools}',
      '',
      'To call a function, write a function element with one param element per argument (a string as it is, anything else as JSON; wrap a value holding markup in <![CDATA[…]]>):',
      '{example}',
      '',
      'Each call is its own function element. The results come back to you after your calls.',
    ].join('\n'),
  },
};

export const minicpmFormat: FormatEntry = formatEntryFromSpec(minicpmSpec, {
  // `<function name="NAME">` also opens hermes's JSON calls (llama.cpp's Hermes 2 Pro variant):
  // auto reads both, and what follows the header tells them apart (MiniCPM's `<param`, JSON).
  toolNamesIn: (text) =>
    Array.from(text.matchAll(/<function[ \u0120]?name="([^"<>\n]{1,100})"/g), (match) => match[1]!),
});
