import type { ToolCallProtocol } from '../../core/index.ts';
import {
  BARE_ARRAY_LEAD_LITERALS,
  bareArrayLiterals,
} from '../codecs/json/json-call-formats-openers.ts';
import type { FormatEntry } from '../define/format-entry.ts';
import type { ResultTextGuard } from '../results/result-text.ts';
import { defineFormat, type FormatHooks, formatEntryFromSpec } from '../spec/define.ts';
import type { FormatSpec, JsonCallForm } from '../spec/types.ts';
import {
  formatMistralToolCall,
  formatMistralToolResponse,
  formatMistralTools,
  type MistralStyle,
} from './format.ts';
import { MistralNamedCallBody } from './named-call-body.ts';

export type { MistralStyle } from './format.ts';

export interface MistralProtocolOptions {
  /**
   * How prompts and history are written: `v11` (Mistral Small 3.x, Devstral, Magistral, Ministral:
   * `[TOOL_CALLS]NAME[ARGS]{…}`) or `pre-v11` (Mistral 7B v0.3, Mixtral, Mistral Nemo:
   * `[TOOL_CALLS][{"name": …, "arguments": …}]`). Both are read either way. Default `v11`.
   */
  readonly style?: MistralStyle;
  /**
   * Read calls whose special tokens the server stripped: a bare `[{"name": …, "arguments": …}]`
   * array anywhere, and `NAME{…}` / `NAME[ARGS]{…}` naming a declared tool at the start of the
   * output (or of a line). Only well-formed calls to declared tools count. Default `true`.
   */
  readonly strippedTokens?: boolean;
}

const TOOL_CALLS = '[TOOL_CALLS]';

/**
 * Before v11, a JSON list of calls after the token (`[TOOL_CALLS] [{"name": …}]`), chosen by its
 * first character; none of its calls runs before its `]`. A special token, written only to call:
 * read inside `[THINK]` too (Magistral may call before it closes its reasoning).
 */
const LIST: JsonCallForm = {
  codec: 'json',
  open: TOOL_CALLS,
  inReasoning: true,
  starts: '[{',
  holdCalls: true,
};

/**
 * From v11, the name after the token: `[TOOL_CALLS]NAME[ARGS]{…}`. The `callBody` hook reads what
 * the name header cannot say: `[CALL_ID]…` before `[ARGS]`, `{` without `[ARGS]`, and a token no
 * call follows (dropped).
 */
const NAMED: JsonCallForm = {
  codec: 'json',
  open: TOOL_CALLS,
  inReasoning: true,
  nameHeader: { end: '[ARGS]' },
};

/** Calls whose tokens a server stripped, at the start of the output or of a line. */
const STRIPPED: readonly JsonCallForm[] = [
  // Without `[ARGS]` the name and brace may be ordinary text: only a well-formed call counts.
  {
    codec: 'json',
    open: '\n{name}{',
    openHoldsJson: '{',
    perTool: true,
    argumentsOnly: true,
    certainty: 'speculative',
  },
  { codec: 'json', open: '\n{name}[ARGS]', perTool: true, argumentsOnly: true },
];

/**
 * Mistral's format, every tokenizer version: `[TOOL_CALLS][{"name": …, "arguments": …}]` before
 * v11, `[TOOL_CALLS]NAME[ARGS]{…}` (with `[CALL_ID]…` in v11) after, `[THINK]…[/THINK]` reasoning.
 */
export function mistralSpec(options: MistralProtocolOptions = {}): FormatSpec {
  const stripped = options.strippedTokens ?? true;
  return {
    spec: 1,
    name: 'mistral',
    aliases: ['mistral_nemo', 'magistral', 'devstral', 'mistral_v11', 'mistral_pre_v11'],
    families: 'Mistral, Mixtral, Mistral Nemo/Small, Ministral, Codestral, Devstral, Magistral',
    example: '[TOOL_CALLS]get_weather[ARGS]{"city": "Oslo"}',
    reasoning: [
      { open: '[THINK]', close: '[/THINK]' },
      { open: '<think>', close: '</think>' },
      { open: '<thinking>', close: '</thinking>' },
    ],
    // Ollama's Mistral template closes the array with it.
    markup: ['[/TOOL_CALLS]'],
    calls: [
      // Bare arrays (a server stripped the token) are plain text: not read inside reasoning.
      stripped ? { ...LIST, bareArrays: ['name'] } : LIST,
      NAMED,
      ...(stripped ? STRIPPED : []),
    ],
    write: { call: `${TOOL_CALLS}{name}[ARGS]{arguments}` },
    results: { each: '[TOOL_RESULTS]{id}[TOOL_CONTENT]{output}[/TOOL_RESULTS]' },
  };
}

/**
 * What a text result may not hold as it is: the openers read anywhere in a reply (a stripped
 * call, `\nNAME{`, opens one only at the output's start).
 */
const RESULT_GUARD: ResultTextGuard = {
  tags: [],
  literals: [
    TOOL_CALLS,
    '[/TOOL_CALLS]',
    ...bareArrayLiterals(['name']),
    // A stripped call in any layout of JSON white space (`[ \t {"name"`) reads too.
    ...BARE_ARRAY_LEAD_LITERALS,
  ],
};

function mistralHooks(style: MistralStyle): FormatHooks {
  return {
    callBody: (form, context) =>
      form.codec === 'json' && form.nameHeader ? new MistralNamedCallBody(context) : undefined,
    formatTools: (tools) => formatMistralTools(tools, style),
    formatToolCall: (calls) => formatMistralToolCall(calls, style),
    formatToolResponse: (results) => formatMistralToolResponse(results, style, RESULT_GUARD),
    formatToolResponseForAnyReader: (results) => formatMistralToolResponse(results, style),
  };
}

/** Mistral's format (see `mistralSpec`), prompts and history written in `style`. */
export function mistralProtocol(options: MistralProtocolOptions = {}): ToolCallProtocol {
  return defineFormat(mistralSpec(options), mistralHooks(options.style ?? 'v11'));
}

export const mistralFormat: FormatEntry = formatEntryFromSpec(mistralSpec(), {
  hooks: mistralHooks('v11'),
  models: [/mistral/, /mixtral/, /devstral/, /magistral/, /ministral/, /codestral/],
});
