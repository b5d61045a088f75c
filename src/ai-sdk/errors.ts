import { ToolwireError } from '../core/errors.ts';
import { notFollowedMessage, type ToolChoiceDemand } from '../core/tool-choice.ts';

/** What a `ToolMiddlewareError` is about: its `kind`, also given as `code`. */
export type ToolMiddlewareErrorCode =
  /** `toolChoice` required a call (any, or a named tool) and the model answered without one. */
  | 'tool-choice-not-followed'
  /** `toolChoice` names a tool that is not among the call's tools. */
  | 'unknown-tool-choice'
  /** The call has provider-defined tools and the middleware was told to refuse them. */
  | 'provider-tool-refused';

export type { ToolChoiceDemand };

/**
 * The marker of the releases before `ToolwireError`: still set, so their `isInstance` knows this
 * error, and still recognised, so an error from such a copy is known here.
 */
const LEGACY_MARKER = Symbol.for('toolwire.ai-sdk.ToolMiddlewareError');

/**
 * An error the middleware raises itself (protocol faults are never thrown: they go to `onError`).
 * `isInstance` works across copies of the package, like the AI SDK's own errors.
 */
export class ToolMiddlewareError extends ToolwireError {
  declare readonly kind: ToolMiddlewareErrorCode;
  /** The same as `kind` (the name this field had first; public API). */
  readonly code: ToolMiddlewareErrorCode;
  /** For `tool-choice-not-followed`: what was demanded. */
  readonly toolChoice?: ToolChoiceDemand;
  /** For `tool-choice-not-followed`: everything the model wrote, across attempts. */
  readonly text?: string;
  /** For `tool-choice-not-followed`: how many times the model was asked (2 after a retry). */
  readonly attempts?: number;
  readonly [LEGACY_MARKER] = true;

  constructor(
    code: ToolMiddlewareErrorCode,
    message: string,
    details: { toolChoice?: ToolChoiceDemand; text?: string; attempts?: number } = {},
  ) {
    super(code, message);
    // The name the docs give (`error.name === 'ToolwireToolMiddlewareError'`).
    this.name = 'ToolwireToolMiddlewareError';
    this.code = code;
    if (details.toolChoice !== undefined) this.toolChoice = details.toolChoice;
    if (details.text !== undefined) this.text = details.text;
    if (details.attempts !== undefined) this.attempts = details.attempts;
  }

  /** Also true for an error of the releases before `ToolwireError` (their marker). */
  static override isInstance<T extends ToolwireError>(
    this: abstract new (
      ...args: never[]
    ) => T,
    error: unknown,
  ): error is T {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class isInstance was called on.
    if (ToolwireError.isInstance.call(this, error)) return true;
    return (
      // biome-ignore lint/complexity/noThisInStatic: the old marker stands for this class only.
      (this as unknown) === ToolMiddlewareError &&
      typeof error === 'object' &&
      error !== null &&
      LEGACY_MARKER in error
    );
  }
}

/** How the caller wrote the demand, for the message. */
function settingText(demand: ToolChoiceDemand): string {
  return demand.type === 'tool'
    ? `toolChoice {type: 'tool', toolName: '${demand.toolName}'}`
    : "toolChoice 'required'";
}

export function toolChoiceNotFollowed(
  demand: ToolChoiceDemand,
  text: string,
  attempts: number,
): ToolMiddlewareError {
  return new ToolMiddlewareError(
    'tool-choice-not-followed',
    notFollowedMessage(settingText(demand), demand, text, attempts),
    { toolChoice: demand, text, attempts },
  );
}
