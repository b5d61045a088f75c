import type { ToolDefinition } from '../../../core/index.ts';
import { parseJsonText } from '../../../core/parse-json.ts';
import {
  CARRIAGE_RETURN,
  COMMA,
  DOT,
  EQUALS_SIGN,
  LEFT_BRACE,
  LEFT_BRACKET,
  LEFT_PARENTHESIS,
  LINE_FEED,
  MINUS,
  RIGHT_BRACKET,
  RIGHT_PARENTHESIS,
  SEMICOLON,
  SPACE,
  TAB,
} from '../../../scan/char-codes.ts';
import { isWhiteSpace } from '../../../scan/characters.ts';
import { DISCARDING_HANDLER, type JsonTokenHandler } from '../../../scan/json-tokenizer.ts';
import {
  createJsonValueStreamer,
  type JsonValueStreamer,
} from '../../../scan/json-value-streamer.ts';
import { createValuePolicy, propertySchema, schemaTypes } from '../../../schema/index.ts';
import { CallAssembler, MAX_KEPT_ARGUMENT_CHARS } from '../../engine/call-assembler.ts';
import type { CallBody, CallContext } from '../../engine/call-body.ts';
import { JsonCallsBody, type JsonCallsBodyConfig } from '../json/json-calls-body.ts';
import { isNamePart, isNameStart, PythonValueReader } from './python-call-values.ts';

/** How a format frames Python-style calls (`[get_weather(city="Oslo"), f(x=1)]`). */
export interface PythonCallsConfig {
  /**
   * The block may be ordinary text (a bare `[`): it is calls only once a declared tool's call
   * begins (`[get_weather(city=` or `[get_weather()`); anything else is given back as text.
   * Markup (`<|python_start|>`) is explicit: a broken call in it is a fault.
   */
  readonly speculative: boolean;
  /** The opener consumed the list's `[` (a bare list). */
  readonly listOpened?: boolean;
  /**
   * The literal after the calls (`<|python_end|>`, `</function_calls>`). Optional: a block that
   * ends without it (servers strip special tokens, text follows) ends with its calls.
   */
  readonly closer?: string;
  /** Written between a tool's name and `(` (Llama 3's built-ins: `brave_search.call(…)`). */
  readonly nameSuffix?: string;
  /** The block is one call, not a list (Llama 3's `<|python_tag|>`). */
  readonly single?: boolean;
  /** JSON calls may stand where the list is (`[{"name": …}]`, LFM2): read with this config. */
  readonly json?: JsonCallsBodyConfig;
  /**
   * The block's first element names no declared tool: another reader may take it from `from`
   * (a call offset), e.g. Llama 3's code after `<|python_tag|>`. Undefined: read on as usual.
   */
  readonly otherwise?: (context: CallContext, from: number) => CallBody | undefined;
  /**
   * Calls written one per line with nothing around them (Granite writing
   * `get_weather(city="Oslo")\nget_time(zone="UTC")`): a call runs only once its line ends (or
   * the output does) with nothing else on it; text after a call on its line makes it a fault.
   */
  readonly lines?: boolean;
  /** The opener consumed the first call's name and its `(` (a line opener, `get_weather(`). */
  readonly openedCall?: string;
}

const Phase = {
  Start: 0,
  ListStart: 1,
  Name: 2,
  BeforeParenthesis: 3,
  ArgumentStart: 4,
  ArgumentName: 5,
  Equals: 6,
  Value: 7,
  AfterValue: 8,
  AfterCall: 9,
  ElementStart: 10,
  AfterList: 11,
  Closer: 12,
  Inner: 13,
  Done: 14,
} as const;
type Phase = (typeof Phase)[keyof typeof Phase];

/** Per tool, whether each property admits strings (asked for every value without quotes). */
const admitsStringByTool = new WeakMap<ToolDefinition, Map<string, boolean>>();

function propertyAdmitsString(tool: ToolDefinition, name: string): boolean {
  let known = admitsStringByTool.get(tool);
  if (known === undefined) {
    known = new Map();
    admitsStringByTool.set(tool, known);
  }
  let admits = known.get(name);
  if (admits === undefined) {
    admits = schemaTypes(propertySchema(tool.inputSchema, name)).has('string');
    // Bounded: a model inventing argument names cannot grow it without end.
    if (known.size < 256) known.set(name, admits);
  }
  return admits;
}

/** A tool name longer than this is not one. */
const MAX_NAME = 256;
/** White space before the first call of a block, at most (a longer run is text, not a call). */
const MAX_LEADING_SPACE = 256;

function isToolNamePart(code: number): boolean {
  return isNamePart(code) || code === MINUS || code === DOT;
}

/**
 * A block of Python-style calls with keyword arguments: `[f(a=1, b="x"), g()]`, one call per
 * line, or one call alone. Calls stream as they are read: `tool-input-start` once a declared
 * tool's call begins, the arguments as canonical JSON deltas typed by the tool's schema,
 * `tool-call` at each closing parenthesis. A call to an undeclared tool stays text; a call with a
 * positional argument, or whose syntax breaks, is a fault reported with its raw text.
 *
 * What chat templates render besides Python: a declared tool's call whose only argument is a
 * dict (`get_weather({"city": "Oslo"})`, Gemma 3's template under a renderer that does not see
 * the arguments as a mapping) takes that dict as its arguments; and a keyword argument's value
 * printed without quotes (`city=Oslo`, `"%s"|format(v)` in Llama 3.2's and ToolACE's templates)
 * is read as a string where the declared property admits strings (PythonValueReader's bare
 * values say exactly where one ends).
 */
export class PythonCallsBody implements CallBody, JsonTokenHandler {
  private readonly context: CallContext;
  private readonly config: PythonCallsConfig;
  private phase: Phase;
  private doneAt = -1;
  private inner: CallBody | undefined;
  private ownLeftover = '';

  /** Whether the block is a bracketed list (its `]` ends it). */
  private inList: boolean;
  /** Something of the block was given out (text of an undeclared call, a call's events). */
  private givenOut = false;
  /** Call offset from which the block's raw text has not been given out. */
  private unclaimedStart = 0;
  /** Calls to undeclared tools read while nothing was given out: text once the block is calls. */
  private readonly pendingText: [number, number][] = [];
  private elements = 0;
  private calls = 0;
  private leadingSpace = 0;

  // The element being read.
  private elementStart = 0;
  private name = '';
  private tool: ToolDefinition | undefined;
  private assembler: CallAssembler | undefined;
  private streamer: JsonValueStreamer | undefined;
  private argumentName = '';
  /** The call's last value was bare text (its `)` may have been the text's). */
  private lastValueBare = false;
  /**
   * A list's call whose last value was bare has read its `)`: it runs once `,` or `]` follows,
   * which shows that `)` ended it (`x=smile :)` then `)]` is a value the `)` cut: a fault).
   */
  private awaitingListPunctuation = false;
  /** Arguments read in the call so far (a dict alone as the arguments must be the first). */
  private argumentsRead = 0;
  /** The value being read is a dict that stands for the call's arguments. */
  private positionalDict = false;
  /** Nesting inside that dict's reading: its own braces are the call's (depth 0 to 1). */
  private dictDepth = 0;
  private invalid: string | undefined;
  /** Made when the block's first value starts: most bare `[` in text never get that far. */
  private reader: PythonValueReader | undefined;
  private readerHandler: JsonTokenHandler = DISCARDING_HANDLER;
  /** Where the separators after a call began, to hand them back if the block ends there. */
  private separatorStart = 0;
  private closerMatched = 0;
  /** The bracket of a list that may turn out to hold JSON (LFM2), and its JSON reader. */
  private bracketAt = -1;
  private jsonCandidate: JsonCallsBody | undefined;
  /** Where in the current write the inner reader (`inner`) takes over. */
  private innerFrom = 0;

  constructor(context: CallContext, config: PythonCallsConfig) {
    this.context = context;
    this.config = config;
    this.inList = config.listOpened === true;
    this.phase = config.listOpened ? Phase.ListStart : Phase.Start;
    if (config.openedCall !== undefined) {
      this.name = config.openedCall;
      this.elementStart = 0;
      this.openArguments(0);
    }
  }

  get leftover(): string | undefined {
    return this.inner ? this.inner.leftover : this.ownLeftover;
  }

  write(text: string, start: number, end: number): number {
    if (this.inner) return this.inner.write(text, start, end);
    this.writeEnd = end;
    this.writeStart = start;
    let index = start;
    while (index < end && this.doneAt === -1 && !this.inner) {
      switch (this.phase) {
        case Phase.Value:
          index = this.readValue(text, index, end);
          break;
        case Phase.Name:
          index = this.readName(text, index, end);
          break;
        case Phase.ArgumentName:
          index = this.readArgumentName(text, index, end);
          break;
        case Phase.Start:
          index = this.readStart(text, index);
          break;
        case Phase.ListStart:
          index = this.readListStart(text, index);
          break;
        case Phase.Closer:
          index = this.readCloser(text, index, end);
          break;
        default:
          index = this.readPunctuation(text, index);
      }
    }
    const inner = this.inner as CallBody | undefined;
    if (inner) return inner.write(text, this.innerFrom, end);
    if (this.doneAt === -1 && this.phase === Phase.ListStart && this.config.json) {
      this.keepJsonCandidate(text, start, end);
    }
    return this.doneAt;
  }

  private offsetOf(index: number): number {
    return this.context.callLength - (this.writeEnd - index);
  }

  /** The write in progress (offsets count from its end). */
  private writeStart = 0;
  private writeEnd = 0;

  // ── framing ─────────────────────────────────────────────────────────────────────────────────

  private readStart(text: string, index: number): number {
    const code = text.charCodeAt(index);
    if (isWhiteSpace(code)) {
      if (++this.leadingSpace > MAX_LEADING_SPACE) return this.broke(index, 'no call follows');
      return index + 1;
    }
    if (code === LEFT_BRACKET && !this.config.single) {
      this.inList = true;
      this.bracketAt = index;
      this.phase = Phase.ListStart;
      return index + 1;
    }
    if (code === LEFT_BRACE && this.config.json) {
      this.inner = new JsonCallsBody(this.context, this.config.json);
      this.innerFrom = index;
      return index;
    }
    if (isNameStart(code)) return this.beginElement(index);
    if (this.tryOtherwise(index)) return index;
    return this.broke(index, 'expected a call such as [get_weather(city="Oslo")]');
  }

  private readListStart(text: string, index: number): number {
    const code = text.charCodeAt(index);
    if (isWhiteSpace(code)) {
      if (++this.leadingSpace > MAX_LEADING_SPACE) return this.broke(index, 'no call follows');
      return index + 1;
    }
    if (code === LEFT_BRACE && this.config.json) {
      // JSON calls in the list (LFM2): the JSON reader reads from the bracket.
      if (this.bracketAt !== -1) {
        this.inner = new JsonCallsBody(this.context, this.config.json);
        this.innerFrom = this.bracketAt;
      } else {
        // The bracket came in an earlier write: the reader kept since has read up to this one.
        this.inner = this.jsonCandidate;
        this.innerFrom = this.writeStart;
      }
      return index;
    }
    this.jsonCandidate = undefined;
    if (isNameStart(code)) return this.beginElement(index);
    if (code === RIGHT_BRACKET) return this.afterList(index + 1);
    return this.broke(index, 'expected a call such as [get_weather(city="Oslo")]');
  }

  /**
   * A write ends after a list's `[` (and white space): keep a JSON reader fed with them, in case
   * the list holds JSON calls.
   */
  private keepJsonCandidate(text: string, start: number, end: number): void {
    if (this.jsonCandidate) {
      this.jsonCandidate.write(text, start, end);
    } else if (this.bracketAt !== -1) {
      this.jsonCandidate = new JsonCallsBody(this.context, {
        ...this.config.json!,
        jsonPrefix: this.context.callText(this.offsetOf(this.bracketAt), this.context.callLength),
      });
    }
    this.bracketAt = -1;
  }

  /** After a call: the next one, the list's end, the closer, or the end of the block. */
  private readPunctuation(text: string, index: number): number {
    const code = text.charCodeAt(index);
    switch (this.phase) {
      case Phase.BeforeParenthesis:
        if (code === SPACE || code === TAB) return index + 1;
        if (code === LEFT_PARENTHESIS) return this.openArguments(index);
        return this.notACallName(index);
      case Phase.ArgumentStart:
        if (isWhiteSpace(code)) return index + 1;
        if (code === RIGHT_PARENTHESIS) return this.closeArguments(index);
        if (isNameStart(code)) {
          this.argumentName = '';
          this.phase = Phase.ArgumentName;
          return index;
        }
        if (code === LEFT_BRACE && this.tool && this.argumentsRead === 0) {
          return this.beginArgumentsDict(index);
        }
        return this.positional(index);
      case Phase.Equals:
        if (code === SPACE || code === TAB) return index + 1;
        if (code === EQUALS_SIGN) return this.beginValue(index);
        return this.positional(index);
      case Phase.AfterValue:
        if (isWhiteSpace(code)) return index + 1;
        if (code === COMMA && !this.positionalDict) {
          this.phase = Phase.ArgumentStart;
          return index + 1;
        }
        if (code === RIGHT_PARENTHESIS) return this.closeArguments(index);
        if (this.positionalDict) {
          return this.broke(
            index,
            `a dict given as the arguments of ${this.name} must be its only argument`,
          );
        }
        return this.broke(index, `expected "," or ")" after the value of ${this.argumentName}`);
      case Phase.AfterCall:
        return this.readAfterCall(index, code);
      case Phase.ElementStart:
        if (isWhiteSpace(code)) return index + 1;
        if (isNameStart(code)) return this.beginElement(index);
        if (code === RIGHT_BRACKET) return this.afterList(index + 1);
        return this.broke(index, 'expected a call after ","');
      default:
        // AfterList
        if (isWhiteSpace(code)) return index + 1;
        if (this.config.closer !== undefined && code === this.config.closer.charCodeAt(0)) {
          this.phase = Phase.Closer;
          this.closerMatched = 0;
          return index;
        }
        return this.endBlock(index, true);
    }
  }

  private readAfterCall(index: number, code: number): number {
    if (this.config.lines) return this.readAfterLineCall(index, code);
    if (this.inList) {
      if (isWhiteSpace(code)) return index + 1;
      if (this.awaitingListPunctuation) {
        if (code !== COMMA && code !== RIGHT_BRACKET) {
          return this.fault(
            index,
            'malformed-call',
            `text follows the ")" that ended the value of ${this.argumentName}, which has no quotes: the ")" may be the value's own, so the call to "${this.tool!.name}" was not run`,
          );
        }
        this.awaitingListPunctuation = false;
        this.completeElement(this.callEnd);
      }
      if (code === COMMA) {
        this.phase = Phase.ElementStart;
        return index + 1;
      }
      if (code === RIGHT_BRACKET) return this.afterList(index + 1);
      // The list was left open and text follows: the block ended with its last call.
      return this.endBlock(index, true);
    }
    if (isWhiteSpace(code) || code === COMMA || code === SEMICOLON) return index + 1;
    if (this.config.closer !== undefined && code === this.config.closer.charCodeAt(0)) {
      this.phase = Phase.Closer;
      this.closerMatched = 0;
      return index;
    }
    if (!this.config.single && isNameStart(code)) return this.beginElement(index);
    return this.endBlock(index, true);
  }

  /** `lines`: after a call, the rest of its line, then the next line's call or the end. */
  private readAfterLineCall(index: number, code: number): number {
    if (this.awaitingLineEnd) {
      if (code === SPACE || code === TAB) return index + 1;
      if (code !== LINE_FEED && code !== CARRIAGE_RETURN) {
        return this.fault(
          index,
          'malformed-call',
          `text follows the call to "${this.tool!.name}" on its line; a call written alone on a line must end it, so it was not run`,
        );
      }
      this.awaitingLineEnd = false;
      this.completeElement(this.callEnd);
      this.separatorStart = this.callEnd;
      return index + 1;
    }
    if (isWhiteSpace(code)) return index + 1;
    if (isNameStart(code)) return this.beginElement(index);
    return this.endBlock(index, true);
  }

  private afterList(index: number): number {
    this.phase = Phase.AfterList;
    this.separatorStart = this.offsetOf(index);
    if (this.config.closer === undefined) return this.endBlock(index, false);
    return index;
  }

  private readCloser(text: string, index: number, end: number): number {
    const closer = this.config.closer!;
    let position = index;
    while (position < end && this.closerMatched < closer.length) {
      if (text.charCodeAt(position) !== closer.charCodeAt(this.closerMatched)) {
        // Not the closer: the block ended before it; what was read since is text again.
        return this.endBlock(position, true);
      }
      this.closerMatched++;
      position++;
    }
    if (this.closerMatched === closer.length) {
      this.separatorStart = this.offsetOf(position);
      return this.endBlock(position, false);
    }
    return position;
  }

  // ── one call ────────────────────────────────────────────────────────────────────────────────

  private beginElement(index: number): number {
    this.elementStart = this.offsetOf(index);
    this.name = '';
    this.tool = undefined;
    this.invalid = undefined;
    this.argumentsRead = 0;
    this.positionalDict = false;
    this.lastValueBare = false;
    this.phase = Phase.Name;
    return index;
  }

  private readName(text: string, index: number, end: number): number {
    let stop = index;
    while (stop < end && isToolNamePart(text.charCodeAt(stop))) stop++;
    this.name += text.slice(index, stop);
    if (this.name.length > MAX_NAME) return this.notACallName(stop);
    if (stop === end) return end;
    this.phase = Phase.BeforeParenthesis;
    return stop;
  }

  private resolveTool(): ToolDefinition | undefined {
    const tools = this.context.options.toolsByName;
    const tool = tools.get(this.name);
    if (tool) return tool;
    const suffix = this.config.nameSuffix;
    if (suffix !== undefined && this.name.endsWith(suffix)) {
      return tools.get(this.name.slice(0, -suffix.length));
    }
    return undefined;
  }

  /** The first element may belong to another reader (`otherwise`); true when one took it. */
  private tryOtherwise(index: number): boolean {
    if (!this.config.otherwise || this.elements > 0) return false;
    const from = this.phase === Phase.Start ? this.offsetOf(index) : this.elementStart;
    this.inner = this.config.otherwise(this.context, from);
    this.innerFrom = index;
    return this.inner !== undefined;
  }

  /** What follows a name is not `(`: no call. */
  private notACallName(index: number): number {
    if (this.tryOtherwise(index)) return index;
    return this.broke(index, `expected "(" after ${JSON.stringify(this.name)}`);
  }

  private openArguments(index: number): number {
    this.tool = this.resolveTool();
    if (this.tool === undefined && this.tryOtherwise(index)) return index;
    this.elements++;
    this.readerHandler = DISCARDING_HANDLER;
    this.phase = Phase.ArgumentStart;
    // Markup says it is a call: it streams from here. Bare text waits for its first argument.
    if (this.tool && !this.config.speculative) this.commit();
    return index + 1;
  }

  /** The element is a call: announce it, and stream its arguments from here on. */
  private commit(): void {
    if (this.assembler || !this.tool) return;
    this.giveOut();
    const assembler = new CallAssembler(this.context, this.tool);
    this.assembler = assembler;
    this.streamer = createJsonValueStreamer(
      createValuePolicy(this.tool.inputSchema),
      assembler.delta,
      {
        maxKeptStringChars: MAX_KEPT_ARGUMENT_CHARS,
      },
    );
    this.readerHandler = this.streamer;
    assembler.start();
    this.streamer.startObject();
  }

  /** The block is calls: the undeclared calls read before are text. */
  private giveOut(): void {
    this.givenOut = true;
    for (const [from, to] of this.pendingText) {
      this.context.emitText(this.context.callText(from, to));
      this.unclaimedStart = to;
    }
    this.pendingText.length = 0;
  }

  private readArgumentName(text: string, index: number, end: number): number {
    let stop = index;
    while (stop < end && isNamePart(text.charCodeAt(stop))) stop++;
    this.argumentName += text.slice(index, stop);
    if (this.argumentName.length > MAX_NAME)
      return this.broke(stop, 'an argument name is too long');
    if (stop === end) return end;
    this.phase = Phase.Equals;
    return stop;
  }

  private beginValue(index: number): number {
    if (this.tool && !this.assembler) this.commit();
    this.streamer?.key(this.argumentName);
    this.startReading();
    return index + 1;
  }

  private startReading(extraDepth = 0): void {
    this.argumentsRead++;
    this.lastValueBare = false;
    // One reader for every value of the block; the arguments are one level of nesting.
    this.reader ??= new PythonValueReader(
      this,
      Math.max(0, this.context.options.maxDepth - 1),
      () => this.admitsBareText(),
    );
    this.reader.reset(extraDepth);
    this.phase = Phase.Value;
  }

  /**
   * Whether the value being read may be bare text: the declared tool's property admits strings
   * (or its schema says nothing of it). Never for an undeclared tool: its text stays text only
   * as long as it reads as Python.
   */
  private admitsBareText(): boolean {
    if (!this.tool || this.positionalDict) return false;
    return propertyAdmitsString(this.tool, this.argumentName);
  }

  /**
   * `get_weather({"city": "Oslo"})`: the dict is the call's arguments. The call begins at its
   * first key (or at `)` for `{}`), as a keyword call begins at its first `=`.
   */
  private beginArgumentsDict(index: number): number {
    this.positionalDict = true;
    this.dictDepth = 0;
    this.argumentName = 'the arguments';
    this.startReading(1);
    return index;
  }

  private readValue(text: string, index: number, end: number): number {
    const reader = this.reader!;
    const stop = reader.write(text, index, end);
    if (stop !== -1) {
      this.lastValueBare = reader.endedBare;
      if (reader.invalid !== undefined) this.invalid ??= `${this.argumentName}: ${reader.invalid}`;
      this.phase = Phase.AfterValue;
      return stop;
    }
    if (reader.status === 'failed') {
      return this.broke(
        reader.stoppedAt,
        `the value of ${this.argumentName} is not a Python literal: ${reader.failure}`,
        reader.tooDeep ? 'too-deep' : 'malformed-call',
      );
    }
    return end;
  }

  private positional(index: number): number {
    return this.broke(
      index,
      `a positional argument was given to ${this.name}: write every argument as name=value`,
    );
  }

  private closeArguments(index: number): number {
    if (this.tool && !this.assembler) this.commit();
    const stop = index + 1;
    if (this.config.lines && this.assembler) {
      // The call runs once its line ends with nothing else on it (see `lines`).
      this.awaitingLineEnd = true;
      this.phase = Phase.AfterCall;
      this.separatorStart = this.offsetOf(stop);
      this.callEnd = this.offsetOf(stop);
      return stop;
    }
    this.phase = Phase.AfterCall;
    this.separatorStart = this.offsetOf(stop);
    if (this.config.single) this.inList = false;
    if (this.lastValueBare && this.inList && this.assembler) {
      this.awaitingListPunctuation = true;
      this.callEnd = this.offsetOf(stop);
      return stop;
    }
    this.completeElement(this.offsetOf(stop));
    return stop;
  }

  /** `lines`: a call's `)` was read, its line has not ended yet. */
  private awaitingLineEnd = false;
  /** Where that call's text ends (after its `)`). */
  private callEnd = 0;

  /** The element read up to `end` (a call offset) is complete: run it, or keep its text. */
  private completeElement(end: number): void {
    const assembler = this.assembler;
    const streamer = this.streamer;
    if (assembler && streamer) {
      streamer.endObject();
      const raw = () => this.context.callText(this.elementStart, end);
      if (this.invalid !== undefined) {
        assembler.end();
        this.context.reportFault({
          code: 'malformed-call',
          message: `the call to "${this.tool!.name}" has a value JSON cannot hold (${this.invalid}); it was not run`,
          raw: raw(),
          toolName: this.tool!.name,
          toolCallId: assembler.toolCallId,
        });
      } else {
        const readBack = !streamer.keptStreamedStrings && this.context.options.validate;
        assembler.complete(readBack ? parseJsonText(assembler.inputText()) : streamer.value);
        this.calls++;
      }
      this.assembler = undefined;
      this.streamer = undefined;
      this.unclaimedStart = end;
    } else if (this.givenOut) {
      this.context.emitText(this.context.callText(this.elementStart, end));
      this.unclaimedStart = end;
    } else {
      this.pendingText.push([this.elementStart, end]);
    }
  }

  // ── endings ─────────────────────────────────────────────────────────────────────────────────

  /** Whether the element being read is a call that was announced, or is in markup. */
  private elementIsCall(): boolean {
    return this.assembler !== undefined;
  }

  private get inElement(): boolean {
    return (
      this.phase === Phase.Name ||
      this.phase === Phase.BeforeParenthesis ||
      this.phase === Phase.ArgumentStart ||
      this.phase === Phase.ArgumentName ||
      this.phase === Phase.Equals ||
      this.phase === Phase.Value ||
      this.phase === Phase.AfterValue
    );
  }

  /**
   * The block's syntax broke at `index` (or, with `atReaderStop`, somewhere in this write: the
   * block then ends at the write's end). A call that had begun is a fault with its raw text;
   * anything else is text.
   */
  private broke(
    index: number,
    message: string,
    code: 'malformed-call' | 'too-deep' | 'incomplete-call' = 'malformed-call',
  ): number {
    const at = index;
    if (this.elementIsCall()) return this.fault(at, code, message);
    if (
      !this.config.speculative &&
      !this.givenOut &&
      this.elements === 0 &&
      this.pendingText.length === 0
    ) {
      // Markup that opens calls and holds none.
      this.phase = Phase.Done;
      this.doneAt = at;
      this.context.settle({
        kind: 'fault',
        code,
        message: `malformed tool-call block: ${message}`,
      });
      return at;
    }
    return this.endBlock(at, false, true);
  }

  private fault(
    index: number,
    code: 'malformed-call' | 'too-deep' | 'incomplete-call',
    message: string,
  ): number {
    const assembler = this.assembler!;
    assembler.end();
    this.assembler = undefined;
    this.streamer = undefined;
    const at = this.offsetOf(index);
    const toolName = this.tool!.name;
    this.phase = Phase.Done;
    this.doneAt = index;
    if (this.calls === 0 && this.pendingText.length === 0 && this.unclaimedStart === 0) {
      // Nothing else of the block was given out: the block is the fault.
      this.context.settle({
        kind: 'fault',
        code,
        message,
        toolName,
        toolCallId: assembler.toolCallId,
      });
      return index;
    }
    this.context.reportFault({
      code,
      message,
      raw: this.context.callText(this.unclaimedStart, at),
      toolName,
      toolCallId: assembler.toolCallId,
    });
    this.context.settle({ kind: 'call' });
    return index;
  }

  /**
   * The block ends at `index`. `handBack`: the separators read since the last call are text
   * again (the block ended before them). `broken`: the element in progress never became a call.
   */
  private endBlock(index: number, handBack: boolean, broken = false): number {
    // Asked before the phase changes: an element that never became a call is text.
    const inElement = this.inElement;
    this.phase = Phase.Done;
    this.doneAt = index;
    const at = this.offsetOf(index);
    let end = at;
    if (handBack && !inElement) {
      end = Math.min(at, this.separatorStart);
      this.ownLeftover = this.context.callText(end, at);
    }
    if (!this.givenOut) {
      this.context.settle(
        this.elements === 0 && !this.config.speculative && !broken
          ? { kind: 'markup' }
          : { kind: 'not-a-call' },
      );
      return index;
    }
    // The call in progress never began: its text, and the undeclared calls', stay text (with
    // the line break before it, when calls are lines: it is the text's, not a separator).
    if (inElement && at > this.unclaimedStart) {
      const from = this.config.lines
        ? this.unclaimedStart
        : Math.max(this.elementStart, this.unclaimedStart);
      this.context.emitText(this.context.callText(from, at));
    }
    this.context.settle({ kind: 'call' });
    return index;
  }

  finish(interrupted: boolean): void {
    if (this.inner) {
      this.inner.finish(interrupted);
      return;
    }
    this.writeEnd = 0;
    const at = this.context.callLength;
    if (this.inElement && !this.elementIsCall() && this.elements === 0 && this.config.otherwise) {
      // The output ended in the first name: it may be the start of what another reader takes.
      this.inner = this.config.otherwise(this.context, this.elementStart);
      if (this.inner) {
        this.inner.finish(interrupted);
        return;
      }
    }
    if (this.inElement) {
      if (this.elementIsCall()) {
        this.fault(
          0,
          'incomplete-call',
          `the output ended inside the call to "${this.tool!.name}" before its ")"; it was not run`,
        );
        return;
      }
      if (!this.config.speculative && !this.givenOut && this.elements === 0) {
        this.context.settle({
          kind: 'fault',
          code: 'incomplete-call',
          message: 'the output ended inside a tool-call block before its call was complete',
        });
        return;
      }
      this.endBlock(0, false, true);
      return;
    }
    if (this.phase === Phase.Start || this.phase === Phase.ListStart) {
      if (this.config.speculative || this.elements > 0) this.context.settle({ kind: 'not-a-call' });
      else {
        this.context.settle({
          kind: 'fault',
          code: 'incomplete-call',
          message: 'the output ended right after a tool-call opener',
        });
      }
      return;
    }
    if (this.awaitingListPunctuation) {
      this.awaitingListPunctuation = false;
      if (interrupted) {
        this.fault(
          0,
          'incomplete-call',
          `the output was cut off after the call to "${this.tool!.name}", whose last value has no quotes; it was not run`,
        );
        return;
      }
      // The output ended after the call: its `)` ended it (a list whose `]` is missing).
      this.completeElement(this.callEnd);
    }
    if (this.awaitingLineEnd) {
      this.awaitingLineEnd = false;
      if (interrupted) {
        this.fault(
          0,
          'incomplete-call',
          `the output was cut off after the call to "${this.tool!.name}" before its line ended; it was not run`,
        );
        return;
      }
      // The output ended the call's line.
      this.completeElement(this.callEnd);
    }
    if (this.phase === Phase.Closer && this.givenOut) {
      // A closer cut short is text, not a lost part of the output.
      this.context.emitText(this.context.callText(at - this.closerMatched, at));
    }
    if (this.phase === Phase.Done) return;
    this.endBlock(0, false);
  }

  abandon(): void {
    if (this.inner) this.inner.abandon();
    else this.assembler?.end();
  }

  // The value reader's tokens go to the call's streamer, or nowhere for an undeclared tool.

  startObject(): void {
    if (this.positionalDict && this.dictDepth++ === 0) return;
    this.readerHandler.startObject();
  }

  endObject(): void {
    if (this.positionalDict && --this.dictDepth === 0) return;
    this.readerHandler.endObject();
  }

  startArray(): void {
    this.readerHandler.startArray();
  }

  endArray(): void {
    this.readerHandler.endArray();
  }

  key(name: string): void {
    if (this.positionalDict && this.dictDepth === 1 && this.tool && !this.assembler) {
      this.commit();
    }
    this.readerHandler.key(name);
  }

  startString(): void {
    this.readerHandler.startString();
  }

  stringChunk(text: string): void {
    this.readerHandler.stringChunk(text);
  }

  endString(): void {
    this.readerHandler.endString();
  }

  primitive(value: number | boolean | null): void {
    this.readerHandler.primitive(value);
  }
}
