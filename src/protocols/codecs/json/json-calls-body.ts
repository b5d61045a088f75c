import { GRAVE_ACCENT, LEFT_BRACE, LEFT_BRACKET } from '../../../scan/char-codes.ts';
import { isWhiteSpace, isWordOrHyphen } from '../../../scan/characters.ts';
import { JsonExtent } from '../../../scan/json-extent.ts';
import { LiteralFinder } from '../../../scan/literal-finder.ts';
import type { CallBody, CallContext } from '../../engine/call-body.ts';
import { JsonBlockSpan } from './json-block-span.ts';
import type { JsonCallsBodyConfig } from './json-call-config.ts';
import { HeldElementsContext, JsonCallsSettlement } from './json-calls-settlement.ts';
import { JsonEnvelopeRouter } from './json-envelopes.ts';
import { JsonLeadReader, LEAD_NEEDS_MORE, LEAD_REFUSED } from './json-lead.ts';
import { readWholeJsonCall } from './whole-json-call.ts';

export type { CallHeader, JsonCallShape, JsonCallsBodyConfig } from './json-call-config.ts';

const DEFAULT_MAX_HEADER = 256;

interface BodyParts {
  readonly context: HeldElementsContext;
  readonly span: JsonBlockSpan;
  readonly router: JsonEnvelopeRouter;
  readonly settlement: JsonCallsSettlement;
}

const Phase = {
  Header: 7,
  /** An optional Markdown fence before the JSON (`fencedJson`). */
  Fence: 8,
  BeforeJson: 0,
  LanguageTag: 1,
  Json: 2,
  AfterJson: 3,
  /** The JSON could not be tokenized: read raw text up to the closer, then repair. */
  Raw: 4,
  Done: 5,
  /** After bare JSON that made calls: white space, a separator or a stray closer may follow. */
  BetweenBareCalls: 6,
  /** A header named an undeclared tool: is JSON arguments next (its call) or anything else? */
  AfterForeignHeader: 9,
  /**
   * The JSON arguments of an undeclared tool's call: text, through their end. Nothing in them is
   * read again, so a value holding another format's call (`[f(x=1)]`, `<tool_call>…`) stays data.
   */
  ForeignJson: 10,
  /** A line of a `perLine` block that is not a call: read to its end, then reported. */
  SkippedLine: 11,
} as const;
type Phase = (typeof Phase)[keyof typeof Phase];

/**
 * A block of JSON tool calls: one envelope object, or an array of them (a batch). Calls stream
 * as they are read: `tool-input-start` once the name is known, the arguments as canonical JSON
 * deltas, `tool-call` when each envelope closes. JSON that will not tokenize is repaired once
 * the block ends (trailing commas, single quotes, missing brackets), never silently dropped.
 *
 * This class reads the block's framing (header, fence, JSON, closer) and wires the parts: the
 * router (json-envelopes.ts) turns the JSON's tokens into calls, and the settlement
 * (json-calls-settlement.ts) decides what the block was once it ends.
 */
export class JsonCallsBody implements CallBody {
  private phase: Phase;
  /** The readers below, made on first need (see `made`). */
  private parts: BodyParts | undefined;
  /** Finds the closer in raw mode (made only when the JSON breaks). */
  private closer: LiteralFinder | undefined;
  private doneAt = -1;
  /** The first write may read a whole plain call at once (see whole-json-call.ts). */
  private mayReadWhole: boolean;

  /** The engine's context (the body's own, `context`, holds elements until the first call). */
  private readonly engineContext: CallContext;
  private readonly config: JsonCallsBodyConfig;

  constructor(context: CallContext, config: JsonCallsBodyConfig) {
    this.engineContext = context;
    this.config = config;
    this.header = config.header?.consumed ?? '';
    this.mayReadWhole =
      config.closer !== undefined &&
      !config.speculative &&
      !config.jsonPrefix &&
      !config.header &&
      !config.fencedJson &&
      !config.skipLanguageTag;
    this.phase = config.header
      ? Phase.Header
      : config.skipLanguageTag
        ? Phase.LanguageTag
        : Phase.BeforeJson;
    if (config.jsonPrefix) {
      // The opener the engine matched ends with the JSON's first characters.
      this.phase = Phase.Json;
      this.prefixStart = context.callLength - config.jsonPrefix.length;
      // A lead to check first: the readers are made once it holds (most `{ ` in text are not
      // calls, and a refused lead needs none of them).
      if (config.lead) this.lead = new JsonLeadReader(config.lead);
      else this.beginJson('');
    }
  }

  /** Where the opener's JSON (`jsonPrefix`) begins in the call's raw text. */
  private prefixStart = 0;
  /** The start of bare JSON still to be checked (`JsonCallsBodyConfig.lead`). */
  private lead: JsonLeadReader | undefined;

  /** The JSON begins with the opener's part of it and `more` (a lead read before this write). */
  private beginJson(more: string): void {
    this.span.jsonStart = this.prefixStart;
    this.router.tokenizer.write(this.config.jsonPrefix! + more);
  }

  /**
   * The block's readers: its context (holding elements until the first call), where its JSON
   * sits, the router of its JSON's tokens and the settlement. Made when the block is not read
   * whole at once: most calls are, and never need them (five objects and their arrays per call).
   */
  private made(): BodyParts {
    if (this.parts !== undefined) return this.parts;
    const context = new HeldElementsContext(this.engineContext, this.config.speculative === true);
    const span = new JsonBlockSpan(context);
    const router = new JsonEnvelopeRouter(context, this.config, span);
    const settlement = new JsonCallsSettlement(context, this.config, router, span);
    this.parts = { context, span, router, settlement };
    return this.parts;
  }

  private get context(): CallContext {
    return this.made().context;
  }

  /** Where the JSON sits in the call's raw text. */
  private get span(): JsonBlockSpan {
    return this.made().span;
  }

  private get router(): JsonEnvelopeRouter {
    return this.made().router;
  }

  private get settlement(): JsonCallsSettlement {
    return this.made().settlement;
  }

  write(text: string, start: number, end: number): number {
    if (this.mayReadWhole) {
      this.mayReadWhole = false;
      // The engine's context: a block read whole is one call, so nothing is ever held.
      const stop = readWholeJsonCall(
        this.engineContext,
        this.config.shape,
        this.config.closer!,
        text,
        start,
        end,
      );
      if (stop !== -1) {
        this.phase = Phase.Done;
        this.doneAt = stop;
        return stop;
      }
    }
    let index = start;
    while (index < end && this.doneAt === -1) {
      switch (this.phase) {
        case Phase.Header:
          index = this.scanHeader(text, index, end);
          break;
        case Phase.Fence:
          index = this.scanFence(text, index, end);
          break;
        case Phase.LanguageTag:
          index = this.scanLanguageTag(text, index, end);
          break;
        case Phase.BeforeJson:
          index = this.scanBeforeJson(text, index, end);
          break;
        case Phase.Json:
          index = this.scanJson(text, index, end);
          break;
        case Phase.AfterJson:
          index = this.scanAfterJson(text, index, end);
          break;
        case Phase.BetweenBareCalls:
          index = this.scanBetweenBareCalls(text, index, end);
          break;
        case Phase.Raw:
          index = this.scanRaw(text, index, end);
          break;
        case Phase.AfterForeignHeader:
          index = this.scanAfterForeignHeader(text, index);
          break;
        case Phase.ForeignJson:
          index = this.scanForeignJson(text, index, end);
          break;
        case Phase.SkippedLine:
          index = this.scanSkippedLine(text, index, end);
          break;
        case Phase.Done:
          return this.doneAt;
      }
    }
    return this.doneAt;
  }

  // ── phases ────────────────────────────────────────────────────────────────────────────────

  /** The header read so far (see `CallHeader`). */
  private header: string;
  private headerEnd: LiteralFinder | undefined;

  private scanHeader(text: string, start: number, end: number): number {
    const header = this.config.header!;
    this.headerEnd ??= new LiteralFinder(header.terminator);
    // The header may not grow past its cap (terminator included): a long line is not a header.
    const room = (header.maxLength ?? DEFAULT_MAX_HEADER) + header.terminator.length;
    const stop = Math.min(end, start + Math.max(0, room - this.header.length));
    const found = this.headerEnd.find(text, start, stop);
    if (found === -1) {
      if (stop < end || this.header.length + (stop - start) >= room) {
        this.header += text.slice(start, stop);
        return this.headerIsNotACall(stop);
      }
      this.header += text.slice(start, stop);
      return end;
    }
    this.header += text.slice(start, found);
    const name = header.readName(this.header.slice(0, -header.terminator.length));
    const tool = name === undefined ? undefined : this.context.options.toolsByName.get(name);
    if (name === undefined) return this.headerIsNotACall(found);
    if (!tool) {
      // A name: a call of a tool the request did not declare, if JSON arguments follow.
      this.phase = Phase.AfterForeignHeader;
      return found;
    }
    // The JSON that follows is the arguments of this one call.
    this.router.beginNamedCall(name);
    this.phase = this.config.fencedJson ? Phase.Fence : Phase.BeforeJson;
    return found;
  }

  /**
   * The header names no declared tool: the opener alone is text, and everything read after it
   * is read again by the top level (it may hold the next opener), whatever the chunking.
   */
  private headerIsNotACall(at: number): number {
    this.leftover = this.header.slice(this.config.header!.consumed?.length ?? 0);
    return this.settleNotACall(at);
  }

  /** The JSON arguments of an undeclared tool's call, while they are skipped. */
  private foreignJson: JsonExtent | undefined;

  private scanAfterForeignHeader(text: string, start: number): number {
    const code = text.charCodeAt(start);
    if (code !== LEFT_BRACE && code !== LEFT_BRACKET) return this.headerIsNotACall(start);
    this.foreignJson = new JsonExtent();
    this.phase = Phase.ForeignJson;
    return start;
  }

  private scanForeignJson(text: string, start: number, end: number): number {
    const stop = this.foreignJson!.write(text, start, end);
    return stop === -1 ? end : this.settleNotACall(stop);
  }

  /** Before fenced JSON: white space, then an optional ```` ``` ```` and its language word. */
  private fenceMatched = 0;

  private scanFence(text: string, start: number, end: number): number {
    let index = start;
    if (this.fenceMatched === 0) {
      while (index < end && isWhiteSpace(text.charCodeAt(index))) index++;
    }
    while (index < end && this.fenceMatched < 3) {
      if (text.charCodeAt(index) !== GRAVE_ACCENT) {
        if (this.fenceMatched > 0) return this.settleNotACall(index);
        this.phase = Phase.BeforeJson;
        return index;
      }
      this.fenceMatched++;
      index++;
    }
    if (this.fenceMatched === 3) this.phase = Phase.LanguageTag;
    return index;
  }

  private scanLanguageTag(text: string, start: number, end: number): number {
    let index = start;
    while (index < end && isWordOrHyphen(text.charCodeAt(index))) index++;
    if (index < end) this.phase = Phase.BeforeJson;
    return index;
  }

  private scanBeforeJson(text: string, start: number, end: number): number {
    let index = start;
    while (index < end && isWhiteSpace(text.charCodeAt(index))) index++;
    if (index >= end) return end;
    const code = text.charCodeAt(index);
    if (code === LEFT_BRACE || code === LEFT_BRACKET) {
      this.phase = Phase.Json;
      this.span.jsonStart = this.callOffset(index, end);
      return index;
    }
    if (this.config.speculative) return this.settleNotACall(index);
    if (this.config.perLine) return this.beginSkippedLine(this.callOffset(index, end), index);
    // Not JSON at all: read raw text up to the closer, and let the repair make what it can of it.
    this.phase = Phase.Raw;
    this.span.jsonStart = this.callOffset(index, end);
    return index;
  }

  /** Where `text[index]` is in the call's raw text, during a write that ends at `end`. */
  private callOffset(index: number, end: number): number {
    return this.context.callLength - (end - index);
  }

  private scanJson(text: string, start: number, end: number): number {
    if (this.lead) {
      const read = this.lead.scan(text, start, end);
      if (read === LEAD_REFUSED) return this.leadRefused(this.lead.refusedAt, end);
      if (read === LEAD_NEEDS_MORE) return end;
      // A call's lead: the tokenizer reads it (what earlier writes held of it, then this write).
      this.lead = undefined;
      const leadStart = this.prefixStart + this.config.jsonPrefix!.length;
      this.beginJson(this.engineContext.callText(leadStart, this.callOffset(start, end)));
    }
    const tokenizer = this.router.tokenizer;
    const stop = tokenizer.write(text, start, end);
    if (stop === -1 && tokenizer.status === 'failed') {
      // Tokenizer offsets count from the JSON's start; this write began at `before`.
      const before = this.callOffset(start, end) - this.span.jsonStart;
      const offset = tokenizer.failure?.offset ?? before;
      const failedAt = Math.min(end, Math.max(start, start + (offset - before)));
      if (this.continuationStart !== -1) return this.giveBackContinuation(failedAt, end);
      if (this.config.speculative && this.router.callsEmitted === 0)
        return this.settleNotACall(failedAt);
      if (this.config.perLine) {
        this.lineProblem = tokenizer.failure?.message;
        return this.beginSkippedLine(this.span.jsonStart, failedAt);
      }
      // Read on as raw text up to the closer, then repair the whole block (which goes on
      // from the JSON's start in the call's raw text, so nothing needs keeping here).
      this.phase = Phase.Raw;
      return failedAt;
    }
    if (stop === -1) return end;
    if (!this.config.closer) {
      if (this.continuationStart !== -1 && this.router.callsEmitted === this.callsBeforeValue) {
        return this.giveBackContinuation(stop, end);
      }
      this.continuationStart = -1;
      // With no closer to wait for, the block ends with its JSON: its calls go out now, not when
      // the next character comes (what may follow them is looked at after).
      if (
        (this.config.separator !== undefined || this.config.strayCloser !== undefined) &&
        this.router.callsEmitted > 0
      ) {
        this.phase = Phase.BetweenBareCalls;
        this.afterJsonStart = this.callOffset(stop, end);
        return stop;
      }
      return this.finishBlock(stop, false);
    }
    this.phase = Phase.AfterJson;
    return stop;
  }

  /** Another value of the block begins at `text[index]` (see `JsonEnvelopeRouter.startNextValue`). */
  private beginNextValue(index: number, end: number): number {
    this.afterJson = '';
    this.router.startNextValue();
    this.span.jsonStart = this.callOffset(index, end);
    this.phase = Phase.Json;
    return index;
  }

  /**
   * The bare JSON does not begin as a call does: no call. What followed the opener's first
   * character is read again (`[ {"tool_calls"` holds another opener at its `{`), as it was
   * before the opener matched.
   */
  private leadRefused(at: number, end: number): number {
    const context = this.engineContext;
    this.leftover = context.callText(1, context.callLength - (end - at));
    this.lead = undefined;
    this.phase = Phase.Done;
    this.doneAt = at;
    context.settle({ kind: 'not-a-call' });
    return at;
  }

  // ── bare calls one after another ──────────────────────────────────────────────────────────

  /** Where the text after the last bare call began, in the call's raw text. */
  private afterJsonStart = 0;
  /** Reading the value after a separator: where the separator's text began (-1: not). */
  private continuationStart = -1;
  /** Calls emitted before that value: it is a call only if it adds one. */
  private callsBeforeValue = 0;
  private separatorSeen = false;
  /** How many characters of the stray closer have matched. */
  private strayMatched = 0;

  /**
   * After bare JSON that made calls: white space waits; a separator followed by `{` goes on to
   * the next call; a stray closer is consumed; anything else ends the block, and what was read
   * since the JSON is text again.
   */
  private scanBetweenBareCalls(text: string, start: number, end: number): number {
    const { separator, strayCloser } = this.config;
    let index = start;
    while (index < end) {
      const code = text.charCodeAt(index);
      if (this.strayMatched > 0) {
        if (code !== strayCloser!.charCodeAt(this.strayMatched)) break;
        index++;
        if (++this.strayMatched === strayCloser!.length) {
          this.afterJson = '';
          return this.finishBlock(index, false);
        }
        continue;
      }
      if (isWhiteSpace(code)) index++;
      else if (separator !== undefined && !this.separatorSeen && code === separator.charCodeAt(0)) {
        this.separatorSeen = true;
        index++;
      } else if (this.separatorSeen && code === LEFT_BRACE) {
        this.continuationStart = this.afterJsonStart;
        this.callsBeforeValue = this.router.callsEmitted;
        this.separatorSeen = false;
        return this.beginNextValue(index, end);
      } else if (
        strayCloser !== undefined &&
        !this.separatorSeen &&
        code === strayCloser.charCodeAt(0)
      ) {
        this.strayMatched = 1;
        index++;
      } else break;
    }
    if (index === end) {
      this.afterJson += text.slice(start, end);
      return end;
    }
    this.leftover = this.afterJson + text.slice(start, index);
    this.afterJson = '';
    return this.finishBlock(index, false);
  }

  /**
   * The value after a separator made no call (data, an undeclared tool, JSON that breaks): the
   * block ends before the separator, and the separator and that value are read again as text.
   */
  private giveBackContinuation(at: number, end: number): number {
    this.router.envelope?.assembler?.end();
    this.router.envelope = undefined;
    this.leftover = this.context.callText(this.continuationStart, this.callOffset(at, end));
    this.continuationStart = -1;
    return this.finishBlock(at, false);
  }

  /** How many characters of the closer have matched right after the JSON. */
  private closerMatched = 0;
  /** Everything read since the JSON ended (white space, part of the closer). */
  private afterJson = '';
  /** Text read past the block's end, handed back to the top level (see CallBody.leftover). */
  leftover = '';

  private scanAfterJson(text: string, start: number, end: number): number {
    const closer = this.config.closer;
    if (!closer) return this.finishBlock(start, false);
    let index = start;
    if (this.closerMatched === 0) {
      // A fenced JSON's closing fence sits between the JSON and the closer.
      const fenced = this.config.fencedJson === true;
      const separator = this.config.separator;
      while (index < end) {
        const code = text.charCodeAt(index);
        if (separator !== undefined && !this.separatorSeen && code === separator.charCodeAt(0)) {
          this.separatorSeen = true;
        } else if (!isWhiteSpace(code) && !(fenced && code === GRAVE_ACCENT)) break;
        index++;
      }
      // Several call objects in one tag (`<tool_call>{…}\n{…}</tool_call>`): each is a call.
      if (index < end && !this.config.header && this.opensNextValue(text.charCodeAt(index))) {
        this.separatorSeen = false;
        return this.beginNextValue(index, end);
      }
    }
    while (index < end && this.closerMatched < closer.length) {
      if (text.charCodeAt(index) !== closer.charCodeAt(this.closerMatched)) {
        if (this.config.perLine) {
          // A line that is neither a call nor the closer: it is reported, and the block goes on.
          const lineStart = this.callOffset(index, end) - this.closerMatched;
          this.afterJson = '';
          this.closerMatched = 0;
          return this.beginSkippedLine(lineStart, index);
        }
        // Something else follows: the model left the closer out, and the block ended with its
        // JSON. What was read since then is text again.
        this.leftover = this.afterJson + text.slice(start, index);
        this.afterJson = '';
        this.closerMatched = 0;
        return this.finishBlock(index, false);
      }
      this.closerMatched++;
      index++;
    }
    if (this.closerMatched === closer.length) return this.finishBlock(index, false);
    this.afterJson += text.slice(start, index);
    return end;
  }

  /** Whether a value that begins with `code` is the block's next value (`{`; `[` too per line). */
  private opensNextValue(code: number): boolean {
    return code === LEFT_BRACE || (this.config.perLine === true && code === LEFT_BRACKET);
  }

  // ── lines that are not calls (`perLine`) ──────────────────────────────────────────────────

  /** Where the skipped line began, in the call's raw text. */
  private lineStart = 0;
  /** Why the line is not a call, when the tokenizer said. */
  private lineProblem: string | undefined;

  private beginSkippedLine(lineStart: number, index: number): number {
    // A call whose arguments had begun to stream ends here: its line is reported instead.
    const envelope = this.router.envelope;
    this.router.envelope = undefined;
    envelope?.assembler?.end();
    this.skippedToolName = envelope?.tool?.name;
    this.skippedCallId = envelope?.assembler?.hasStarted
      ? envelope.assembler.toolCallId
      : undefined;
    this.lineStart = lineStart;
    this.phase = Phase.SkippedLine;
    return index;
  }

  /** The tool the skipped line named, and its call's id when its input had started streaming. */
  private skippedToolName: string | undefined;
  private skippedCallId: string | undefined;

  /** Reads the rest of a line that is not a call: up to its line break, or the block's closer. */
  private scanSkippedLine(text: string, start: number, end: number): number {
    const closer = this.config.closer;
    const lineBreak = text.indexOf('\n', start);
    const stop = lineBreak === -1 || lineBreak >= end ? end : lineBreak;
    if (closer) {
      this.closer ??= new LiteralFinder(closer);
      const found = this.closer.find(text, start, stop);
      if (found !== -1) {
        this.reportSkippedLine(this.callOffset(found, end) - closer.length);
        return this.finishBlock(found, false);
      }
    }
    if (stop === end) return end;
    this.closer?.reset();
    this.reportSkippedLine(this.callOffset(stop, end));
    this.phase = Phase.AfterJson;
    return stop;
  }

  /** Reports the skipped line, from its start to `lineEnd` (call offsets), where it stands. */
  private reportSkippedLine(lineEnd?: number): void {
    const raw = this.context.callText(this.lineStart, lineEnd).trimEnd();
    const problem = this.lineProblem ?? 'it is not a JSON call object';
    const toolName = this.skippedToolName;
    const toolCallId = this.skippedCallId;
    this.lineProblem = undefined;
    this.skippedToolName = undefined;
    this.skippedCallId = undefined;
    if (raw.length === 0) return;
    const context = this.context;
    this.router.inLineOrder(() =>
      context.reportFault({
        code: 'malformed-call',
        message: `a line of the tool-call block is not a call: ${problem}; it was not run`,
        raw,
        ...(toolName ? { toolName } : {}),
        ...(toolCallId ? { toolCallId } : {}),
      }),
    );
  }

  private scanRaw(text: string, start: number, end: number): number {
    const closer = this.config.closer;
    // Bare JSON has no closer: what follows the broken JSON is read up to the end.
    if (!closer) return end;
    this.closer ??= new LiteralFinder(closer);
    const found = this.closer.find(text, start, end);
    if (found === -1) return end;
    // The closer may have begun in an earlier write; the block's text ends where it began.
    this.span.rawEnd = this.callOffset(found, end) - closer.length;
    return this.finishBlock(found, true);
  }

  // ── endings ───────────────────────────────────────────────────────────────────────────────

  private settleNotACall(index: number): number {
    this.settlement.notACall();
    this.phase = Phase.Done;
    this.doneAt = index;
    return index;
  }

  /** The block is over at `index`: repair if the JSON was broken, then settle what it was. */
  private finishBlock(index: number, repair: boolean): number {
    this.phase = Phase.Done;
    this.doneAt = index;
    this.settlement.blockEnded(repair);
    return index;
  }

  finish(interrupted: boolean): void {
    if (this.lead) {
      // The output ended inside a lead (`{` and white space): text.
      this.engineContext.settle({ kind: 'not-a-call' });
      return;
    }
    switch (this.phase) {
      case Phase.Header:
      case Phase.AfterForeignHeader:
      case Phase.ForeignJson:
        this.settlement.notACall();
        return;
      case Phase.Fence:
      case Phase.LanguageTag:
      case Phase.BeforeJson:
        this.settlement.endedBeforeJson();
        return;
      case Phase.Json:
        if (this.continuationStart !== -1) this.endedInContinuation();
        else this.settlement.endedInJson(interrupted);
        return;
      case Phase.Raw:
        this.settlement.endedInRaw(interrupted);
        return;
      case Phase.SkippedLine:
        this.reportSkippedLine();
        this.settlement.endedAfterJson(interrupted);
        return;
      case Phase.BetweenBareCalls:
        // What came after the last call (white space, a separator, part of a closer) is text.
        if (this.afterJson !== '') this.context.emitText(this.afterJson);
        this.afterJson = '';
        this.settlement.endedAfterJson(interrupted);
        return;
      default:
        this.settlement.endedAfterJson(interrupted);
    }
  }

  /**
   * The output ended inside the value after a separator: the calls before it stand, and it is
   * reported with its text (never run, never completed).
   */
  private endedInContinuation(): void {
    const envelope = this.router.envelope;
    envelope?.assembler?.end();
    this.router.envelope = undefined;
    this.context.reportFault({
      code: 'incomplete-call',
      message: 'the output ended inside the JSON after a separator; it was not run',
      raw: this.context.callText(this.continuationStart),
      ...(envelope?.tool ? { toolName: envelope.tool.name } : {}),
      ...(envelope?.assembler?.hasStarted ? { toolCallId: envelope.assembler.toolCallId } : {}),
    });
    this.continuationStart = -1;
    this.settlement.blockEnded(false);
  }

  abandon(): void {
    this.parts?.router.envelope?.assembler?.end();
  }

  /**
   * A JSON body covers another opened on the same text when the only difference is that its
   * shape accepts more keys: it names every call the other names, at the same character.
   */
  covers(other: CallBody): boolean {
    if (!(other instanceof JsonCallsBody)) return false;
    const mine = this.config;
    const theirs = other.config;
    return (
      mine.closer === theirs.closer &&
      mine.jsonPrefix === theirs.jsonPrefix &&
      // A lead refuses layouts or keys: mine must read at least every one theirs reads.
      (mine.lead === undefined ||
        (theirs.lead !== undefined &&
          mine.lead.objectToOpen === theirs.lead.objectToOpen &&
          theirs.lead.keys.every((key) => mine.lead!.keys.includes(key)))) &&
      mine.speculative === theirs.speculative &&
      (mine.skipLanguageTag ?? false) === (theirs.skipLanguageTag ?? false) &&
      mine.header === theirs.header &&
      (mine.fencedJson ?? false) === (theirs.fencedJson ?? false) &&
      (mine.strictJson ?? false) === (theirs.strictJson ?? false) &&
      mine.separator === theirs.separator &&
      (mine.perLine ?? false) === (theirs.perLine ?? false) &&
      // Consuming a stray closer the other leaves as text changes nothing of its calls.
      (theirs.strayCloser === undefined || mine.strayCloser === theirs.strayCloser) &&
      (mine.shape.nameAsKey ?? false) === (theirs.shape.nameAsKey ?? false) &&
      theirs.shape.nameKeys.every((key) => mine.shape.nameKeys.includes(key)) &&
      theirs.shape.argumentKeys.every((key) => mine.shape.argumentKeys.includes(key))
    );
  }
}
