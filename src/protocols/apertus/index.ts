import { BoundedCache } from '../../core/bounded-cache.ts';
import type { ToolCallProtocol, ToolDefinition } from '../../core/index.ts';
import type { Opener } from '../../scan/opener-trie.ts';
import { bareArrayOpeners, openJsonCall } from '../codecs/json/json-call-formats-openers.ts';
import type { JsonCallShape, JsonCallsBodyConfig } from '../codecs/json/json-calls-body.ts';
import { defineProtocol } from '../define/define-protocol.ts';
import { CALLS_RUN_TOGETHER, type FormatEntry } from '../define/format-entry.ts';
import { THINK_TAGS } from '../engine/reasoning-tags.ts';
import type { ReasoningTag } from '../engine/stream-engine.ts';
import { formatApertusToolCall, formatApertusToolResponse, formatApertusTools } from './format.ts';

export interface ApertusProtocolOptions {
  /**
   * Read `[{"NAME": {…}}]` naming a declared tool without its `<|tools_prefix|>` token, as a
   * server that strips special tokens delivers it (only well-formed calls count). Default `true`.
   */
  readonly bareArrays?: boolean;
}

/** The call object's only key is the tool's name: `{"get_weather": {"city": "Oslo"}}`. */
const APERTUS_SHAPE: JsonCallShape = {
  nameKeys: ['name'],
  argumentKeys: ['arguments'],
  nameAsKey: true,
};

/** Apertus reasons between `<|inner_prefix|>` and `<|inner_suffix|>`. */
const APERTUS_THINK_TAGS: readonly ReasoningTag[] = [
  { open: '<|inner_prefix|>', close: '<|inner_suffix|>' },
  ...THINK_TAGS,
];

const TOOLS_BLOCK: Opener<JsonCallsBodyConfig> = {
  literal: '<|tools_prefix|>',
  delimited: false,
  data: {
    shape: APERTUS_SHAPE,
    closer: '<|tools_suffix|>',
    speculative: false,
    // Keeps every call on the streaming reader, which knows the name-as-key shape (the whole-call
    // fast path reads `{"name": …, "arguments": …}` objects only).
    skipLanguageTag: true,
  },
};

const TOKEN_ONLY: readonly Opener<JsonCallsBodyConfig>[] = [TOOLS_BLOCK];

/** Distinct tool lists kept; an application has a few, so this only bounds odd callers. */
const MAX_CACHED_TOOL_LISTS = 64;

/** Opener arrays per list of tool names, so the engine compiles each once (see xml/index.ts). */
const openersByNames = new BoundedCache<string, readonly Opener<JsonCallsBodyConfig>[]>(
  MAX_CACHED_TOOL_LISTS,
);

/** `[{"get_weather"`: a bare list can only be told from data by the declared names it uses. */
function withBareArrays(tools: readonly ToolDefinition[]): readonly Opener<JsonCallsBodyConfig>[] {
  const key = tools.map((tool) => tool.name).join('\u0000');
  let openers = openersByNames.get(key);
  if (openers === undefined) {
    const literals = tools.flatMap((tool) => {
      const name = JSON.stringify(tool.name);
      return ['[{', '[ {', '[\n{', '[\n  {'].flatMap((start) => [
        `${start}${name}`,
        `${start} ${name}`,
      ]);
    });
    openers = [TOOLS_BLOCK, ...bareArrayOpeners(APERTUS_SHAPE, literals)];
    openersByNames.set(key, openers);
  }
  return openers;
}

/** Swiss AI's Apertus: `<|tools_prefix|>[{"get_weather": {"city": "Oslo"}}]<|tools_suffix|>`. */
export function apertusProtocol(options: ApertusProtocolOptions = {}): ToolCallProtocol {
  const bare = options.bareArrays ?? true;
  return defineProtocol<JsonCallsBodyConfig>({
    name: 'apertus',
    grammar: {
      reasoningTags: APERTUS_THINK_TAGS,
      callOpeners: (parse) => (bare ? withBareArrays(parse.tools) : TOKEN_ONLY),
      openCall: (config, context) => openJsonCall(config, context),
    },
    formatTools: formatApertusTools,
    formatToolCall: formatApertusToolCall,
    formatToolResponse: formatApertusToolResponse,
  });
}

export const apertusFormat: FormatEntry = {
  name: 'apertus',
  aliases: [],
  families: 'Swiss AI Apertus',
  example: '<|tools_prefix|>[{"get_weather": {"city": "Oslo"}}]<|tools_suffix|>',
  create: () => apertusProtocol(),
  models: [/apertus/],
  agent: CALLS_RUN_TOGETHER,
};
