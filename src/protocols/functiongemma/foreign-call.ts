import { isWhiteSpace } from '../../scan/characters.ts';
import { LiteralFinder } from '../../scan/literal-finder.ts';
import type { CallBody, CallContext } from '../engine/call-body.ts';

/** Another model's call block written with FunctionGemma's `call:NAME{…}` inside it. */
export interface ForeignCallMarkup {
  /** Whose markup it is, for the fault's message. */
  readonly family: string;
  readonly closer: string;
  /** How its strings are delimited, for the fault's message. */
  readonly stringDelimiter: string;
}

/**
 * Gemma 4's `<|tool_call>call:NAME{key:<|"|>text<|"|>}<tool_call|>`: FunctionGemma's call inside
 * another model's tokens, with strings its grammar does not define. Reading it as FunctionGemma
 * would guess; so when `call:` follows the token, the block up to its closer (or the end of the
 * output) is reported as a fault with its raw text, and nothing runs. (A reader of Gemma 4's own
 * format takes this over when there is one.) Without `call:` after it, the token is text.
 */
export class ForeignCallBody implements CallBody {
  private readonly context: CallContext;
  private readonly markup: ForeignCallMarkup;
  private readonly finder: LiteralFinder;
  private prefixMatched = 0;

  constructor(context: CallContext, markup: ForeignCallMarkup) {
    this.context = context;
    this.markup = markup;
    this.finder = new LiteralFinder(markup.closer);
  }

  write(text: string, start: number, end: number): number {
    let index = start;
    while (this.prefixMatched < CALL_PREFIX.length) {
      if (index === end) return -1;
      const code = text.charCodeAt(index);
      if (this.prefixMatched === 0 && isWhiteSpace(code)) {
        index++;
      } else if (code === CALL_PREFIX.charCodeAt(this.prefixMatched)) {
        this.prefixMatched++;
        index++;
      } else {
        this.context.settle({ kind: 'not-a-call' });
        return index;
      }
    }
    const found = this.finder.find(text, index, end);
    if (found === -1) return -1;
    this.fail('malformed-call', 'was not run');
    return found;
  }

  private fail(code: 'malformed-call' | 'incomplete-call', outcome: string): void {
    const { family, stringDelimiter } = this.markup;
    this.context.settle({
      kind: 'fault',
      code,
      message: `a ${family} call (strings between ${stringDelimiter}) is not FunctionGemma's format, which this reader does not guess at; it ${outcome}`,
    });
  }

  finish(): void {
    if (this.prefixMatched < CALL_PREFIX.length) this.context.settle({ kind: 'not-a-call' });
    else this.fail('incomplete-call', 'ended before its closing token and was not run');
  }

  abandon(): void {}
}

const CALL_PREFIX = 'call:';
