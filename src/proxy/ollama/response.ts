import { parseJsonText } from '../../core/parse-json.ts';
import type { HttpError } from '../../http/http-error.ts';
import { coalesce } from '../coalesce.ts';
import type { ReplyEvent } from '../reply-events.ts';
import type { ReplyEnd } from '../reply-run.ts';

/** What an Ollama reply names and times itself by. */
export interface OllamaReplyIdentity {
  /** The model as the client named it. */
  readonly model: string;
  /** When the request arrived, on `now`'s clock (milliseconds): `total_duration` counts from it. */
  readonly startedAt: number;
  /** A monotonic clock in milliseconds. Default: `performance.now`. */
  readonly now?: () => number;
  /** The wall clock, for `created_at`. Default: `Date.now`. */
  readonly date?: () => number;
}

/** A call as Ollama writes it: whole, its arguments an object, with an id and its place in the reply. */
export interface OllamaToolCall {
  readonly id: string;
  readonly function: {
    readonly index: number;
    readonly name: string;
    readonly arguments: unknown;
  };
}

export interface OllamaMessage {
  readonly role: 'assistant';
  readonly content: string;
  readonly thinking?: string;
  readonly tool_calls?: readonly OllamaToolCall[];
}

/** Ollama's timings (nanoseconds) and token counts, on a reply's last object. */
export interface OllamaMetrics {
  readonly total_duration: number;
  readonly load_duration: number;
  readonly prompt_eval_count?: number;
  readonly prompt_eval_duration?: number;
  readonly eval_count?: number;
  readonly eval_duration?: number;
}

/** A whole `/api/chat` reply, or the last line of a streamed one (with an empty message). */
export type OllamaChatResponse = {
  readonly model: string;
  readonly created_at: string;
  readonly message: OllamaMessage;
  readonly done: true;
  readonly done_reason: string;
} & OllamaMetrics;

/**
 * How the reply ended, in Ollama's words: `stop` (a reply that made calls included: Ollama
 * says `stop` then too) or `length`; another server's own word is passed on.
 */
export function ollamaDoneReason(finishReason: string): string {
  if (finishReason === 'length') return 'length';
  if (finishReason === 'stop' || finishReason === 'tool_calls') return 'stop';
  return finishReason;
}

/** Milliseconds as Ollama's nanoseconds. */
const nanoseconds = (ms: number): number => Math.max(0, Math.round(ms * 1e6));

/** Times a reply: from the request to the first output (the prompt) and on to the end (the reply). */
class ReplyClock {
  private readonly identity: OllamaReplyIdentity;
  private readonly now: () => number;
  private readonly date: () => number;
  private firstOutputAt: number | undefined;

  constructor(identity: OllamaReplyIdentity) {
    this.identity = identity;
    this.now = identity.now ?? (() => performance.now());
    this.date = identity.date ?? Date.now;
  }

  /** Output went out (or was read): the prompt's evaluation is over. */
  output(): void {
    this.firstOutputAt ??= this.now();
  }

  createdAt(): string {
    return new Date(this.date()).toISOString();
  }

  metrics(end: ReplyEnd): OllamaMetrics {
    const now = this.now();
    const first = this.firstOutputAt ?? now;
    const usage = end.usage;
    return {
      total_duration: nanoseconds(now - this.identity.startedAt),
      // The model server loads its models itself: nothing the proxy could time.
      load_duration: 0,
      ...(usage?.prompt_tokens === undefined ? {} : { prompt_eval_count: usage.prompt_tokens }),
      prompt_eval_duration: nanoseconds(first - this.identity.startedAt),
      ...(usage?.completion_tokens === undefined ? {} : { eval_count: usage.completion_tokens }),
      eval_duration: nanoseconds(now - first),
    };
  }
}

/** A call read in full, as Ollama sends it: its arguments' JSON read back into an object. */
function toolCall(event: Extract<ReplyEvent, { type: 'call-end' }>, index: number): OllamaToolCall {
  // The JSON text is the parser's, already measured against the limits (reply-run).
  return {
    id: event.id,
    function: { index, name: event.name, arguments: parseJsonText(event.input) },
  };
}

/**
 * Writes reply events as Ollama's NDJSON stream: one object a line, each with a piece of the
 * message (`content`, or `thinking`), and a call whole once it is read (Ollama sends no partial
 * calls); the last line says `done: true`, why, and the timings and token counts.
 */
export class OllamaChatLines {
  private readonly model: string;
  private readonly head: string;
  private readonly clock: ReplyClock;
  private calls = 0;

  constructor(identity: OllamaReplyIdentity) {
    this.model = identity.model;
    this.head = `{"model":${JSON.stringify(identity.model)},"created_at":`;
    this.clock = new ReplyClock(identity);
  }

  private line(createdAt: string, message: Omit<OllamaMessage, 'role'>): string {
    return `${this.head}"${createdAt}","message":${JSON.stringify({ role: 'assistant', ...message })},"done":false}\n`;
  }

  encode(events: readonly ReplyEvent[]): string {
    let out = '';
    let createdAt: string | undefined;
    for (const event of coalesce(events)) {
      let message: Omit<OllamaMessage, 'role'>;
      if (event.type === 'text' && event.delta.length > 0) message = { content: event.delta };
      else if (event.type === 'reasoning' && event.delta.length > 0)
        message = { content: '', thinking: event.delta };
      else if (event.type === 'call-end')
        message = { content: '', tool_calls: [toolCall(event, this.calls++)] };
      // A call's start and pieces wait for its end; an abandoned call's text follows as text.
      else continue;
      this.clock.output();
      createdAt ??= this.clock.createdAt();
      out += this.line(createdAt, message);
    }
    return out;
  }

  /** The last line: an empty message, `done: true`, the reason, timings and counts. */
  finish(end: ReplyEnd): string {
    const last: OllamaChatResponse = {
      model: this.model,
      created_at: this.clock.createdAt(),
      message: { role: 'assistant', content: '' },
      done: true,
      done_reason: ollamaDoneReason(end.finishReason),
      ...this.clock.metrics(end),
    };
    return `${JSON.stringify(last)}\n`;
  }

  /** An error after the stream began: Ollama's `{"error": …}` as the last line. */
  error(error: HttpError): string {
    return `${JSON.stringify({ error: error.message })}\n`;
  }
}

/** Collects a whole reply into Ollama's one reply object. */
export class OllamaChatBuilder {
  private content = '';
  private thinking = '';
  private readonly calls: OllamaToolCall[] = [];
  private readonly clock: ReplyClock;
  private readonly identity: OllamaReplyIdentity;

  constructor(identity: OllamaReplyIdentity) {
    this.identity = identity;
    this.clock = new ReplyClock(identity);
  }

  add(events: readonly ReplyEvent[]): void {
    for (const event of events) {
      if (event.type === 'text') this.content += event.delta;
      else if (event.type === 'reasoning') this.thinking += event.delta;
      else if (event.type === 'call-end') this.calls.push(toolCall(event, this.calls.length));
      else continue;
      this.clock.output();
    }
  }

  build(end: ReplyEnd): OllamaChatResponse {
    // With calls, text that is only the space around them is no content.
    const content = this.calls.length > 0 && this.content.trim() === '' ? '' : this.content;
    return {
      model: this.identity.model,
      created_at: this.clock.createdAt(),
      message: {
        role: 'assistant',
        content,
        ...(this.thinking.length > 0 ? { thinking: this.thinking } : {}),
        ...(this.calls.length > 0 ? { tool_calls: this.calls } : {}),
      },
      done: true,
      done_reason: ollamaDoneReason(end.finishReason),
      ...this.clock.metrics(end),
    };
  }
}

/**
 * The answer to a request with no messages, Ollama's way to load (or, with `keep_alive: 0`,
 * unload) a model: done at once, since the model server loads its models itself.
 */
export function ollamaLoadReply(
  model: string,
  doneReason: 'load' | 'unload',
  date: () => number = Date.now,
): object {
  return {
    model,
    created_at: new Date(date()).toISOString(),
    message: { role: 'assistant', content: '' },
    done: true,
    done_reason: doneReason,
  };
}
