import type { Turn } from '../conversation.ts';
import type { ReplyEvent } from '../reply-events.ts';
import type { ReplyEnd } from '../reply-run.ts';
import type { UpstreamUsage } from '../upstream.ts';
import { type OutputItem, type OutputListener, ResponseOutput } from './output.ts';
import type { EarlierConversation, ResponsesRequest } from './request.ts';

/** A response's identity: its id (`resp_…`), the model as the client named it, and when it began. */
export interface ResponseIdentity {
  readonly id: string;
  readonly model: string;
  /** Unix seconds. */
  readonly createdAt: number;
}

export type {
  FunctionCallItem,
  MessageItem,
  OutputItem,
  ReasoningItem,
} from './output.ts';

export interface ResponseUsage {
  readonly input_tokens: number;
  readonly input_tokens_details: {
    readonly cached_tokens: number;
    readonly cache_write_tokens: number;
  };
  readonly output_tokens: number;
  readonly output_tokens_details: { readonly reasoning_tokens: number };
  readonly total_tokens: number;
}

/** Why a response failed, in OpenAI's codes: a failure the client could retry later, or any other. */
export interface ResponseError {
  readonly code: 'server_error' | 'rate_limit_exceeded';
  readonly message: string;
}

/**
 * OpenAI's `response` object: the whole answer to a Responses request that does not stream, and
 * what a stream's lifecycle events carry (`in_progress` at its start, `failed` on an error).
 */
export interface ResponseObject {
  readonly id: string;
  readonly object: 'response';
  readonly created_at: number;
  readonly completed_at: number | null;
  readonly status: 'in_progress' | 'completed' | 'incomplete' | 'failed';
  readonly error: ResponseError | null;
  readonly incomplete_details: { readonly reason: 'max_output_tokens' } | null;
  readonly model: string;
  readonly output: readonly OutputItem[];
  readonly usage?: ResponseUsage;
  readonly access_programs: null;
  // The request's fields, echoed as OpenAI does (its defaults where the request left them out).
  readonly instructions: string | null;
  readonly tools: readonly unknown[];
  readonly tool_choice: unknown;
  readonly parallel_tool_calls: boolean;
  readonly temperature: number | null;
  readonly top_p: number | null;
  readonly max_output_tokens: number | null;
  readonly previous_response_id: string | null;
  readonly metadata: Readonly<Record<string, string>>;
  readonly reasoning: unknown;
  readonly text: unknown;
  readonly truncation: 'auto' | 'disabled';
  readonly store: boolean;
  readonly user?: string;
  readonly prompt_cache_key?: string;
}

export function responseUsageOf(usage: UpstreamUsage | undefined): ResponseUsage | undefined {
  if (!usage) return undefined;
  const input = usage.prompt_tokens ?? 0;
  const output = usage.completion_tokens ?? 0;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.total_tokens ?? input + output,
  };
}

/** A new id of an output item (`msg_…`, `rs_…`, `fc_…`) or response (`resp_…`). */
export function newItemId(prefix: string): string {
  return `${prefix}_${crypto.randomUUID().replaceAll('-', '')}`;
}

/** Echo fields of the response, from what the request sent (OpenAI's defaults otherwise). */
function echoOf(
  request: ResponsesRequest,
): Omit<
  ResponseObject,
  | 'id'
  | 'object'
  | 'created_at'
  | 'completed_at'
  | 'status'
  | 'error'
  | 'incomplete_details'
  | 'model'
  | 'output'
  | 'usage'
  | 'access_programs'
> {
  const echo = request.echo;
  const stringOr = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const numberOr = (value: unknown) => (typeof value === 'number' ? value : null);
  const user = stringOr(echo.user);
  const promptCacheKey = stringOr(echo.prompt_cache_key);
  return {
    instructions: stringOr(echo.instructions) ?? null,
    tools: Array.isArray(echo.tools) ? echo.tools : [],
    tool_choice: echo.tool_choice ?? 'auto',
    parallel_tool_calls: request.chat.parallelToolCalls,
    temperature: numberOr(echo.temperature),
    top_p: numberOr(echo.top_p),
    max_output_tokens: request.maxOutputTokens ?? null,
    previous_response_id: request.previousResponseId ?? null,
    metadata: (echo.metadata ?? {}) as Readonly<Record<string, string>>,
    reasoning: echo.reasoning ?? { effort: null, summary: null },
    text: echo.text ?? { format: { type: 'text' } },
    truncation: echo.truncation === 'auto' ? 'auto' : 'disabled',
    store: request.store,
    ...(user === undefined ? {} : { user }),
    ...(promptCacheKey === undefined ? {} : { prompt_cache_key: promptCacheKey }),
  };
}

/** Where a response stands, and what it holds so far. */
export interface ResponseState {
  readonly status: ResponseObject['status'];
  readonly output: readonly OutputItem[];
  readonly usage?: ResponseUsage | undefined;
  readonly error?: ResponseError;
}

/** The `response` object in a state: its identity, that state, and the request's echo fields. */
export function responseObject(
  identity: ResponseIdentity,
  request: ResponsesRequest,
  state: ResponseState,
): ResponseObject {
  return {
    id: identity.id,
    object: 'response',
    created_at: identity.createdAt,
    completed_at: state.status === 'completed' ? Math.floor(Date.now() / 1000) : null,
    status: state.status,
    error: state.error ?? null,
    incomplete_details: state.status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    model: identity.model,
    output: state.output,
    ...(state.usage === undefined ? {} : { usage: state.usage }),
    access_programs: null,
    ...echoOf(request),
  };
}

/**
 * Collects a whole reply into a response's output items, in the order the model wrote them:
 * reasoning, text (one message per run of text), and each completed call. A stream writes the
 * same items as they grow, through `listener`.
 */
export class ResponseBuilder {
  private readonly request: ResponsesRequest;
  private readonly output: ResponseOutput;

  constructor(
    request: ResponsesRequest,
    newId: (prefix: string) => string = newItemId,
    listener?: OutputListener,
  ) {
    this.request = request;
    this.output = new ResponseOutput(request.namespacedTools, newId, listener);
  }

  add(events: readonly ReplyEvent[]): void {
    this.output.add(events);
  }

  /** The items finished so far. */
  items(): OutputItem[] {
    return this.output.items();
  }

  /** What the assistant said in this reply, as a turn of the conversation a later request continues. */
  turn(): Turn & { readonly role: 'assistant' } {
    return this.output.turn();
  }

  build(identity: ResponseIdentity, end: ReplyEnd): ResponseObject {
    const incomplete = end.finishReason === 'length';
    return responseObject(identity, this.request, {
      status: incomplete ? 'incomplete' : 'completed',
      output: this.output.finish(incomplete),
      usage: responseUsageOf(end.usage),
    });
  }
}

/**
 * The conversation a stored response holds: the request's (its `instructions` left behind, as
 * OpenAI does), then this reply's turn.
 */
export function conversationAfter(
  request: ResponsesRequest,
  reply: Turn & { readonly role: 'assistant' },
): EarlierConversation {
  return { system: request.inputSystem, turns: [...request.chat.turns, reply] };
}
