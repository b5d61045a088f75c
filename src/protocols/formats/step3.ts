/**
 * Step-3 (StepFun): `steptml` invokes inside DeepSeek-style section tokens (full-width `｜`):
 *
 * `<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="get_weather"><steptml:parameter name="city">Tokyo</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>`
 *
 * Read as vLLM's `step3_tool_parser.py` reads it: each call's `<｜tool_call_begin｜>`,
 * `function<｜tool_sep｜>` and `<｜tool_call_end｜>` are framing (the call type is often left out,
 * `<｜tool_sep｜>` also stands between calls, and a model may repeat the name on a line before the
 * invoke); values are raw text typed by the tool's schema, a string's white space kept.
 * Step-3.5 and Step-3.7-Flash write Qwen3-Coder's calls instead (the `qwen3-coder` format). The
 * chat template was not reached: results are written in `<tool_response>`.
 */

import type { ParameterTagsSyntax } from '../codecs/tagged/parameter-tags-syntax.ts';
import type { FormatEntry } from '../define/format-entry.ts';
import { formatEntryFromSpec } from '../spec/define.ts';
import type { FormatSpec } from '../spec/types.ts';

const STEP3_SYNTAX: ParameterTagsSyntax = {
  callOpen: '<steptml:invoke',
  callClose: '</steptml:invoke>',
  parameterOpen: '<steptml:parameter',
  parameterClose: '</steptml:parameter>',
  betweenCalls: [
    '<｜tool_call_begin｜>',
    'function<｜tool_sep｜>',
    '<｜tool_sep｜>',
    '<｜tool_call_end｜>',
  ],
  nameBeforeCall: true,
  // A string keeps its white space (`    if x:` is code).
  layout: 'exact',
};

export const step3Spec: FormatSpec = {
  spec: 1,
  name: 'step3',
  aliases: ['step-3', 'steptml'],
  families: 'Step-3',
  models: ['stepfun-ai/step3', 'step-3-', 'step3-', 'step3:'],
  calls: [
    {
      codec: 'tagged',
      open: '<｜tool_calls_begin｜>',
      close: '<｜tool_calls_end｜>',
      syntax: STEP3_SYNTAX,
    },
  ],
  write: {
    section: { open: '<｜tool_calls_begin｜>', close: '<｜tool_calls_end｜>' },
    call: '<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="{name}">{arguments}</steptml:invoke><｜tool_call_end｜>',
    parameter: '<steptml:parameter name="{key}">{value}</steptml:parameter>',
  },
  results: { each: '<tool_response>{output}</tool_response>', join: '\n' },
  prompt: {
    text: [
      '# Tools',
      '',
      'You may call one or more of these functions, given as JSON:',
      '{tools}',
      '',
      'To call functions, write them like this, one steptml:invoke per call and one steptml:parameter per argument (a string as it is, anything else as JSON):',
      '{example}',
      '',
      'The results come back to you after your calls.',
    ].join('\n'),
  },
};

export const step3Format: FormatEntry = formatEntryFromSpec(step3Spec, {
  // `stepfun-ai/step3`, `step3-fp8`; Step-3.5 and Step-3.7 (`step-3.5-flash`, `step3p5`) are not this format.
  models: [/step-?3(?![.p]?\d)/],
  toolNamesIn: (text) =>
    Array.from(
      text.matchAll(/<steptml:invoke[ \t]+name="([^"<>\n]{1,100})"/g),
      (match) => match[1]!,
    ),
});
