import type { ToolCallProtocol } from '../../core/index.ts';
import type { FormatEntry } from '../define/format-entry.ts';
import { defineFormat, type FormatHooks, formatEntryFromSpec } from '../spec/define.ts';
import type { FormatSpec, JsonCallForm } from '../spec/types.ts';
import { formatGraniteToolResponse, formatGraniteTools } from './format.ts';

export interface GraniteProtocolOptions {
  /**
   * Read a bare `[{"name": …, "arguments": …}]` array as calls when a server stripped
   * `<|tool_call|>` (only well-formed calls to declared tools count). Default `true`.
   */
  readonly bareArrays?: boolean;
}

/** Granite 3.0+: a special token, then the JSON list; nothing closes it. */
const TOOL_CALL_TOKEN: JsonCallForm = { codec: 'json', open: '<|tool_call|>' };

/** IBM Granite 3.x: `<|tool_call|>[{"name": …, "arguments": …}, …]`. */
export const graniteSpec: FormatSpec = {
  spec: 1,
  name: 'granite',
  aliases: ['granite3'],
  families: 'IBM Granite 3.0–3.3',
  example: '<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Oslo"}}]',
  // Granite 3.3 thinks in `<think>` and answers in `<response>`; Granite 3.2 was taught to write
  // its thoughts after "Here is my thought process:" and its answer after "Here is my response:".
  reasoning: [
    { open: '<think>', close: '</think>' },
    { open: '<thinking>', close: '</thinking>' },
    { open: 'Here is my thought process:', close: 'Here is my response:' },
  ],
  // The answer's wrapper (Granite 3.3 with thinking on) is framing, not text.
  markup: ['<response>', '</response>'],
  calls: [
    // The bare array a server leaves once it strips the token.
    { ...TOOL_CALL_TOKEN, bareArrays: ['name', 'arguments'] },
    // Granite 3.1 as vLLM's parser reads it: the same list after a plain `<tool_call>`.
    { codec: 'json', open: '<tool_call>', close: '</tool_call>' },
    // Granite 20B function-calling: `<function_call> {"name": …, "arguments": …}`.
    { codec: 'json', open: '<function_call>' },
    // Bare Python calls, one per line and nothing else (`get_weather(city="Paris")`), opened
    // by a declared tool's name and `(` at the start of the output (a line opener: its line
    // break is the output's start); each line must be one whole call, or the call is not run.
    // Prose that mentions a call (`use print(x) to debug`) is never read as one.
    { codec: 'python', open: '\n{name}(', perTool: true, certainty: 'speculative', lines: true },
  ],
  write: {
    section: { open: '<|tool_call|>[', close: ']' },
    call: '{"name":{name_json},"arguments":{arguments}}',
    join: ',',
  },
  // Overridden by the hook: each result's own line of JSON, in the order of the calls.
  results: { each: '{output}', join: '\n', output: 'json' },
};

/** Without bare arrays: the token's list, the other wrappers and the Python lines. */
const tokenOnlySpec: FormatSpec = {
  ...graniteSpec,
  calls: [TOOL_CALL_TOKEN, ...graniteSpec.calls.slice(1)],
};

const GRANITE_HOOKS: FormatHooks = {
  // Granite 3.x's tool-calling system prompt and its `available_tools` list.
  formatTools: formatGraniteTools,
  formatToolResponse: formatGraniteToolResponse,
};

export const graniteFormat: FormatEntry = formatEntryFromSpec(graniteSpec, {
  hooks: GRANITE_HOOKS,
  // Granite 4 writes Hermes' format: its entry (hermes) must come first in the registry.
  models: [/granite-?3/],
});

export function graniteProtocol(options: GraniteProtocolOptions = {}): ToolCallProtocol {
  return (options.bareArrays ?? true)
    ? graniteFormat.create()
    : defineFormat(tokenOnlySpec, GRANITE_HOOKS);
}
