/**
 * The one error type of toolwire. Every error toolwire throws or reports is a `ToolwireError`
 * whose `kind` says what went wrong, from the closed list below, so callers switch on a field
 * instead of matching messages. Parse faults are not thrown: they are reported as events with
 * a `code` of their own (see `ProtocolFaultCode` in `problems.ts`).
 */

/** What went wrong, one word each. Documented in docs/errors.md. */
export type ToolwireErrorKind =
  // A model call (the agent's, the server's, the proxy's upstream).
  /** Nothing answered at the model server's address (refused, no such host, reset). */
  | 'model-unreachable'
  /** The model server did not answer, or stopped streaming, within the time allowed. */
  | 'model-timeout'
  /** The model server answered with an HTTP error status (`status` says which). */
  | 'model-http-status'
  /** The model server answered, but not with a reply that can be read (bad JSON, wrong shape, too large). */
  | 'model-bad-reply'
  // A request to toolwire's server or proxy, or a command line.
  /** An HTTP request refused (`status` says why: 400, 403, 404, 413, 415, 429…). */
  | 'request-refused'
  /** A command line or option that cannot be used. */
  | 'usage'
  /** A run that cannot start because the server runs as many as it may. */
  | 'run-limit'
  /** A paused run resumed with answers that do not match what it waits for. */
  | 'resume-mismatch'
  // Tools and their schemas.
  /** A JSON Schema `pattern` that cannot be checked in linear time, or is not a regular expression. */
  | 'unsupported-pattern'
  /** A tool's definition (name, schema) that cannot be used, found when the tools are loaded. */
  | 'invalid-tool-definition'
  /** A tool's input that is missing, of the wrong type, or cannot be used. */
  | 'invalid-tool-input'
  /** A tool that did not finish within its time. */
  | 'tool-timeout'
  /** A code tool's path outside its root folder. */
  | 'path-outside-root'
  /** A code tool's path that does not exist. */
  | 'path-not-found'
  /** A file where a folder was needed, or the reverse. */
  | 'wrong-path-kind'
  /** A file a code tool will not read: binary, or too large. */
  | 'file-refused'
  /** A symbol a code tool looked for and did not find. */
  | 'symbol-not-found'
  /** A language the code tools cannot parse. */
  | 'unsupported-language'
  /** A code tool's root folder that cannot be used. */
  | 'invalid-root'
  /** Parsing a source file in a worker failed. */
  | 'syntax-job-failed'
  /** An optional peer dependency that a part of toolwire needs is not installed. */
  | 'missing-package'
  // Formats.
  /** A format spec, chat template or response template that cannot be made into a format. */
  | 'invalid-format'
  // The AI SDK middleware.
  /** `toolChoice` demanded a call and the model answered without one. */
  | 'tool-choice-not-followed'
  /** `toolChoice` names a tool that is not among the call's tools. */
  | 'unknown-tool-choice'
  /** The call has provider-defined tools and the middleware was told to refuse them. */
  | 'provider-tool-refused'
  // Streams.
  /** A content-block stream event that cannot be written (out of order, unknown block). */
  | 'block-stream-invalid'
  /** The run or request was stopped by its caller. */
  | 'aborted'
  // Runs kept in a store (memory or Redis).
  /** The run store cannot be reached, or answered with an error. */
  | 'store-unavailable'
  /** A write to a run whose lease this instance lost: another instance ended the run for it. */
  | 'run-lost';

/** Every kind, for documentation and for tests that check the list is complete. */
export const TOOLWIRE_ERROR_KINDS: readonly ToolwireErrorKind[] = [
  'model-unreachable',
  'model-timeout',
  'model-http-status',
  'model-bad-reply',
  'request-refused',
  'usage',
  'run-limit',
  'resume-mismatch',
  'unsupported-pattern',
  'invalid-tool-definition',
  'invalid-tool-input',
  'tool-timeout',
  'path-outside-root',
  'path-not-found',
  'wrong-path-kind',
  'file-refused',
  'symbol-not-found',
  'unsupported-language',
  'invalid-root',
  'syntax-job-failed',
  'missing-package',
  'invalid-format',
  'tool-choice-not-followed',
  'unknown-tool-choice',
  'provider-tool-refused',
  'block-stream-invalid',
  'aborted',
  'store-unavailable',
  'run-lost',
];

// A registered symbol, so an error made by another copy of toolwire (another realm, a second
// install) is still recognised: the marker holds the names of the error's class and its bases.
const MARKER = Symbol.for('toolwire.error');

type Marked = { readonly [MARKER]: readonly string[] };

export interface ToolwireErrorOptions {
  /** The error underneath, kept for whoever logs or inspects it. */
  readonly cause?: unknown;
}

/**
 * The base of every toolwire error. `kind` says what went wrong; subclasses add the fields that
 * say where (a status, a path, a parameter) and build their message from them.
 * `ToolwireError.isInstance(e)` (or `ModelCallError.isInstance(e)` for a subclass) works across
 * copies of the package, where `instanceof` does not.
 */
export class ToolwireError extends Error {
  readonly kind: ToolwireErrorKind;
  readonly [MARKER]: readonly string[];

  constructor(kind: ToolwireErrorKind, message: string, options: ToolwireErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.kind = kind;
    this.name = new.target.name;
    this[MARKER] = classNames(new.target);
  }

  /** Whether `error` is a toolwire error of this class (or a subclass), from any copy of toolwire. */
  static isInstance<T extends ToolwireError>(
    this: abstract new (
      ...args: never[]
    ) => T,
    error: unknown,
  ): error is T {
    if (typeof error !== 'object' || error === null || !(MARKER in error)) return false;
    const names = (error as Marked)[MARKER];
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class isInstance was called on.
    return Array.isArray(names) && names.includes(this.name);
  }
}

/** The names of a class and its bases up to `ToolwireError`, most specific first. */
function classNames(errorClass: abstract new (...args: never[]) => unknown): readonly string[] {
  const names: string[] = [];
  for (
    let current: unknown = errorClass;
    typeof current === 'function' && current !== Error;
    current = Object.getPrototypeOf(current)
  ) {
    names.push((current as { name: string }).name);
    if (current === ToolwireError) break;
  }
  return Object.freeze(names);
}

/** Whether `error` is a toolwire error of one of `kinds`. */
export function isErrorOfKind(
  error: unknown,
  ...kinds: ToolwireErrorKind[]
): error is ToolwireError {
  return ToolwireError.isInstance(error) && kinds.includes(error.kind);
}
