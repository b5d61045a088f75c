import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
} from '@ai-sdk/provider';
import { judgeAttempt } from '../../core/tool-choice-policy.ts';
import { TextJoiner } from '../../protocols/engine/collect-content.ts';
import type { CallPlan } from '../call-plan.ts';
import { toolChoiceNotFollowed } from '../errors.ts';
import type { ResolvedOptions } from '../options.ts';
import { addUsage, finishReasonFor, isInterruption, retryParams } from './finish.ts';
import { StepOutput, type StreamPart } from './step-output.ts';

interface TranslatedContent {
  readonly content: LanguageModelV4Content[];
  readonly text: string;
  readonly calls: number;
  readonly demandMet: boolean;
}

/** A generate result's content with its text parsed: text, reasoning and tool-call parts, in order. */
function translateContent(
  input: readonly LanguageModelV4Content[],
  plan: CallPlan,
  options: ResolvedOptions,
  interrupted: boolean,
): TranslatedContent {
  const step = new StepOutput(plan, options);
  const content: LanguageModelV4Content[] = [];
  // Empty blocks are left out: a generate result has no use for an empty text part.
  const joiner = new TextJoiner((type, text) => {
    if (text.length > 0) content.push({ type, text });
  });
  const take = (part: StreamPart) => {
    if (joiner.take(part) || part.type !== 'tool-call') return;
    // tool-input-* parts only matter to streams.
    joiner.flush();
    content.push(part);
  };
  for (const part of input) {
    if (part.type === 'text') {
      step.push(part.text, take);
    } else {
      // What the parser has already given out comes first, so the order stays the model's.
      joiner.flush();
      content.push(part);
    }
  }
  step.end(interrupted, take);
  joiner.flush();
  return { content, text: step.text(), calls: step.calls, demandMet: step.demandMet };
}

/** `wrapGenerate`: parse the output; enforce a `toolChoice` demand (with one optional retry). */
export async function generateWithTools(
  doGenerate: () => PromiseLike<LanguageModelV4GenerateResult>,
  model: LanguageModelV4,
  params: LanguageModelV4CallOptions,
  plan: CallPlan,
  options: ResolvedOptions,
): Promise<LanguageModelV4GenerateResult> {
  const retries = options.toolChoiceRetry ? 1 : 0;
  const first = await doGenerate();
  const interrupted = isInterruption(first.finishReason);
  const translated = translateContent(first.content, plan, options, interrupted);
  const verdict = judgeAttempt({
    demand: plan.demand,
    demandMet: translated.demandMet,
    interrupted,
    number: 1,
    retries,
  });
  if (verdict === 'accept') {
    return {
      ...first,
      content: translated.content,
      finishReason: finishReasonFor(first.finishReason, translated.calls),
    };
  }
  const demand = plan.demand!;
  if (verdict === 'refuse') throw toolChoiceNotFollowed(demand, translated.text, 1);
  const second = await model.doGenerate(retryParams(params, demand, translated.text));
  const secondInterrupted = isInterruption(second.finishReason);
  const again = translateContent(second.content, plan, options, secondInterrupted);
  const secondVerdict = judgeAttempt({
    demand,
    demandMet: again.demandMet,
    interrupted: secondInterrupted,
    number: 2,
    retries,
  });
  if (secondVerdict !== 'accept') {
    throw toolChoiceNotFollowed(demand, `${translated.text}\n\n${again.text}`, 2);
  }
  return {
    ...second,
    content: [...translated.content, ...again.content],
    usage: addUsage(first.usage, second.usage),
    finishReason: finishReasonFor(second.finishReason, translated.calls + again.calls),
    warnings: [...first.warnings, ...second.warnings],
  };
}
