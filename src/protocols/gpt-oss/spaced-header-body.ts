import { LOWER_A, LOWER_Z, SPACE, TAB, UPPER_A, UPPER_Z } from '../../scan/char-codes.ts';
import { LiteralFinder } from '../../scan/literal-finder.ts';
import type { CallBody, CallContext } from '../engine/call-body.ts';

/*
 * Some models trained on harmony put a space between a special token and the word after it
 * (LLM-jp 4.1: `<|channel|> commentary to=functions.NAME <|constrain|> json<|message|> {…}`,
 * `<|start|> assistant`): their tokenizer writes the word with its leading space. The header is
 * the same otherwise, so it is read the same: horizontal white space after `<|start|>` and
 * `<|channel|>` is skipped here; inside the header (`to=`, `<|constrain|> json`) and after
 * `<|message|>` the readers already skip it. Nothing else is accepted that was not before: the
 * word must be one the unspaced openers take, in the place they take it.
 */

export function isHorizontalSpace(code: number): boolean {
  return code === SPACE || code === TAB;
}

function isLetter(code: number): boolean {
  return (code >= LOWER_A && code <= LOWER_Z) || (code >= UPPER_A && code <= UPPER_Z);
}

/** What the body does once the word after the token is read. */
export interface SpacedHeaderRoutes {
  /** The words accepted after the token (`commentary`, `assistant`). */
  readonly words: ReadonlySet<string>;
  /**
   * The body that reads on from the first character after the word (and its white space, when
   * `spaced` says there was some): a header call, a role header, a message. Undefined when that
   * character does not begin what the word may be followed by: the token is then text.
   */
  next(
    context: CallContext,
    openerLength: number,
    word: string,
    spaced: boolean,
    code: number,
  ): CallBody | undefined;
}

/** The longest word any route takes (`commentary`): a longer run of letters is no header. */
const LONGEST_WORD = 16;

/**
 * After a special token and horizontal white space: skips further white space, reads the word,
 * skips white space after it, and hands what follows to the route's body. Anything else: the
 * token is text, and what was read after it is read again.
 */
export class SpacedHeaderBody implements CallBody {
  private delegate: CallBody | undefined;
  private word = '';
  private phase: 'before-word' | 'word' | 'after-word' = 'before-word';
  private spacedAfterWord = false;
  private ownLeftover = '';

  private readonly context: CallContext;
  private readonly openerLength: number;
  private readonly routes: SpacedHeaderRoutes;

  constructor(context: CallContext, openerLength: number, routes: SpacedHeaderRoutes) {
    this.context = context;
    this.openerLength = openerLength;
    this.routes = routes;
  }

  get leftover(): string {
    return this.delegate ? (this.delegate.leftover ?? '') : this.ownLeftover;
  }

  write(text: string, start: number, end: number): number {
    if (this.delegate) return this.delegate.write(text, start, end);
    let index = start;
    while (index < end) {
      const code = text.charCodeAt(index);
      if (this.phase === 'before-word') {
        if (isHorizontalSpace(code)) index++;
        else this.phase = 'word';
      } else if (this.phase === 'word') {
        if (isLetter(code) && this.word.length < LONGEST_WORD) {
          this.word += text.charAt(index);
          index++;
        } else if (this.routes.words.has(this.word)) this.phase = 'after-word';
        else return this.notAHeader(index, end);
      } else if (isHorizontalSpace(code)) {
        this.spacedAfterWord = true;
        index++;
      } else {
        const next = this.routes.next(
          this.context,
          this.openerLength,
          this.word,
          this.spacedAfterWord,
          code,
        );
        if (next === undefined) return this.notAHeader(index, end);
        this.delegate = next;
        return next.write(text, index, end);
      }
    }
    return -1;
  }

  /** The token is text; what was read after it is read again by the top level. */
  private notAHeader(index: number, end: number): number {
    const at = this.context.callLength - (end - index);
    this.ownLeftover = this.context.callText(this.openerLength, at);
    this.context.settle({ kind: 'not-a-call' });
    return index;
  }

  finish(interrupted: boolean): void {
    if (this.delegate) this.delegate.finish(interrupted);
    else this.context.settle({ kind: 'not-a-call' });
  }

  abandon(): void {
    this.delegate?.abandon();
  }
}

const MESSAGE = '<|message|>';

/**
 * A channel header with no recipient, `<|message|>` next (spaced: `<|channel|> final <|message|>`):
 * the header is dropped, with the white space after `<|message|>`, and the message is read by
 * what comes after (`final`, `commentary`: the answer's text), or, for `analysis`, as reasoning
 * up to `<|end|>`. Anything but `<|message|>` there: the token is text, as in SpacedHeaderBody.
 */
export class ChannelMessageBody implements CallBody {
  private matched = 0;
  private reasoning: AnalysisBody | undefined;
  leftover = '';

  private readonly context: CallContext;
  private readonly openerLength: number;
  private readonly channel: string;

  constructor(context: CallContext, openerLength: number, channel: string) {
    this.context = context;
    this.openerLength = openerLength;
    this.channel = channel;
  }

  write(text: string, start: number, end: number): number {
    if (this.reasoning) return this.reasoning.write(text, start, end);
    let index = start;
    while (index < end && this.matched < MESSAGE.length) {
      if (text.charCodeAt(index) !== MESSAGE.charCodeAt(this.matched)) {
        // `<|constrain|>` or anything else with no recipient before it: not a header of ours.
        const at = this.context.callLength - (end - index);
        this.leftover = this.context.callText(this.openerLength, at);
        this.context.settle({ kind: 'not-a-call' });
        return index;
      }
      this.matched++;
      index++;
    }
    while (index < end && isHorizontalSpace(text.charCodeAt(index))) index++;
    if (index === end) return -1;
    if (this.channel !== 'analysis') {
      this.context.settle({ kind: 'markup' });
      return index;
    }
    this.reasoning = new AnalysisBody(this.context);
    return this.reasoning.write(text, index, end);
  }

  finish(): void {
    if (this.reasoning) this.reasoning.finish();
    else if (this.matched === MESSAGE.length) this.context.settle({ kind: 'markup' });
    else this.context.settle({ kind: 'not-a-call' });
  }

  abandon(): void {
    this.reasoning?.abandon();
  }
}

const END = '<|end|>';

/** The analysis channel's message: reasoning up to `<|end|>` (dropped), or the output's end. */
class AnalysisBody implements CallBody {
  private readonly finder = new LiteralFinder(END);
  private readonly id: string;
  /** Call offset up to which the reasoning went out. */
  private streamedTo: number;

  private readonly context: CallContext;

  constructor(context: CallContext) {
    this.context = context;
    this.id = context.options.generateId();
    this.streamedTo = -1;
    context.emit({ type: 'reasoning-start', id: this.id });
  }

  write(text: string, start: number, end: number): number {
    const offsetOf = (index: number) => this.context.callLength - (end - index);
    if (this.streamedTo === -1) this.streamedTo = offsetOf(start);
    const found = this.finder.find(text, start, end);
    if (found === -1) {
      // Characters that may begin `<|end|>` wait for the next write.
      this.reasonTo(offsetOf(end) - this.finder.partial);
      return -1;
    }
    this.reasonTo(offsetOf(found) - END.length);
    this.close();
    return found;
  }

  private reasonTo(offset: number): void {
    if (offset <= this.streamedTo) return;
    const delta = this.context.callText(this.streamedTo, offset);
    this.streamedTo = offset;
    this.context.emit({ type: 'reasoning-delta', id: this.id, delta });
  }

  private close(): void {
    this.context.emit({ type: 'reasoning-end', id: this.id });
    this.context.settle({ kind: 'markup' });
  }

  finish(): void {
    if (this.streamedTo !== -1) this.reasonTo(this.context.callLength);
    this.close();
  }

  abandon(): void {
    this.context.emit({ type: 'reasoning-end', id: this.id });
  }
}
