import type { CallContext } from '../../engine/call-body.ts';

/**
 * Where a block's JSON sits in the call's raw text (CallContext.callText). The framing sets it;
 * the router and the settlement cut their raw text out of the engine's copy through it rather
 * than keeping the JSON twice.
 */
export class JsonBlockSpan {
  /** Where the JSON starts: the tokenizer's offsets count from here. */
  jsonStart = 0;
  /** In raw mode, where the block's text ends once known (before the closer); -1 until then. */
  rawEnd = -1;

  private readonly context: CallContext;

  constructor(context: CallContext) {
    this.context = context;
  }

  /**
   * The JSON's raw text between two tokenizer offsets, up to what was read so far when `end` is
   * left out (the engine has the current write too).
   */
  jsonText(start: number, end?: number): string {
    return this.context.callText(
      this.jsonStart + start,
      end === undefined ? this.context.callLength : this.jsonStart + end,
    );
  }

  /**
   * Everything since the JSON began (or from the tokenizer offset `from`), up to the closer when
   * it was found.
   */
  rawJsonText(from = 0): string {
    return this.context.callText(
      this.jsonStart + from,
      this.rawEnd === -1 ? this.context.callLength : this.rawEnd,
    );
  }
}
