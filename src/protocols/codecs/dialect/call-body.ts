import type { ToolDefinition } from '../../../core/index.ts';
import { parseJsonText } from '../../../core/parse-json.ts';
import { DOT, LEFT_BRACE, LEFT_PARENTHESIS, MINUS } from '../../../scan/char-codes.ts';
import { isWhiteSpace } from '../../../scan/characters.ts';
import { DISCARDING_HANDLER, type JsonTokenHandler } from '../../../scan/json-tokenizer.ts';
import {
  createJsonValueStreamer,
  type JsonValueStreamer,
} from '../../../scan/json-value-streamer.ts';
import { createValuePolicy } from '../../../schema/index.ts';
import { CallAssembler, MAX_KEPT_ARGUMENT_CHARS } from '../../engine/call-assembler.ts';
import type { CallBody, CallContext } from '../../engine/call-body.ts';
import type { DialectCallForm } from '../../spec/types.ts';
import { PythonCallsBody } from '../python/python-call-body.ts';
import { isNamePart } from '../python/python-call-values.ts';
import { DialectValueReader } from './value-reader.ts';

/** A tool name longer than this is not one. */
const MAX_NAME = 256;

const Phase = {
  /** Matching `namePrefix` (`call:`), white space before it allowed in explicit markup. */
  Prefix: 0,
  Name: 1,
  Value: 2,
  /** After the arguments: white space, then the closer (or one of its alternatives). */
  AfterValue: 3,
  /** `NAME(` …: Python keyword arguments, read by the Python codec's body (`inner`). */
  Inner: 4,
  Done: 5,
  /**
   * After a speculative call: white space, the form's closers, the next call's opener, or the
   * end of the output; anything else makes the calls text.
   */
  Between: 6,
} as const;
type Phase = (typeof Phase)[keyof typeof Phase];

/** A speculative call read whole, waiting for the end of the output. */
interface HeldCall {
  readonly tool: ToolDefinition;
  readonly streamer: JsonValueStreamer;
  readonly json: string[];
}

function isToolNamePart(code: number): boolean {
  return isNamePart(code) || code === MINUS || code === DOT;
}

/**
 * One call of a dialect form, from just after its opener: `[namePrefix]NAME{ARGUMENTS}[close]`,
 * the arguments in the dialect (DialectValueReader: bare keys, strings between the form's
 * delimiters). Gemma 4: `<|tool_call>` `call:` `get_weather` `{city:<|"|>Oslo<|"|>}` `<tool_call|>`.
 *
 * Explicit forms (markup): a declared tool's arguments stream as JSON typed by its schema, and
 * the call runs at its closer, or at the end of its arguments when the form has none, or when the
 * output ends there not cut off (a stop sequence may take the closer). A broken or unterminated
 * call is a fault with its raw text, never run with guessed arguments; an undeclared tool's call
 * is text through its end.
 *
 * Speculative forms (an opener that may be prose, such as a bare `call:`): only well-formed calls
 * of declared tools that are the rest of the output are calls (one after another, white space and
 * the form's closers between them); anything else makes them text. So a call quoted in prose, or
 * in a tool's result another format wrote as it is, is never read: something follows it. Such
 * calls are held until the output ends, and, as where a server stripped the special tokens, a
 * string may be bare text (`city:Paris`).
 *
 * In explicit forms, `NAME(key="v")` after the name is read as one Python call (the parenthesis
 * form Gemma 4 falls back to), by the Python codec's body.
 */
export class DialectCallBody implements CallBody {
  private readonly context: CallContext;
  private readonly form: DialectCallForm;
  private readonly speculative: boolean;
  private readonly prefix: string;
  /** The literals that end the call after its arguments; none: it ends with them. */
  private readonly closers: readonly string[];
  private phase: Phase;
  private prefixMatched = 0;
  private name = '';
  private tool: ToolDefinition | undefined;
  private assembler: CallAssembler | undefined;
  private streamer: JsonValueStreamer | undefined;
  /** The JSON of the speculative call being read. */
  private held: string[] | undefined;
  /** Speculative calls read whole, held until the output ends with nothing else after them. */
  private readonly heldCalls: HeldCall[] = [];
  /** A speculative call's opener and name prefix, which begin the next call of its block. */
  private readonly nextOpen: string;
  /** The characters of a closer or of `nextOpen` read so far (Phase.Between). */
  private betweenRead = '';
  private reader: DialectValueReader | undefined;
  /** The characters of a closer read so far (each closer still in play begins with them). */
  private closerRead = '';
  /** Characters read past the call's end: a closer begun and broken off. */
  private ownLeftover = '';
  private inner: CallBody | undefined;
  private doneAt = -1;
  /**
   * A `wholeOutput` block whose first call named a declared tool: it is calls, so what breaks it
   * from here on is a fault (none of its calls runs), not text.
   */
  private committed = false;

  constructor(context: CallContext, form: DialectCallForm) {
    this.context = context;
    this.form = form;
    this.speculative = form.certainty === 'speculative';
    this.prefix = form.namePrefix ?? '';
    this.closers = [...(form.close ? [form.close] : []), ...(form.closeAlternatives ?? [])];
    this.phase = this.prefix.length > 0 ? Phase.Prefix : Phase.Name;
    // White space before the next call is skipped: a line opener's line break is read as such.
    this.nextOpen = (form.open + this.prefix).trimStart();
  }

  get leftover(): string | undefined {
    return this.inner ? this.inner.leftover : this.ownLeftover;
  }

  write(text: string, start: number, end: number): number {
    if (this.inner) return this.inner.write(text, start, end);
    let index = start;
    while (index < end && this.doneAt === -1) {
      switch (this.phase) {
        case Phase.Prefix:
          index = this.readPrefix(text, index);
          break;
        case Phase.Name: {
          index = this.readName(text, index, end);
          // `NAME(`: the Python call's body reads the rest.
          const inner = this.inner as CallBody | undefined;
          if (inner) return inner.write(text, index, end);
          break;
        }
        case Phase.Value:
          index = this.readValue(text, index, end);
          break;
        case Phase.Between:
          index = this.readBetween(text, index);
          break;
        default:
          index = this.readAfterValue(text, index);
      }
    }
    return this.doneAt;
  }

  // ── the header: prefix and name ─────────────────────────────────────────────────────────────

  private readPrefix(text: string, index: number): number {
    const code = text.charCodeAt(index);
    if (this.prefixMatched === 0 && !this.speculative && isWhiteSpace(code)) return index + 1;
    if (code !== this.prefix.charCodeAt(this.prefixMatched)) {
      return this.notACall(index, `expected ${this.prefix}NAME{…} after ${this.form.open}`);
    }
    if (++this.prefixMatched === this.prefix.length) this.phase = Phase.Name;
    return index + 1;
  }

  private readName(text: string, index: number, end: number): number {
    // Markup may leave white space before the name (`<fn> NAME{…}`); prose may not.
    if (this.name.length === 0 && !this.speculative && this.prefix.length === 0) {
      while (index < end && isWhiteSpace(text.charCodeAt(index))) index++;
      if (index === end) return end;
    }
    let stop = index;
    while (stop < end && isToolNamePart(text.charCodeAt(stop))) stop++;
    this.name += text.slice(index, stop);
    if (this.name.length > MAX_NAME) return this.notACall(stop, 'the tool name is too long');
    if (stop === end) return end;
    const code = text.charCodeAt(stop);
    // The parenthesis form only in markup: prose is full of `word(…)`, and a speculative Python
    // call streams from its first argument on, before it is known to be whole.
    const parenthesis =
      code === LEFT_PARENTHESIS && !this.speculative && this.form.parenthesisCalls !== false;
    if (this.name.length === 0 || (code !== LEFT_BRACE && !parenthesis)) {
      return this.notACall(stop, `expected ${this.prefix}NAME{…} after ${this.form.open}`);
    }
    if (parenthesis) {
      // `call:get_weather(city="Tokyo")`: one Python call, its name and `(` already read.
      this.phase = Phase.Inner;
      this.inner = new PythonCallsBody(this.context, {
        speculative: this.speculative,
        single: true,
        openedCall: this.name,
        ...(this.form.close ? { closer: this.form.close } : {}),
      });
      return stop + 1;
    }
    this.tool = this.context.options.toolsByName.get(this.name);
    if (this.tool === undefined && this.speculative) {
      return this.blockFails(stop, `"${this.name}" is not a declared tool`);
    }
    if (this.speculative && this.form.wholeOutput) this.committed = true;
    this.beginValue(this.tool);
    return stop;
  }

  private beginValue(tool: ToolDefinition | undefined): void {
    let handler: JsonTokenHandler = DISCARDING_HANDLER;
    if (tool) {
      const policy = createValuePolicy(tool.inputSchema);
      if (this.speculative) {
        const held: string[] = [];
        this.held = held;
        this.streamer = createJsonValueStreamer(policy, (piece) => held.push(piece), {
          maxKeptStringChars: MAX_KEPT_ARGUMENT_CHARS,
        });
      } else {
        this.assembler = new CallAssembler(this.context, tool);
        this.streamer = createJsonValueStreamer(policy, this.assembler.delta, {
          maxKeptStringChars: MAX_KEPT_ARGUMENT_CHARS,
        });
        this.assembler.start();
      }
      handler = this.streamer;
    }
    this.reader = new DialectValueReader(handler, {
      stringDelimiters: this.form.stringDelimiters,
      quotedStrings: this.form.quotedStrings === true,
      // Where the opener may be prose, the special tokens were likely stripped: strings too.
      bareText: this.speculative,
      maxDepth: this.context.options.maxDepth,
    });
    this.phase = Phase.Value;
  }

  // ── the arguments and the closer ────────────────────────────────────────────────────────────

  private readValue(text: string, index: number, end: number): number {
    const reader = this.reader!;
    const stop = reader.write(text, index, end);
    if (stop !== -1) {
      if (this.speculative) return this.hold(stop);
      if (this.closers.length === 0) return this.complete(stop);
      this.phase = Phase.AfterValue;
      return stop;
    }
    if (reader.status !== 'failed') return end;
    if (this.committed) {
      return this.blockFails(
        reader.stoppedAt,
        `the arguments could not be read: ${reader.failure}`,
      );
    }
    if (this.tool === undefined || this.speculative) return this.settleText(reader.stoppedAt);
    return this.fault(
      reader.stoppedAt,
      reader.tooDeep ? 'too-deep' : 'malformed-call',
      `the arguments of "${this.name}" could not be read: ${reader.failure}; the call was not run`,
    );
  }

  private readAfterValue(text: string, index: number): number {
    if (this.closerRead.length === 0 && isWhiteSpace(text.charCodeAt(index))) return index + 1;
    const read = this.closerRead + text.charAt(index);
    let continues = false;
    for (const closer of this.closers) {
      if (!closer.startsWith(read)) continue;
      if (closer.length === read.length) return this.complete(index + 1);
      continues = true;
    }
    if (continues) {
      this.closerRead = read;
      return index + 1;
    }
    // What was read of a closer is read again after the call: it may begin an opener.
    this.ownLeftover = this.closerRead;
    if (this.tool === undefined || this.speculative) return this.settleText(index);
    return this.fault(
      index,
      'malformed-call',
      `expected ${this.closers[0]} after the arguments of "${this.name}"; the call was not run`,
    );
  }

  private complete(index: number): number {
    if (this.tool === undefined) return this.settleText(index);
    const streamer = this.streamer!;
    const assembler = this.assembler!;
    const value = streamer.keptStreamedStrings
      ? streamer.value
      : parseJsonText(assembler.inputText());
    assembler.complete(value);
    return this.done(index);
  }

  // ── a block of speculative calls ────────────────────────────────────────────────────────────

  /** A speculative call was read whole: it waits for the end of the output. */
  private hold(index: number): number {
    this.heldCalls.push({ tool: this.tool!, streamer: this.streamer!, json: this.held! });
    this.held = undefined;
    this.streamer = undefined;
    this.reader = undefined;
    this.tool = undefined;
    this.name = '';
    this.betweenRead = '';
    this.phase = Phase.Between;
    return index;
  }

  private readBetween(text: string, index: number): number {
    if (this.betweenRead.length === 0 && isWhiteSpace(text.charCodeAt(index))) return index + 1;
    const read = this.betweenRead + text.charAt(index);
    let continues = false;
    for (const closer of this.closers) {
      if (!closer.startsWith(read)) continue;
      if (closer.length === read.length) {
        this.betweenRead = '';
        return index + 1;
      }
      continues = true;
    }
    if (this.nextOpen.startsWith(read)) {
      if (this.nextOpen.length === read.length) {
        // The next call of the block: its name follows.
        this.betweenRead = '';
        this.phase = Phase.Name;
        return index + 1;
      }
      continues = true;
    }
    if (continues) {
      this.betweenRead = read;
      return index + 1;
    }
    // Something else follows: the calls are not the rest of the output, so they are text. What
    // was read of a closer or an opener is read again: it may begin other markup.
    this.ownLeftover = this.betweenRead;
    return this.blockFails(index, 'text follows');
  }

  /** The output ended after a block of speculative calls: each runs, in order. */
  private runHeld(): void {
    for (const call of this.heldCalls) {
      const json = call.json.join('');
      const value = call.streamer.keptStreamedStrings ? call.streamer.value : parseJsonText(json);
      new CallAssembler(this.context, call.tool).completeWhole(json, value);
    }
    // A closer or opener cut short by the end is text, not a lost part of the output.
    const at = this.context.callLength;
    const cut = this.betweenRead.length;
    if (cut > 0) this.context.emitText(this.context.callText(at - cut, at));
  }

  // ── endings ────────────────────────────────────────────────────────────────────────────────

  private done(index: number): number {
    this.phase = Phase.Done;
    this.doneAt = index;
    return index;
  }

  private settleText(index: number): number {
    this.context.settle({ kind: 'not-a-call' });
    return this.done(index);
  }

  /**
   * A speculative block is not calls: text, unless it is a `wholeOutput` block already
   * committed, whose calls fail together.
   */
  private blockFails(index: number, reason: string): number {
    if (!this.committed) return this.settleText(index);
    this.context.settle({
      kind: 'fault',
      code: 'malformed-call',
      message: `${reason} after ${this.nextOpen}NAME{…} written without its tokens, which is read only when the whole output is such calls; none was run`,
    });
    return this.done(index);
  }

  /** Not `NAME{`: text where the opener may be prose, a fault in markup. */
  private notACall(index: number, message: string): number {
    if (this.speculative) return this.blockFails(index, message);
    this.context.settle({ kind: 'fault', code: 'malformed-call', message });
    return this.done(index);
  }

  private fault(
    index: number,
    code: 'malformed-call' | 'too-deep' | 'incomplete-call',
    message: string,
  ): number {
    if (this.assembler) this.assembler.fail(code, message);
    else this.context.settle({ kind: 'fault', code, message, toolName: this.name });
    return this.done(index);
  }

  finish(interrupted: boolean): void {
    if (this.inner) {
      this.inner.finish(interrupted);
      return;
    }
    if (this.phase === Phase.Done) return;
    if (this.phase === Phase.Between) {
      // Cut off, the output may have gone on with anything: the calls are not known to be calls.
      if (interrupted) this.context.settle({ kind: 'not-a-call' });
      else this.runHeld();
      return;
    }
    if (this.committed) {
      this.context.settle({
        kind: 'fault',
        code: 'incomplete-call',
        message: `the output ${interrupted ? 'was cut off' : 'ended'} inside ${this.nextOpen}${this.name}; none was run`,
      });
      return;
    }
    if (this.phase === Phase.AfterValue) {
      if (this.tool === undefined) {
        this.context.settle({ kind: 'not-a-call' });
      } else if (interrupted) {
        this.fault(
          0,
          'incomplete-call',
          `the output was cut off after the arguments of "${this.name}"; the call was not run`,
        );
      } else {
        this.complete(0);
        // A closer cut short is text, not a lost part of the output.
        const at = this.context.callLength;
        const cut = this.closerRead.length;
        if (cut > 0) this.context.emitText(this.context.callText(at - cut, at));
      }
      return;
    }
    if (this.speculative || (this.phase === Phase.Value && this.tool === undefined)) {
      this.context.settle({ kind: 'not-a-call' });
      return;
    }
    if (this.phase === Phase.Value) {
      this.fault(
        0,
        'incomplete-call',
        `the output ${interrupted ? 'was cut off' : 'ended'} inside the arguments of "${this.name}"${
          this.reader?.inString ? ', in a string that was never closed' : ''
        }; the call was not run`,
      );
      return;
    }
    this.context.settle({
      kind: 'fault',
      code: 'incomplete-call',
      message: `the output ended after ${this.context.callText(0, Math.min(this.context.callLength, MAX_NAME))} before the call's arguments`,
    });
  }

  abandon(): void {
    if (this.inner) this.inner.abandon();
    else this.assembler?.end();
  }
}
