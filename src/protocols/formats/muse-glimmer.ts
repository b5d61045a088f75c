/**
 * Muse Glimmer (Meta): harmony-like messages, `<|start|>assistant to=RECIPIENT<|message|>BODY`
 * ended by `<|eom|>` (more follow) or `<|eot|>`; recipient `self` is reasoning, `user` the answer,
 * anything else a tool channel whose body holds ATEM calls:
 *
 * `<atem:function_calls>\n<atem:invoke name="get_weather.get_weather">\n<atem:parameter name="city">Oslo</atem:parameter>\n</atem:invoke>\n</atem:function_calls>`
 *
 * Read as vLLM's `muse_glimmer_tool_parser.py` (a port of the checkpoint's response schema) reads
 * it: a parameter is JSON when it reads as JSON, else its text (typed by the schema where there is
 * one); the template names a bare tool `NAME.*`, so models write `NAME.NAME`, read as `NAME`.
 * A tool channel (` to=RECIPIENT<|message|>` … `<|eom|>`) is a block whose header is framing; the
 * invokes in it name the tools. A message after the first writes its whole header from `<|start|>`:
 * the `self` and `user` headers are one literal each, so `auto` (which leaves literals opening
 * with white space out) reads those messages too. ATEM markup with no framing (special tokens
 * stripped upstream) is read too. Not yet as vLLM reads it: ATEM written in the `user` answer is
 * read as a call, and `auto` leaves the first message's ` to=…` header, and a tool channel's
 * header, in the text (the spec has no header mode with recipients yet:
 * /work/requests/families.md §1). The chat template was not reached: results are
 * written as a `tool` message.
 */

import type { ParameterTagsSyntax } from '../codecs/tagged/parameter-tags-syntax.ts';
import type { FormatEntry } from '../define/format-entry.ts';
import { formatEntryFromSpec } from '../spec/define.ts';
import type { FormatSpec } from '../spec/types.ts';

/** A message's role header up to its recipient; the prompt ends with it for the first message. */
const HEADER = '<|start|>assistant';

const MUSE_ATEM_SYNTAX: ParameterTagsSyntax = {
  callOpen: '<atem:invoke',
  callClose: '</atem:invoke>',
  parameterOpen: '<atem:parameter',
  parameterClose: '</atem:parameter>',
  repeatedNames: true,
  layout: 'inline',
};

/** A tool channel: its recipient header, then the ATEM block, up to the end of the message. */
const MUSE_CHANNEL_SYNTAX: ParameterTagsSyntax = {
  ...MUSE_ATEM_SYNTAX,
  blockHeaderClose: '<|message|>',
  betweenCalls: ['<atem:function_calls>', '</atem:function_calls>'],
};

export const museGlimmerSpec: FormatSpec = {
  spec: 1,
  name: 'muse-glimmer',
  aliases: ['muse_glimmer', 'atem'],
  families: 'Muse Glimmer',
  models: ['muse-glimmer', 'muse_glimmer', 'museglimmer'],
  // The generation prompt ends with `<|start|>assistant`, so the first header is ` to=RECIPIENT`
  // with the space the model writes (` to` is one token); every later message writes its whole
  // header, `<|start|>assistant to=RECIPIENT<|message|>`: the reasoning's and the answer's are
  // read from their `<|start|>` (so `auto`, which leaves literals that open with white space
  // out, reads them after the first message).
  reasoning: [
    { open: `${HEADER} to=self<|message|>`, close: '<|eom|>' },
    { open: ' to=self<|message|>', close: '<|eom|>' },
    // As every format reads them.
    { open: '<think>', close: '</think>' },
    { open: '<thinking>', close: '</thinking>' },
  ],
  markup: [
    HEADER,
    `${HEADER} to=user<|message|>`,
    ' to=user<|message|>',
    // A header naming no recipient: the answer (vLLM's `_MSG_HEADER_RE`).
    `${HEADER}<|message|>`,
    '<|eom|>',
    '<|eot|>',
  ],
  calls: [
    {
      codec: 'tagged',
      open: '<atem:function_calls>',
      close: '</atem:function_calls>',
      syntax: MUSE_ATEM_SYNTAX,
    },
    // ` to=self<|message|>` (reasoning) and ` to=user<|message|>` (the answer) are longer literals.
    // A tool channel's whole header is read as `<|start|>assistant` (framing) then ` to=`: a
    // literal `<|start|>assistant to=` would take gpt-oss's recipient header
    // (`<|start|>assistant to=functions.f<|channel|>…`) from it in `auto`.
    { codec: 'tagged', open: ' to=', close: '<|eom|>', syntax: MUSE_CHANNEL_SYNTAX },
  ],
  write: {
    section: { open: '<atem:function_calls>\n', close: '</atem:function_calls>' },
    call: '<atem:invoke name="{name}">\n{arguments}</atem:invoke>\n',
    parameter: '<atem:parameter name="{key}">{value}</atem:parameter>\n',
  },
  results: {
    each: '<|start|>tool name="{name}"<|message|>{output}<|eom|>',
  },
  prompt: {
    text: [
      '# Tools',
      '',
      'You may call one or more of these functions, given as JSON:',
      '{tools}',
      '',
      'To call functions, write an atem:function_calls block with one atem:invoke per call and one atem:parameter per argument (a string as it is, anything else as JSON):',
      '{example}',
      '',
      'The results come back to you after your calls.',
    ].join('\n'),
  },
};

export const museGlimmerFormat: FormatEntry = formatEntryFromSpec(museGlimmerSpec, {
  toolNamesIn: (text) =>
    Array.from(text.matchAll(/<atem:invoke[ \t]+name="([^"<>\n]{1,100})"/g), (match) => match[1]!),
});
