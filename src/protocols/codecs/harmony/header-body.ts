import { SPACE, TAB } from '../../../scan/char-codes.ts';
import type { CallBody, CallContext } from '../../engine/call-body.ts';
import type { JsonCallsBody } from '../json/json-calls-body.ts';
import { ParameterTagsBody } from '../tagged/parameter-tags-body.ts';
import type { CompiledHeaderMode } from './header-mode.ts';
import { HeaderReader, type HeaderStart } from './header-reader.ts';
import { MessageBody } from './message-body.ts';

/**
 * A message, from just after its header's opener: the header is read (HeaderReader), and what it
 * says the message is decides what reads the rest: reasoning or text (MessageBody), the JSON
 * arguments of the recipient's call (the JSON codec, which reads the header alongside to take
 * the tool's name from it), or calls of the spec's tagged form up to the tool message's end.
 *
 * What is no header: after `open` and a role (`<|start|>assistant` then prose), the two are
 * framing, dropped, and the rest is read again; anything else is text from the opener on.
 */
export class HeaderBody implements CallBody {
  private readonly reader: HeaderReader;
  /** The JSON body, given the header as it is read, when a call's arguments are JSON. */
  private readonly json: JsonCallsBody | undefined;
  private delegate: CallBody | undefined;
  /** White space after the message marker is the header's (`<|message|> Hi`, spaced headers). */
  private skipSpace = false;
  private ownLeftover = '';
  /** The tool the header calls, once it is read (the JSON body's name for the call). */
  private calledName: string | undefined;

  private readonly context: CallContext;
  private readonly mode: CompiledHeaderMode;
  /** Where the header's text begins in the call's (after the opener). */
  private readonly headerStart: number;

  constructor(context: CallContext, mode: CompiledHeaderMode, start: HeaderStart) {
    this.context = context;
    this.mode = mode;
    this.headerStart = context.callLength;
    this.reader = new HeaderReader(mode.spec, start);
    this.json = mode.jsonCall(context, () => this.calledName);
  }

  get leftover(): string {
    return this.delegate ? (this.delegate.leftover ?? '') : this.ownLeftover;
  }

  write(text: string, start: number, end: number): number {
    if (this.delegate) return this.writeMessage(text, start, end);
    const stop = this.reader.read(text, start, end);
    if (stop === -1) {
      this.json?.write(text, start, end);
      return -1;
    }
    if (this.reader.failed) return this.notAHeader(stop, end);
    const meaning = this.reader.meaning();
    if (meaning.kind === 'call') {
      this.calledName = meaning.name;
      if (this.json) {
        this.delegate = this.json;
        const read = this.json.write(text, start, stop);
        if (read !== -1 || stop === end) return read;
        return this.json.write(text, stop, end);
      }
      this.delegate = new ParameterTagsBody(this.context, this.mode.taggedOpener!);
    } else {
      this.delegate = new MessageBody(
        this.context,
        meaning.kind,
        this.mode.spec.ends,
        this.mode.nextHeaders,
      );
      this.skipSpace = this.reader.spaced;
    }
    return stop === end ? -1 : this.writeMessage(text, stop, end);
  }

  private writeMessage(text: string, start: number, end: number): number {
    let index = start;
    if (this.skipSpace) {
      while (index < end && isHorizontalSpace(text.charCodeAt(index))) index++;
      if (index === end) return -1;
      this.skipSpace = false;
    }
    return this.delegate!.write(text, index, end);
  }

  /**
   * The header is no header. Right after `open` and a role (`<|start|>assistant` then prose) the
   * two are framing, dropped; later, the whole is text from the opener on (a header of another
   * format, when `auto` reads several: Muse Glimmer's reader gives up on gpt-oss's `<|channel|>`
   * and leaves it to gpt-oss). What followed the opener is read again.
   */
  private notAHeader(at: number, end: number): number {
    const atOffset = this.context.callLength - (end - at);
    const roleEnd = this.headerStart + this.reader.roleEnd;
    if (this.reader.roleEnd >= 0 && atOffset === roleEnd) {
      this.context.settle({ kind: 'markup' });
    } else {
      this.ownLeftover = this.context.callText(this.headerStart, atOffset);
      this.context.settle({ kind: 'not-a-call' });
    }
    return at;
  }

  finish(interrupted: boolean): void {
    if (this.delegate) {
      this.delegate.finish(interrupted);
      return;
    }
    // Cut off in the header: `open` and a role alone are framing; anything more is text.
    this.context.settle(this.reader.onlyRole ? { kind: 'markup' } : { kind: 'not-a-call' });
  }

  abandon(): void {
    this.delegate?.abandon();
  }
}

function isHorizontalSpace(code: number): boolean {
  return code === SPACE || code === TAB;
}
