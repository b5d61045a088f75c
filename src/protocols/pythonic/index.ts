import type { ToolCallProtocol } from '../../core/index.ts';
import type { Opener } from '../../scan/opener-trie.ts';
import { PythonCallsBody, type PythonCallsConfig } from '../codecs/python/python-call-body.ts';
import { defineProtocol } from '../define/define-protocol.ts';
import { CALLS_RUN_TOGETHER, type FormatEntry } from '../define/format-entry.ts';
import { THINK_TAGS } from '../engine/reasoning-tags.ts';
import {
  formatPythonicToolCall,
  formatPythonicToolResponse,
  formatPythonicTools,
  type PythonicPromptStyle,
} from './format.ts';

export type { PythonicPromptStyle } from './format.ts';

export interface PythonicProtocolOptions {
  /**
   * Whose chat template the prompt and the history follow. Default `llama3.2`. Every style reads
   * all the variants below.
   */
  readonly promptStyle?: PythonicPromptStyle;
  /**
   * Read a bare list (`[get_weather(city="Oslo")]`) as calls when it calls a declared tool; any
   * other bracket is text. Default `true`.
   */
  readonly bareLists?: boolean;
}

/** Llama 4's special tokens around its list; servers strip them unless asked to keep them. */
const LLAMA4_BLOCK: PythonCallsConfig = { speculative: false, closer: '<|python_end|>' };

/** LFM2 writes its list, or a JSON array of calls (its older models), between these tokens. */
const LFM2_BLOCK: PythonCallsConfig = {
  speculative: false,
  closer: '<|tool_call_end|>',
  json: {
    shape: { nameKeys: ['name'], argumentKeys: ['arguments', 'parameters'] },
    closer: '<|tool_call_end|>',
    speculative: false,
  },
};

/** Olmo 3: one call per line inside `<function_calls>…</function_calls>`. */
const OLMO3_BLOCK: PythonCallsConfig = { speculative: false, closer: '</function_calls>' };

const BARE_LIST: PythonCallsConfig = { speculative: true, listOpened: true };

const MARKUP_OPENERS: readonly Opener<PythonCallsConfig>[] = [
  { literal: '<|python_start|>', delimited: false, data: LLAMA4_BLOCK },
  { literal: '<|tool_call_start|>', delimited: false, data: LFM2_BLOCK },
  { literal: '<function_calls>', delimited: false, data: OLMO3_BLOCK },
];
const ALL_OPENERS: readonly Opener<PythonCallsConfig>[] = [
  ...MARKUP_OPENERS,
  { literal: '[', delimited: false, data: BARE_LIST },
];

/**
 * Python-style calls with keyword arguments, the format of Llama 3.2 and Llama 4, LFM2 and
 * Olmo 3: `[get_weather(city="Oslo"), get_time(zone="CET")]`, bare or between
 * `<|python_start|>…<|python_end|>` (Llama 4), `<|tool_call_start|>…<|tool_call_end|>` (LFM2,
 * which may also write a JSON array there) or `<function_calls>…</function_calls>` (Olmo 3, one
 * call per line).
 */
export function pythonicProtocol(options: PythonicProtocolOptions = {}): ToolCallProtocol {
  const style = options.promptStyle ?? 'llama3.2';
  const openers = (options.bareLists ?? true) ? ALL_OPENERS : MARKUP_OPENERS;
  return defineProtocol<PythonCallsConfig>({
    name: 'pythonic',
    grammar: {
      reasoningTags: THINK_TAGS,
      callOpeners: () => openers,
      openCall: (config, context) => new PythonCallsBody(context, config),
    },
    formatTools: (tools) => formatPythonicTools(tools, style),
    formatToolCall: (calls) => formatPythonicToolCall(calls, style),
    formatToolResponse: (results) => formatPythonicToolResponse(results, style),
  });
}

export const pythonicFormat: FormatEntry = {
  name: 'pythonic',
  aliases: ['llama3.2', 'llama4', 'llama4_pythonic', 'lfm2', 'lfm2_pythonic', 'olmo3'],
  families: 'Llama 3.2 and 4, LFM2, Olmo 3',
  example: '[get_weather(city="Oslo"), get_time(zone="CET")]',
  create: () => pythonicProtocol(),
  models: [/llama-?3\.2/, /llama-?4/, /lfm2/, /olmo-?3/],
  agent: CALLS_RUN_TOGETHER,
};
