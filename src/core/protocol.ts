import type { ParseEvent, ToolCallEvent } from './events.ts';
import type { IdGenerator } from './ids.ts';
import type { ProtocolFault } from './problems.ts';
import type { ToolCallToFormat, ToolDefinition, ToolResponseToFormat } from './tool.ts';

/** Options shared by every protocol's parsers. */
export interface ParseOptions {
  /** The declared tools. Only these open a call; anything else stays text. */
  readonly tools: readonly ToolDefinition[];
  /**
   * Largest number of characters one call may span, markup included. Past it the call is
   * abandoned with a `call-too-large` error and parsing resumes as text. Default 16 MiB.
   */
  readonly maxCallChars?: number;
  /**
   * Also emit the raw text of malformed markup as text (after its `error` event), so a reader
   * sees exactly what the model wrote. Default `true`.
   */
  readonly emitRawTextOnError?: boolean;
  /**
   * The output begins inside a reasoning block (the prompt template already opened `<think>`,
   * as QwQ and DeepSeek-R1 templates do): text before the first `</think>` is reasoning.
   * Default `false`.
   */
  readonly startInReasoning?: boolean;
  /** Validate each call's input against its tool's schema. Default `true`. */
  readonly validate?: boolean;
  /** Id source for text, reasoning and tool-call ids. Default: random prefix plus counter. */
  readonly generateId?: IdGenerator;
  /**
   * Deepest nesting of JSON objects and arrays, or of XML elements, in one call. A call nested
   * deeper is reported (`too-deep`) with its raw text instead of being read. Default 1000.
   */
  readonly maxDepth?: number;
}

export const DEFAULT_MAX_CALL_CHARS = 16 * 1024 * 1024;
export const DEFAULT_MAX_DEPTH = 1000;

/** How an output ended, for `StreamParser.end`. */
export interface EndOptions {
  /**
   * The output stopped before the model finished it: its length limit (finish reason `length`),
   * an error or an abort. A call still open is then reported (`incomplete-call`) and never
   * completed, even when only its closing markup is missing. Default `false`.
   */
  readonly interrupted?: boolean;
}

/** An incremental parser: feed it chunks as they arrive, then end it once. */
export interface StreamParser {
  /** Parse one more chunk; returns the events it completes. Never throws on any input. */
  push(chunk: string): ParseEvent[];
  /**
   * The stream is over: close open blocks, complete or report open calls. A call still open is
   * completed only when nothing but its own closing markup is missing (and the output was not
   * `interrupted`); otherwise it is reported as `incomplete-call` with its raw text.
   */
  end(options?: EndOptions): ParseEvent[];
}

/** The content of a whole output, in order, as `parseGeneratedText` returns it. */
export type ParsedContent =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'reasoning'; readonly text: string }
  | Omit<ToolCallEvent, never>
  | { readonly type: 'error'; readonly error: ProtocolFault };

/**
 * One wire format for tool calls. Protocol-neutral: no AI SDK types, so the same object serves
 * the middleware, the agent loop and the CLI.
 */
export interface ToolCallProtocol {
  readonly name: string;
  /** The system-prompt section that teaches the model this format, listing the tools. */
  formatTools(tools: readonly ToolDefinition[]): string;
  /** Renders calls as the model would have written them (several: one batch, in order). */
  formatToolCall(call: ToolCallToFormat | readonly ToolCallToFormat[]): string;
  /** Renders results (several: one batch, in call order), success and failure alike. */
  formatToolResponse(result: ToolResponseToFormat | readonly ToolResponseToFormat[]): string;
  /** Parses a whole output: exactly `createStreamParser` fed once, collected. */
  parseGeneratedText(text: string, options: ParseOptions): ParsedContent[];
  createStreamParser(options: ParseOptions): StreamParser;
  /** The exact substrings of `text` that would be read as tool calls (for debugging). */
  extractToolCallSegments(text: string, options: ParseOptions): string[];
}
