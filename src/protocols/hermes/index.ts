import type { ToolCallProtocol } from '../../core/index.ts';
import type { Opener } from '../../scan/opener-trie.ts';
import { defineProtocol } from '../shared/define-protocol.ts';
import {
  type JsonCallShape,
  JsonCallsBody,
  type JsonCallsBodyConfig,
} from '../shared/json-calls-body.ts';
import { formatHermesToolCall, formatHermesToolResponse, formatHermesTools } from './format.ts';

export interface HermesProtocolOptions {
  /** The tag that wraps a call. Default `tool_call` (`<tool_call>…</tool_call>`). */
  readonly callTag?: string;
  /** The tag that wraps a result. Default `tool_response`. */
  readonly responseTag?: string;
  /**
   * Other wrapper tags models fall back to, read the same way. Default `['function_call']`.
   */
  readonly alternativeCallTags?: readonly string[];
  /** Read a call written in a markdown code fence (```` ```json ````). Default `true`. */
  readonly fencedCalls?: boolean;
  /**
   * Read a bare `{"name": …, "arguments": …}` object in the text as a call, when it names a
   * declared tool (Llama 3 and Hermes models sometimes drop the tags). Default `true`.
   */
  readonly bareJsonCalls?: boolean;
}

const HERMES_SHAPE: JsonCallShape = {
  nameKeys: ['name', 'tool_name', 'function'],
  argumentKeys: ['arguments', 'parameters', 'args', 'input'],
};

/**
 * JSON inside tags, the format Qwen and Hermes models are trained on (seed 004's jsonMix):
 * `<tool_call>{"name": "get_weather", "arguments": {"city": "Seoul"}}</tool_call>`.
 */
export function hermesProtocol(options: HermesProtocolOptions = {}): ToolCallProtocol {
  const callTag = options.callTag ?? 'tool_call';
  const responseTag = options.responseTag ?? 'tool_response';
  const tags = [callTag, ...(options.alternativeCallTags ?? ['function_call'])];
  const openers: Opener<JsonCallsBodyConfig>[] = tags.map((tag) => ({
    literal: `<${tag}>`,
    delimited: false,
    data: { shape: HERMES_SHAPE, closer: `</${tag}>`, speculative: false },
  }));
  if (options.fencedCalls ?? true) {
    openers.push({
      literal: '```',
      delimited: false,
      data: { shape: HERMES_SHAPE, closer: '```', speculative: true, skipLanguageTag: true },
    });
  }
  if (options.bareJsonCalls ?? true) {
    for (const literal of ['{"name"', '{ "name"']) {
      openers.push({
        literal,
        delimited: false,
        data: { shape: HERMES_SHAPE, speculative: true, jsonPrefix: literal },
      });
    }
  }
  return defineProtocol<JsonCallsBodyConfig>({
    name: 'hermes',
    grammar: {
      callOpeners: () => openers,
      openCall: (config, context) => new JsonCallsBody(context, config),
    },
    formatTools: (tools) => formatHermesTools(tools, callTag, responseTag),
    formatToolCall: (calls) => formatHermesToolCall(calls, callTag),
    formatToolResponse: (results) => formatHermesToolResponse(results, responseTag),
  });
}
