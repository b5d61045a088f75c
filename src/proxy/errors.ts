/** Which API a client speaks: its errors and replies take that API's shapes. */
export type ClientApi = 'openai' | 'anthropic';

/**
 * A request the proxy cannot answer as asked: a malformed request (400), a refused one (401,
 * 403, 413, 415, 429), the model server's own error (its status), no model server (502), or no
 * answer in time (504). Sent in the client's API format by `errorResponse`.
 */
export class ProxyError extends Error {
  override readonly name = 'ProxyError';
  readonly status: number;
  /** The field of the request at fault, as a path (`messages[2].content`), when there is one. */
  readonly param: string | undefined;

  constructor(status: number, message: string, param?: string) {
    super(message);
    this.status = status;
    this.param = param;
  }
}

/** The error type OpenAI's API uses for a status. */
function openAIErrorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_exceeded';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

/** The error type Anthropic's API uses for a status. */
function anthropicErrorType(status: number): string {
  switch (status) {
    case 401:
      return 'authentication_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    case 529:
      return 'overloaded_error';
    default:
      return status >= 500 ? 'api_error' : 'invalid_request_error';
  }
}

/** The JSON body of an error, in the client's API shape. */
export function errorBody(api: ClientApi, status: number, message: string, param?: string): object {
  if (api === 'anthropic')
    return { type: 'error', error: { type: anthropicErrorType(status), message } };
  return { error: { message, type: openAIErrorType(status), param: param ?? null, code: null } };
}

export function errorResponse(api: ClientApi, error: ProxyError): Response {
  return Response.json(errorBody(api, error.status, error.message, error.param), {
    status: error.status,
    // A body that did not arrive in time is not read further: the connection ends with the answer.
    ...(error.status === 408 ? { headers: { connection: 'close' } } : {}),
  });
}
