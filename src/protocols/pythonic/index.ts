import type { ToolCallProtocol } from '../../core/index.ts';
import type { FormatEntry } from '../define/format-entry.ts';
import { defineFormat, type FormatHooks, formatEntryFromSpec } from '../spec/define.ts';
import type { FormatSpec } from '../spec/types.ts';
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

/**
 * Python-style calls with keyword arguments, the format of Llama 3.2 and Llama 4, LFM2 and
 * Olmo 3: `[get_weather(city="Oslo"), get_time(zone="CET")]`, bare or between
 * `<|python_start|>…<|python_end|>` (Llama 4), `<|tool_call_start|>…<|tool_call_end|>` (LFM2,
 * which may also write a JSON array there) or `<function_calls>…</function_calls>` (Olmo 3, one
 * call per line).
 */
export const pythonicSpec: FormatSpec = {
  spec: 1,
  name: 'pythonic',
  aliases: ['llama3.2', 'llama4', 'llama4_pythonic', 'lfm2', 'lfm2_pythonic', 'olmo3'],
  families: 'Llama 3.2 and 4, LFM2, Olmo 3',
  example: '[get_weather(city="Oslo"), get_time(zone="CET")]',
  calls: [
    // Llama 4's special tokens around its list; servers strip them unless asked to keep them.
    { codec: 'python', open: '<|python_start|>', close: '<|python_end|>' },
    {
      codec: 'python',
      open: '<|tool_call_start|>',
      close: '<|tool_call_end|>',
      jsonFallback: true,
    },
    // Olmo 3: one call per line.
    { codec: 'python', open: '<function_calls>', close: '</function_calls>' },
    // The bare list: calls only when it calls a declared tool.
    { codec: 'python', open: '[', certainty: 'speculative', listOpened: true },
  ],
  // Llama 3.2's list; the other styles' writers are the hooks'.
  write: { form: 3, section: { open: '[', close: ']' }, call: '{name}({arguments})', join: ', ' },
  results: { each: '{output}', join: '\n', output: 'json' },
};

/** The writers of one style's chat template. */
function styleHooks(style: PythonicPromptStyle): FormatHooks {
  return {
    formatTools: (tools) => formatPythonicTools(tools, style),
    formatToolCall: (calls) => formatPythonicToolCall(calls, style),
    formatToolResponse: (results) => formatPythonicToolResponse(results, style),
  };
}

/** Without bare lists: only the lists in markup are read. */
const markupOnlySpec: FormatSpec = {
  ...pythonicSpec,
  calls: pythonicSpec.calls.filter((form) => form.certainty !== 'speculative'),
  write: { ...pythonicSpec.write, form: 0 },
};

export const pythonicFormat: FormatEntry = formatEntryFromSpec(pythonicSpec, {
  hooks: styleHooks('llama3.2'),
  models: [/llama-?3\.2/, /llama-?4/, /lfm2/, /olmo-?3/],
});

export function pythonicProtocol(options: PythonicProtocolOptions = {}): ToolCallProtocol {
  const style = options.promptStyle ?? 'llama3.2';
  const bareLists = options.bareLists ?? true;
  if (style === 'llama3.2' && bareLists) return pythonicFormat.create();
  return defineFormat(bareLists ? pythonicSpec : markupOnlySpec, styleHooks(style));
}
