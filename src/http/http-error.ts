import { ToolwireError, type ToolwireErrorKind } from '../core/errors.ts';

export interface HttpErrorDetails {
  /** The field of the request at fault, as a path (`messages[2].content`), when there is one. */
  readonly param?: string;
  /** More for the client to read beside the message (the server puts them in its error body). */
  readonly extra?: Readonly<Record<string, unknown>>;
  /**
   * What went wrong, when it is more than a refused request: a failed model call passed on
   * (`model-timeout`…), a demanded call the model did not write. By default the kind of a
   * toolwire error given as `cause`, else `request-refused`.
   */
  readonly kind?: ToolwireErrorKind;
  readonly cause?: unknown;
}

/**
 * A request the server or the proxy answers with an error status: a malformed request (400), a
 * refused one (401, 403, 404, 409, 413, 415, 422, 429), one that cannot be answered now (503),
 * or a model server's failure passed on (502, 504, its own status). Each app's `onError` writes
 * it in the shape its clients read: the server as `{error: message, ...extra}`, the proxy in
 * the client's API (OpenAI's or Anthropic's error object).
 */
export class HttpError extends ToolwireError {
  /** The HTTP status, 400 to 599. */
  readonly status: number;
  readonly param: string | undefined;
  readonly extra: Readonly<Record<string, unknown>>;

  constructor(status: number, message: string, details: HttpErrorDetails = {}) {
    if (!Number.isInteger(status) || status < 400 || status > 599)
      throw new RangeError(`HttpError: ${status} is not an error status (400 to 599)`);
    const kind =
      details.kind ??
      (ToolwireError.isInstance(details.cause) ? details.cause.kind : 'request-refused');
    super(kind, message, { cause: details.cause });
    this.status = status;
    this.param = details.param;
    this.extra = details.extra ?? {};
  }
}
