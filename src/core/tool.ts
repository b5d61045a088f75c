/** A JSON Schema, as tools declare their input. `true`/`false` are the trivial schemas. */
export type JsonSchema = { readonly [keyword: string]: unknown } | boolean;

/** A tool as a protocol sees it: no execute function, only what the model must be told. */
export interface ToolDefinition {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema: JsonSchema;
}

/** A call to render in the protocol's own syntax (e.g. when replaying history to the model). */
export interface ToolCallToFormat {
  readonly toolName: string;
  /** The arguments: an object, or its JSON text. */
  readonly input: unknown;
  readonly toolCallId?: string;
}

/** The outcome of one tool call, to render back to the model. */
export interface ToolResponseToFormat {
  readonly toolName: string;
  readonly toolCallId?: string;
  /** What the tool returned (any JSON value or text), or the error message when `isError`. */
  readonly output: unknown;
  readonly isError?: boolean;
}
