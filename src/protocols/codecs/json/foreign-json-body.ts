import { LEFT_BRACE, LEFT_BRACKET } from '../../../scan/char-codes.ts';
import { JsonExtent } from '../../../scan/json-extent.ts';
import type { CallBody, CallContext } from '../../engine/call-body.ts';

/**
 * The JSON arguments of a call to a tool the request did not declare, from their opening bracket:
 * text, through their end. Nothing in them is read again, so a value that holds another format's
 * call (`[f(x=1)]`, `<tool_call>…`) stays data whichever format (or `auto`) reads the text.
 */
export class ForeignJsonBody implements CallBody {
  private readonly extent = new JsonExtent();
  private readonly context: CallContext;

  constructor(context: CallContext) {
    this.context = context;
  }

  write(text: string, start: number, end: number): number {
    const stop = this.extent.write(text, start, end);
    if (stop === -1) return -1;
    this.context.settle({ kind: 'not-a-call' });
    return stop;
  }

  finish(): void {
    this.context.settle({ kind: 'not-a-call' });
  }

  abandon(): void {}
}

/** Whether a call's arguments begin at this character code (`{` or `[`). */
export function opensJson(code: number): boolean {
  return code === LEFT_BRACE || code === LEFT_BRACKET;
}
