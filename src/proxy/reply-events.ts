import type { ParseEvent, ParseOptions, StreamParser, ToolCallProtocol } from '../core/index.ts';

/**
 * What the proxy sends a client, whichever API it speaks: text and reasoning as they come, a call
 * as it is read (its start, pieces of its arguments' JSON, its end), and how the reply ended.
 */
export type ReplyEvent =
  | { readonly type: 'text'; readonly delta: string }
  | { readonly type: 'reasoning'; readonly delta: string }
  | { readonly type: 'call-start'; readonly id: string; readonly name: string }
  /** More of the call's arguments: all of a call's deltas concatenate to its final JSON. */
  | { readonly type: 'call-delta'; readonly id: string; readonly delta: string }
  | {
      readonly type: 'call-end';
      readonly id: string;
      readonly name: string;
      readonly input: string;
    }
  /**
   * A call whose start went out but which could not be read to its end: its raw text follows
   * as text (nothing is lost), and the call must not run.
   */
  | { readonly type: 'call-abandoned'; readonly id: string };

/**
 * Turns one reply's text into reply events with the protocol's stream parser. Malformed markup
 * comes back as text (the parser's raw text), so the client sees exactly what the model wrote.
 */
export class ReplyReader {
  private readonly parser: StreamParser;
  /**
   * How much of each open call's arguments went out. The pieces are a prefix of the call's final
   * JSON (the parsers' growing-prefix invariant), so the rest is what follows that length.
   */
  private readonly streamed = new Map<string, number>();
  /** Calls completed so far. */
  calls = 0;
  /** The text (outside calls) so far, when kept: what a retry shows the model it wrote. */
  text = '';
  private readonly keepText: boolean;
  /** Most of the text kept; past it, the rest is not (a reply may be endless). */
  private readonly maxTextChars: number;

  private readonly protocol: ToolCallProtocol;
  /** Calls the client takes in this reply; later ones go out as the text the model wrote. */
  private readonly maxCalls: number;
  /** Calls passed on as calls so far (started or complete). */
  private admitted = 0;
  /** Calls beyond `maxCalls` being read: they become text when complete. */
  private readonly overflow = new Set<string>();

  constructor(
    protocol: ToolCallProtocol,
    options: ParseOptions,
    reading: {
      readonly maxCalls?: number;
      readonly keepText?: boolean;
      readonly maxTextChars?: number;
    } = {},
  ) {
    this.protocol = protocol;
    this.maxCalls = reading.maxCalls ?? Number.POSITIVE_INFINITY;
    this.keepText = reading.keepText ?? false;
    this.maxTextChars = reading.maxTextChars ?? Number.POSITIVE_INFINITY;
    this.parser = protocol.createStreamParser({ ...options, emitRawTextOnError: true });
  }

  push(chunk: string, out: ReplyEvent[]): void {
    this.translate(this.parser.push(chunk), out);
  }

  /** The reply is over; `interrupted`: it stopped at a limit or an error, so an open call is cut off. */
  end(interrupted: boolean, out: ReplyEvent[]): void {
    this.translate(this.parser.end({ interrupted }), out);
    // A protocol written without toolwire's engine may end without naming a started call.
    for (const id of this.streamed.keys()) out.push({ type: 'call-abandoned', id });
    this.streamed.clear();
  }

  private keep(text: string): void {
    if (this.keepText && this.text.length < this.maxTextChars)
      this.text += text.slice(0, this.maxTextChars - this.text.length);
  }

  private translate(events: readonly ParseEvent[], out: ReplyEvent[]): void {
    for (const event of events) {
      switch (event.type) {
        case 'text-delta':
          this.keep(event.delta);
          out.push({ type: 'text', delta: event.delta });
          break;
        case 'reasoning-delta':
          out.push({ type: 'reasoning', delta: event.delta });
          break;
        case 'tool-input-start':
          if (this.admitted >= this.maxCalls) {
            this.overflow.add(event.id);
            break;
          }
          this.admitted++;
          this.streamed.set(event.id, 0);
          out.push({ type: 'call-start', id: event.id, name: event.toolName });
          break;
        case 'tool-input-delta':
          if (this.overflow.has(event.id)) break;
          this.streamed.set(event.id, (this.streamed.get(event.id) ?? 0) + event.delta.length);
          out.push({ type: 'call-delta', id: event.id, delta: event.delta });
          break;
        case 'tool-call':
          this.complete(event.toolCallId, event.toolName, event.input, out);
          break;
        case 'error': {
          // A fault that ends a call whose start went out names it; its raw text follows as text.
          const id = event.error.toolCallId;
          if (id !== undefined && this.streamed.delete(id))
            out.push({ type: 'call-abandoned', id });
          break;
        }
        default:
          // Block starts and ends: each API frames its blocks itself.
          break;
      }
    }
  }

  private complete(id: string, name: string, input: string, out: ReplyEvent[]): void {
    const sent = this.streamed.get(id);
    if (sent === undefined && (this.overflow.delete(id) || this.admitted >= this.maxCalls)) {
      // One call too many for a client that asked for one at a time: shown as written.
      const text = this.protocol.formatToolCall({ toolName: name, input, toolCallId: id });
      this.keep(text);
      out.push({ type: 'text', delta: text });
      return;
    }
    if (sent === undefined) this.admitted++;
    this.streamed.delete(id);
    this.calls++;
    if (sent === undefined) {
      out.push({ type: 'call-start', id, name });
      out.push({ type: 'call-delta', id, delta: input });
    } else if (input.length > sent) {
      out.push({ type: 'call-delta', id, delta: input.slice(sent) });
    }
    out.push({ type: 'call-end', id, name, input });
  }
}
