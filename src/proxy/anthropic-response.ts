import { parseJsonText } from '../core/parse-json.ts';
import type { HttpError } from '../http/http-error.ts';
import { coalesce } from './coalesce.ts';
import { errorBody } from './errors.ts';
import type { ReplyEvent } from './reply-events.ts';
import type { ReplyEnd } from './reply-run.ts';

/** A message's identity, shared by all its events. */
export interface MessageIdentity {
  readonly id: string;
  readonly model: string;
}

/** Anthropic's stop reason for how the reply ended. */
export function stopReason(end: ReplyEnd): string {
  if (end.finishReason === 'tool_calls') return 'tool_use';
  if (end.finishReason === 'length') return 'max_tokens';
  return 'end_turn';
}

function usageOf(end: ReplyEnd): { input_tokens: number; output_tokens: number } {
  return {
    input_tokens: end.usage?.prompt_tokens ?? 0,
    output_tokens: end.usage?.completion_tokens ?? 0,
  };
}

function sse(type: string, data: object): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

type BlockKind = 'text' | 'thinking' | 'tool_use';

/**
 * Writes reply events as Anthropic Messages stream events: a content block per run of text,
 * reasoning (`thinking`) or per call (`tool_use`, its input as `input_json_delta` pieces), each
 * opened with `content_block_start` and closed with `content_block_stop`.
 */
export class MessageEvents {
  private readonly identity: MessageIdentity;
  /** The open block, if any, and the index the next block gets. */
  private open: BlockKind | undefined;
  private next = 0;
  /**
   * White space outside a text block, held until text follows: between two calls or after the
   * last it would be a block of its own saying nothing (Anthropic's API sends none).
   */
  private space = '';

  constructor(identity: MessageIdentity) {
    this.identity = identity;
  }

  start(): string {
    return sse('message_start', {
      message: {
        id: this.identity.id,
        type: 'message',
        role: 'assistant',
        model: this.identity.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 0, output_tokens: 0 },
      },
    });
  }

  private close(): string {
    if (this.open === undefined) return '';
    this.open = undefined;
    return sse('content_block_stop', { index: this.next++ });
  }

  private openBlock(kind: BlockKind, block: object): string {
    const closed = this.close();
    this.open = kind;
    return closed + sse('content_block_start', { index: this.next, content_block: block });
  }

  private delta(delta: object): string {
    return sse('content_block_delta', { index: this.next, delta });
  }

  encode(events: readonly ReplyEvent[]): string {
    let out = '';
    for (const event of coalesce(events)) {
      switch (event.type) {
        case 'text': {
          if (this.open !== 'text' && event.delta.trim() === '') {
            this.space += event.delta;
            break;
          }
          if (this.open !== 'text') out += this.openBlock('text', { type: 'text', text: '' });
          out += this.delta({ type: 'text_delta', text: this.space + event.delta });
          this.space = '';
          break;
        }
        case 'reasoning':
          if (this.open !== 'thinking')
            out += this.openBlock('thinking', { type: 'thinking', thinking: '', signature: '' });
          out += this.delta({ type: 'thinking_delta', thinking: event.delta });
          break;
        case 'call-start':
          this.space = '';
          out += this.openBlock('tool_use', {
            type: 'tool_use',
            id: event.id,
            name: event.name,
            input: {},
          });
          break;
        case 'call-delta':
          if (event.delta.length > 0)
            out += this.delta({ type: 'input_json_delta', partial_json: event.delta });
          break;
        case 'call-end':
        case 'call-abandoned':
          out += this.close();
          break;
      }
    }
    return out;
  }

  finish(end: ReplyEnd): string {
    return (
      this.close() +
      sse('message_delta', {
        delta: { stop_reason: stopReason(end), stop_sequence: null },
        usage: usageOf(end),
      }) +
      sse('message_stop', {})
    );
  }

  /** An error after the stream began: Anthropic's `error` event. */
  error(error: HttpError): string {
    return `event: error\ndata: ${JSON.stringify(errorBody('anthropic', error.status, error.message))}\n\n`;
  }
}

/** A whole Messages reply, as the proxy answers a request that does not stream. */
export interface MessageReply {
  readonly id: string;
  readonly type: 'message';
  readonly role: 'assistant';
  readonly model: string;
  readonly content: readonly ContentBlock[];
  readonly stop_reason: string;
  readonly stop_sequence: null;
  readonly usage: { readonly input_tokens: number; readonly output_tokens: number };
}

export type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown };

/** Collects a whole reply into a Messages response. */
export class MessageBuilder {
  private readonly content: ContentBlock[] = [];

  add(events: readonly ReplyEvent[]): void {
    for (const event of events) {
      const last = this.content[this.content.length - 1];
      if (event.type === 'text') {
        if (last?.type === 'text') last.text += event.delta;
        else this.content.push({ type: 'text', text: event.delta });
      } else if (event.type === 'reasoning') {
        if (last?.type === 'thinking') last.thinking += event.delta;
        else this.content.push({ type: 'thinking', thinking: event.delta, signature: '' });
      } else if (event.type === 'call-end') {
        this.content.push({
          type: 'tool_use',
          id: event.id,
          name: event.name,
          input: parseJsonText(event.input),
        });
      }
    }
  }

  build(identity: MessageIdentity, end: ReplyEnd): MessageReply {
    // Text that is only the space between blocks says nothing.
    const content = this.content.filter(
      (block) => block.type !== 'text' || block.text.trim().length > 0,
    );
    return {
      id: identity.id,
      type: 'message',
      role: 'assistant',
      model: identity.model,
      content,
      stop_reason: stopReason(end),
      stop_sequence: null,
      usage: usageOf(end),
    };
  }
}
