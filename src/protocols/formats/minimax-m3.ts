/**
 * MiniMax-M3: MiniMax-M2's invokes with the literal `]<]minimax[>[` (here NS) before every tag,
 * and each argument an element named by its key, nested for objects and arrays:
 *
 * `NS<tool_call>\nNS<invoke name="create_order">NS<user_id>42NS</user_id>NS<shipping>NS<city>Oslo NS</city>NS</shipping>NS</invoke>\nNS</tool_call>`
 *
 * Read as vLLM's `minimax_m3_tool_parser.py` tests and SGLang's `minimax_m3.py` read it: an
 * object's members are child elements, an array's items `item` elements, a key written twice in
 * an object makes an array; text is typed by the tool's schema (a string as written). A space
 * between NS and `<`, which SGLang reads as layout and which a detokenizer that joins special
 * tokens with spaces writes (`NS <tool_call>`), is read when every tag of the block has it (a
 * second call form: a literal cannot say "optional white space"); a line break or several spaces
 * there are not read (see /work/requests/families.md). The chat template was not
 * reached: results are written as M2's `<response>` elements (an object or array result in
 * `{"result": …}`, as hermes reads JSON calls in `<response>`). Reasoning is `<mm:think>` (and
 * M2's `<think>`); the prompt may open it (thinking on), which a caller says with
 * `startInReasoning` (the template's thinking modes were not reached).
 */

import type { ParameterTagsSyntax } from '../codecs/tagged/parameter-tags-syntax.ts';
import type { FormatEntry } from '../define/format-entry.ts';
import { formatMinimaxToolResponse } from '../minimax/format.ts';
import { type FormatHooks, formatEntryFromSpec } from '../spec/define.ts';
import type { FormatSpec, TaggedCallForm } from '../spec/types.ts';
import { resultGuardOf } from '../spec/writers.ts';

const NS = ']<]minimax[>[';

/** The syntax with `prefix` (NS, or NS and a space) before every tag. */
function syntaxWithPrefix(prefix: string): ParameterTagsSyntax {
  return {
    callOpen: `${prefix}<invoke`,
    callClose: `${prefix}</invoke>`,
    parameterOpen: `${prefix}<`,
    parameterClose: `${prefix}</`,
    elementParameters: true,
    layout: 'exact',
  };
}

/** NS set off from its tag by a space, as SGLang normalises and a spacing detokenizer writes. */
const SPACED_NS = `${NS} `;

export const minimaxM3Spec: FormatSpec = {
  spec: 1,
  name: 'minimax-m3',
  aliases: ['minimax_m3', 'mm-m3'],
  families: 'MiniMax-M3',
  models: ['minimax-m3', 'minimax_m3', 'minimaxm3', 'mm-m3'],
  // M3 writes its chain of thought in `<mm:think>` (its template prefills it when thinking is
  // on; SGLang's M3 renderer and clients' think filters read it); M2's `<think>` as well.
  reasoning: [
    { open: '<mm:think>', close: '</mm:think>' },
    { open: '<think>', close: '</think>' },
    { open: '<thinking>', close: '</thinking>' },
  ],
  calls: [NS, SPACED_NS].map(
    (prefix): TaggedCallForm => ({
      codec: 'tagged',
      open: `${prefix}<tool_call>`,
      close: `${prefix}</tool_call>`,
      syntax: syntaxWithPrefix(prefix),
    }),
  ),
  write: {
    section: { open: `${NS}<tool_call>\n`, close: `${NS}</tool_call>` },
    call: `${NS}<invoke name="{name}">{arguments}${NS}</invoke>\n`,
    // Objects and arrays as JSON text, which the reader types by the schema.
    parameter: `${NS}<{key}>{value}${NS}</{key}>`,
  },
  results: { each: '<response>{output}</response>', join: '\n' },
  prompt: {
    text: [
      '# Tools',
      '',
      'You may call one or more of these functions, given as JSON:',
      '{tools}',
      '',
      `To call functions, write a tool_call block with one invoke per call and each argument as an element named by its key, every tag written after ${NS}:`,
      '{example}',
      '',
      'The results come back to you after your calls.',
    ].join('\n'),
  },
};

/** M2's result writer: `{"result": …}` around objects is code, not a template. */
export const MINIMAX_M3_HOOKS: FormatHooks = {
  formatToolResponse: (results) => formatMinimaxToolResponse(results, resultGuardOf(minimaxM3Spec)),
  formatToolResponseForAnyReader: (results) => formatMinimaxToolResponse(results),
};

export const minimaxM3Format: FormatEntry = formatEntryFromSpec(minimaxM3Spec, {
  hooks: MINIMAX_M3_HOOKS,
  toolNamesIn: (text) =>
    Array.from(
      text.matchAll(/\]<\]minimax\[>\[ ?<invoke[ \t]+name="([^"<>\n]{1,100})"/g),
      (match) => match[1]!,
    ),
});
