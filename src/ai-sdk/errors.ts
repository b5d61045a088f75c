import { describeDemand, type ToolChoiceDemand } from '../core/tool-choice.ts';

/** What a `ToolMiddlewareError` is about. */
export type ToolMiddlewareErrorCode =
  /** `toolChoice` required a call (any, or a named tool) and the model answered without one. */
  | 'tool-choice-not-followed'
  /** `toolChoice` names a tool that is not among the call's tools. */
  | 'unknown-tool-choice'
  /** The call has provider-defined tools and the middleware was told to refuse them. */
  | 'provider-tool-refused';

export type { ToolChoiceDemand };

const MARKER = Symbol.for('toolwire.ai-sdk.ToolMiddlewareError');

/**
 * An error the middleware raises itself (protocol faults are never thrown: they go to `onError`).
 * `isInstance` works across copies of the package, like the AI SDK's own errors.
 */
export class ToolMiddlewareError extends Error {
  readonly code: ToolMiddlewareErrorCode;
  /** For `tool-choice-not-followed`: what was demanded. */
  readonly toolChoice?: ToolChoiceDemand;
  /** For `tool-choice-not-followed`: everything the model wrote, across attempts. */
  readonly text?: string;
  /** For `tool-choice-not-followed`: how many times the model was asked (2 after a retry). */
  readonly attempts?: number;
  readonly [MARKER] = true;

  constructor(
    code: ToolMiddlewareErrorCode,
    message: string,
    details: { toolChoice?: ToolChoiceDemand; text?: string; attempts?: number } = {},
  ) {
    super(message);
    this.name = 'ToolwireToolMiddlewareError';
    this.code = code;
    if (details.toolChoice !== undefined) this.toolChoice = details.toolChoice;
    if (details.text !== undefined) this.text = details.text;
    if (details.attempts !== undefined) this.attempts = details.attempts;
  }

  static isInstance(error: unknown): error is ToolMiddlewareError {
    return typeof error === 'object' && error !== null && MARKER in error;
  }
}

export function toolChoiceNotFollowed(
  demand: ToolChoiceDemand,
  text: string,
  attempts: number,
): ToolMiddlewareError {
  const shown = text.length > 200 ? `${text.slice(0, 200)}…` : text;
  const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
  return new ToolMiddlewareError(
    'tool-choice-not-followed',
    `toolChoice ${demand.type === 'tool' ? `{type: 'tool', toolName: '${demand.toolName}'}` : "'required'"} demanded ${describeDemand(demand)}, but the model answered without one${tries}. It wrote: ${JSON.stringify(shown)}`,
    { toolChoice: demand, text, attempts },
  );
}
