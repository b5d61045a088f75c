/** The proxy's options and limits, with their defaults. */
import { getHeapStatistics } from 'node:v8';
import type { ToolCallProtocol } from '../core/index.ts';
import { DEFAULT_JSON_SHAPE_LIMITS } from '../http/json-shape.ts';
import type { ProtocolChoice } from '../protocols/index.ts';
import type { RunStore } from '../store/run-store.ts';
import type { ConstrainMode } from './upstream-constraint.ts';
import type { UpstreamKind } from './upstream-kind.ts';

export interface ProxyLimits {
  /** Largest request body read, in bytes; larger get 413. Default 16 MiB. */
  readonly maxBodyBytes: number;
  /** Longest a request's body may take to arrive; then 408. Default 30 s. */
  readonly bodyTimeoutMs: number;
  /**
   * Deepest nesting of arrays and objects in a request body (400) or a whole model-server reply
   * (502). Calls the model writes may nest 8 levels less, so they fit in the next request.
   * Default 128.
   */
  readonly maxJsonDepth: number;
  /** Most JSON values (keys included) in a request body (413) or a whole reply (502). Default 1,000,000. */
  readonly maxJsonValues: number;
  /**
   * Memory all requests being answered may hold, as estimated from each body's size and count of
   * values. A request that never fits gets 413, one that does not fit now 503. Default 1 GiB,
   * or half of the heap limit when that is less.
   */
  readonly memoryBudgetBytes: number;
  /** Requests answered at once (`/v1/models` included); more get 429. Default 64. */
  readonly maxConcurrentRequests: number;
  /** Longest one upstream request may take, its reply stream included. Default 10 minutes. */
  readonly upstreamTimeoutMs: number;
  /**
   * Largest whole (not streamed) model-server reply read, in bytes, and most of a streamed reply
   * held while `tool_choice` waits for a demanded call (its text plus a share per event).
   * Past it the connection is closed and the client gets 502. Default 8 MiB.
   */
  readonly maxUpstreamReplyBytes: number;
  /**
   * Most of a streamed reply's line or event held while waiting for its end, in characters; past
   * it as above. An event may pass it by the one network read that brings its end (it is already
   * in memory then). Default 1 MiB.
   */
  readonly maxUpstreamEventBytes: number;
  /** Largest number of characters one call may span. Default 16 MiB. */
  readonly maxCallChars: number;
}

/** The default memory budget: 1 GiB, or half of the heap when the heap is smaller than 2 GiB. */
const DEFAULT_MEMORY_BUDGET = Math.min(
  2 ** 30,
  Math.floor(getHeapStatistics().heap_size_limit / 2),
);

export const DEFAULT_PROXY_LIMITS: ProxyLimits = {
  maxBodyBytes: 16 * 1024 * 1024,
  bodyTimeoutMs: 30_000,
  maxJsonDepth: DEFAULT_JSON_SHAPE_LIMITS.maxDepth,
  maxJsonValues: DEFAULT_JSON_SHAPE_LIMITS.maxValues,
  memoryBudgetBytes: DEFAULT_MEMORY_BUDGET,
  maxConcurrentRequests: 64,
  upstreamTimeoutMs: 10 * 60_000,
  maxUpstreamReplyBytes: 8 * 1024 * 1024,
  maxUpstreamEventBytes: 1024 * 1024,
  maxCallChars: 16 * 1024 * 1024,
};

/**
 * Levels of a request around a call's arguments (body, messages, message, content, block,
 * input, and a margin): a call nested up to the rest can be sent back in the next request.
 */
export const REQUEST_ENVELOPE_DEPTH = 8;

export interface ProxyOptions {
  /**
   * Base URL of the OpenAI-compatible model server, e.g. `http://127.0.0.1:11434/v1`. Credentials
   * in it (`http://user:pass@host/v1`) are sent as basic authentication, never shown.
   */
  readonly upstream: string;
  /**
   * The format the model is told to write calls in and read in: a format's name or alias,
   * `auto`, `model` (the format of each request's model id), or a protocol object used for every
   * request whatever its model (one built by `defineFormat`, derived from a chat template, or
   * written by hand). Default `model`.
   * @example 'qwen3-coder'
   * @example defineFormat(spec)
   */
  readonly protocol?: ProtocolChoice | ToolCallProtocol;
  /** When set, clients must send it (`Authorization: Bearer …` or `x-api-key`). */
  readonly apiKey?: string;
  /**
   * The key sent to the model server; without one (and without credentials in `upstream`), the
   * client's `Authorization` goes upstream.
   */
  readonly upstreamApiKey?: string;
  /**
   * Extra attempts when `tool_choice` demands a call and the model wrote none. Default 1. Not
   * used for a request the model server constrained (see `constrain`): its grammar allowed no
   * answer without the call. (A reply cut off by `length` is never asked again, constrained or
   * not: the client gets `finish_reason: "length"`.)
   */
  readonly toolChoiceRetries?: number;
  /**
   * When the model server is made to write only what the format reads as calls to the request's
   * tools (a grammar, a structural tag or a JSON Schema sent with the request, see
   * `constraintFields`): `off` never; `demanded` (default) when `tool_choice` is `required` or
   * names a tool, or a tool is `strict: true`; `always` also under `auto` (text stays free until
   * a call starts; on llama.cpp that grammar covers the whole reply and is eager, which slows
   * decoding). A request carrying a field of its own that constrains output (llama.cpp `grammar`,
   * `json_schema`, `response_format`; vLLM `response_format`, `structured_outputs`, `guided_*`;
   * SGLang `response_format`, `ebnf`, `regex`, `json_schema`; Ollama and LM Studio
   * `response_format`, `format`) gets none of the proxy's. A server that refuses a field (400,
   * 422) is asked again with the next field its kind takes, then without; a field is no longer
   * sent once the server says it does not take it, or after 3 refusals in a row.
   */
  readonly constrain?: ConstrainMode;
  /**
   * The model server's kind, which decides the fields of `constrain`: `auto` (default) asks the
   * server once, at the first request that wants a constraint (llama.cpp's `/props`, Ollama's
   * `/api/version`, SGLang's `/server_info` and `/get_server_info`, vLLM's `/version`, LM
   * Studio's `/api/v1/models` and `/api/v0/models`); a detection that got no answer, or only
   * 5xx/429 (a server still loading), is asked again at a later request. `openai` sends none
   * (and keeps the corrective retry).
   */
  readonly upstreamKind?: UpstreamKind | 'auto';
  /**
   * Where the proxy tells its operator what it learned: the model server's kind when it was found
   * out, a constraint field it stopped sending, its own unexpected failures. One line each (made
   * so by `logLine`: control characters become spaces, URL credentials are redacted), without a
   * trailing newline. Default: standard error, after `toolwire proxy: `.
   */
  readonly log?: (line: string) => void;
  readonly limits?: Partial<ProxyLimits>;
  /** Host names requests may be addressed to. Default: the loopback names. */
  readonly allowedHostnames?: readonly string[];
  /** Also admit any IP address as the Host (a proxy listening on a network address). */
  readonly allowIpAddressHosts?: boolean;
  /** The fetch used to reach the model server (tests, custom agents). Default: Node's own HTTP
   * client, with connections kept alive. */
  readonly fetch?: typeof globalThis.fetch;
  /**
   * Most Responses API responses kept for `previous_response_id` in the proxy's own memory (0
   * keeps none). Default 1000. With a `store`, its `limits.maxStoredResponses` bounds them.
   */
  readonly maxStoredResponses?: number;
  /**
   * Most bytes (as JSON) those kept responses may hold; past it the oldest go. Default 64 MiB.
   * With a `store`, its `limits.maxStoredResponseBytes` bounds them.
   */
  readonly maxStoredResponseBytes?: number;
  /**
   * Where Responses API responses are kept for `previous_response_id`: a run store shared by
   * instances (`createRunStore('redis://…')`), so a response stored through one continues on
   * another; its `limits` bound them (`maxStoredResponses`, `maxStoredResponseBytes`,
   * `storedResponseTtlMs`). A store that fails answers 503. The proxy does not close it.
   * Default: the proxy's own memory, bounded by the two options above.
   */
  readonly store?: RunStore;
}

/**
 * The object has the methods the proxy calls on a protocol, so a wrong one is refused when the
 * proxy is made rather than at its first request.
 */
export function isToolCallProtocol(value: unknown): value is ToolCallProtocol {
  const protocol = value as Partial<Record<keyof ToolCallProtocol, unknown>> | null;
  return (
    typeof protocol === 'object' &&
    protocol !== null &&
    typeof protocol.name === 'string' &&
    typeof protocol.formatTools === 'function' &&
    typeof protocol.formatToolCall === 'function' &&
    typeof protocol.formatToolResponse === 'function' &&
    typeof protocol.createStreamParser === 'function'
  );
}
