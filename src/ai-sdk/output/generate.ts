import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
} from '@ai-sdk/provider';
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
  let kind: 'text' | 'reasoning' = 'text';
  let pieces: string[] = [];
  const flush = () => {
    if (pieces.length === 0) return;
    content.push({ type: kind, text: pieces.join('') });
    pieces = [];
  };
  const take = (part: StreamPart) => {
    switch (part.type) {
      case 'text-start':
      case 'reasoning-start':
        flush();
        kind = part.type === 'text-start' ? 'text' : 'reasoning';
        break;
      case 'text-delta':
      case 'reasoning-delta':
        pieces.push(part.delta);
        break;
      case 'text-end':
      case 'reasoning-end':
        flush();
        break;
      case 'tool-call':
        flush();
        content.push(part);
        break;
      default:
        // tool-input-* only matter to streams.
        break;
    }
  };
  for (const part of input) {
    if (part.type === 'text') {
      step.push(part.text, take);
    } else {
      // What the parser has already given out comes first, so the order stays the model's.
      flush();
      content.push(part);
    }
  }
  step.end(interrupted, take);
  flush();
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
  const first = await doGenerate();
  const interrupted = isInterruption(first.finishReason);
  const translated = translateContent(first.content, plan, options, interrupted);
  if (!plan.demand || translated.demandMet || interrupted) {
    return {
      ...first,
      content: translated.content,
      finishReason: finishReasonFor(first.finishReason, translated.calls),
    };
  }
  if (!options.toolChoiceRetry) throw toolChoiceNotFollowed(plan.demand, translated.text, 1);
  const second = await model.doGenerate(retryParams(params, plan, translated.text));
  const again = translateContent(
    second.content,
    plan,
    options,
    isInterruption(second.finishReason),
  );
  if (!again.demandMet && !isInterruption(second.finishReason)) {
    throw toolChoiceNotFollowed(plan.demand, `${translated.text}\n\n${again.text}`, 2);
  }
  return {
    ...second,
    content: [...translated.content, ...again.content],
    usage: addUsage(first.usage, second.usage),
    finishReason: finishReasonFor(second.finishReason, translated.calls + again.calls),
    warnings: [...first.warnings, ...second.warnings],
  };
}
