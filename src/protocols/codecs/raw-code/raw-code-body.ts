/**
 * The reader of raw code: everything from where it starts to the first of its end literals (or
 * the end of the output) is one argument of the code tool, streamed as it comes. Linear: each
 * character is looked at once, and what is held back (a possible end literal cut by a chunk,
 * trailing white space, the first line) is kept as call offsets, never as a growing string.
 */
import type { ToolDefinition } from '../../../core/index.ts';
import { parseJsonText } from '../../../core/parse-json.ts';
import { LINE_FEED } from '../../../scan/char-codes.ts';
import { isWhiteSpace } from '../../../scan/characters.ts';
import { LiteralFinder } from '../../../scan/literal-finder.ts';
import { CallAssembler } from '../../engine/call-assembler.ts';
import type { CallBody, CallContext } from '../../engine/call-body.ts';
import { RAW_CODE_ARGUMENT, type RawCodeSpec } from './raw-code-spec.ts';

/** How one raw-code body reads. */
export interface RawCodeReading {
  /** Literals that end the code; none: the code runs to the end of the output. */
  readonly ends: readonly string[];
  /** The end literal also begins what follows (Functionary's `>>>`): it is read again. */
  readonly endReadAgain?: boolean;
  /** The argument that holds the code. Default `code`. */
  readonly argument?: string;
  /** White space at the code's end is not code. */
  readonly trimEnd?: boolean;
}

/** The reading a spec's raw code gets, ended by `close` and its alternatives. */
export function rawCodeReading(spec: RawCodeSpec, close: string | undefined): RawCodeReading {
  return {
    ends: [...(close === undefined ? [] : [close]), ...(spec.closeAlternatives ?? [])],
    ...(spec.argument === undefined ? {} : { argument: spec.argument }),
    ...(spec.trimEnd ? { trimEnd: true } : {}),
  };
}

/** The first of the spec's tools that is declared, if any. */
export function codeToolOf(spec: RawCodeSpec, context: CallContext): ToolDefinition | undefined {
  for (const name of spec.tools) {
    const tool = context.options.toolsByName.get(name);
    if (tool) return tool;
  }
  return undefined;
}

/**
 * The body of a raw-code form, from just after its opener: the code tool's call, or text when no
 * code tool is declared.
 */
export function openRawCode(
  context: CallContext,
  spec: RawCodeSpec,
  close: string | undefined,
): CallBody {
  const tool = codeToolOf(spec, context);
  if (!tool) return new NotACallBody(context);
  return new RawCodeBody(context, tool, rawCodeReading(spec, close), context.callLength);
}

/**
 * For a body that reads something else first (a Python call after `<|python_tag|>`): when what
 * it read from call offset `from` names no declared tool, raw code from there, ended by `close`
 * and the spec's alternatives; undefined when no code tool is declared.
 */
export function rawCodeOtherwise(
  spec: RawCodeSpec,
  close: string | undefined,
): (context: CallContext, from: number) => CallBody | undefined {
  const reading = rawCodeReading(spec, close);
  return (context, from) => {
    const tool = codeToolOf(spec, context);
    return tool ? new RawCodeBody(context, tool, reading, from) : undefined;
  };
}

/** A call's code as a raw-code form writes it: the code argument as it is, else nothing. */
export function rawCodeArgumentText(input: unknown, spec: RawCodeSpec): string {
  if (typeof input !== 'object' || input === null) return '';
  const code = (input as Record<string, unknown>)[spec.argument ?? RAW_CODE_ARGUMENT];
  return typeof code === 'string' ? code : '';
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * One call of a code tool whose argument is the raw code from call offset `from` on (the
 * characters between `from` and the first write were read by another body, which handed over).
 * Nothing streams before the first line ends: until then the line may still be another format's
 * call on the same opener (`brave_search.call(…)` after `<|python_tag|>`), and `auto` lets the
 * reader that commits first have it. Code that is only white space is no call.
 */
export class RawCodeBody implements CallBody {
  /** The end literal found, when it is read again after the call. */
  leftover = '';

  private readonly context: CallContext;
  private readonly assembler: CallAssembler;
  private readonly finders: readonly LiteralFinder[];
  private readonly reading: RawCodeReading;
  /** Where the code begins (a call offset). */
  private readonly from: number;
  /** Call offset up to which the code has streamed. */
  private streamedTo: number;
  /** Call offset up to which characters were looked at. */
  private scannedTo: number;
  /**
   * The code looked at and not streamed yet (`from`'s text between `streamedTo` and
   * `scannedTo`): trailing white space, the first line. Grown by concatenation and cut once when
   * it streams, so each character is copied a bounded number of times.
   */
  private unstreamed = '';
  /** Call offset just after the last character that is not white space (`from`: none yet). */
  private codeEnd: number;
  private lineEnded = false;

  constructor(context: CallContext, tool: ToolDefinition, reading: RawCodeReading, from: number) {
    this.context = context;
    this.assembler = new CallAssembler(context, tool);
    this.finders = reading.ends.map((end) => new LiteralFinder(end));
    this.reading = reading;
    this.from = from;
    this.streamedTo = from;
    this.scannedTo = from;
    this.codeEnd = from;
  }

  write(text: string, start: number, end: number): number {
    const startOffset = this.context.callLength - (end - start);
    let found = -1;
    let literal = '';
    const finders = this.finders;
    for (let index = 0; index < finders.length; index++) {
      const finder = finders[index]!;
      const at = finder.find(text, start, end);
      if (at !== -1 && (found === -1 || at - finder.literal.length < found - literal.length)) {
        found = at;
        literal = finder.literal;
      }
    }
    if (found !== -1) {
      // The end literal may have begun in an earlier write: the code stops where it begins.
      const stop = startOffset + (found - start) - literal.length;
      this.scanTo(stop, text, start, startOffset);
      this.streamTo(this.reading.trimEnd ? this.codeEnd : stop, false, text, start, startOffset);
      if (this.reading.endReadAgain) this.leftover = literal;
      this.complete();
      return found;
    }
    // Characters that may begin an end literal wait for the next write, unread.
    let held = 0;
    for (let index = 0; index < finders.length; index++) {
      held = Math.max(held, finders[index]!.partial);
    }
    const limit = startOffset + (end - start) - held;
    this.scanTo(limit, text, start, startOffset);
    if (this.lineEnded) {
      this.streamTo(this.reading.trimEnd ? this.codeEnd : limit, true, text, start, startOffset);
    }
    return -1;
  }

  finish(interrupted: boolean): void {
    this.scanTo(this.context.callLength, '', 0, this.context.callLength);
    if (this.codeEnd === this.from) {
      // No code at all: the opener was not a call.
      this.context.settle({ kind: 'not-a-call' });
      return;
    }
    if (interrupted) {
      this.assembler.fail(
        'incomplete-call',
        `the output was cut off inside the code of a call to "${this.assembler.tool.name}"; it was not run`,
      );
      return;
    }
    const length = this.context.callLength;
    this.streamTo(this.reading.trimEnd ? this.codeEnd : length, false, '', 0, length);
    this.complete();
  }

  abandon(): void {
    this.assembler.end();
  }

  /**
   * Looks at the code up to call offset `to`: what came before this write (handed over by
   * another body, or held as a possible end literal) from the call's text, the rest from `text`,
   * whose `start` is call offset `startOffset`.
   */
  private scanTo(to: number, text: string, start: number, startOffset: number): void {
    if (this.scannedTo < startOffset) {
      const upTo = Math.min(to, startOffset);
      const before = this.context.callText(this.scannedTo, upTo);
      this.scan(before, 0, before.length, this.scannedTo);
    }
    if (to > startOffset) this.scan(text, start, start + (to - startOffset), startOffset);
  }

  /**
   * Notes whether a line break came and where the last character that is not white space is, in
   * `text[start, end)`: a forward search only until the first line ends, a backward one only over
   * the white space at the range's end. Ranges do not overlap, so each character is looked at
   * a bounded number of times.
   */
  private scan(text: string, start: number, end: number, offset: number): void {
    if (!this.lineEnded) {
      for (let index = start; index < end; index++) {
        if (text.charCodeAt(index) === LINE_FEED) {
          this.lineEnded = true;
          break;
        }
      }
    }
    let last = end;
    while (last > start && isWhiteSpace(text.charCodeAt(last - 1))) last--;
    if (last > start) this.codeEnd = offset + (last - start);
    this.unstreamed += text.slice(start, end);
    this.scannedTo = offset + (end - start);
  }

  /**
   * Streams the code up to call offset `offset` (never past what was looked at); `text` from
   * `start` is the current write, at call offset `startOffset`.
   */
  private streamTo(
    offset: number,
    mayHold: boolean,
    text: string,
    start: number,
    startOffset: number,
  ): void {
    let to = offset;
    // Nothing but white space yet: no call either.
    if (to <= this.streamedTo || this.codeEnd === this.from) return;
    // Never end a piece between the halves of a surrogate pair.
    if (mayHold && isHighSurrogate(this.charAt(to - 1, text, start, startOffset))) to--;
    if (to <= this.streamedTo) return;
    // What streams was looked at already: `to` is never past `scannedTo`.
    const code = this.unstreamed.slice(0, to - this.streamedTo);
    this.unstreamed = this.unstreamed.slice(to - this.streamedTo);
    if (this.streamedTo === this.from) {
      this.assembler.delta(`{${JSON.stringify(this.reading.argument ?? RAW_CODE_ARGUMENT)}:"`);
    }
    this.assembler.delta(JSON.stringify(code).slice(1, -1));
    this.streamedTo = to;
  }

  /** The character at call offset `offset`, from the current write when it is in it. */
  private charAt(offset: number, text: string, start: number, startOffset: number): number {
    return offset >= startOffset
      ? text.charCodeAt(start + (offset - startOffset))
      : this.context.callText(offset, offset + 1).charCodeAt(0);
  }

  private complete(): void {
    if (this.codeEnd === this.from) {
      this.context.settle({ kind: 'not-a-call' });
      return;
    }
    this.assembler.delta('"}');
    this.assembler.complete(parseJsonText(this.assembler.inputText()));
  }
}

/** An opener that is text here (raw code with no code tool declared). */
export class NotACallBody implements CallBody {
  private readonly context: CallContext;

  constructor(context: CallContext) {
    this.context = context;
  }

  write(_text: string, start: number): number {
    this.context.settle({ kind: 'not-a-call' });
    return start;
  }

  finish(): void {
    this.context.settle({ kind: 'not-a-call' });
  }

  abandon(): void {}
}
