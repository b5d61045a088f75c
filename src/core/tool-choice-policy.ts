/**
 * What `tool_choice` means, decided once for every surface that enforces it (the AI SDK
 * middleware and the proxy): what the prompt demands, which tools it shows and which calls are
 * read, when a reply counts as cut off, the finish reason it reports, and when and how an answer
 * without the demanded call is asked again. Pure decisions: each surface reads the choice from its
 * own API, turns the plan into its own prompt and parts, and raises its own errors.
 */
import { correctionText, type ToolChoiceDemand } from './tool-choice.ts';

/** A tool choice, as either surface reads it from its API (OpenAI's `function` is `tool` here). */
export type ToolChoice =
  | { readonly type: 'auto' }
  | { readonly type: 'none' }
  | { readonly type: 'required' }
  | { readonly type: 'tool'; readonly toolName: string };

/** Anything with a tool's name: a tool definition, or a surface's own tool type. */
export interface NamedTool {
  readonly name: string;
}

/** What one reply needs to know about its tools, decided from the tool choice. */
export interface ToolChoicePlan<Tool extends NamedTool> {
  /**
   * The call the reply must make. `required` demands a call of any offered tool, a named choice a
   * call of that tool; `auto` and `none` demand nothing.
   */
  readonly demand: ToolChoiceDemand | undefined;
  /**
   * What the prompt says about tools: nothing when the call declares none (`no-tools`); that
   * they are unavailable for `none` (`tools-unavailable`: the model still sees earlier calls in
   * the conversation and must be told not to write more); else the offered tools (`tools`).
   */
  readonly prompt: 'no-tools' | 'tools-unavailable' | 'tools';
  /**
   * The tools described to the model: only the named one for a named choice (the model is not
   * tempted by the others), none for `none`, else all.
   */
  readonly offered: readonly Tool[];
  /**
   * The tools whose calls are read as calls, the same as those offered: none for `none` (a call
   * written anyway stays text, so nothing runs), only the named one for a named choice (a call of
   * another tool is text: the caller allowed that one tool for this reply, as a provider's native
   * `tool_choice` does, so the other call neither runs nor meets the demand).
   */
  readonly read: readonly Tool[];
}

/**
 * A tool choice that cannot be followed with the declared tools: `required` with no tools, or a
 * named tool that is not declared. Each surface decides what that means (the proxy refuses the
 * request; the middleware leaves it to the provider's own tools, or refuses it).
 */
export type ToolChoiceConflict =
  | { readonly conflict: 'no-tools' }
  | { readonly conflict: 'unknown-tool'; readonly toolName: string };

/**
 * The plan for one reply, or the conflict that keeps the choice from being followed (`auto` and
 * `none` never conflict).
 */
export function planToolChoice<Tool extends NamedTool>(
  choice: { readonly type: 'auto' | 'none' },
  tools: readonly Tool[],
): ToolChoicePlan<Tool>;
export function planToolChoice<Tool extends NamedTool>(
  choice: ToolChoice,
  tools: readonly Tool[],
): ToolChoicePlan<Tool> | ToolChoiceConflict;
export function planToolChoice<Tool extends NamedTool>(
  choice: ToolChoice,
  tools: readonly Tool[],
): ToolChoicePlan<Tool> | ToolChoiceConflict {
  switch (choice.type) {
    case 'auto':
      return {
        demand: undefined,
        prompt: tools.length === 0 ? 'no-tools' : 'tools',
        offered: tools,
        read: tools,
      };
    case 'none':
      return {
        demand: undefined,
        prompt: tools.length === 0 ? 'no-tools' : 'tools-unavailable',
        offered: [],
        read: [],
      };
    case 'required':
      if (tools.length === 0) return { conflict: 'no-tools' };
      return { demand: { type: 'required' }, prompt: 'tools', offered: tools, read: tools };
    case 'tool': {
      const named = tools.filter((tool) => tool.name === choice.toolName);
      if (named.length === 0) return { conflict: 'unknown-tool', toolName: choice.toolName };
      return {
        demand: { type: 'tool', toolName: choice.toolName },
        prompt: 'tools',
        offered: named,
        read: named,
      };
    }
  }
}

/** Whether `planToolChoice` found a conflict instead of a plan. */
export function isToolChoiceConflict<Tool extends NamedTool>(
  planned: ToolChoicePlan<Tool> | ToolChoiceConflict,
): planned is ToolChoiceConflict {
  return 'conflict' in planned;
}

/**
 * Whether a call of `toolName`, passed on to the caller as a call, meets the demand: any call
 * meets `required`, only the named tool's call meets a named choice; no demand is always met.
 * A call the caller gets as invalid (unreadable markup of a known tool) counts too: the caller
 * reports its failure to the model, which is the retry's job done another way.
 */
export function meetsDemand(demand: ToolChoiceDemand | undefined, toolName: string): boolean {
  return demand === undefined || demand.type === 'required' || demand.toolName === toolName;
}

/**
 * Why a reply ended, in one vocabulary (the AI SDK's unified finish reasons): each surface maps
 * its provider's words to these (chat completions' `content_filter` is `content-filter`,
 * vLLM's `abort` is `interrupted`, a word nobody knows is `other`).
 */
export type FinishCause =
  | 'stop'
  | 'length'
  | 'content-filter'
  | 'tool-calls'
  | 'error'
  | 'interrupted'
  | 'other';

/**
 * Whether the reply stopped for a reason other than the model's own stop: a token limit, a
 * content filter, an error, an abort, or no finish at all (`undefined`). Then a call still open at
 * the end was cut off and must not run, and a missing call is not the model ignoring the demand,
 * so no retry follows (the AI SDK does not enforce `toolChoice` after an interruption either).
 * `stop`, `tool-calls` and `other` are the model's own ends.
 */
export function isInterrupted(cause: FinishCause | undefined): boolean {
  switch (cause) {
    case 'stop':
    case 'tool-calls':
    case 'other':
      return false;
    default:
      return true;
  }
}

/**
 * The finish reason the caller sees: `tool-calls` when calls were read and the model ended by
 * itself (`stop`, or `other`: the calls are the news); a reason that says more (`length`, `error`,
 * `content-filter`, `interrupted`) is kept, as is `tool-calls` without calls read (a provider's
 * own native calls, which the middleware passes through).
 */
export function finishCauseFor(cause: FinishCause, calls: number): FinishCause {
  if (calls > 0 && (cause === 'stop' || cause === 'other')) return 'tool-calls';
  return cause;
}

/** What follows one attempt at a reply: keep it, ask again, or fail. */
export type AttemptVerdict = 'accept' | 'retry' | 'refuse';

/**
 * Whether an attempt stands. Without a demand, with the demand met, or when the reply was cut
 * off (see `isInterrupted`), it does. Otherwise the model answered without the demanded call: it
 * is asked again (with `retryTurns`) while `attempt` (1 for the first) is within `retries` extra
 * attempts, and after that the request fails with what the model wrote.
 */
export function judgeAttempt(attempt: {
  readonly demand: ToolChoiceDemand | undefined;
  readonly demandMet: boolean;
  readonly interrupted: boolean;
  /** Attempts made so far, this one included (1 for the first). */
  readonly number: number;
  /** Extra attempts allowed after the first. */
  readonly retries: number;
}): AttemptVerdict {
  if (attempt.demand === undefined || attempt.demandMet || attempt.interrupted) return 'accept';
  return attempt.number <= attempt.retries ? 'retry' : 'refuse';
}

/** One message a retry adds to the conversation, in words each surface puts in its own shape. */
export interface RetryTurn {
  readonly role: 'assistant' | 'user';
  readonly text: string;
}

/**
 * What a retry adds after the conversation: the model's answer without the call, as its own turn
 * (left out when it wrote nothing), then the correction, as the user, naming what is demanded.
 */
export function retryTurns(answer: string, demand: ToolChoiceDemand): RetryTurn[] {
  return [
    ...(answer.length > 0 ? [{ role: 'assistant' as const, text: answer }] : []),
    { role: 'user', text: correctionText(demand) },
  ];
}
