import type { ToolCallProtocol } from '../../core/index.ts';
import type { Opener } from '../../scan/opener-trie.ts';
import { defineProtocol } from '../common/define-protocol.ts';
import { CALLS_RUN_TOGETHER, type FormatEntry } from '../common/format-entry.ts';
import {
  bareArrayLiterals,
  bareArrayOpeners,
  openJsonCall,
} from '../common/json-call-formats-openers.ts';
import type { JsonCallShape, JsonCallsBodyConfig } from '../common/json-calls-body.ts';
import { THINK_TAGS } from '../common/reasoning-tags.ts';
import {
  formatFirefunctionToolCall,
  formatFirefunctionToolResponse,
  formatFirefunctionTools,
} from './format.ts';

export interface FirefunctionProtocolOptions {
  /**
   * Also read a bare `[{"name": …, "arguments": …}]` array without the `functools` marker
   * (only well-formed calls to declared tools count). Default `true`.
   */
  readonly bareArrays?: boolean;
}

const FIREFUNCTION_SHAPE: JsonCallShape = { nameKeys: ['name'], argumentKeys: ['arguments'] };

/** The marker is plain text, and the list follows it directly; nothing closes it. */
const MARKER_OPENERS: readonly Opener<JsonCallsBodyConfig>[] = [
  {
    literal: 'functools[',
    delimited: false,
    data: { shape: FIREFUNCTION_SHAPE, speculative: false, jsonPrefix: '[' },
  },
];

const WITH_BARE_ARRAYS: readonly Opener<JsonCallsBodyConfig>[] = [
  ...MARKER_OPENERS,
  ...bareArrayOpeners(FIREFUNCTION_SHAPE, bareArrayLiterals(['name'])),
];

/** Fireworks' FireFunction v2 (and Phi-4-mini prompted the same way): ` functools[{…}, …]`. */
export function firefunctionProtocol(options: FirefunctionProtocolOptions = {}): ToolCallProtocol {
  const openers = (options.bareArrays ?? true) ? WITH_BARE_ARRAYS : MARKER_OPENERS;
  return defineProtocol<JsonCallsBodyConfig>({
    name: 'firefunction',
    grammar: {
      reasoningTags: THINK_TAGS,
      callOpeners: () => openers,
      openCall: (config, context) => openJsonCall(config, context),
    },
    formatTools: formatFirefunctionTools,
    formatToolCall: formatFirefunctionToolCall,
    formatToolResponse: formatFirefunctionToolResponse,
  });
}

export const firefunctionFormat: FormatEntry = {
  name: 'firefunction',
  aliases: ['firefunction_v2', 'functools'],
  families: 'FireFunction v2, Phi-4-mini',
  example: ' functools[{"name": "get_weather", "arguments": {"city": "Oslo"}}]',
  create: () => firefunctionProtocol(),
  // Phi-4-mini writes the same list (`functools[…]`, usually without the space before it).
  models: [/firefunction/, /phi-?4-?(?:mini|multimodal)/],
  agent: CALLS_RUN_TOGETHER,
};
