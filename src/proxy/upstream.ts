import { createParser } from 'eventsource-parser';
import { ProxyError } from './errors.ts';
import { isFields } from './request-fields.ts';

/** Where the model server is and how to reach it. */
export interface UpstreamSettings {
  /** Base URL of the OpenAI-compatible server, without a trailing slash (`http://host/v1`). */
  readonly baseURL: string;
  /** The key sent upstream; undefined: the client's own `Authorization` goes upstream. */
  readonly apiKey: string | undefined;
  /** Longest an upstream request may take, reply stream included. */
  readonly timeoutMs: number;
  readonly fetch: typeof globalThis.fetch;
}

/** Token counts as chat completions reports them. */
export interface UpstreamUsage {
  readonly prompt_tokens?: number;
  readonly completion_tokens?: number;
  readonly total_tokens?: number;
}

/** One piece of a reply: text, reasoning the server split off, how it ended, what it cost. */
export interface UpstreamPiece {
  readonly content: string | undefined;
  readonly reasoning: string | undefined;
  readonly finishReason: string | undefined;
  readonly usage: UpstreamUsage | undefined;
}

/**
 * A model server's base URL without trailing slashes. Throws a TypeError saying what is wrong
 * (its message begins with `upstream`, so callers name their own option before it).
 */
export function upstreamBaseURL(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(
      `upstream ${JSON.stringify(value)} is not a URL (e.g. http://127.0.0.1:11434/v1)`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new TypeError(`upstream must be an http or https URL, not ${JSON.stringify(value)}`);
  return url.href.replace(/\/+$/, '');
}

/** The most of an upstream error body read, to quote its message. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** The message in an error body: OpenAI's `{error: {message}}`, `{error: "…"}`, `{message}`, or the text. */
function upstreamMessage(text: string): string {
  try {
    const body: unknown = JSON.parse(text);
    if (isFields(body)) {
      const error = body.error;
      if (isFields(error) && typeof error.message === 'string') return error.message;
      if (typeof error === 'string') return error;
      if (typeof body.message === 'string') return body.message;
      if (typeof body.detail === 'string') return body.detail;
    }
  } catch {
    // Not JSON: the text is the message.
  }
  return text.trim() || '(no message)';
}

async function readCapped(response: Response): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let size = 0;
  while (size < MAX_ERROR_BODY_BYTES) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    size += value.byteLength;
    text += decoder.decode(value, { stream: true });
  }
  await reader.cancel().catch(() => {});
  return text;
}

/**
 * What went wrong reaching the model server, as the error the client gets: the client's own
 * abort is passed on as it is; a timeout is 504; anything else means no server answered (502).
 */
export function upstreamFailure(
  error: unknown,
  settings: UpstreamSettings,
  timeout: AbortSignal,
): unknown {
  if (error instanceof ProxyError) return error;
  if (timeout.aborted)
    return new ProxyError(
      504,
      `the model server at ${settings.baseURL} did not finish within ${settings.timeoutMs / 1000} s`,
    );
  if ((error as { name?: string } | null)?.name === 'AbortError') return error;
  const cause = (error as { cause?: { code?: string; message?: string } } | null)?.cause;
  const why = cause?.code ?? cause?.message ?? (error as Error | null)?.message ?? String(error);
  return new ProxyError(502, `no model server answers at ${settings.baseURL} (${why})`);
}

/** The model server's answer, or the error the client gets instead. */
export interface UpstreamCall {
  readonly response: Response;
  /** Aborts when the upstream time limit passes, to tell a timeout from other failures. */
  readonly timeout: AbortSignal;
}

/**
 * Sends one request to the model server. A non-2xx answer becomes a `ProxyError` with its
 * status and message; no answer becomes 502, no answer in time 504.
 */
export async function callUpstream(
  settings: UpstreamSettings,
  path: string,
  init: { method: 'GET' | 'POST'; body?: unknown; authorization?: string; signal: AbortSignal },
): Promise<UpstreamCall> {
  const timeout = AbortSignal.timeout(settings.timeoutMs);
  const headers: Record<string, string> = { accept: 'application/json, text/event-stream' };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const authorization =
    settings.apiKey !== undefined ? `Bearer ${settings.apiKey}` : init.authorization;
  if (authorization !== undefined) headers.authorization = authorization;
  let response: Response;
  try {
    response = await settings.fetch(`${settings.baseURL}${path}`, {
      method: init.method,
      headers,
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      signal: AbortSignal.any([init.signal, timeout]),
    });
  } catch (error) {
    throw upstreamFailure(error, settings, timeout);
  }
  if (!response.ok) {
    const text = await readCapped(response).catch(() => '');
    throw new ProxyError(
      response.status,
      `the model server at ${settings.baseURL} answered ${response.status}: ${upstreamMessage(text)}`,
    );
  }
  return { response, timeout };
}

function reasoningOf(fields: Readonly<Record<string, unknown>>): string | undefined {
  // vLLM and llama.cpp name it `reasoning_content`; newer vLLM and Ollama `reasoning`.
  const reasoning = fields.reasoning_content ?? fields.reasoning;
  return typeof reasoning === 'string' && reasoning.length > 0 ? reasoning : undefined;
}

/** The piece one chat completions object (a reply or a stream chunk) carries. */
function pieceOf(body: unknown, streamed: boolean): UpstreamPiece {
  if (!isFields(body))
    throw new ProxyError(502, 'the model server sent a reply that is not a JSON object');
  if (body.error !== undefined && body.error !== null)
    throw new ProxyError(
      502,
      `the model server reported an error: ${upstreamMessage(JSON.stringify(body))}`,
    );
  const choice = Array.isArray(body.choices) ? body.choices[0] : undefined;
  const usage = isFields(body.usage) ? (body.usage as UpstreamUsage) : undefined;
  if (!isFields(choice)) {
    if (!usage && !streamed)
      throw new ProxyError(502, 'the model server sent a reply without choices');
    return { content: undefined, reasoning: undefined, finishReason: undefined, usage };
  }
  const message = streamed ? choice.delta : choice.message;
  const fields = isFields(message) ? message : {};
  const content = typeof fields.content === 'string' ? fields.content : undefined;
  const reasoning = reasoningOf(fields);
  const finishReason = typeof choice.finish_reason === 'string' ? choice.finish_reason : undefined;
  // One shape for every piece: the hot path of a stream makes one per token.
  return { content: content || undefined, reasoning, finishReason, usage };
}

/** A whole (not streamed) reply's piece. */
export async function readReply(
  call: UpstreamCall,
  settings: UpstreamSettings,
): Promise<UpstreamPiece> {
  let body: unknown;
  try {
    body = await call.response.json();
  } catch (error) {
    const failure = upstreamFailure(error, settings, call.timeout);
    if (failure instanceof ProxyError || (error as Error).name === 'AbortError') throw failure;
    throw new ProxyError(
      502,
      `the model server sent a reply that is not JSON: ${(error as Error).message}`,
    );
  }
  return pieceOf(body, false);
}

/**
 * A streamed reply's pieces, a batch per network read. A server that answers a streamed
 * request with one JSON reply is read as that reply.
 */
export async function* readStream(
  call: UpstreamCall,
  settings: UpstreamSettings,
): AsyncGenerator<UpstreamPiece[]> {
  const type = call.response.headers.get('content-type') ?? '';
  if (type.startsWith('application/json')) {
    yield [await readReply(call, settings)];
    return;
  }
  const body = call.response.body;
  if (!body) return;
  let batch: UpstreamPiece[] = [];
  let done = false;
  let fault: unknown;
  const parser = createParser({
    onEvent(event) {
      if (done || fault !== undefined) return;
      if (event.data === '[DONE]') {
        done = true;
        return;
      }
      let data: unknown;
      try {
        data = JSON.parse(event.data);
      } catch {
        fault = new ProxyError(
          502,
          `the model server sent a stream event that is not JSON: ${JSON.stringify(event.data.slice(0, 200))}`,
        );
        return;
      }
      try {
        batch.push(pieceOf(data, true));
      } catch (error) {
        fault = error;
      }
    },
  });
  const reader = body.getReader();
  const decoder = new TextDecoder();
  try {
    while (!done) {
      let read: Awaited<ReturnType<typeof reader.read>>;
      try {
        read = await reader.read();
      } catch (error) {
        throw upstreamFailure(error, settings, call.timeout);
      }
      if (read.done) break;
      parser.feed(decoder.decode(read.value, { stream: true }));
      if (batch.length > 0) {
        const pieces = batch;
        batch = [];
        yield pieces;
      }
      if (fault !== undefined) throw fault;
    }
  } finally {
    // Stops the upstream request when the client went away or the reply is over.
    reader.cancel().catch(() => {});
  }
}
