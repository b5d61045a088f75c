/**
 * Functionary v3.2's recipients: `>>>RECIPIENT\n` and what follows it. `all` is the answer to
 * the user (text), a code interpreter (`python`) gets raw code up to the next `>>>`, any other
 * declared tool JSON arguments. The generation prompt ends with `>>>`, so the output's first
 * recipient comes without it (`all\nHello`, `get_weather\n{…}`).
 */
import { LINE_FEED } from '../../scan/char-codes.ts';
import { isWhiteSpace } from '../../scan/characters.ts';
import { JsonCallsBody } from '../codecs/json/json-calls-body.ts';
import { RawCodeBody } from '../codecs/raw-code/raw-code-body.ts';
import type { CallBody, CallContext } from '../engine/call-body.ts';

/** The code interpreter's names: raw code after `>>>python` or `<|python_tag|>` goes to it. */
export const CODE_TOOLS = ['python', 'ipython'] as const;

/** The recipient opener; it ends raw code too, and is then read again. */
export const RECIPIENT_OPENER = '>>>';

/** The recipient that is the answer to the user. */
export const ANSWER_RECIPIENT = 'all';

const MAX_RECIPIENT = 256;

export class RecipientBody implements CallBody {
  private delegate: CallBody | undefined;
  /** What was read of the recipient. */
  private recipient: string;
  /** What the opener itself read of the recipient (`get_weather` of a line opener). */
  private readonly openerName: string;
  private checkedStart: boolean;
  /** The opener is the output's start (the prompt wrote `>>>`), not `>>>`. */
  private readonly atOutputStart: boolean;
  /** What the body read after the opener when it turned out not to be a recipient. */
  private given = '';
  private readonly context: CallContext;

  /**
   * `openerName`: what the opener read of the recipient; `atOutputStart`: the opener is a line
   * opener, matched at the output's start without its line break.
   */
  constructor(context: CallContext, openerName: string, atOutputStart: boolean) {
    this.context = context;
    this.recipient = openerName;
    this.openerName = openerName;
    this.checkedStart = !atOutputStart;
    this.atOutputStart = atOutputStart;
  }

  get leftover(): string {
    return this.delegate?.leftover ?? this.given;
  }

  /**
   * How much of `line` can still begin a recipient: white space, a prefix of `all` or of a
   * declared tool's name, or the whole name and white space. The line is not one past that.
   */
  private recipientPrefix(line: string): number {
    let nameStart = 0;
    while (nameStart < line.length && isWhiteSpace(line.charCodeAt(nameStart))) nameStart++;
    let longest = nameStart;
    const reach = (name: string) => {
      let end = nameStart;
      while (end < line.length && end - nameStart < name.length) {
        if (line.charCodeAt(end) !== name.charCodeAt(end - nameStart)) return end;
        end++;
      }
      if (end - nameStart < name.length) return end;
      while (end < line.length && isWhiteSpace(line.charCodeAt(end))) end++;
      return end;
    };
    longest = Math.max(longest, reach(ANSWER_RECIPIENT));
    for (const tool of this.context.options.tools) longest = Math.max(longest, reach(tool.name));
    return longest;
  }

  write(text: string, start: number, end: number): number {
    if (this.delegate) return this.delegate.write(text, start, end);
    if (!this.checkedStart) {
      this.checkedStart = true;
      // Only the output's first line may name a recipient without `>>>`: a line opener found
      // later in the output holds its line break.
      if (this.context.callText(0, 1) === '\n') return this.notACall(start);
    }
    // Read no further than a recipient can go: what was read is handed back when the line is
    // not one, and a line read to its end per `>>>` would make `>>>>>>…` quadratic.
    const limit = Math.min(end, start + MAX_RECIPIENT + 1 - this.recipient.length);
    let stop = start;
    while (stop < limit && text.charCodeAt(stop) !== LINE_FEED) stop++;
    const line = this.recipient + text.slice(start, stop);
    const possible = Math.min(this.recipientPrefix(line), MAX_RECIPIENT);
    if (possible < line.length) {
      // Not a recipient: what followed the opener is read again, and after `>>>` the opener's
      // last two characters too (`>>>>get_weather` is `>` then a recipient).
      this.given = (this.atOutputStart ? '' : '>>') + line.slice(this.openerName.length, possible);
      return this.notACall(start + possible - this.recipient.length);
    }
    this.recipient = line;
    if (stop === end) return -1;
    const recipient = this.recipient.trim();
    if (recipient === ANSWER_RECIPIENT) {
      this.context.settle({ kind: 'markup' });
      return stop + 1;
    }
    const tool = this.context.options.toolsByName.get(recipient);
    const offsetAfterLine = this.context.callLength - (end - (stop + 1));
    if (tool && (CODE_TOOLS as readonly string[]).includes(recipient)) {
      this.delegate = new RawCodeBody(
        this.context,
        tool,
        { ends: [RECIPIENT_OPENER], endReadAgain: true, trimEnd: true },
        offsetAfterLine,
      );
      return this.delegate.write(text, stop + 1, end);
    }
    this.delegate = new JsonCallsBody(this.context, {
      shape: { nameKeys: [], argumentKeys: [] },
      speculative: false,
      header: { terminator: '\n', consumed: this.recipient, readName: (header) => header.trim() },
    });
    return this.delegate.write(text, stop, end);
  }

  private notACall(index: number): number {
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
