import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4StreamResult,
} from '@ai-sdk/provider';
import type { ToolChoiceDemand } from '../../core/tool-choice.ts';
import { judgeAttempt } from '../../core/tool-choice-policy.ts';
import type { CallPlan } from '../call-plan.ts';
import { toolChoiceNotFollowed } from '../errors.ts';
import type { ResolvedOptions } from '../options.ts';
import { addUsage, finishReasonFor, isInterruption, retryParams } from './finish.ts';
import { ReadAhead } from './read-ahead.ts';
import { type Emit, StepOutput, type StreamPart } from './step-output.ts';

type FinishPart = Extract<StreamPart, { type: 'finish' }>;
type DeltaPart = Extract<StreamPart, { type: 'text-delta' | 'tool-input-delta' }>;
type ReadResult = Awaited<ReturnType<ReadableStreamDefaultReader<StreamPart>['read']>>;

/** Most provider parts one pull handles while more keep arriving without a wait. */
const MAX_BATCH = 2048;
/**
 * Most provider text one parser push takes when text deltas are joined (see `pendingText`): big
 * enough that a burst of small deltas costs one push, small enough to bound what is held.
 */
const MAX_JOINED_TEXT = 64 * 1024;

/**
 * The provider's stream with its text parsed. A pull source rather than a TransformStream: one
 * stream stage instead of two, and when the provider's stream fails the output can still be
 * closed properly (the open call reported with its raw text) before the failure is passed on.
 * Text deltas go to the parser; the provider's own text-start/end are dropped (the parser opens
 * and closes its blocks); every other part is passed on as it is, in order.
 *
 * Parts the provider has already delivered are handled in one pull, and the deltas they yield
 * for one block are joined into one delta: the consumer reads fewer parts, and nothing waits for
 * text that has not arrived (a pull returns as soon as the next provider part is not there yet).
 */
class StreamTranslator {
  private reader: ReadableStreamDefaultReader<StreamPart>;
  private step: StepOutput;
  private controller: ReadableStreamDefaultController<StreamPart> | undefined;
  /** Parts handed out during the current pull: a pull returns once it has given something. */
  private given = 0;
  /** A delta held back to be joined with the next one of the same block. */
  private held: DeltaPart | undefined;
  private heldDelta = '';
  /**
   * Provider text deltas already delivered and not yet parsed, joined so the parser gets one push
   * for a burst of them (a parser push has a cost of its own, and a call cut across many small
   * deltas is read in many pieces). Parsed before any other part is handled and before a pull
   * returns, so nothing waits for text that has not arrived and parts keep their order.
   */
  private pendingText = '';
  /** The provider's parts, read a few at a time. */
  private parts: ReadAhead<StreamPart>;
  private attempt = 1;
  private stepEnded = false;
  private finished = false;
  private sawError = false;
  /** Of the first attempt, when a retry runs. */
  private firstFinish: FinishPart | undefined;
  private firstText = '';
  private firstCalls = 0;
  /** The provider stream's failure, passed on once the parts made before it are read. */
  private failure: { readonly error: unknown } | undefined;

  private readonly model: LanguageModelV4;
  private readonly params: LanguageModelV4CallOptions;
  private readonly plan: CallPlan;
  private readonly options: ResolvedOptions;

  constructor(
    source: ReadableStream<StreamPart>,
    model: LanguageModelV4,
    params: LanguageModelV4CallOptions,
    plan: CallPlan,
    options: ResolvedOptions,
  ) {
    this.reader = source.getReader();
    this.parts = new ReadAhead(this.reader);
    this.model = model;
    this.params = params;
    this.plan = plan;
    this.options = options;
    this.step = new StepOutput(plan, options);
  }

  private readonly emit: Emit = (part) => {
    this.given++;
    if (part.type === 'text-delta' || part.type === 'tool-input-delta') {
      const held = this.held;
      if (held !== undefined && held.type === part.type && held.id === part.id) {
        this.heldDelta += part.delta;
        return;
      }
      this.release();
      this.held = part;
      this.heldDelta = part.delta;
      return;
    }
    this.release();
    this.controller!.enqueue(part);
  };

  /** Hands out the held delta (a new part only when deltas were joined into it). */
  private release(): void {
    const held = this.held;
    if (held === undefined) return;
    this.held = undefined;
    this.controller!.enqueue(
      held.delta === this.heldDelta
        ? held
        : { type: held.type, id: held.id, delta: this.heldDelta },
    );
  }

  start(controller: ReadableStreamDefaultController<StreamPart>): void {
    this.controller = controller;
  }

  async pull(controller: ReadableStreamDefaultController<StreamPart>): Promise<void> {
    if (this.failure) {
      controller.error(this.failure.error);
      return;
    }
    this.given = 0;
    let next: ReadResult | undefined;
    for (let handled = 0; ; handled++) {
      if (next === undefined) {
        try {
          next = await this.parts.next();
        } catch (error) {
          // Aborted or failed mid-output: close what is open, report the open call, then fail.
          this.parsePendingText();
          this.endStep(true);
          this.release();
          this.failure = { error };
          if (this.given === 0) controller.error(error);
          return;
        }
      }
      if (next.done) {
        // No finish part: the output was cut off.
        this.parsePendingText();
        this.endStep(true);
        this.release();
        controller.close();
        return;
      }
      const part = next.value;
      if (part.type !== 'text-delta') this.parsePendingText();
      switch (part.type) {
        case 'text-delta':
          this.pendingText += part.delta;
          if (this.pendingText.length >= MAX_JOINED_TEXT) this.parsePendingText();
          break;
        case 'text-start':
        case 'text-end':
          break;
        case 'finish':
          await this.finish(part);
          break;
        case 'error':
          this.sawError = true;
          this.emit(part);
          break;
        case 'stream-start':
          // A retry's stream-start would be a second one in the same step.
          if (this.attempt === 1) this.emit(part);
          break;
        default:
          this.emit(part);
      }
      next = undefined;
      if (this.given > 0 || this.pendingText.length > 0) {
        // Keep going only with parts that are already there.
        if (handled < MAX_BATCH) next = await this.parts.arrived();
        if (next === undefined) {
          this.parsePendingText();
          // Text that gave nothing yet (a call still open) does not end the pull: wait for more.
          if (this.given > 0) break;
        }
      }
    }
    this.release();
  }

  /** Parses the joined text deltas (see `pendingText`). */
  private parsePendingText(): void {
    const text = this.pendingText;
    if (text.length === 0) return;
    this.pendingText = '';
    this.step.push(text, this.emit);
  }

  cancel(reason: unknown): Promise<void> {
    return this.reader.cancel(reason);
  }

  private endStep(interrupted: boolean): void {
    if (this.stepEnded) return;
    this.stepEnded = true;
    this.step.end(interrupted, this.emit);
  }

  private async finish(part: FinishPart): Promise<void> {
    if (this.finished) {
      this.emit(part);
      return;
    }
    const interrupted = this.sawError || isInterruption(part.finishReason);
    this.endStep(interrupted);
    const demand = this.plan.demand;
    const verdict = judgeAttempt({
      demand,
      demandMet: this.step.demandMet,
      interrupted,
      number: this.attempt,
      retries: this.options.toolChoiceRetry ? 1 : 0,
    });
    if (verdict === 'retry' && (await this.retry(part, demand!))) return;
    if (verdict === 'refuse') {
      const text =
        this.attempt === 1 ? this.step.text() : `${this.firstText}\n\n${this.step.text()}`;
      this.emit({ type: 'error', error: toolChoiceNotFollowed(demand!, text, this.attempt) });
    }
    this.finished = true;
    const calls = this.firstCalls + this.step.calls;
    const usage = this.firstFinish ? addUsage(this.firstFinish.usage, part.usage) : part.usage;
    const finishReason = finishReasonFor(part.finishReason, calls);
    this.emit(
      usage === part.usage && finishReason === part.finishReason
        ? part
        : { ...part, usage, finishReason },
    );
  }

  /** Asks once more with a correction; its parts continue this stream. False if it failed. */
  private async retry(part: FinishPart, demand: ToolChoiceDemand): Promise<boolean> {
    this.firstFinish = part;
    this.firstText = this.step.text();
    this.firstCalls = this.step.calls;
    let retried: LanguageModelV4StreamResult;
    try {
      retried = await this.model.doStream(retryParams(this.params, demand, this.firstText));
    } catch (error) {
      this.emit({ type: 'error', error });
      this.firstFinish = undefined;
      this.firstCalls = 0;
      return false;
    }
    // Anything after the first attempt's finish is not wanted any more.
    this.reader.cancel().catch(() => {});
    this.reader = retried.stream.getReader();
    this.parts = new ReadAhead(this.reader);
    this.step = new StepOutput(this.plan, this.options);
    this.stepEnded = false;
    this.sawError = false;
    this.attempt = 2;
    return true;
  }
}

/** `wrapStream`: the provider's stream with its text turned into text, reasoning and tool calls. */
export async function streamWithTools(
  doStream: () => PromiseLike<LanguageModelV4StreamResult>,
  model: LanguageModelV4,
  params: LanguageModelV4CallOptions,
  plan: CallPlan,
  options: ResolvedOptions,
): Promise<LanguageModelV4StreamResult> {
  const result = await doStream();
  const translator = new StreamTranslator(result.stream, model, params, plan, options);
  return { ...result, stream: new ReadableStream(translator, { highWaterMark: 0 }) };
}
