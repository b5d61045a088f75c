import type { CallBody, CallContext } from '../../engine/call-body.ts';
import type { MessageMeaning } from './header-spec.ts';

/**
 * A message that is not a call, from just after its header: reasoning or the answer's text, up to
 * the first of its ends (dropped) or the next header's opener (read by the top level: `<|start|>`,
 * or `<|channel|>` where a model left `<|start|>assistant` out). Nothing in
 * it is a call: a call written in the answer or in reasoning is the model showing one (vLLM's
 * Muse Glimmer parser refuses an `<atem:invoke>` echoed in `to=self` or `to=user`). The header
 * is dropped.
 */
export class MessageBody implements CallBody {
  /** The end of the text read, held while it may begin an end or the next header. */
  private held = '';
  private reasoningId: string | undefined;
  leftover = '';

  private readonly context: CallContext;
  private readonly meaning: MessageMeaning;
  /** The next header's openers: they end the message, and are read again. */
  private readonly nextHeaders: readonly string[];
  /** The ends (consumed) and the next header's openers, searched for together. */
  private readonly literals: readonly string[];
  private readonly longest: number;

  constructor(
    context: CallContext,
    meaning: MessageMeaning,
    ends: readonly string[],
    nextHeaders: readonly string[],
  ) {
    this.context = context;
    this.meaning = meaning;
    this.nextHeaders = nextHeaders;
    this.literals = [...ends, ...nextHeaders];
    this.longest = Math.max(...this.literals.map((literal) => literal.length));
  }

  write(text: string, start: number, end: number): number {
    const heldLength = this.held.length;
    // What is held is at most one literal long: joining it copies no more than the text.
    const joined = heldLength === 0 ? text.slice(start, end) : this.held + text.slice(start, end);
    let found = -1;
    let literal = '';
    for (const candidate of this.literals) {
      const at = joined.indexOf(candidate);
      if (at !== -1 && (found === -1 || at < found)) {
        found = at;
        literal = candidate;
      }
    }
    if (found === -1) {
      const hold = this.heldTail(joined);
      this.say(joined.slice(0, joined.length - hold));
      this.held = joined.slice(joined.length - hold);
      return -1;
    }
    this.say(joined.slice(0, found));
    this.held = '';
    this.close();
    if (!this.nextHeaders.includes(literal)) return start + found + literal.length - heldLength;
    // The next header is read by the top level; if it began in the text held, that part first.
    if (found >= heldLength) return start + found - heldLength;
    this.leftover = joined.slice(found, heldLength);
    return start;
  }

  private say(delta: string): void {
    if (delta.length === 0) return;
    if (this.meaning === 'text') {
      this.context.emitText(delta);
      return;
    }
    if (this.reasoningId === undefined) {
      this.reasoningId = this.context.options.generateId();
      this.context.emit({ type: 'reasoning-start', id: this.reasoningId });
    }
    this.context.emit({ type: 'reasoning-delta', id: this.reasoningId, delta });
  }

  /** How many characters at the end of `text` may begin an end or the next header. */
  private heldTail(text: string): number {
    for (let size = Math.min(this.longest - 1, text.length); size > 0; size--) {
      const tail = text.slice(text.length - size);
      if (this.literals.some((literal) => literal.startsWith(tail))) return size;
    }
    return 0;
  }

  private close(): void {
    if (this.reasoningId !== undefined) {
      this.context.emit({ type: 'reasoning-end', id: this.reasoningId });
      this.reasoningId = undefined;
    }
    this.context.settle({ kind: 'markup' });
  }

  finish(): void {
    this.say(this.held);
    this.held = '';
    this.close();
  }

  abandon(): void {
    if (this.reasoningId !== undefined) {
      this.context.emit({ type: 'reasoning-end', id: this.reasoningId });
      this.reasoningId = undefined;
    }
  }
}
