import type { ParseEvent, ToolDefinition } from '../../../core/index.ts';
import {
  type LenientJsonResult,
  parseLenientJson,
  readLenientJson,
} from '../../../scan/lenient-json.ts';
import { CallAssembler } from '../../engine/call-assembler.ts';
import type { CallContext, CallOutcome } from '../../engine/call-body.ts';
import { ForwardingContext } from '../../engine/forwarding-context.ts';
import type { JsonBlockSpan } from './json-block-span.ts';
import type { JsonCallsBodyConfig } from './json-call-config.ts';
import { Envelope, type JsonEnvelopeRouter } from './json-envelopes.ts';

type Held = () => void;

/**
 * The context of a block of JSON calls: what the body says about elements that are not calls
 * (their text, their faults) waits for the block's first call, and goes out before it.
 * - When no call comes and the block ends as a fault or as text, what was held goes: the block's
 *   raw text, given back whole, already holds those elements (given back twice otherwise).
 * - A speculative block (bare or fenced JSON, which may be the model's data) that makes no call
 *   is the text it was, brackets and all: `[{"name": "Ada", "age": 36}]` is an answer, not a
 *   batch with nothing in it.
 * - An explicit block that ends well with no call (`<tool_call>[{"a": 1}]</tool_call>`) gives
 *   back what was held: its elements, each reported where it stood.
 */
export class HeldElementsContext extends ForwardingContext {
  /** Held until the first call; undefined once one has come. */
  private held: Held[] | undefined = [];
  private readonly speculative: boolean;

  constructor(real: CallContext, speculative: boolean) {
    super(real);
    this.speculative = speculative;
  }

  override emit(event: ParseEvent): void {
    if (event.type === 'tool-call') this.release();
    this.real.emit(event);
  }

  override emitText(text: string): void {
    this.hold(() => this.real.emitText(text));
  }

  override reportFault(fault: Parameters<CallContext['reportFault']>[0]): void {
    this.hold(() => this.real.reportFault(fault));
  }

  override settle(outcome: CallOutcome): void {
    if (this.held === undefined) {
      this.real.settle(outcome);
      return;
    }
    if (this.speculative) {
      // No call came: the block is the text it was, and what was held about it goes.
      this.held = [];
      this.real.settle(outcome.kind === 'call' ? { kind: 'not-a-call' } : outcome);
      return;
    }
    if (outcome.kind === 'call') this.release();
    else this.held = [];
    this.real.settle(outcome);
  }

  private hold(action: Held): void {
    if (this.held) this.held.push(action);
    else action();
  }

  private release(): void {
    const held = this.held;
    this.held = undefined;
    for (const action of held ?? []) action();
  }
}

/**
 * How a block of JSON calls ends: complete, cut off, interrupted, or broken and repaired. It
 * decides the block's outcome (calls, text, or a fault) from what the router read.
 */
export class JsonCallsSettlement {
  /** The tool of a call that broke off, for the fault report. */
  private failedTool: string | undefined;

  private readonly context: CallContext;
  private readonly config: JsonCallsBodyConfig;
  private readonly router: JsonEnvelopeRouter;
  private readonly source: JsonBlockSpan;

  constructor(
    context: CallContext,
    config: JsonCallsBodyConfig,
    router: JsonEnvelopeRouter,
    source: JsonBlockSpan,
  ) {
    this.context = context;
    this.config = config;
    this.router = router;
    this.source = source;
  }

  /** The block is text after all. */
  notACall(): void {
    // Arguments may already have streamed: close that input (no call follows it).
    this.endStreamedCall();
    this.router.dropAwaiting();
    this.context.settle({ kind: 'not-a-call' });
  }

  /** The block's end was read: repair if the JSON was broken, then settle what it was. */
  blockEnded(repair: boolean): void {
    if (!repair) {
      this.router.releaseAwaitingCalls();
      this.settleBlock();
    } else if (!this.settleUnreadableJson()) {
      this.repairAndEmit(false);
      this.settleAfterRepair(false);
    }
  }

  /** The output ended after the opener, before any JSON. */
  endedBeforeJson(): void {
    // A name header may have announced the call: its input ends with it.
    this.endStreamedCall();
    if (this.config.speculative) this.context.settle({ kind: 'not-a-call' });
    else {
      this.context.settle({
        kind: 'fault',
        code: 'incomplete-call',
        message: 'the output ended right after a tool-call opener',
      });
    }
  }

  /** The output ended while the JSON was being tokenized. */
  endedInJson(interrupted: boolean): void {
    const tokenizer = this.router.tokenizer;
    tokenizer.finish();
    if (tokenizer.status === 'complete') {
      this.endedAfterJson(interrupted);
      return;
    }
    // Bare or fenced JSON cut off before its arguments began is text.
    if (
      this.config.speculative &&
      this.router.callsEmitted === 0 &&
      this.router.awaitingCloser.length === 0 &&
      !this.router.envelope?.assembler?.hasStarted
    ) {
      this.context.settle({ kind: 'not-a-call' });
      return;
    }
    if (interrupted) this.settleInterruptedBlock();
    else this.settleCutJson();
  }

  /** The output ended while broken JSON was read raw, before its closer. */
  endedInRaw(interrupted: boolean): void {
    if (interrupted) {
      this.settleInterruptedBlock();
      return;
    }
    if (this.settleUnreadableJson()) return;
    // Required complete: only the closer may be missing, not a bracket or a string's end.
    const read = this.readRawJson(true);
    if (!read.ok && read.reason === 'incomplete') {
      this.settleCutJson();
      return;
    }
    // Broken but whole: only the closer is missing; what was read is what is emitted.
    this.repairAndEmit(true, read);
    this.settleAfterRepair(true);
  }

  /** The output ended after the JSON was complete (its closer may be missing). */
  endedAfterJson(interrupted: boolean): void {
    if (this.router.awaitingCloser.length > 0 && interrupted) {
      this.settleInterruptedBlock();
      return;
    }
    this.router.releaseAwaitingCalls();
    this.settleBlock();
  }

  /** Reads what the tokenizer could not: repairs the JSON, emits the envelopes not yet emitted. */
  private repairAndEmit(atEnd: boolean, read: LenientJsonResult = this.readRawJson(false)): void {
    // The calls whose JSON closed before it broke stand.
    this.router.releaseAwaitingCalls();
    const value = read.ok ? read.value : undefined;
    const inProgress = this.router.envelope;
    this.router.envelope = undefined;
    if (!read.ok && this.router.callsEmitted > 0) {
      // The calls before the break ran; what broke is reported with its text, never dropped.
      inProgress?.assembler?.end();
      const toolName = inProgress?.tool?.name;
      this.context.reportFault({
        code: 'malformed-call',
        message: `the block goes on after its calls with JSON that cannot be read: ${read.message}; it was not run`,
        raw: this.source.rawJsonText(inProgress?.startOffset ?? 0),
        ...(toolName ? { toolName } : {}),
        ...(inProgress?.assembler?.hasStarted
          ? { toolCallId: inProgress.assembler.toolCallId }
          : {}),
      });
      return;
    }
    if (this.config.header) {
      // The header named the tool: the repaired value is its arguments.
      if (
        inProgress?.tool &&
        value !== null &&
        typeof value === 'object' &&
        !Array.isArray(value)
      ) {
        this.router.completeFromValue(inProgress, value, atEnd);
      } else {
        inProgress?.assembler?.end();
        if (inProgress?.tool) this.failedTool = inProgress.tool.name;
      }
      return;
    }
    const candidates = Array.isArray(value) ? value : value === undefined ? [] : [value];
    let emitted = false;
    const closedInValue = this.router.envelopesClosed - this.router.envelopesBeforeValue;
    for (const candidate of candidates.slice(closedInValue)) {
      if (candidate === null || typeof candidate !== 'object' || Array.isArray(candidate)) continue;
      const record = candidate as Record<string, unknown>;
      const nameKey = this.config.shape.nameAsKey
        ? undefined
        : this.config.shape.nameKeys.find((key) => typeof record[key] === 'string');
      const name = this.config.shape.nameAsKey
        ? Object.keys(record)[0]
        : nameKey
          ? (record[nameKey] as string)
          : undefined;
      const tool = name === undefined ? undefined : this.context.options.toolsByName.get(name);
      if (!tool) {
        if (name !== undefined) this.router.unknownTool = true;
        continue;
      }
      const argumentKey = this.config.shape.nameAsKey
        ? name
        : this.config.shape.argumentKeys.find((key) => Object.hasOwn(record, key));
      let rawArguments: unknown = argumentKey ? record[argumentKey] : {};
      // Not JSON: keep the string; validation will say what was expected.
      if (typeof rawArguments === 'string') {
        rawArguments =
          parseLenientJson(rawArguments, { maxDepth: this.context.options.maxDepth }) ??
          rawArguments;
      }
      const envelope = !emitted && inProgress?.tool === tool ? inProgress : this.envelopeFor(tool);
      this.router.completeFromValue(envelope, rawArguments, atEnd);
      emitted = true;
    }
    if (inProgress?.assembler && !emitted) inProgress.assembler.end();
    if (inProgress?.tool) this.failedTool = inProgress.tool.name;
  }

  private envelopeFor(tool: ToolDefinition): Envelope {
    const envelope = new Envelope(0);
    envelope.tool = tool;
    envelope.assembler = new CallAssembler(this.context, tool);
    return envelope;
  }

  /**
   * JSON that no repair may read: nested deeper than `maxDepth`, or broken in a protocol whose
   * JSON must be valid. Settles the fault and returns true; false when a repair may try.
   */
  private settleUnreadableJson(): boolean {
    const failure = this.router.failure;
    if (failure?.tooDeep) {
      this.endStreamedCall();
      this.context.settle({
        kind: 'fault',
        code: 'too-deep',
        message: `the tool call's JSON nests deeper than maxDepth (${this.context.options.maxDepth}): ${failure.message}`,
        ...(this.failedToolName() ? { toolName: this.failedToolName() } : {}),
      });
      return true;
    }
    if (!this.config.strictJson) return false;
    // JSON that must be valid is not: the whole block is reported, and none of its calls runs.
    this.endStreamedCall();
    this.router.dropAwaiting();
    const toolName = this.failedToolName();
    this.context.settle({
      kind: 'fault',
      code: 'malformed-call',
      message: `the block is not valid JSON: ${failure?.message ?? 'it does not begin with [ or {'}; none of its calls was run`,
      ...(toolName ? { toolName } : {}),
    });
    return true;
  }

  /** Closes the input streams of the calls that had begun when their block broke off. */
  private endStreamedCall(): void {
    this.router.envelope?.assembler?.end();
    for (const envelope of this.router.awaitingCloser) envelope.assembler?.end();
  }

  private failedToolName(): string | undefined {
    return this.router.envelope?.tool?.name ?? this.router.awaitingCloser[0]?.tool?.name;
  }

  /** The output was interrupted inside the block: none of its calls runs. */
  private settleInterruptedBlock(): void {
    this.endStreamedCall();
    const toolName = this.failedToolName();
    this.context.settle({
      kind: 'fault',
      code: 'incomplete-call',
      message: `the output was cut off before the ${toolName ? `call to "${toolName}"` : 'tool call'} was closed; it was not run`,
      ...(toolName ? { toolName } : {}),
    });
  }

  /** The JSON was complete. */
  private settleBlock(): void {
    if (this.router.rootIsArray || this.router.callsEmitted > 0 || this.config.perLine) {
      // A batch (or a block of call lines) is a recognised block even when empty; its elements
      // spoke for themselves.
      this.context.settle({ kind: 'call' });
    } else if (this.router.unknownTool || this.config.speculative) {
      // A call to an undeclared tool is not a call: the whole block stays text.
      this.context.settle({ kind: 'not-a-call' });
    } else {
      this.context.settle({
        kind: 'fault',
        code: 'malformed-call',
        message: `the block holds no tool call: expected {"${this.config.shape.nameKeys[0]}": "<tool name>", "${this.config.shape.argumentKeys[0]}": {…}}`,
      });
    }
  }

  /** The JSON was broken or cut off, and `repairAndEmit` has done what it could. */
  private settleAfterRepair(atEnd: boolean): void {
    if (this.router.callsEmitted > 0) {
      this.context.settle({ kind: 'call' });
    } else if (this.router.unknownTool || this.config.speculative) {
      this.context.settle({ kind: 'not-a-call' });
    } else if (!this.router.faultSettled) {
      this.context.settle({
        kind: 'fault',
        code: atEnd ? 'incomplete-call' : 'malformed-call',
        message: this.router.failure
          ? `the tool call is not valid JSON and no call could be read from it: ${this.router.failure.message}`
          : atEnd
            ? 'the output ended inside a tool call that could not be completed'
            : 'the block holds no tool call that could be read',
        ...(this.failedTool ? { toolName: this.failedTool } : {}),
      });
    }
  }
  /**
   * The output ended inside the JSON: the call being read is reported, never completed (a call
   * cut at `{"name": "get_weather", "argu` is not `get_weather {}`). Calls of a batch that closed
   * before it stand.
   */
  private settleCutJson(): void {
    this.router.releaseAwaitingCalls();
    const envelope = this.router.envelope;
    const toolName = envelope?.tool?.name ?? this.failedToolName();
    const message = `the output ended inside ${toolName ? `a call to "${toolName}"` : 'a tool call'} before its JSON was complete; the call was not run`;
    if (this.router.callsEmitted === 0) {
      this.endStreamedCall();
      this.context.settle({
        kind: 'fault',
        code: 'incomplete-call',
        message,
        ...(toolName ? { toolName } : {}),
        ...(envelope?.assembler?.hasStarted ? { toolCallId: envelope.assembler.toolCallId } : {}),
      });
      return;
    }
    this.endStreamedCall();
    if (envelope === undefined) {
      // Cut between the elements of a batch: only its closing markup is missing.
      this.context.settle({ kind: 'call' });
      return;
    }
    this.context.reportFault({
      code: 'incomplete-call',
      message,
      raw: this.source.jsonText(envelope.startOffset),
      ...(toolName ? { toolName } : {}),
      ...(envelope.assembler?.hasStarted ? { toolCallId: envelope.assembler.toolCallId } : {}),
    });
    this.context.settle({ kind: 'call' });
  }

  /** The broken JSON read so far, read loosely (see `readLenientJson`). */
  private readRawJson(requireComplete: boolean): LenientJsonResult {
    return readLenientJson(this.source.rawJsonText(), {
      maxDepth: this.context.options.maxDepth,
      requireComplete,
    });
  }
}
