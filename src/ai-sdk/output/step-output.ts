import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import {
  createIdGenerator,
  type IdGenerator,
  type ParseEvent,
  type ProtocolFault,
  type StreamParser,
  type ToolCallEvent,
} from '../../core/index.ts';
import { parseJsonText } from '../../core/parse-json.ts';
import { meetsDemand } from '../../core/tool-choice-policy.ts';
import type { CallPlan } from '../call-plan.ts';
import { METADATA_KEY, problemsMetadata, type ToolCallMetadata } from '../metadata.ts';
import type { ResolvedOptions } from '../options.ts';

export type StreamPart = LanguageModelV4StreamPart;

/**
 * The default id source, one per process: its counter keeps ids unique across steps, and a step
 * does not pay for random bytes (a new generator costs about 2.5 µs).
 */
let sharedIds: IdGenerator | undefined;

function defaultIds(): IdGenerator {
  sharedIds ??= createIdGenerator('tw');
  return sharedIds;
}
export type Emit = (part: StreamPart) => void;

function isJsonText(text: string): boolean {
  try {
    parseJsonText(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The text of one model output (one step, or one attempt of it) turned into AI SDK stream parts.
 * The protocol's events already carry the SDK's part names and shapes, so most are handed on as
 * they are; this adds what only the middleware decides: protocol faults go to `onError` and come
 * out as an invalid call or as text, schema problems move into `providerMetadata`, and a call that
 * was still open when the output was cut off is never passed on as a call.
 */
export class StepOutput {
  /** Calls passed on (valid, invalid by schema, or made from unreadable markup). */
  calls = 0;
  /** Whether a call satisfies the plan's `toolChoice` demand (always true without one). */
  demandMet: boolean;

  private readonly parser: StreamParser;
  private readonly plan: CallPlan;
  private readonly options: ResolvedOptions;
  private readonly chunks: string[] = [];
  private readonly ids: IdGenerator;

  constructor(plan: CallPlan, options: ResolvedOptions) {
    this.plan = plan;
    this.options = options;
    this.demandMet = plan.demand === undefined;
    this.ids = options.generateId ?? defaultIds();
    // One id source for the parser and for the parts made here, so ids never collide.
    this.parser = options.protocol.createStreamParser({
      ...plan.parseOptions,
      generateId: this.ids,
    });
  }

  /** Everything the model wrote so far in this output. */
  text(): string {
    return this.chunks.join('');
  }

  /** Parses one more piece of the model's text. */
  push(text: string, emit: Emit): void {
    this.chunks.push(text);
    const events = this.parser.push(text);
    for (let index = 0; index < events.length; index++) this.pass(events[index]!, emit);
  }

  /**
   * The output is over. `interrupted`: it stopped for a reason other than the model's own stop
   * (a stream error, an abort, the token limit, no finish at all), so a call it was still writing
   * is incomplete: the parser reports it (`incomplete-call`) and never completes it.
   */
  end(interrupted: boolean, emit: Emit): void {
    const events = this.parser.end({ interrupted });
    for (let index = 0; index < events.length; index++) this.pass(events[index]!, emit);
  }

  private pass(event: ParseEvent, emit: Emit): void {
    switch (event.type) {
      case 'tool-call':
        this.call(event, emit);
        return;
      case 'error':
        this.fault(event.error, emit);
        return;
      default:
        // text-*, reasoning-*, tool-input-*: already AI SDK stream parts.
        emit(event as StreamPart);
    }
  }

  private call(event: ToolCallEvent, emit: Emit): void {
    this.noteCall(event.toolName);
    if (event.problems === undefined) {
      emit(event as StreamPart);
      return;
    }
    // The SDK validates the input against the tool's schema and feeds errors back to the model;
    // our findings travel along for whoever wants them.
    emit({
      type: 'tool-call',
      toolCallId: event.toolCallId,
      toolName: event.toolName,
      input: event.input,
      providerMetadata: problemsMetadata(event.problems),
    });
  }

  private noteCall(toolName: string): void {
    this.calls++;
    if (meetsDemand(this.plan.demand, toolName)) this.demandMet = true;
  }

  /** A fault: reported to `onError`, then passed on as an invalid call or as text. */
  private fault(fault: ProtocolFault, emit: Emit): void {
    this.options.onError?.(fault);
    // Dropped markup inside a call that went on, or a call in reasoning already shown: nothing
    // more to pass on.
    if (fault.dropped || fault.inReasoning) return;
    const { raw, toolName } = fault;
    if (
      this.options.malformedCalls === 'invalid-call' &&
      toolName !== undefined &&
      raw.trim().length > 0 &&
      // Raw markup is never JSON; if it ever were, the SDK could run it, so keep it as text.
      !isJsonText(raw)
    ) {
      let toolCallId = fault.toolCallId;
      if (toolCallId === undefined) {
        toolCallId = this.ids();
        emit({ type: 'tool-input-start', id: toolCallId, toolName });
        emit({ type: 'tool-input-delta', id: toolCallId, delta: raw });
        emit({ type: 'tool-input-end', id: toolCallId });
      }
      const metadata: ToolCallMetadata = {
        fault: { code: fault.code, message: fault.message },
        raw,
      };
      this.noteCall(toolName);
      // The input is the raw text: the SDK cannot parse it, so it never runs the call, and it
      // reports the failure to the model on the next step (re-rendered there with our reason).
      emit({
        type: 'tool-call',
        toolCallId,
        toolName,
        input: raw,
        providerMetadata: { [METADATA_KEY]: metadata },
      });
      return;
    }
    if (raw.length === 0) return;
    const id = this.ids();
    emit({ type: 'text-start', id });
    emit({ type: 'text-delta', id, delta: raw });
    emit({ type: 'text-end', id });
  }
}
