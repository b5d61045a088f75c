import { ToolwireError } from '../core/errors.ts';

export interface HttpErrorDetails {
  /** The field of the request at fault, as a path (`messages[2].content`), when there is one. */
  readonly param?: string;
  /** More for the client to read beside the message (the server puts them in its error body). */
  readonly extra?: Readonly<Record<string, unknown>>;
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
  declare readonly kind: 'request-refused';
  /** The HTTP status, 400 to 599. */
  readonly status: number;
  readonly param: string | undefined;
  readonly extra: Readonly<Record<string, unknown>>;

  constructor(status: number, message: string, details: HttpErrorDetails = {}) {
    if (!Number.isInteger(status) || status < 400 || status > 599)
      throw new RangeError(`HttpError: ${status} is not an error status (400 to 599)`);
    super('request-refused', message, { cause: details.cause });
    this.status = status;
    this.param = details.param;
    this.extra = details.extra ?? {};
  }
}
