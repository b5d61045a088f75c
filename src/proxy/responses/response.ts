import type { ToolCallToFormat } from '../../core/index.ts';
import type { Turn } from '../conversation.ts';
import type { ReplyEvent } from '../reply-events.ts';
import type { ReplyEnd } from '../reply-run.ts';
import type { UpstreamUsage } from '../upstream.ts';
import type { EarlierConversation, ResponsesRequest } from './request.ts';

/** A response's identity: its id (`resp_…`), the model as the client named it, and when it began. */
export interface ResponseIdentity {
  readonly id: string;
  readonly model: string;
  /** Unix seconds. */
  readonly createdAt: number;
}

type ItemStatus = 'in_progress' | 'completed' | 'incomplete';

export interface ReasoningItem {
  readonly type: 'reasoning';
  readonly id: string;
  readonly summary: readonly [];
  readonly content: readonly { readonly type: 'reasoning_text'; readonly text: string }[];
}

export interface MessageItem {
  readonly type: 'message';
  readonly id: string;
  readonly role: 'assistant';
  readonly status: ItemStatus;
  readonly content: readonly {
    readonly type: 'output_text';
    readonly text: string;
    readonly annotations: readonly [];
  }[];
}

export interface FunctionCallItem {
  readonly type: 'function_call';
  readonly id: string;
  readonly call_id: string;
  /** The tool's name as the client declared it (without its namespace). */
  readonly name: string;
  /** The namespace of a tool declared inside a `namespace` entry. */
  readonly namespace?: string;
  /** The arguments' JSON text. */
  readonly arguments: string;
  readonly status: 'completed';
}

export type OutputItem = ReasoningItem | MessageItem | FunctionCallItem;

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

/** OpenAI's `response` object, as the proxy answers a Responses request that does not stream. */
export interface ResponseObject {
  readonly id: string;
  readonly object: 'response';
  readonly created_at: number;
  readonly completed_at: number | null;
  readonly status: 'completed' | 'incomplete';
  readonly error: null;
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

type Piece =
  | { kind: 'reasoning'; text: string }
  | { kind: 'text'; text: string }
  | { kind: 'call'; id: string; name: string; input: string };

/**
 * Collects a whole reply into a response's output items, in the order the model wrote them:
 * reasoning, text (one message per run of text), and each completed call.
 */
export class ResponseBuilder {
  private readonly pieces: Piece[] = [];
  private readonly newId: (prefix: string) => string;

  constructor(newId: (prefix: string) => string = newItemId) {
    this.newId = newId;
  }

  add(events: readonly ReplyEvent[]): void {
    for (const event of events) {
      const last = this.pieces[this.pieces.length - 1];
      if (event.type === 'text' || event.type === 'reasoning') {
        const kind = event.type;
        if (last !== undefined && last.kind === kind) last.text += event.delta;
        else this.pieces.push({ kind, text: event.delta });
      } else if (event.type === 'call-end') {
        this.pieces.push({ kind: 'call', id: event.id, name: event.name, input: event.input });
      }
      // Starts and pieces of calls matter to a stream only; an abandoned call's text follows as text.
    }
  }

  /** What the assistant said in this reply, as a turn of the conversation a later request continues. */
  turn(): Turn & { readonly role: 'assistant' } {
    const calls: ToolCallToFormat[] = [];
    let text = '';
    for (const piece of this.pieces) {
      if (piece.kind === 'text') text += piece.text;
      else if (piece.kind === 'call')
        calls.push({ toolName: piece.name, toolCallId: piece.id, input: piece.input });
    }
    return { role: 'assistant', text: calls.length > 0 && text.trim() === '' ? '' : text, calls };
  }

  build(identity: ResponseIdentity, request: ResponsesRequest, end: ReplyEnd): ResponseObject {
    const incomplete = end.finishReason === 'length';
    const hasCalls = this.pieces.some((piece) => piece.kind === 'call');
    const output: OutputItem[] = [];
    for (const piece of this.pieces) {
      if (piece.kind === 'reasoning') {
        if (piece.text.length > 0)
          output.push({
            type: 'reasoning',
            id: this.newId('rs'),
            summary: [],
            content: [{ type: 'reasoning_text', text: piece.text }],
          });
      } else if (piece.kind === 'text') {
        // With calls, text that is only the space around them is no message.
        if (piece.text.length === 0 || (hasCalls && piece.text.trim() === '')) continue;
        output.push({
          type: 'message',
          id: this.newId('msg'),
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: piece.text, annotations: [] }],
        });
      } else {
        const namespaced = request.namespacedTools.get(piece.name);
        output.push({
          type: 'function_call',
          id: this.newId('fc'),
          call_id: piece.id,
          name: namespaced?.name ?? piece.name,
          ...(namespaced === undefined ? {} : { namespace: namespaced.namespace }),
          arguments: piece.input,
          status: 'completed',
        });
      }
    }
    // The length limit cut the last message short.
    const last = output[output.length - 1];
    if (incomplete && last?.type === 'message')
      output[output.length - 1] = { ...last, status: 'incomplete' };
    const usage = responseUsageOf(end.usage);
    return {
      id: identity.id,
      object: 'response',
      created_at: identity.createdAt,
      completed_at: incomplete ? null : Math.floor(Date.now() / 1000),
      status: incomplete ? 'incomplete' : 'completed',
      error: null,
      incomplete_details: incomplete ? { reason: 'max_output_tokens' } : null,
      model: identity.model,
      output,
      ...(usage === undefined ? {} : { usage }),
      access_programs: null,
      ...echoOf(request),
    };
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
