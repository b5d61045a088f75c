/**
 * Hunyuan Hy3 and Hy4 (Tencent): GLM-like calls in a `<tool_calls>` block, the name as text
 * after `<tool_call>` (Hy3 ends it with `<tool_sep>`, Hy4 with the first tag), arguments as
 * `<arg_key>`/`<arg_value>` pairs typed by the tool's schema:
 *
 * `<tool_calls><tool_call>get_weather<tool_sep><arg_key>city</arg_key><arg_value>Beijing</arg_value></tool_call></tool_calls>`
 *
 * The shipping tokenizers put a per-checkpoint suffix in every special token
 * (`<tool_calls:opensource>`, `</arg_value:opensource>`, or a hash): the block's opener is read
 * up to its `>`, and its suffix is then expected on every tag of the block (vLLM's
 * `hy_v3_tool_parser.py` / `hy_v4_tool_parser.py` take it from the vocabulary instead).
 * Hunyuan-A13B's JSON list in `<tool_calls>[…]` is another format. The chat templates were not
 * reached: results are written in `<tool_response>`, as A13B's template writes them.
 */

import type { ParameterTagsSyntax } from '../codecs/tagged/parameter-tags-syntax.ts';
import type { FormatEntry } from '../define/format-entry.ts';
import { formatEntryFromSpec } from '../spec/define.ts';
import type { FormatSpec, TaggedCallForm } from '../spec/types.ts';

const HUNYUAN_HY_SYNTAX: ParameterTagsSyntax = {
  callOpen: '<tool_call>',
  callClose: '</tool_call>',
  nameAsText: true,
  nameClose: '<tool_sep>',
  parameterOpen: '<arg_key>',
  keyClose: '</arg_key>',
  valueOpen: '<arg_value>',
  parameterClose: '</arg_value>',
  suffixedTags: true,
  // As GLM's `<arg_value>`: every character between the tags is the value's.
  layout: 'exact',
};

export const hunyuanHySpec: FormatSpec = {
  spec: 1,
  name: 'hunyuan-hy',
  aliases: ['hy3', 'hy4', 'hy_v3', 'hy_v4', 'hunyuan-v3', 'hunyuan-v4'],
  families: 'Hunyuan Hy3, Hy4',
  models: [
    'tencent/hy3',
    'tencent/hy4',
    'hy3-',
    'hy4-',
    'hy3:',
    'hy4:',
    'hy-3',
    'hy-4',
    'hunyuan-v3',
    'hunyuan-v4',
    'hunyuan-hy',
  ],
  // The reasoning tags carry the checkpoint's suffix too (`<think:opensource>`, `<think:6124c78e>`),
  // or none (`<think>`); the closer repeats the opener's.
  reasoning: [
    { open: '<think', close: '</think', suffixed: true },
    { open: '<thinking>', close: '</thinking>' },
  ],
  calls: [
    // Bare tags: the opener holds the first `<tool_call>`, so it is told from the JSON list that
    // Hunyuan-A13B and Jamba write after `<tool_calls>` by the longest literal.
    ...['<tool_calls><tool_call>', '<tool_calls>\n<tool_call>'].map(
      (open): TaggedCallForm => ({
        codec: 'tagged',
        open,
        close: '</tool_calls>',
        syntax: { ...HUNYUAN_HY_SYNTAX, suffixedTags: false, blockOpenHoldsCall: true },
      }),
    ),
    // Tags without a suffix: the block holds tags, so its first character tells it from the JSON
    // list and lines other formats write after the same `<tool_calls>`.
    {
      codec: 'tagged',
      open: '<tool_calls>',
      close: '</tool_calls>',
      starts: '<',
      syntax: { ...HUNYUAN_HY_SYNTAX, suffixedTags: false },
    },
    // Suffixed tags (`<tool_calls:opensource>`), the suffix read from the opener.
    {
      codec: 'tagged',
      open: '<tool_calls',
      close: '</tool_calls>',
      starts: ':',
      syntax: HUNYUAN_HY_SYNTAX,
    },
  ],
  write: {
    section: { open: '<tool_calls>\n', close: '</tool_calls>' },
    call: '<tool_call>{name}<tool_sep>\n{arguments}</tool_call>\n',
    parameter: '<arg_key>{key}</arg_key>\n<arg_value>{value}</arg_value>\n',
  },
  results: { each: '<tool_response>{output}</tool_response>', join: '\n' },
  prompt: {
    text: [
      '# Tools',
      '',
      'You may call one or more of these functions, given as JSON:',
      '{tools}',
      '',
      'To call functions, write one <tool_calls> block with a <tool_call> per call: the function name, <tool_sep>, then each argument as an <arg_key>/<arg_value> pair (a string as it is, anything else as JSON):',
      '{example}',
      '',
      'The results come back to you after your calls.',
    ].join('\n'),
  },
};

export const hunyuanHyFormat: FormatEntry = formatEntryFromSpec(hunyuanHySpec, {
  // `Hy3-preview`, `hy3`, `Hunyuan-Hy4`, not `Hunyuan-A13B` (its own format) nor `hy30`.
  models: [/(?:^|[/_:-])hy-?[34](?![\d.])/, /hunyuan-?v[34](?!\d)/],
  toolNamesIn: (text) =>
    Array.from(
      text.matchAll(/<tool_call(?::[^>\s<]{1,64})?>[ \t\n]{0,8}([A-Za-z_][\w.-]{0,99})/g),
      (match) => match[1]!,
    ),
});
