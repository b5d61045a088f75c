import type { HttpError } from '../http/http-error.ts';
import { coalesce } from './coalesce.ts';
import { errorBody } from './errors.ts';
import type { ReplyEvent } from './reply-events.ts';
import type { ReplyEnd } from './reply-run.ts';
import type { UpstreamUsage } from './upstream.ts';

/** A chat completion's identity, shared by all its chunks. */
export interface CompletionIdentity {
  readonly id: string;
  readonly model: string;
  /** Unix seconds. */
  readonly created: number;
}

function usageOf(usage: UpstreamUsage | undefined): object | undefined {
  if (!usage) return undefined;
  const prompt = usage.prompt_tokens ?? 0;
  const completion = usage.completion_tokens ?? 0;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: usage.total_tokens ?? prompt + completion,
  };
}

/**
 * Writes reply events as chat completions stream chunks (Server-Sent Events): text as `content`,
 * reasoning as `reasoning_content`, each call as `tool_calls` deltas (the first with its index,
 * id, type and name; then pieces of `arguments` that concatenate to its JSON).
 */
export class ChatCompletionChunks {
  /** Everything of a chunk before its delta, and after it. */
  private readonly head: string;
  private readonly tail = ',"logprobs":null,"finish_reason":null}]}\n\n';
  private readonly identity: CompletionIdentity;
  private readonly indexes = new Map<string, number>();
  private roleSent = false;

  constructor(identity: CompletionIdentity) {
    this.identity = identity;
    this.head = `data: {"id":${JSON.stringify(identity.id)},"object":"chat.completion.chunk","created":${identity.created},"model":${JSON.stringify(identity.model)},"choices":[{"index":0,"delta":`;
  }

  private chunk(delta: Record<string, unknown>): string {
    if (!this.roleSent) {
      this.roleSent = true;
      return this.head + JSON.stringify({ role: 'assistant', ...delta }) + this.tail;
    }
    return this.head + JSON.stringify(delta) + this.tail;
  }

  /** A chunk of text or reasoning: the hot path of a stream, written without a delta object. */
  private textChunk(key: 'content' | 'reasoning_content', text: string): string {
    if (!this.roleSent) return this.chunk({ [key]: text });
    return `${this.head}{"${key}":${JSON.stringify(text)}}${this.tail}`;
  }

  encode(events: readonly ReplyEvent[]): string {
    let out = '';
    for (const event of coalesce(events)) {
      switch (event.type) {
        case 'text':
          out += this.textChunk('content', event.delta);
          break;
        case 'reasoning':
          out += this.textChunk('reasoning_content', event.delta);
          break;
        case 'call-start': {
          const index = this.indexes.size;
          this.indexes.set(event.id, index);
          out += this.chunk({
            tool_calls: [
              {
                index,
                id: event.id,
                type: 'function',
                function: { name: event.name, arguments: '' },
              },
            ],
          });
          break;
        }
        case 'call-delta':
          if (event.delta.length > 0)
            out += this.chunk({
              tool_calls: [
                { index: this.indexes.get(event.id), function: { arguments: event.delta } },
              ],
            });
          break;
        default:
          // A call's end needs no chunk; an abandoned call's raw text follows as content.
          break;
      }
    }
    return out;
  }

  /** The last chunks: the finish reason, the usage when asked for, and `[DONE]`. */
  finish(end: ReplyEnd, includeUsage: boolean): string {
    const { id, created, model } = this.identity;
    const delta = this.roleSent ? {} : { role: 'assistant', content: '' };
    this.roleSent = true;
    let out = `data: ${JSON.stringify({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: end.finishReason }],
    })}\n\n`;
    const usage = usageOf(end.usage);
    if (includeUsage && usage)
      out += `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage })}\n\n`;
    return `${out}data: [DONE]\n\n`;
  }

  /** An error after the stream began: OpenAI's error object as an event, then the end. */
  error(error: HttpError): string {
    return `data: ${JSON.stringify(errorBody('openai', error.status, error.message, error.param))}\n\ndata: [DONE]\n\n`;
  }
}

export interface ChatCompletionToolCall {
  readonly id: string;
  readonly type: 'function';
  readonly function: { readonly name: string; readonly arguments: string };
}

export interface ChatCompletionMessage {
  readonly role: 'assistant';
  readonly content: string | null;
  readonly reasoning_content?: string;
  readonly tool_calls?: readonly ChatCompletionToolCall[];
}

/** A whole chat completion, as the proxy answers a request that does not stream. */
export interface ChatCompletion {
  readonly id: string;
  readonly object: 'chat.completion';
  readonly created: number;
  readonly model: string;
  readonly choices: readonly [
    {
      readonly index: 0;
      readonly message: ChatCompletionMessage;
      readonly logprobs: null;
      readonly finish_reason: string;
    },
  ];
  readonly usage?: object;
}

/** Collects a whole reply into a chat completion object. */
export class ChatCompletionBuilder {
  private content = '';
  private reasoning = '';
  private readonly calls: ChatCompletionToolCall[] = [];

  add(events: readonly ReplyEvent[]): void {
    for (const event of events) {
      if (event.type === 'text') this.content += event.delta;
      else if (event.type === 'reasoning') this.reasoning += event.delta;
      else if (event.type === 'call-end')
        this.calls.push({
          id: event.id,
          type: 'function',
          function: { name: event.name, arguments: event.input },
        });
    }
  }

  build(identity: CompletionIdentity, end: ReplyEnd): ChatCompletion {
    // With calls, text that is only the space around them is no content.
    const content = this.calls.length > 0 && this.content.trim() === '' ? null : this.content;
    const usage = usageOf(end.usage);
    return {
      id: identity.id,
      object: 'chat.completion',
      created: identity.created,
      model: identity.model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content,
            ...(this.reasoning.length > 0 ? { reasoning_content: this.reasoning } : {}),
            ...(this.calls.length > 0 ? { tool_calls: this.calls } : {}),
          },
          logprobs: null,
          finish_reason: end.finishReason,
        },
      ],
      ...(usage ? { usage } : {}),
    };
  }
}
