import type {
  LanguageModelV4CallOptions,
  LanguageModelV4FinishReason,
  LanguageModelV4Usage,
} from '@ai-sdk/provider';
import { correctionText } from '../../core/tool-choice.ts';
import type { CallPlan } from '../call-plan.ts';

/**
 * Whether the output stopped for a reason other than the model's own stop. Then a call still
 * open at the end was cut off and must not run, and a missing call is not the model ignoring
 * `toolChoice` (the AI SDK does not enforce it after an interruption either).
 */
export function isInterruption(reason: LanguageModelV4FinishReason | undefined): boolean {
  if (reason === undefined) return true;
  switch (reason.unified) {
    case 'error':
    case 'length':
    case 'content-filter':
    case 'interrupted':
      return true;
    default:
      return false;
  }
}

/**
 * `tool-calls` when calls were found and the model stopped by itself; a reason that says more
 * (token limit, error, content filter) is kept.
 */
export function finishReasonFor(
  reason: LanguageModelV4FinishReason,
  calls: number,
): LanguageModelV4FinishReason {
  if (calls === 0 || reason.unified === 'tool-calls') return reason;
  if (reason.unified !== 'stop' && reason.unified !== 'other') return reason;
  return { unified: 'tool-calls', raw: reason.raw };
}

function add(first: number | undefined, second: number | undefined): number | undefined {
  return first === undefined && second === undefined ? undefined : (first ?? 0) + (second ?? 0);
}

/** The usage of two attempts of one step, added up. */
export function addUsage(
  first: LanguageModelV4Usage,
  second: LanguageModelV4Usage,
): LanguageModelV4Usage {
  return {
    inputTokens: {
      total: add(first.inputTokens.total, second.inputTokens.total),
      noCache: add(first.inputTokens.noCache, second.inputTokens.noCache),
      cacheRead: add(first.inputTokens.cacheRead, second.inputTokens.cacheRead),
      cacheWrite: add(first.inputTokens.cacheWrite, second.inputTokens.cacheWrite),
    },
    outputTokens: {
      total: add(first.outputTokens.total, second.outputTokens.total),
      text: add(first.outputTokens.text, second.outputTokens.text),
      reasoning: add(first.outputTokens.reasoning, second.outputTokens.reasoning),
    },
  };
}

/** The call again, with the model's answer and the correction appended. */
export function retryParams(
  params: LanguageModelV4CallOptions,
  plan: CallPlan,
  answer: string,
): LanguageModelV4CallOptions {
  return {
    ...params,
    prompt: [
      ...params.prompt,
      ...(answer.length > 0
        ? [{ role: 'assistant' as const, content: [{ type: 'text' as const, text: answer }] }]
        : []),
      { role: 'user', content: [{ type: 'text', text: correctionText(plan.demand!) }] },
    ],
  };
}
