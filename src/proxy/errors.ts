import { ModelCallError } from '../core/model-call-error.ts';
import { HttpError } from '../http/http-error.ts';

/** Which API a client speaks: its errors and replies take that API's shapes. */
export type ClientApi = 'openai' | 'anthropic' | 'ollama';

/** The API a path belongs to: its errors (a 404 included) take that API's shape. */
export function apiOfPath(path: string): ClientApi {
  if (path === '/v1/messages' || path.startsWith('/v1/messages/')) return 'anthropic';
  if (path === '/api' || path.startsWith('/api/')) return 'ollama';
  return 'openai';
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
export function errorBody(
  api: ClientApi,
  status: number,
  message: string,
  param?: string,
  code?: string,
): object {
  if (api === 'anthropic')
    return { type: 'error', error: { type: anthropicErrorType(status), message } };
  // Ollama's API says what went wrong in one string.
  if (api === 'ollama') return { error: message };
  return {
    error: { message, type: openAIErrorType(status), param: param ?? null, code: code ?? null },
  };
}

/** The machine-readable code an error carries for OpenAI's shape (`previous_response_not_found`). */
function codeOf(error: HttpError): string | undefined {
  const code = error.extra.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Any failure as the HTTP error the client gets: an `HttpError` as it is; a failed model call
 * by its kind (no answer or a broken one 502, no answer in time 504, the model server's own
 * error status passed on, a reply that cannot be read 502); anything else is the proxy's own
 * failure (500).
 */
export function httpErrorOf(error: unknown): HttpError {
  if (HttpError.isInstance(error)) return error;
  if (ModelCallError.isInstance(error)) return modelCallHttpError(error);
  return new HttpError(
    500,
    `the proxy failed: ${(error as Error | null)?.message ?? String(error)}`,
    { cause: error },
  );
}

function modelCallHttpError(error: ModelCallError): HttpError {
  switch (error.kind) {
    case 'model-unreachable':
      return new HttpError(502, error.message, { cause: error });
    case 'model-timeout':
      return new HttpError(504, error.message, { cause: error });
    case 'model-http-status': {
      // A status that is no error status (a redirect not followed) is the model server's fault.
      const status = error.status !== undefined && error.status >= 400 && error.status <= 599;
      return new HttpError(
        status ? error.status! : 502,
        `the model server${error.baseURL === undefined ? '' : ` at ${error.baseURL}`} answered ${error.status ?? 'an error'}: ${error.detail ?? '(no message)'}`,
        { cause: error },
      );
    }
    case 'model-bad-reply':
      // The proxy's reader says what is wrong with the reply, in words that name its limits.
      return new HttpError(502, error.detail ?? error.message, { cause: error });
  }
}

/** The error's response in the client's API shape. */
export function errorResponse(api: ClientApi, error: HttpError): Response {
  return Response.json(errorBody(api, error.status, error.message, error.param, codeOf(error)), {
    status: error.status,
    // A body that did not arrive in time is not read further: the connection ends with the answer.
    ...(error.status === 408 ? { headers: { connection: 'close' } } : {}),
  });
}
