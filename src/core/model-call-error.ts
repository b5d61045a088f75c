import { ToolwireError } from './errors.ts';

/** The kinds a failed model call can have. */
export type ModelCallErrorKind =
  | 'model-unreachable'
  | 'model-timeout'
  | 'model-http-status'
  | 'model-bad-reply';

export interface ModelCallErrorFields {
  /** The model server's base URL, when known. */
  readonly baseURL?: string;
  /** The model asked for, when known. */
  readonly model?: string;
  /** For `model-http-status`: the status the server answered with. */
  readonly status?: number;
  /** What the server or the network said, in its own words (an error code, a message). */
  readonly detail?: string;
  /** For `model-unreachable` after the reply began: the reply broke off rather than never came. */
  readonly brokeOff?: boolean;
  /** For `model-timeout`: the time allowed, in milliseconds. */
  readonly timeoutMs?: number;
  readonly cause?: unknown;
}

/**
 * A model call that failed: nothing answered, no answer in time, an HTTP error status, or a
 * reply that cannot be read. Made where the call fails (the agent's step, the proxy's upstream
 * request, the server's probe), so what reports it switches on `kind` instead of reading words.
 */
export class ModelCallError extends ToolwireError {
  declare readonly kind: ModelCallErrorKind;
  readonly baseURL: string | undefined;
  readonly model: string | undefined;
  readonly status: number | undefined;
  readonly detail: string | undefined;
  readonly brokeOff: boolean;
  readonly timeoutMs: number | undefined;

  constructor(kind: ModelCallErrorKind, fields: ModelCallErrorFields = {}) {
    super(kind, modelCallMessage(kind, fields), { cause: fields.cause });
    this.baseURL = fields.baseURL;
    this.model = fields.model;
    this.status = fields.status;
    this.detail = fields.detail;
    this.brokeOff = fields.brokeOff ?? false;
    this.timeoutMs = fields.timeoutMs;
  }
}

function modelCallMessage(kind: ModelCallErrorKind, fields: ModelCallErrorFields): string {
  const where =
    fields.baseURL === undefined ? 'the model server' : `the model server at ${fields.baseURL}`;
  const why = fields.detail === undefined ? '' : ` (${fields.detail})`;
  switch (kind) {
    case 'model-unreachable':
      return fields.brokeOff
        ? `the reply of ${where} broke off${why}`
        : `no model server answers at ${fields.baseURL ?? 'the configured address'}${why}`;
    case 'model-timeout':
      return fields.timeoutMs === undefined
        ? `${where} did not answer in time${why}`
        : `${where} did not finish within ${fields.timeoutMs / 1000} s${why}`;
    case 'model-http-status':
      return `${where} answered with HTTP ${fields.status ?? 'error'}${fields.detail === undefined ? '' : `: ${fields.detail}`}`;
    case 'model-bad-reply':
      return `${where} sent a reply that cannot be read${why}`;
  }
}

/** The network error codes that mean nothing answered at the address. */
const UNREACHABLE_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
  'EAI_AGAIN',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_CLOSED',
]);

/**
 * The network error code under a failed `fetch` (`TypeError: fetch failed` hides it in
 * `cause`, sometimes two levels down), or undefined. The one place that reads `cause.code`.
 */
export function networkErrorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z][A-Z0-9_]+$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Whether a failure is a network one: nothing answered, or the connection dropped. Looks down
 * the `cause` chain, where `fetch` and the clients built on it put the network's own error.
 */
export function isNetworkFailure(error: unknown): boolean {
  const code = networkErrorCode(error);
  if (code !== undefined) return UNREACHABLE_CODES.has(code);
  let current: unknown = error;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    if (current instanceof TypeError && /fetch failed|network|bad port/i.test(current.message))
      return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * A client's error for a request that got no answer at all: the AI SDK's `APICallError`
 * without a status ("Cannot connect to API: …"), whose cause may carry no error code (a fetch
 * to a refused port such as 9 says only "bad port").
 */
function isUnansweredCall(error: unknown): boolean {
  const call = error as { name?: unknown; statusCode?: unknown } | null;
  return call?.name === 'AI_APICallError' && call.statusCode === undefined;
}

/**
 * A model call's failure as a `ModelCallError`, whatever threw it: an error already typed is
 * kept; an error with an HTTP `statusCode` (the AI SDK's `APICallError`) or `status` is
 * `model-http-status`; a timeout (`TimeoutError`) is `model-timeout`; a network failure
 * `model-unreachable`; anything else a reply that could not be read. Undefined for the
 * caller's own abort, which is not the model's failure.
 */
export function classifyModelFailure(
  error: unknown,
  where: Pick<ModelCallErrorFields, 'baseURL' | 'model'> = {},
): ModelCallError | undefined {
  if (ModelCallError.isInstance(error)) return error;
  const name = (error as { name?: unknown } | null)?.name;
  if (name === 'AbortError') return undefined;
  const message = error instanceof Error ? error.message : String(error);
  if (name === 'TimeoutError')
    return new ModelCallError('model-timeout', { ...where, cause: error });
  const status =
    (error as { statusCode?: unknown } | null)?.statusCode ??
    (error as { status?: unknown } | null)?.status;
  if (typeof status === 'number' && status >= 400)
    return new ModelCallError('model-http-status', {
      ...where,
      status,
      detail: message,
      cause: error,
    });
  if (isNetworkFailure(error) || isUnansweredCall(error))
    return new ModelCallError('model-unreachable', {
      ...where,
      detail: networkErrorCode(error) ?? message,
      cause: error,
    });
  return new ModelCallError('model-bad-reply', { ...where, detail: message, cause: error });
}
