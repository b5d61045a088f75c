import type { ToolCallProtocol } from '../../core/index.ts';
import type { Opener } from '../../scan/opener-trie.ts';
import { defineProtocol } from '../common/define-protocol.ts';
import { JsonCallsBody, type JsonCallsBodyConfig } from '../common/json-calls-body.ts';
import { THINK_TAGS } from '../common/reasoning-tags.ts';
import { formatExecuteToolCall, formatExecuteToolResponse, formatExecuteTools } from './format.ts';

const EXECUTE_BLOCK: JsonCallsBodyConfig = {
  shape: { nameKeys: ['name'], argumentKeys: ['args', 'arguments', 'parameters'] },
  closer: '</execute>',
  speculative: false,
  strictJson: true,
};

/** One array for every parse: the engine compiles openers once per array. */
const EXECUTE_OPENERS: readonly Opener<JsonCallsBodyConfig>[] = [
  { literal: '<execute>', delimited: false, data: EXECUTE_BLOCK },
];

/**
 * Cogency's execute protocol: `<think>` reasoning, then `<execute>[{"name": …, "args": {…}}, …]</execute>`,
 * a batch run in order. A `</execute>` inside a JSON string does not end the block.
 */
export function executeProtocol(): ToolCallProtocol {
  return defineProtocol<JsonCallsBodyConfig>({
    name: 'execute',
    grammar: {
      reasoningTags: THINK_TAGS,
      callOpeners: () => EXECUTE_OPENERS,
      openCall: (config, context) => new JsonCallsBody(context, config),
    },
    formatTools: formatExecuteTools,
    formatToolCall: formatExecuteToolCall,
    formatToolResponse: formatExecuteToolResponse,
  });
}
