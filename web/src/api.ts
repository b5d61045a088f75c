/** The server's HTTP API, as the page uses it. */

export interface ServerInfo {
  readonly mode: 'live' | 'replay';
  readonly model: string;
  readonly baseURL?: string;
  readonly protocol: string;
  readonly recording?: string;
  readonly frontendTools: readonly string[];
}

/**
 * `GET /api/status`: whether the model server answers (asked when the page opens), and the
 * recording a run may play instead (`recording`, its label).
 */
export interface ServerStatus {
  readonly mode: 'live' | 'replay';
  readonly modelServer: 'answers' | 'no-answer' | 'unchecked' | 'none';
  readonly baseURL?: string;
  /** Why nothing answered, in the server's words. */
  readonly problem?: string;
  readonly recording?: string;
}

export interface FrontendToolResult {
  readonly tool_use_id: string;
  readonly content: unknown;
  readonly is_error?: boolean;
}

/** The server refused a request; `message` is its JSON error. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

async function ensureOk(response: Response): Promise<Response> {
  if (response.ok) return response;
  let message = `${response.status} ${response.statusText}`;
  try {
    const body = (await response.json()) as { error?: unknown };
    if (typeof body.error === 'string') message = body.error;
  } catch {
    // Not JSON: the status line says enough.
  }
  throw new ApiError(response.status, message);
}

function post(path: string, body: unknown, signal?: AbortSignal): Promise<Response> {
  return fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  }).then(ensureOk);
}

export async function fetchInfo(): Promise<ServerInfo> {
  return (await (await ensureOk(await fetch('/api/info'))).json()) as ServerInfo;
}

export async function fetchStatus(): Promise<ServerStatus> {
  return (await (await ensureOk(await fetch('/api/status'))).json()) as ServerStatus;
}

/**
 * Starts a run; the response body is its content-block stream. `conversation` (the
 * `conversation_history` of the last completed run) makes it a follow-up.
 */
export function startRun(
  prompt: string,
  conversation: readonly unknown[],
  signal: AbortSignal,
): Promise<Response> {
  return post('/api/runs', conversation.length > 0 ? { prompt, conversation } : { prompt }, signal);
}

/** Plays the server's recording (no model is asked); the body is the recorded stream. */
export function startRecording(signal: AbortSignal): Promise<Response> {
  return post('/api/runs', { replay: true }, signal);
}

/** Answers the front-end tools of a paused run; the response streams the rest of the run. */
export function sendToolResults(
  runId: string,
  results: readonly FrontendToolResult[],
  signal: AbortSignal,
): Promise<Response> {
  return post(`/api/runs/${encodeURIComponent(runId)}/tool-results`, { results }, signal);
}

/**
 * Reads a run's events (`GET /api/runs/:id/events`): after the event `after` (sent as
 * `Last-Event-ID`), or from the start of its log when undefined, to rebuild the transcript.
 * Live until the run pauses or ends; reading never starts or stops the run.
 */
export async function followRun(
  runId: string,
  after: string | undefined,
  signal: AbortSignal,
): Promise<Response> {
  return ensureOk(
    await fetch(`/api/runs/${encodeURIComponent(runId)}/events`, {
      headers: {
        accept: 'text/event-stream',
        ...(after === undefined ? {} : { 'last-event-id': after }),
      },
      signal,
    }),
  );
}

/** Stops a run wherever it runs (`POST /api/runs/:id/abort`); its stream then ends with `aborted`. */
export async function abortRun(runId: string): Promise<void> {
  await post(`/api/runs/${encodeURIComponent(runId)}/abort`, {});
}
