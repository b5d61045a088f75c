import type { ToolDefinition } from '../../../core/index.ts';
import { parseJsonText } from '../../../core/parse-json.ts';
import {
  createJsonTokenizer,
  decodeCanonicalString,
  type JsonTokenHandler,
  type JsonTokenizer,
} from '../../../scan/json-tokenizer.ts';
import {
  createJsonValueStreamer,
  type JsonValueStreamer,
} from '../../../scan/json-value-streamer.ts';
import { createValuePolicy } from '../../../schema/index.ts';
import { CallAssembler, MAX_KEPT_ARGUMENT_CHARS } from '../../engine/call-assembler.ts';
import type { CallContext } from '../../engine/call-body.ts';
import { describeProblems } from '../../engine/describe-problems.ts';
import type { JsonBlockSpan } from './json-block-span.ts';
import type { JsonCallsBodyConfig } from './json-call-config.ts';

/** Argument tokens' handlers here all take source pieces (the router's tokenizer passes them). */
type Handler = JsonTokenHandler & { stringSource(escaped: string): void };
type Recorded = readonly [keyof Handler, unknown];

function replay(handler: Handler, recorded: readonly Recorded[]): void {
  for (const [method, argument] of recorded) {
    (handler[method] as (value?: unknown) => void).call(handler, argument);
  }
}

/** Buffers token events until a consumer exists (arguments written before the tool's name). */
class TokenRecorder implements Handler {
  readonly recorded: Recorded[] = [];

  startObject(): void {
    this.recorded.push(['startObject', undefined]);
  }

  endObject(): void {
    this.recorded.push(['endObject', undefined]);
  }

  startArray(): void {
    this.recorded.push(['startArray', undefined]);
  }

  endArray(): void {
    this.recorded.push(['endArray', undefined]);
  }

  key(name: string): void {
    this.recorded.push(['key', name]);
  }

  startString(): void {
    this.recorded.push(['startString', undefined]);
  }

  stringChunk(text: string): void {
    this.recorded.push(['stringChunk', text]);
  }

  stringSource(escaped: string): void {
    this.recorded.push(['stringSource', escaped]);
  }

  endString(): void {
    this.recorded.push(['endString', undefined]);
  }

  primitive(value: number | boolean | null): void {
    this.recorded.push(['primitive', value]);
  }
}

function openIn(handler: Handler | undefined, kind: 'object' | 'array'): void {
  if (kind === 'object') handler?.startObject();
  else handler?.startArray();
}

function closeIn(handler: Handler | undefined, kind: 'object' | 'array'): void {
  if (kind === 'object') handler?.endObject();
  else handler?.endArray();
}

/**
 * One `{"name": …, "arguments": …}` object being read. It is also the handler of the nested
 * tokenizer that reads arguments written as a JSON string: each token goes where argument tokens
 * go at that moment, so arguments recorded before the name replay in order.
 */
export class Envelope implements Handler {
  name: string | undefined = undefined;
  /** The name read so far, while the name string streams. */
  nameText: string | undefined = undefined;
  tool: ToolDefinition | undefined = undefined;
  assembler: CallAssembler | undefined = undefined;
  streamer: JsonValueStreamer | undefined = undefined;
  /** Argument tokens written before the tool's name (made only when that happens). */
  recorder: TokenRecorder | undefined = undefined;
  argumentsSeen = false;
  /** Arguments written as a JSON string: a nested tokenizer reads the string's content. */
  argumentsText: { parts: string[]; tokenizer: JsonTokenizer } | undefined = undefined;

  readonly startOffset: number;

  constructor(startOffset: number) {
    this.startOffset = startOffset;
  }

  /** Where argument tokens go: the streamer once the tool is known, a recorder before. */
  argumentsHandler(): Handler {
    if (this.streamer) return this.streamer;
    this.recorder ??= new TokenRecorder();
    return this.recorder;
  }

  startObject(): void {
    this.argumentsHandler().startObject();
  }

  endObject(): void {
    this.argumentsHandler().endObject();
  }

  startArray(): void {
    this.argumentsHandler().startArray();
  }

  endArray(): void {
    this.argumentsHandler().endArray();
  }

  key(name: string): void {
    this.argumentsHandler().key(name);
  }

  startString(): void {
    this.argumentsHandler().startString();
  }

  stringChunk(text: string): void {
    this.argumentsHandler().stringChunk(text);
  }

  stringSource(escaped: string): void {
    this.argumentsHandler().stringSource(escaped);
  }

  endString(): void {
    this.argumentsHandler().endString();
  }

  primitive(value: number | boolean | null): void {
    this.argumentsHandler().primitive(value);
  }
}

/**
 * Turns a block's JSON tokens into calls: it is its tokenizer's handler, finds the envelope
 * objects (one, or the elements of a batch), streams each call's arguments to its assembler and
 * completes the call when its envelope closes. How the block ends is settled elsewhere
 * (json-calls-settlement.ts); this keeps what that needs to know.
 */
export class JsonEnvelopeRouter implements JsonTokenHandler {
  /** Made when first needed: a call read whole (see whole-json-call.ts) never needs one. */
  private madeTokenizer: JsonTokenizer | undefined;
  get tokenizer(): JsonTokenizer {
    // The router handles its tokenizer's tokens itself: one object per call, not a set of closures.
    this.madeTokenizer ??= createJsonTokenizer(this, {
      maxDepth: this.context.options.maxDepth,
      strict: this.config.strictJson ?? false,
      innerQuotesAt: this.innerQuotesAt,
      // Long argument strings pass to the writer as written, not decoded and escaped again.
      sourceStrings: true,
    });
    return this.madeTokenizer;
  }

  /**
   * Inner quotes are read only inside arguments (below the envelope): a quote closes the name
   * (and anything else of the envelope) at once, so the call starts as soon as its name is whole.
   */
  private readonly innerQuotesAt = (depth: number): boolean =>
    this.config.header !== undefined || depth > this.envelopeDepth;

  /** Why the JSON would not tokenize, without making a tokenizer when none was needed. */
  get failure(): JsonTokenizer['failure'] {
    return this.madeTokenizer?.failure;
  }

  private depth = 0;
  rootIsArray = false;
  private envelopeDepth = 1;
  /** The envelope being read, if any. */
  envelope: Envelope | undefined;
  /** The envelope key whose value comes next. */
  private pendingKey: string | undefined;
  /** Depth of the arguments or skipped value being routed (0: none). */
  private routeDepth = 0;
  private route: 'name' | 'arguments' | 'skip' | undefined;

  envelopesClosed = 0;
  /**
   * Envelopes closed by the values before this one, when a block holds several values one after
   * another (`{…}\n{…}` in one tag): a repair of the value being read skips only its own.
   */
  envelopesBeforeValue = 0;
  /** How many values came before this one in the block. */
  private valuesBefore = 0;
  /** An envelope's own fault (unclosed, invalid at the end) was already settled. */
  faultSettled = false;
  callsEmitted = 0;
  /** A call named a tool that is not declared. */
  unknownTool = false;
  /** Calls whose JSON closed, waiting for the block's closer before they are emitted. */
  readonly awaitingCloser: Envelope[] = [];
  /**
   * What a `perLine` block says about its lines that are not calls (their faults, their text),
   * held with the calls that wait for the closer so that it comes out in the order of the lines:
   * each runs before the waiting call at `position`.
   */
  readonly deferred: { readonly position: number; readonly action: () => void }[] = [];

  private readonly context: CallContext;
  private readonly config: JsonCallsBodyConfig;
  private readonly source: JsonBlockSpan;

  constructor(context: CallContext, config: JsonCallsBodyConfig, source: JsonBlockSpan) {
    this.context = context;
    this.config = config;
    this.source = source;
  }

  /**
   * Another value follows the one that ended, in the same block: a fresh tokenizer reads it, its
   * offsets counted from its own start (the framing moves the span's start there).
   */
  startNextValue(): void {
    this.madeTokenizer = undefined;
    this.depth = 0;
    this.rootIsArray = false;
    this.envelopeDepth = 1;
    this.envelope = undefined;
    // A value that broke off (a bad line of a `perLine` block) may have left a route open.
    this.route = undefined;
    this.routeDepth = 0;
    this.pendingKey = undefined;
    this.malformedElementStart = -1;
    this.envelopesBeforeValue = this.envelopesClosed;
    this.valuesBefore++;
  }

  /**
   * Whether each envelope speaks for itself, so the elements that are not calls are reported or
   * kept as text one by one: the elements of a batch, and the values of a tagged block that
   * holds several.
   */
  private get elementsSpeakForThemselves(): boolean {
    return (
      this.rootIsArray ||
      this.config.perLine === true ||
      (this.valuesBefore > 0 && this.config.closer !== undefined)
    );
  }

  /**
   * Runs `action` (a fault, text) where it stands among the calls: at once, or, while the calls
   * before it wait for the closer of a `perLine` block, when they are released.
   */
  inLineOrder(action: () => void): void {
    if (this.config.perLine === true && this.awaitingCloser.length > 0) {
      this.deferred.push({ position: this.awaitingCloser.length, action });
    } else action();
  }

  /** Forgets the calls and the held faults of a block that will not run (cut off, not a call). */
  dropAwaiting(): void {
    this.awaitingCloser.length = 0;
    this.deferred.length = 0;
  }

  /** A header named the tool before its JSON: that JSON is this one call's arguments. */
  beginNamedCall(name: string): void {
    this.envelope = new Envelope(0);
    this.nameComplete(name);
  }

  // ── the tokenizer's handler ───────────────────────────────────────────────────────────────

  // Argument tokens go straight to the envelope's handler: this is the hot path of a large
  // argument.

  /** Where argument tokens go now, if anywhere. */
  private argumentsTarget(): Handler | undefined {
    return this.route === 'arguments' && this.envelope
      ? this.envelope.argumentsHandler()
      : undefined;
  }

  startObject(): void {
    this.openContainer('object');
  }

  endObject(): void {
    this.closeContainer('object');
  }

  startArray(): void {
    this.openContainer('array');
  }

  endArray(): void {
    this.closeContainer('array');
  }

  key(name: string): void {
    if (this.routeDepth > 0) this.argumentsTarget()?.key(name);
    else if (this.depth === this.envelopeDepth) {
      this.pendingKey = name;
      if (this.config.shape.nameAsKey && this.envelope?.name === undefined) this.nameComplete(name);
    }
  }

  startString(): void {
    if (this.routeDepth > 0) {
      this.argumentsTarget()?.startString();
      return;
    }
    if (this.rootIsArray && this.depth === 1) {
      this.elementIsNotAnObject();
      return;
    }
    if (this.depth !== this.envelopeDepth || !this.envelope) return;
    this.beginRoute(this.routeForKey());
    if (this.route === 'name') this.envelope.nameText = '';
    else if (this.route === 'arguments') this.beginArgumentsText();
  }

  stringChunk(text: string): void {
    if (this.routeDepth > 0) {
      this.argumentsTarget()?.stringChunk(text);
      return;
    }
    const envelope = this.envelope;
    if (!envelope || this.depth !== this.envelopeDepth) return;
    if (this.route === 'name') {
      if (envelope.nameText !== undefined) envelope.nameText += text;
    } else if (this.route === 'arguments' && envelope.argumentsText) {
      envelope.argumentsText.parts.push(text);
      envelope.argumentsText.tokenizer.write(text);
    }
  }

  stringSource(escaped: string): void {
    if (this.routeDepth > 0) this.argumentsTarget()?.stringSource(escaped);
    // The envelope's own strings (a name, arguments as a string) are read decoded.
    else this.stringChunk(decodeCanonicalString(escaped));
  }

  endString(): void {
    if (this.routeDepth > 0) {
      this.argumentsTarget()?.endString();
      return;
    }
    const envelope = this.envelope;
    if (!envelope || this.depth !== this.envelopeDepth) return;
    if (this.route === 'name' && envelope.nameText !== undefined) {
      this.nameComplete(envelope.nameText);
    } else if (this.route === 'arguments') envelope.argumentsText?.tokenizer.finish();
    this.endRoute();
  }

  primitive(value: number | boolean | null): void {
    if (this.routeDepth > 0) {
      this.argumentsTarget()?.primitive(value);
      return;
    }
    if (this.rootIsArray && this.depth === 1) {
      this.elementIsNotAnObject();
      return;
    }
    if (this.depth !== this.envelopeDepth || !this.envelope) return;
    this.beginRoute(this.routeForKey());
    if (this.route === 'arguments') this.argumentsTarget()?.primitive(value);
    this.endRoute();
  }

  private openContainer(kind: 'object' | 'array'): void {
    if (this.routeDepth > 0) {
      this.routeDepth++;
      this.depth++;
      openIn(this.argumentsTarget(), kind);
      return;
    }
    if (this.depth === 0 && this.config.header) {
      // The whole value is the arguments of the call the opening tag named.
      this.depth = 1;
      this.envelopeDepth = 0;
      this.beginRoute('arguments');
      this.routeDepth = 1;
      openIn(this.argumentsTarget(), kind);
      return;
    }
    if (this.depth === 0) {
      this.rootIsArray = kind === 'array';
      this.envelopeDepth = kind === 'array' ? 2 : 1;
      this.depth = 1;
      if (kind === 'object') this.beginEnvelope();
      return;
    }
    if (this.rootIsArray && this.depth === 1) {
      this.depth = 2;
      if (kind === 'object') this.beginEnvelope();
      else {
        this.elementIsNotAnObject();
        this.beginRoute('skip');
        this.routeDepth = 1;
      }
      return;
    }
    this.depth++;
    this.beginRoute(this.routeForKey());
    this.routeDepth = 1;
    openIn(this.argumentsTarget(), kind);
  }

  private closeContainer(kind: 'object' | 'array'): void {
    if (this.routeDepth > 0) {
      closeIn(this.argumentsTarget(), kind);
      this.routeDepth--;
      this.depth--;
      if (this.routeDepth === 0) {
        this.endRoute();
        if (this.config.header && this.depth === 0) this.closeEnvelope();
      }
      return;
    }
    if (this.depth === this.envelopeDepth && kind === 'object') this.closeEnvelope();
    if (this.depth === 1 && this.rootIsArray) this.reportMalformedElement();
    this.depth--;
  }

  /** Offset where a batch element that is not an object began (reported when it ends). */
  private malformedElementStart = -1;

  private elementIsNotAnObject(): void {
    this.reportMalformedElement();
    this.malformedElementStart = this.tokenizer.offset;
  }

  /**
   * A batch element that is not a call object is reported with its raw text once the next
   * element or the batch's end shows where it stopped.
   */
  private reportMalformedElement(): void {
    if (this.malformedElementStart === -1) return;
    const raw = this.source
      .jsonText(this.malformedElementStart, this.tokenizer.offset)
      .replace(/[\s,]+$/, '');
    this.malformedElementStart = -1;
    this.envelopesClosed++;
    this.context.reportFault({
      code: 'malformed-call',
      message: `batch element ${this.envelopesClosed - 1} is not a call: expected {"${this.config.shape.nameKeys[0]}": "<tool name>", "${this.config.shape.argumentKeys[0]}": {…}}`,
      raw,
    });
  }

  private routeForKey(): 'name' | 'arguments' | 'skip' {
    const key = this.pendingKey;
    if (key === undefined || !this.envelope) return 'skip';
    if (this.config.shape.nameAsKey) {
      return key === this.envelope.name && !this.envelope.argumentsSeen ? 'arguments' : 'skip';
    }
    if (this.config.shape.nameKeys.includes(key) && this.envelope.name === undefined) return 'name';
    if (this.config.shape.argumentKeys.includes(key) && !this.envelope.argumentsSeen) {
      return 'arguments';
    }
    return 'skip';
  }

  private beginRoute(route: 'name' | 'arguments' | 'skip'): void {
    this.route = route;
    if (route === 'arguments' && this.envelope) this.envelope.argumentsSeen = true;
  }

  private endRoute(): void {
    this.route = undefined;
    this.pendingKey = undefined;
  }

  private beginEnvelope(): void {
    this.reportMalformedElement();
    this.envelope = new Envelope(this.tokenizer.offset);
    this.pendingKey = undefined;
  }

  private beginArgumentsText(): void {
    const envelope = this.envelope!;
    envelope.argumentsText = {
      parts: [],
      tokenizer: createJsonTokenizer(envelope, { maxDepth: this.context.options.maxDepth }),
    };
  }

  private nameComplete(name: string): void {
    const envelope = this.envelope!;
    envelope.name = name;
    const tool = this.context.options.toolsByName.get(name);
    if (!tool) return;
    envelope.tool = tool;
    envelope.assembler = new CallAssembler(this.context, tool);
    // A bare or fenced object is announced only once its arguments begin: until then it may be data.
    if (!this.config.speculative) envelope.assembler.start();
    // The assembler keeps the streamed JSON text. The streamer keeps the value too while it is
    // small (parsing the text back costs more than keeping a few strings); a large argument is
    // read back from the text at the end instead of being kept twice.
    envelope.streamer = createJsonValueStreamer(
      createValuePolicy(tool.inputSchema),
      envelope.assembler.delta,
      { maxKeptStringChars: MAX_KEPT_ARGUMENT_CHARS },
    );
    if (envelope.recorder) {
      replay(envelope.streamer, envelope.recorder.recorded);
      envelope.recorder = undefined;
    }
  }

  private closeEnvelope(): void {
    const envelope = this.envelope;
    this.envelope = undefined;
    this.envelopesClosed++;
    if (!envelope) return;
    // A bare or fenced object needs its arguments to be a call: `{"name": "x"}` alone is data.
    const lacksArguments = this.config.speculative && !envelope.argumentsSeen;
    if (!envelope.tool || !envelope.assembler || !envelope.streamer || lacksArguments) {
      envelope.assembler?.end();
      const raw = this.source.jsonText(envelope.startOffset, this.tokenizer.offset + 1);
      if (
        envelope.name === undefined &&
        this.elementsSpeakForThemselves &&
        !this.config.speculative
      ) {
        const fault = {
          code: 'malformed-call' as const,
          message: `batch element ${this.envelopesClosed} names no tool: expected {"${this.config.shape.nameKeys[0]}": "<tool name>", "${this.config.shape.argumentKeys[0]}": {…}}`,
          raw,
        };
        this.inLineOrder(() => this.context.reportFault(fault));
        return;
      }
      this.unknownTool = envelope.name !== undefined;
      // In a batch, an element naming an undeclared tool stays text; a lone one is handled when
      // the block ends (the whole block is then text).
      if (this.elementsSpeakForThemselves) this.inLineOrder(() => this.context.emitText(raw));
      return;
    }
    if (this.config.closer !== undefined) {
      // Calls are emitted when the block's closer comes (or text shows the model left it out):
      // an output cut off before it must not run them (see `finish`).
      this.awaitingCloser.push(envelope);
      return;
    }
    this.completeEnvelope(envelope);
  }

  private completeEnvelope(envelope: Envelope): void {
    const assembler = envelope.assembler!;
    const streamer = envelope.streamer!;
    const text = envelope.argumentsText;
    if (text && text.tokenizer.status !== 'complete') {
      // Arguments given as a string that is not JSON: take the string itself (validation says why).
      this.completeFromValue(envelope, text.parts.join(''), false);
      return;
    }
    if (!envelope.argumentsSeen) {
      streamer.startObject();
      streamer.endObject();
    }
    if (!streamer.isComplete) {
      this.completeFromValue(envelope, {}, false);
      return;
    }
    // The value is only validated. When the streamer let go of large strings, the streamed text
    // (JSON.stringify of the coerced value) is parsed back, unless nothing will look at it.
    const readBack = !streamer.keptStreamedStrings && this.context.options.validate;
    assembler.complete(readBack ? parseJsonText(assembler.inputText()) : streamer.value);
    this.callsEmitted++;
  }

  /** Emits the calls that waited for the closer, in order. */
  releaseAwaitingCalls(): void {
    const deferred = this.deferred;
    let next = 0;
    for (let index = 0; index < this.awaitingCloser.length; index++) {
      while (next < deferred.length && deferred[next]!.position <= index)
        deferred[next++]!.action();
      this.completeEnvelope(this.awaitingCloser[index]!);
    }
    while (next < deferred.length) deferred[next++]!.action();
    this.dropAwaiting();
  }

  /** Completes an envelope from a value obtained another way (repair, string arguments). */
  completeFromValue(envelope: Envelope, raw: unknown, atEnd: boolean): void {
    const tool = envelope.tool!;
    let assembler = envelope.assembler!;
    const value = createValuePolicy(tool.inputSchema).coerce(raw);
    const input = JSON.stringify(value) ?? 'null';
    const streamed = assembler.inputText();
    if (!input.startsWith(streamed)) {
      // What was streamed cannot be extended to this input: close it and start a fresh call.
      assembler.end();
      assembler = new CallAssembler(this.context, tool);
    }
    assembler.delta(input.slice(assembler === envelope.assembler ? streamed.length : 0));
    const problems = assembler.problemsFor(value);
    if (atEnd && problems.length > 0) {
      assembler.fail(
        'incomplete-call',
        `the output ended inside a call to "${tool.name}" that is not complete: ${describeProblems(problems)}`,
      );
      this.faultSettled = true;
      return;
    }
    assembler.complete(value, problems);
    this.callsEmitted++;
  }
}
