/** One reason a tool call's input does not satisfy its schema. */
export interface ValidationProblem {
  /** JSON Pointer to the offending value inside the input, `''` for the input itself. */
  readonly path: string;
  /** Human-readable, meant to be shown to the model: says what was wrong and what was expected. */
  readonly message: string;
  /** The JSON Schema keyword that failed (`required`, `type`, `enum`, …). */
  readonly keyword: string;
}

/** Kinds of protocol fault the parsers report through `error` events. */
export type ProtocolFaultCode =
  /** Markup opened a call but what followed could not be read as one. */
  | 'malformed-call'
  /**
   * The output ended inside a call that was cut before its content was whole (inside a value, a
   * key or the JSON), or that was cut at the output's length limit: it is never run.
   */
  | 'incomplete-call'
  /** Markup inside a call that belongs nowhere (a second closing tag): dropped, the call goes on. */
  | 'stray-markup'
  /** JSON or XML nested deeper than `maxDepth`. */
  | 'too-deep'
  /** One call grew past `maxCallChars`; parsing resumed after it as text. */
  | 'call-too-large';

/** A protocol fault: what went wrong, where, and the raw text it concerns (nothing is lost). */
export interface ProtocolFault {
  readonly code: ProtocolFaultCode;
  readonly message: string;
  /** The raw model text the fault concerns, exactly as written. */
  readonly raw: string;
  /** Offset (in UTF-16 code units from the start of the stream) where `raw` begins. */
  readonly offset: number;
  readonly toolName?: string;
  /** Set when a `tool-input-start` was already emitted for this call. */
  readonly toolCallId?: string;
  /**
   * The raw text lies in a reasoning block the model never closed, where it was already emitted
   * as reasoning: it is not emitted again as text.
   */
  readonly inReasoning?: boolean;
  /**
   * The markup was dropped from a call that still came out (`stray-markup`): the fault is for
   * the record; there is nothing to show as text and no call to write again.
   */
  readonly dropped?: boolean;
}
