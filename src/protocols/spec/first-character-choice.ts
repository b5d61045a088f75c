/**
 * Call forms that share one opener and are told apart by the first character after it (white
 * space skipped): Mistral's `[TOOL_CALLS]` before a JSON list (`[`, `{`) or a call's name, the
 * `<tool_calls>` of a tag block (`<`) or of a JSON list (`[`). Each form declares the characters
 * its calls start with (`starts`); one that declares none takes any character.
 */
import { isWhiteSpace } from '../../scan/characters.ts';
import type { CallBody, CallContext } from '../engine/call-body.ts';
import { ForwardingContext } from '../engine/forwarding-context.ts';

/** One form of a shared opener: what its calls start with, and its body. */
export interface FirstCharacterChoice<Data> {
  /** Undefined: any character (the forms are tried in order). */
  readonly starts: string | undefined;
  readonly data: Data;
  /**
   * The opener is framing here (a section's opener before a call's own), dropped with the white
   * space after it: also what it is when the output ends right after it.
   */
  readonly framing?: boolean;
}

/** The chosen form's first write may hold white space from earlier writes: its length is told. */
class ReplayContext extends ForwardingContext {
  /** Characters of the current write not yet handed to the body. */
  unfed = 0;

  override get callLength(): number {
    return this.real.callLength - this.unfed;
  }
}

/**
 * Reads white space after the opener, then hands the call, from just after the opener, to the
 * first form whose `starts` holds the first other character. No form takes it: the opener was
 * not a call (its text and the white space stay text, and reading resumes at that character).
 */
export class FirstCharacterChoiceBody<Data> implements CallBody {
  private readonly context: CallContext;
  private readonly replay: ReplayContext;
  private readonly choices: readonly FirstCharacterChoice<Data>[];
  private readonly open: (data: Data, context: CallContext) => CallBody;
  /** Where the call's text after the opener begins (counted from the opener's first character). */
  private readonly bodyFrom: number;
  private chosen: CallBody | undefined;

  constructor(
    context: CallContext,
    openerLength: number,
    choices: readonly FirstCharacterChoice<Data>[],
    open: (data: Data, context: CallContext) => CallBody,
  ) {
    this.context = context;
    this.replay = new ReplayContext(context);
    this.choices = choices;
    this.open = open;
    this.bodyFrom = openerLength;
  }

  get leftover(): string | undefined {
    return this.chosen?.leftover;
  }

  write(text: string, start: number, end: number): number {
    if (this.chosen) return this.chosen.write(text, start, end);
    let first = start;
    while (first < end && isWhiteSpace(text.charCodeAt(first))) first++;
    if (first === end) return -1;
    const character = text.charAt(first);
    const choice = this.choices.find(
      ({ starts }) => starts === undefined || starts.includes(character),
    );
    if (choice === undefined) {
      this.context.settle({ kind: 'not-a-call' });
      return first;
    }
    if (choice.framing) return this.dropped(first);
    return this.begin(choice, text, start, end);
  }

  /** The opener was framing: it and the white space after it are dropped, wherever split. */
  private dropped(at: number): number {
    this.context.settle({ kind: 'markup' });
    return at;
  }

  /**
   * Opens `choice`'s body on a context whose length counts only what it has been handed, and
   * hands it the white space of earlier writes, then this write.
   */
  private begin(
    choice: FirstCharacterChoice<Data>,
    text: string,
    start: number,
    end: number,
  ): number {
    const writeFrom = this.context.callLength - (end - start);
    const replay = this.replay;
    replay.unfed = end - start + (writeFrom - this.bodyFrom);
    const body = this.open(choice.data, replay);
    this.chosen = body;
    if (this.bodyFrom < writeFrom) {
      const before = this.context.callText(this.bodyFrom, writeFrom);
      replay.unfed = end - start;
      const stop = body.write(before, 0, before.length);
      replay.unfed = 0;
      // White space alone ended the call: it ended before this write.
      if (stop !== -1) return start;
    }
    replay.unfed = 0;
    return body.write(text, start, end);
  }

  finish(interrupted: boolean): void {
    if (this.chosen) {
      this.chosen.finish(interrupted);
      return;
    }
    // The output ended after the opener (and white space): framing, else the form that takes
    // anything, or the first, says what that is.
    if (this.choices.some(({ framing }) => framing)) {
      this.dropped(0);
      return;
    }
    const choice = this.choices.find(({ starts }) => starts === undefined) ?? this.choices[0]!;
    const rest = this.context.callText(this.bodyFrom);
    this.replay.unfed = rest.length;
    const body = this.open(choice.data, this.replay);
    this.replay.unfed = 0;
    this.chosen = body;
    if (rest.length === 0 || body.write(rest, 0, rest.length) === -1) body.finish(interrupted);
  }

  abandon(): void {
    this.chosen?.abandon();
  }
}
