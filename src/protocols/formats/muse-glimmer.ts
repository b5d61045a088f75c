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
 * The messages are read by the harmony header mode (MUSE_GLIMMER_HEADER): the recipient decides
 * what the message is, so ATEM echoed in reasoning or in the answer is not a call (as vLLM
 * refuses it), and the first header, which the prompt began (` to=RECIPIENT<|message|>`), is read
 * at the output's start, `auto` included. A tool channel whose body holds no ATEM call is text.
 * ATEM markup with no framing (special tokens stripped upstream) is read too. The chat template
 * was not reached: results are
 * written as a `tool` message.
 */

import type { ToolCallProtocol } from '../../core/index.ts';
import type { HeaderModeSpec } from '../codecs/harmony/header-spec.ts';
import type { ParameterTagsSyntax } from '../codecs/tagged/parameter-tags-syntax.ts';
import type { FormatEntry } from '../define/format-entry.ts';
import { defineFormat, formatEntryFromSpec } from '../spec/define.ts';
import type { FormatSpec } from '../spec/types.ts';

const MUSE_ATEM_SYNTAX: ParameterTagsSyntax = {
  callOpen: '<atem:invoke',
  callClose: '</atem:invoke>',
  parameterOpen: '<atem:parameter',
  parameterClose: '</atem:parameter>',
  repeatedNames: true,
  layout: 'inline',
};

/**
 * Muse Glimmer's messages (vLLM's `muse_glimmer_tool_parser.py`): the recipient decides what a
 * message is, `self` reasoning, `user` (or none) the answer, anything else a tool channel whose
 * ATEM block holds the calls. ATEM written in a `self` or `user` message is not a call.
 */
export const MUSE_GLIMMER_HEADER: HeaderModeSpec = {
  open: '<|start|>',
  roles: ['assistant'],
  recipient: 'to=',
  message: '<|message|>',
  ends: ['<|eom|>', '<|eot|>'],
  recipients: { self: 'reasoning', user: 'text' },
  noRecipient: 'text',
  toolMessage: { form: 0, close: '<|eom|>' },
  // The generation prompt ends with `<|start|>assistant`: the first header is ` to=RECIPIENT<|message|>`.
  startInHeader: true,
};

export const museGlimmerSpec: FormatSpec = {
  spec: 1,
  name: 'muse-glimmer',
  aliases: ['muse_glimmer', 'atem'],
  families: 'Muse Glimmer',
  models: ['muse-glimmer', 'muse_glimmer', 'museglimmer'],
  header: MUSE_GLIMMER_HEADER,
  calls: [
    // Also read with no framing (special tokens stripped upstream).
    {
      codec: 'tagged',
      open: '<atem:function_calls>',
      close: '</atem:function_calls>',
      syntax: MUSE_ATEM_SYNTAX,
    },
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

/** Muse Glimmer: see museGlimmerSpec. */
export function museGlimmerProtocol(): ToolCallProtocol {
  return defineFormat(museGlimmerSpec);
}

export const museGlimmerFormat: FormatEntry = formatEntryFromSpec(museGlimmerSpec, {
  toolNamesIn: (text) =>
    Array.from(text.matchAll(/<atem:invoke[ \t]+name="([^"<>\n]{1,100})"/g), (match) => match[1]!),
});
