import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4StreamResult,
} from '@ai-sdk/provider';
import type { CallPlan } from '../call-plan.ts';
import { toolChoiceNotFollowed } from '../errors.ts';
import type { ResolvedOptions } from '../options.ts';
import { addUsage, finishReasonFor, isInterruption, retryParams } from './finish.ts';
import { type Emit, StepOutput, type StreamPart } from './step-output.ts';

type FinishPart = Extract<StreamPart, { type: 'finish' }>;

/**
 * The provider's stream with its text parsed. A pull source rather than a TransformStream: one
 * stream stage instead of two, and when the provider's stream fails the output can still be
 * closed properly (the open call reported with its raw text) before the failure is passed on.
 * Text deltas go to the parser; the provider's own text-start/end are dropped (the parser opens
 * and closes its blocks); every other part is passed on as it is, in order.
 */
class StreamTranslator {
  private reader: ReadableStreamDefaultReader<StreamPart>;
  private step: StepOutput;
  private controller: ReadableStreamDefaultController<StreamPart> | undefined;
  /** Parts handed out during the current pull: a pull returns once it has given something. */
  private given = 0;
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
    this.model = model;
    this.params = params;
    this.plan = plan;
    this.options = options;
    this.step = new StepOutput(plan, options);
  }

  private readonly emit: Emit = (part) => {
    this.given++;
    this.controller!.enqueue(part);
  };

  start(controller: ReadableStreamDefaultController<StreamPart>): void {
    this.controller = controller;
  }

  async pull(controller: ReadableStreamDefaultController<StreamPart>): Promise<void> {
    if (this.failure) {
      controller.error(this.failure.error);
      return;
    }
    this.given = 0;
    while (this.given === 0) {
      let next: Awaited<ReturnType<ReadableStreamDefaultReader<StreamPart>['read']>>;
      try {
        next = await this.reader.read();
      } catch (error) {
        // Aborted or failed mid-output: close what is open, report the open call, then fail.
        this.endStep(true);
        this.failure = { error };
        if (this.given === 0) controller.error(error);
        return;
      }
      if (next.done) {
        // No finish part: the output was cut off.
        this.endStep(true);
        controller.close();
        return;
      }
      const part = next.value;
      switch (part.type) {
        case 'text-delta':
          this.step.push(part.delta, this.emit);
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
    }
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
    if (demand && !this.step.demandMet && !interrupted) {
      if (this.options.toolChoiceRetry && this.attempt === 1) {
        if (await this.retry(part)) return;
      } else {
        const text =
          this.attempt === 1 ? this.step.text() : `${this.firstText}\n\n${this.step.text()}`;
        this.emit({ type: 'error', error: toolChoiceNotFollowed(demand, text, this.attempt) });
      }
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
  private async retry(part: FinishPart): Promise<boolean> {
    this.firstFinish = part;
    this.firstText = this.step.text();
    this.firstCalls = this.step.calls;
    let retried: LanguageModelV4StreamResult;
    try {
      retried = await this.model.doStream(retryParams(this.params, this.plan, this.firstText));
    } catch (error) {
      this.emit({ type: 'error', error });
      this.firstFinish = undefined;
      return false;
    }
    // Anything after the first attempt's finish is not wanted any more.
    this.reader.cancel().catch(() => {});
    this.reader = retried.stream.getReader();
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
