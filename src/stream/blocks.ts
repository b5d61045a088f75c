/**
 * The content-block stream's blocks as typed events. The encoder turns these into XML blocks over
 * Server-Sent Events; the decoder turns the stream back into exactly these events (plus the two
 * decoder-only events at the bottom). No Node, no DOM: this runs in browsers and edge runtimes.
 *
 * Field names follow TypeScript style where toolwire defines the shape (attributes of a tag);
 * JSON payloads (`data`, `files`, `input`, error payloads) are kept as the wire has them, since
 * they are open-ended records that other back ends fill.
 */

/** Any value JSON can carry. */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | readonly JsonValue[]
  | { readonly [key: string]: JsonValue };

// ── payloads ────────────────────────────────────────────────────────────────────────────────

/** `meta_init`: sent first, describes the run. */
export interface MetaInitData {
  readonly format: 'xml' | 'raw' | (string & {});
  /** The prompt, or the JSON text of a structured prompt. */
  readonly user_query: string;
  readonly agent_uuid: string;
  readonly model: string;
  /** Only when the server streams history (as anthropic-agent names it: `stream_meta_history_and_tool_results`). */
  readonly message_history?: readonly JsonValue[];
  readonly [key: string]: JsonValue | undefined;
}

/** `meta_final`: sent only when a run completes. */
export interface MetaFinalData {
  readonly conversation_history: JsonValue;
  readonly stop_reason: string | null;
  readonly total_steps: number;
  readonly generated_files: JsonValue;
  readonly cost: JsonValue;
  readonly cumulative_usage: JsonValue;
  readonly [key: string]: JsonValue | undefined;
}

/** One tool the page must answer before the run resumes (`awaiting_frontend_tools`). */
export interface PendingFrontendTool {
  readonly tool_use_id: string;
  readonly name: string;
  readonly input: JsonValue;
  readonly [key: string]: JsonValue;
}

/** One record of `content-block-meta_files` (`file_id`, `filename`, `storage_location`, …). */
export type FileRecord = { readonly [key: string]: JsonValue };

/** A part of a multimodal tool result. */
export type ToolResultPart =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image'; readonly src: string; readonly mediaType: string };

/** The three location types of the content-block stream, and everything else as it came. */
export type Citation =
  | {
      readonly type: 'char_location';
      readonly documentIndex: number;
      readonly documentTitle: string;
      readonly startCharIndex: number;
      readonly endCharIndex: number;
      readonly citedText: string;
    }
  | {
      readonly type: 'page_location';
      readonly documentIndex: number;
      readonly documentTitle: string;
      readonly startPageNumber: number;
      readonly endPageNumber: number;
      readonly citedText: string;
    }
  | {
      readonly type: 'web_search_result_location';
      readonly url: string;
      readonly title: string;
      readonly citedText: string;
    }
  | {
      /**
       * Any other citation, or one of the above whose attributes do not fit its type: the `type`
       * attribute and every other attribute exactly as written, so nothing is lost.
       */
      readonly type: 'other';
      readonly citationType: string;
      readonly attributes: Readonly<Record<string, string>>;
      readonly citedText: string;
    };

/** Whether a tool runs in the agent (client) or at the model provider (server). */
export type ToolKind = 'client' | 'server';

// ── events ──────────────────────────────────────────────────────────────────────────────────

export type BlockEvent =
  | { readonly type: 'meta-init'; readonly data: MetaInitData }
  | { readonly type: 'thinking-start' }
  | { readonly type: 'thinking-delta'; readonly delta: string }
  | { readonly type: 'thinking-end' }
  | { readonly type: 'text-start' }
  | { readonly type: 'text-delta'; readonly delta: string }
  /**
   * A `<chart>` or `<table>` element inside a text block (the content-block stream's compatibility tags), with
   * its content as text. Only between `text-start` and `text-end`.
   */
  | BlockTextEmbedEvent
  | { readonly type: 'text-end' }
  /**
   * A whole call: `arguments` is the JSON text, carried in the `arguments` attribute. When a
   * call with this id already streamed, this gives its final arguments (they replace the
   * streamed ones).
   */
  | BlockToolCallEvent
  /** A call whose arguments stream: `arguments` is the concatenation of its deltas. */
  | {
      readonly type: 'tool-call-start';
      readonly kind: ToolKind;
      readonly id: string;
      readonly name: string;
    }
  | { readonly type: 'tool-call-delta'; readonly id: string; readonly delta: string }
  | { readonly type: 'tool-call-end'; readonly id: string }
  | BlockToolResultEvent
  | { readonly type: 'citations'; readonly citations: readonly Citation[] }
  | { readonly type: 'awaiting-frontend-tools'; readonly tools: readonly PendingFrontendTool[] }
  | { readonly type: 'meta-files'; readonly files: readonly FileRecord[] }
  /** `content-block-error`: the payload, usually `{type, message}`. */
  | { readonly type: 'error'; readonly error: JsonValue }
  | { readonly type: 'meta-final'; readonly data: MetaFinalData };

export interface BlockTextEmbedEvent {
  readonly type: 'text-embed';
  readonly name: 'chart' | 'table';
  readonly attributes: Readonly<Record<string, string>>;
  readonly content: string;
}

export interface BlockToolCallEvent {
  readonly type: 'tool-call';
  readonly kind: ToolKind;
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}

export interface BlockToolResultEvent {
  readonly type: 'tool-result';
  readonly kind: ToolKind;
  readonly id: string;
  readonly name: string;
  /** Plain text (often JSON text), or the parts of a multimodal result. */
  readonly content: string | readonly ToolResultPart[];
  /** toolwire's extension: the tool failed and `content` says why (`is_error="true"`). */
  readonly isError?: true;
  /**
   * Server results only: the compatibility tag it came in (any `*_tool_result`, e.g.
   * `content-block-web_search_tool_result`), when it was not `content-block-server_tool_result`.
   */
  readonly tag?: string;
}

export type BlockEventType = BlockEvent['type'];

// ── decoder-only events ─────────────────────────────────────────────────────────────────────

/** What the decoder found wrong; the stream goes on after it. */
export type DecodeProblemCode =
  /** A block's JSON payload (`data`, a body) is not JSON of the expected shape. */
  | 'invalid-json'
  /** A known tag with broken markup (an attribute without a quoted value, …). */
  | 'malformed-tag'
  /** Content where the block has none (text inside `meta_init`, …). */
  | 'unexpected-content'
  /** A closing tag of a block that is not open. */
  | 'unexpected-end-tag'
  /** A block left open: a new block began, or the stream ended. */
  | 'unclosed-block'
  /** The stream ended inside a CDATA section. */
  | 'unclosed-cdata'
  /** Something grew past a configured size cap and was dropped. */
  | 'too-large'
  /** The Server-Sent Events layer rejected a line. */
  | 'sse';

export interface DecodeProblem {
  readonly code: DecodeProblemCode;
  /** Says what was wrong and where, in words. */
  readonly message: string;
  /** Offset, in UTF-16 units of the XML text (SSE framing removed), where the problem starts. */
  readonly offset: number;
  /** The text concerned, as received (tags raw, bodies decoded), so nothing is lost. */
  readonly raw?: string;
  /** The block's tag, when the problem belongs to one. */
  readonly tag?: string;
  /** The block's decoded attributes, when the problem belongs to a block. */
  readonly attributes?: Readonly<Record<string, string>>;
}

export type DecodedEvent =
  | BlockEvent
  /** Text outside any block, unknown tags included, exactly as written. */
  | { readonly type: 'stray-text'; readonly text: string }
  | { readonly type: 'decode-error'; readonly problem: DecodeProblem };
