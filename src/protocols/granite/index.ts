import { BoundedCache } from '../../core/bounded-cache.ts';
import type { ToolCallProtocol, ToolDefinition } from '../../core/index.ts';
import type { Opener } from '../../scan/opener-trie.ts';
import {
  bareArrayLiterals,
  bareArrayOpeners,
  type JsonOpening,
  markupOpeners,
  openJsonCall,
} from '../codecs/json/json-call-formats-openers.ts';
import type { JsonCallShape } from '../codecs/json/json-calls-body.ts';
import { PythonCallsBody, type PythonCallsConfig } from '../codecs/python/python-call-body.ts';
import { defineProtocol } from '../define/define-protocol.ts';
import { CALLS_RUN_TOGETHER, type FormatEntry } from '../define/format-entry.ts';
import type { CallContext } from '../engine/call-body.ts';
import { THINK_TAGS } from '../engine/reasoning-tags.ts';
import type { ReasoningTag } from '../engine/stream-engine.ts';
import { formatGraniteToolCall, formatGraniteToolResponse, formatGraniteTools } from './format.ts';

export interface GraniteProtocolOptions {
  /**
   * Read a bare `[{"name": …, "arguments": …}]` array as calls when a server stripped
   * `<|tool_call|>` (only well-formed calls to declared tools count). Default `true`.
   */
  readonly bareArrays?: boolean;
}

const GRANITE_SHAPE: JsonCallShape = {
  nameKeys: ['name'],
  argumentKeys: ['arguments', 'parameters'],
};

/**
 * Granite 3.3 thinks in `<think>` and answers in `<response>`; Granite 3.2 was taught to write
 * its thoughts after "Here is my thought process:" and its answer after "Here is my response:".
 */
const GRANITE_THINK_TAGS: readonly ReasoningTag[] = [
  ...THINK_TAGS,
  { open: 'Here is my thought process:', close: 'Here is my response:' },
];

const TOKEN_OPENERS: readonly Opener<JsonOpening>[] = [
  // Granite 3.0+: a special token, then the JSON list; nothing closes it.
  {
    literal: '<|tool_call|>',
    delimited: false,
    data: { shape: GRANITE_SHAPE, speculative: false },
  },
  // Granite 3.1 as vLLM's parser reads it: the same list after a plain `<tool_call>`.
  {
    literal: '<tool_call>',
    delimited: false,
    data: { shape: GRANITE_SHAPE, closer: '</tool_call>', speculative: false },
  },
  // Granite 20B function-calling: `<function_call> {"name": …, "arguments": …}`.
  {
    literal: '<function_call>',
    delimited: false,
    data: { shape: GRANITE_SHAPE, speculative: false },
  },
  // The answer's wrapper (Granite 3.3 with thinking on) is framing, not text.
  ...markupOpeners(['<response>', '</response>']),
];

const WITH_BARE_ARRAYS: readonly Opener<JsonOpening>[] = [
  ...TOKEN_OPENERS,
  ...bareArrayOpeners(GRANITE_SHAPE, bareArrayLiterals(['name', 'arguments'])),
];

/** What a Granite opener begins: a JSON block, or Python calls one per line. */
type GraniteOpening = JsonOpening | { readonly pythonLines: PythonCallsConfig };

/**
 * Granite sometimes answers with bare Python calls, one per line and nothing else
 * (`get_weather(city="Paris")\nget_time(zone="UTC")`). A declared tool's name and `(` at the
 * start of the output opens them (a line opener: its line break is the output's start); each
 * line must then be one whole call, or the call is not run. Prose that mentions a call
 * (`use print(x) to debug`, `call get_weather(city="x") first`) is never read as one.
 */
function pythonLineOpeners(tools: readonly ToolDefinition[]): Opener<GraniteOpening>[] {
  return tools.map((tool) => ({
    literal: `\n${tool.name}(`,
    delimited: false,
    data: { pythonLines: { speculative: true, lines: true, openedCall: tool.name } },
  }));
}

/** Distinct tool lists kept; an application has a few, so this only bounds odd callers. */
const MAX_CACHED_TOOL_LISTS = 64;

/** Openers per list of tool names (a parser's tools rarely change; the list is small). */
const openersByNames = new BoundedCache<string, readonly Opener<GraniteOpening>[]>(
  MAX_CACHED_TOOL_LISTS,
);

function openersFor(
  base: readonly Opener<JsonOpening>[],
  tools: readonly ToolDefinition[],
): readonly Opener<GraniteOpening>[] {
  if (tools.length === 0) return base;
  const key = `${base === WITH_BARE_ARRAYS ? 1 : 0}${tools.map((tool) => tool.name).join('\u0000')}`;
  let openers = openersByNames.get(key);
  if (openers === undefined) {
    openers = [...base, ...pythonLineOpeners(tools)];
    openersByNames.set(key, openers);
  }
  return openers;
}

function openGraniteCall(opening: GraniteOpening, context: CallContext) {
  return 'pythonLines' in opening
    ? new PythonCallsBody(context, opening.pythonLines)
    : openJsonCall(opening, context);
}

/** IBM Granite 3.x: `<|tool_call|>[{"name": …, "arguments": …}, …]`. */
export function graniteProtocol(options: GraniteProtocolOptions = {}): ToolCallProtocol {
  const openers = (options.bareArrays ?? true) ? WITH_BARE_ARRAYS : TOKEN_OPENERS;
  return defineProtocol<GraniteOpening>({
    name: 'granite',
    grammar: {
      reasoningTags: GRANITE_THINK_TAGS,
      callOpeners: (parseOptions) => openersFor(openers, parseOptions.tools),
      openCall: openGraniteCall,
    },
    formatTools: formatGraniteTools,
    formatToolCall: formatGraniteToolCall,
    formatToolResponse: formatGraniteToolResponse,
  });
}

export const graniteFormat: FormatEntry = {
  name: 'granite',
  aliases: ['granite3'],
  families: 'IBM Granite 3.0–3.3',
  example: '<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Oslo"}}]',
  create: () => graniteProtocol(),
  // Granite 4 writes Hermes' format: its entry (hermes) must come first in the registry.
  models: [/granite-?3/],
  agent: CALLS_RUN_TOGETHER,
};
