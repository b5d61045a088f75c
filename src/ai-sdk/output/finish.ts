import type {
  LanguageModelV4CallOptions,
  LanguageModelV4FinishReason,
  LanguageModelV4Message,
  LanguageModelV4Usage,
} from '@ai-sdk/provider';
import type { ToolChoiceDemand } from '../../core/tool-choice.ts';
import { finishCauseFor, isInterrupted, retryTurns } from '../../core/tool-choice-policy.ts';

/** Whether the output was cut off (the policy's `isInterrupted`; no finish at all is one). */
export function isInterruption(reason: LanguageModelV4FinishReason | undefined): boolean {
  return isInterrupted(reason?.unified);
}

/** The finish reason the caller sees (the policy's `finishCauseFor`), keeping the provider's raw one. */
export function finishReasonFor(
  reason: LanguageModelV4FinishReason,
  calls: number,
): LanguageModelV4FinishReason {
  const unified = finishCauseFor(reason.unified, calls);
  return unified === reason.unified ? reason : { unified, raw: reason.raw };
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

/** The call again, with the policy's retry turns (the answer, the correction) appended. */
export function retryParams(
  params: LanguageModelV4CallOptions,
  demand: ToolChoiceDemand,
  answer: string,
): LanguageModelV4CallOptions {
  const turns: LanguageModelV4Message[] = retryTurns(answer, demand).map(({ role, text }) => ({
    role,
    content: [{ type: 'text', text }],
  }));
  return { ...params, prompt: [...params.prompt, ...turns] };
}
