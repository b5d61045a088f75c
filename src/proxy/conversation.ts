import type { ToolCallToFormat, ToolDefinition, ToolResponseToFormat } from '../core/index.ts';
import type { ToolChoice } from '../core/tool-choice-policy.ts';

/**
 * A chat request read from either API, in one neutral shape: the proxy renders it for the model
 * server the same way whichever API the client spoke.
 */
export interface ChatRequest {
  /** The model id, as the client named it: sent upstream and used to choose the format. */
  readonly model: string;
  /** The system text at the head of the conversation (`''` when there is none). */
  readonly system: string;
  readonly turns: readonly Turn[];
  readonly tools: readonly ToolDefinition[];
  readonly toolChoice: ToolChoiceSetting;
  /** False: the client wants at most one call per reply. */
  readonly parallelToolCalls: boolean;
  readonly stream: boolean;
  /** The client asked for usage in the stream (chat completions' `stream_options`). */
  readonly includeUsage: boolean;
  /** Sampling and other settings, already in chat completions' names, sent upstream as they are. */
  readonly settings: Readonly<Record<string, unknown>>;
}

/** The request's `tool_choice`, in the words of the one tool-choice policy (core). */
export type ToolChoiceSetting = ToolChoice;

/** A user message's content in chat completions' shape: text, or parts (text, images) kept as sent. */
export type UserContent = string | readonly Readonly<Record<string, unknown>>[];

export type Turn =
  | { readonly role: 'user'; readonly content: UserContent }
  /** A system message later in the conversation (the first ones are `ChatRequest.system`). */
  | { readonly role: 'system'; readonly content: string }
  | {
      readonly role: 'assistant';
      readonly text: string;
      readonly calls: readonly ToolCallToFormat[];
      /**
       * The model's reasoning before this reply's text and calls, as the client sent it back
       * (Anthropic's `thinking` blocks, chat completions' `reasoning_content`, Responses'
       * `reasoning` items); absent when there is none. Opaque reasoning (redacted or encrypted)
       * is never here: only a model server that made it could read it.
       */
      readonly reasoning?: string;
    }
  /** The results of one or more calls, in call order. */
  | { readonly role: 'tool-results'; readonly results: readonly ToolResponseToFormat[] };
