import { createParser, type ParseError } from 'eventsource-parser';
import { ToolwireError } from '../core/errors.ts';
import { ModelCallError, networkErrorCode } from '../core/model-call-error.ts';
import { parseJsonText } from '../core/parse-json.ts';
import { estimateJsonCost, type JsonShapeLimits, measureJson } from '../http/json-shape.ts';
import { type CappedBytes, readBodyCapped } from './capped-body.ts';
import { ContentChunkTemplate } from './content-chunk-template.ts';
import type { MemoryReservation } from './memory-budget.ts';
import { isFields } from './request-fields.ts';
import {
  fetchTransport,
  type UpstreamResponse,
  type UpstreamTransport,
} from './upstream-transport.ts';

/** Where the model server is and how to reach it. */
export interface UpstreamSettings {
  /**
   * Base URL of the OpenAI-compatible server, without a trailing slash (`http://host/v1`) and
   * without credentials: it is shown in messages.
   */
  readonly baseURL: string;
  /**
   * The proxy's own `Authorization` for the model server (its key as a bearer token, or the
   * upstream URL's credentials as basic); undefined: the client's own goes upstream.
   */
  readonly authorization: string | undefined;
  /** Longest an upstream request may take, reply stream included. */
  readonly timeoutMs: number;
  /** Largest whole (not streamed) reply read, in bytes; past it the connection is closed. */
  readonly maxReplyBytes: number;
  /** Largest stream line or event read, in characters; past it the connection is closed. */
  readonly maxEventBytes: number;
  /** Nesting and values a whole reply may have: it is parsed like a request body. */
  readonly json: JsonShapeLimits;
  /** How requests reach the server; default: a `fetch` transport over `fetch` (or the global one). */
  readonly transport?: UpstreamTransport;
  /** The fetch used when no transport is given. */
  readonly fetch?: typeof globalThis.fetch;
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
 * `text` with the user information of a URL in it (`user:pass@`) replaced by `***@`, so what a
 * URL carries as credentials is never shown. Works on text that is not a valid URL too.
 */
export function redactCredentials(text: string): string {
  const scheme = text.indexOf('://');
  if (scheme < 0) return text;
  const start = scheme + 3;
  let end = text.length;
  for (const stop of ['/', '?', '#']) {
    const at = text.indexOf(stop, start);
    if (at >= 0 && at < end) end = at;
  }
  const at = text.lastIndexOf('@', end - 1);
  if (at < start) return text;
  return `${text.slice(0, start)}***${text.slice(at)}`;
}

/** A model server's address: its base URL, and the credentials its URL carried, if any. */
export interface UpstreamTarget {
  /** Without credentials and trailing slashes: safe to show. */
  readonly baseURL: string;
  /** `Basic …` from the URL's `user:password@`, sent as the upstream `Authorization`. */
  readonly authorization: string | undefined;
}

/**
 * Reads a model server's URL. Credentials in it (`http://user:pass@host/v1`, for a server behind
 * a reverse proxy with basic authentication) are taken out of the URL, which is shown in
 * messages, and become the `Authorization` sent upstream (fetch refuses URLs that carry them).
 * Throws a TypeError saying what is wrong (its message begins with `upstream`, so callers name
 * their own option before it); the value is quoted with its credentials redacted.
 */
export function upstreamTarget(value: string): UpstreamTarget {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(
      `upstream ${JSON.stringify(redactCredentials(value))} is not a URL (e.g. http://127.0.0.1:11434/v1)`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new TypeError(
      `upstream must be an http or https URL, not ${JSON.stringify(redactCredentials(value))}`,
    );
  let authorization: string | undefined;
  if (url.username !== '' || url.password !== '') {
    let user: string;
    let password: string;
    try {
      user = decodeURIComponent(url.username);
      password = decodeURIComponent(url.password);
    } catch {
      throw new TypeError(
        `upstream ${JSON.stringify(redactCredentials(value))}: its credentials are not valid percent-encoding`,
      );
    }
    authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    url.username = '';
    url.password = '';
  }
  return { baseURL: url.href.replace(/\/+$/, ''), authorization };
}

/**
 * The model server's root, where llama.cpp and vLLM serve `/tokenize` and Ollama `/api/…`: the
 * base URL without its trailing `/v1`.
 */
export function serverRoot(baseURL: string): string {
  return baseURL.endsWith('/v1') ? baseURL.slice(0, -3) : baseURL;
}

/** A model server's base URL without credentials or trailing slashes (see `upstreamTarget`). */
export function upstreamBaseURL(value: string): string {
  return upstreamTarget(value).baseURL;
}

/** The most of an upstream error body read, to quote its message. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;
/** The most of the model server's own error message quoted to the client. */
const MAX_QUOTED_MESSAGE_CHARS = 2000;

/** A message from the model server, cut short when it is long. */
function quoted(message: string): string {
  return message.length > MAX_QUOTED_MESSAGE_CHARS
    ? `${message.slice(0, MAX_QUOTED_MESSAGE_CHARS)}…`
    : message;
}

/** The message in an error body: OpenAI's `{error: {message}}`, `{error: "…"}`, `{message}`, or the text. */
function upstreamMessage(text: string): string {
  return quoted(messageIn(text));
}

function messageIn(text: string): string {
  try {
    const body: unknown = parseJsonText(text);
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

/** An error answer's text, its first `MAX_ERROR_BODY_BYTES` at most. */
async function readErrorText(response: UpstreamResponse): Promise<string> {
  const { bytes } = await readBodyCapped(response.body, MAX_ERROR_BODY_BYTES);
  return new TextDecoder().decode(bytes);
}

/** Characters of a bad reply quoted in the error: enough to recognise it, JSON-escaped. */
const EXCERPT_CHARS = 120;

/** The start of a text as a JSON string: control characters and quotes escaped, cut short. */
export function excerpt(text: string): string {
  const cut = text.length > EXCERPT_CHARS;
  return `${JSON.stringify(text.slice(0, EXCERPT_CHARS))}${cut ? '…' : ''}`;
}

/**
 * A reply the model server sent that cannot be read, as a `model-bad-reply` whose `detail` says
 * what is wrong with it in the proxy's words (naming the limit it went past, if one).
 */
function badReply(baseURL: string | undefined, detail: string): ModelCallError {
  return new ModelCallError('model-bad-reply', {
    ...(baseURL === undefined ? {} : { baseURL }),
    detail,
  });
}

/**
 * What went wrong reaching the model server, as a `ModelCallError`: the client's own abort is
 * passed on as it is, and so is an error already typed (a limit the reply went past); a
 * timeout is `model-timeout`; anything else means no server answered (`model-unreachable`), or,
 * once it had begun to answer (`replying`), that its reply broke off.
 */
export function upstreamFailure(
  error: unknown,
  settings: UpstreamSettings,
  timeout: { readonly aborted: boolean },
  replying = false,
): unknown {
  if (ToolwireError.isInstance(error)) return error;
  if (timeout.aborted)
    return new ModelCallError('model-timeout', {
      baseURL: settings.baseURL,
      timeoutMs: settings.timeoutMs,
      cause: error,
    });
  if ((error as { name?: string } | null)?.name === 'AbortError') return error;
  const cause = (error as { cause?: { message?: string } } | null)?.cause;
  // fetch puts the network's error (and its code) in `cause`; Node's client throws it as it is.
  const why =
    networkErrorCode(error) ?? cause?.message ?? (error as Error | null)?.message ?? String(error);
  return new ModelCallError('model-unreachable', {
    baseURL: settings.baseURL,
    detail: why,
    brokeOff: replying,
    cause: error,
  });
}

/** The model server's answer, or the error the client gets instead. */
export interface UpstreamCall {
  readonly response: UpstreamResponse;
  /** Whether the upstream time limit passed, to tell a timeout from other failures. */
  readonly timeout: { readonly aborted: boolean };
  /** Closes the connection: the reply went past a limit, so nothing more of it is read. */
  hangUp(): void;
  /** The reply was read (or given up): its time limit and its listener go. */
  end(): void;
}

/**
 * One call's stop: the client's signal or the call's own time limit, whichever comes first, or
 * a hang-up. One timer, cleared when the call ends: a time limit of minutes left pending per
 * request would hold each request's signals (and what listens to them) that long.
 */
class CallStop {
  readonly controller = new AbortController();
  readonly timeout = { aborted: false };
  private readonly timer: ReturnType<typeof setTimeout>;
  private readonly outer: AbortSignal;
  private readonly onOuterAbort = () => this.controller.abort(this.outer.reason);

  constructor(outer: AbortSignal, timeoutMs: number) {
    this.outer = outer;
    if (outer.aborted) this.controller.abort(outer.reason);
    else outer.addEventListener('abort', this.onOuterAbort, { once: true });
    this.timer = setTimeout(() => {
      this.timeout.aborted = true;
      this.controller.abort(new DOMException('the upstream time limit passed', 'TimeoutError'));
    }, timeoutMs);
    this.timer.unref?.();
  }

  end(): void {
    clearTimeout(this.timer);
    this.outer.removeEventListener('abort', this.onOuterAbort);
  }
}

/**
 * Sends one request to the model server. A non-2xx answer becomes a `model-http-status` with its
 * status and message; no answer a `model-unreachable`, no answer in time a `model-timeout`.
 */
export async function callUpstream(
  settings: UpstreamSettings,
  path: string,
  init: { method: 'GET' | 'POST'; body?: unknown; authorization?: string; signal: AbortSignal },
): Promise<UpstreamCall> {
  const stop = new CallStop(init.signal, settings.timeoutMs);
  const headers: Record<string, string> = { accept: 'application/json, text/event-stream' };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const authorization = settings.authorization ?? init.authorization;
  if (authorization !== undefined) headers.authorization = authorization;
  let response: UpstreamResponse;
  const transport = settings.transport ?? fetchTransport(settings.fetch ?? globalThis.fetch);
  try {
    response = await transport.send({
      url: `${settings.baseURL}${path}`,
      method: init.method,
      headers,
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      signal: stop.controller.signal,
    });
  } catch (error) {
    stop.end();
    throw upstreamFailure(error, settings, stop.timeout);
  }
  if (response.status < 200 || response.status > 299) {
    const text = await readErrorText(response).catch(() => '');
    stop.end();
    throw new ModelCallError('model-http-status', {
      baseURL: settings.baseURL,
      status: response.status,
      detail: upstreamMessage(text),
    });
  }
  return {
    response,
    timeout: stop.timeout,
    hangUp() {
      response.body.cancel();
      stop.controller.abort();
      stop.end();
    },
    end: () => stop.end(),
  };
}

function reasoningOf(fields: Readonly<Record<string, unknown>>): string | undefined {
  // vLLM and llama.cpp name it `reasoning_content`; newer vLLM and Ollama `reasoning`.
  const reasoning = fields.reasoning_content ?? fields.reasoning;
  return typeof reasoning === 'string' && reasoning.length > 0 ? reasoning : undefined;
}

/** A token count: a whole number, not negative; anything else is left out. */
function countAt(fields: Readonly<Record<string, unknown>>, name: string): number | undefined {
  const value = fields[name];
  return Number.isSafeInteger(value) && (value as number) >= 0 ? (value as number) : undefined;
}

/**
 * The token counts of a reply, and nothing else of what the model server put there: the usage
 * is written into the client's reply, so a server's odd (or deeply nested) value must not be.
 */
function usageOf(value: unknown): UpstreamUsage | undefined {
  if (!isFields(value)) return undefined;
  const prompt = countAt(value, 'prompt_tokens');
  const completion = countAt(value, 'completion_tokens');
  const total = countAt(value, 'total_tokens');
  return {
    ...(prompt === undefined ? {} : { prompt_tokens: prompt }),
    ...(completion === undefined ? {} : { completion_tokens: completion }),
    ...(total === undefined ? {} : { total_tokens: total }),
  };
}

/** The piece one chat completions object (a reply or a stream chunk) carries. */
function pieceOf(body: unknown, streamed: boolean, baseURL: string): UpstreamPiece {
  if (!isFields(body))
    throw badReply(baseURL, 'the model server sent a reply that is not a JSON object');
  if (body.error !== undefined && body.error !== null)
    throw badReply(
      baseURL,
      `the model server reported an error: ${upstreamMessage(JSON.stringify(body))}`,
    );
  const choice = Array.isArray(body.choices) ? body.choices[0] : undefined;
  const usage = usageOf(body.usage);
  if (!isFields(choice)) {
    if (!usage && !streamed)
      throw badReply(baseURL, 'the model server sent a reply without choices');
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

/**
 * A whole reply's JSON, read within the limits: its size (the connection is closed past it), its
 * nesting and its count of values. A reply past one, or not JSON, is the model server's fault:
 * a `model-bad-reply` saying what was wrong with it.
 */
export async function readReplyJson(
  call: UpstreamCall,
  settings: UpstreamSettings,
  memory: MemoryReservation | undefined,
  what = 'reply',
): Promise<unknown> {
  let read: CappedBytes;
  const reserved = memory?.bytes ?? 0;
  try {
    read = await readBodyCapped(call.response.body, settings.maxReplyBytes, (bytes) =>
      memory?.grow(bytes, 'reply'),
    );
  } catch (error) {
    // A limit the reply went past (the memory budget): nothing more of it is read.
    if (ToolwireError.isInstance(error)) call.hangUp();
    throw upstreamFailure(error, settings, call.timeout, true);
  } finally {
    call.end();
  }
  if (!read.whole) {
    call.hangUp();
    throw badReply(
      settings.baseURL,
      `the model server's ${what} is larger than ${settings.maxReplyBytes} bytes, the most the proxy reads (limits.maxUpstreamReplyBytes); the proxy closed the connection`,
    );
  }
  const shape = measureJson(read.bytes, settings.json);
  if ('exceeds' in shape)
    throw badReply(
      settings.baseURL,
      shape.exceeds === 'maxDepth'
        ? `the model server's ${what} nests arrays and objects deeper than ${settings.json.maxDepth} levels, the most the proxy reads (limits.maxJsonDepth)`
        : `the model server's ${what} holds more than ${settings.json.maxValues} JSON values, the most the proxy reads (limits.maxJsonValues)`,
    );
  memory?.growTo(reserved + estimateJsonCost(read.bytes.byteLength, shape), 'reply');
  const text = new TextDecoder().decode(read.bytes);
  try {
    return parseJsonText(text);
  } catch {
    throw badReply(
      settings.baseURL,
      `the model server's ${what} is not valid JSON; it begins ${excerpt(text)}`,
    );
  }
}

/** A whole (not streamed) reply's piece. */
export async function readReply(
  call: UpstreamCall,
  settings: UpstreamSettings,
  memory?: MemoryReservation,
): Promise<UpstreamPiece> {
  return pieceOf(await readReplyJson(call, settings, memory), false, settings.baseURL);
}

/** The media type of a response, lower case, without parameters (`text/event-stream`). */
function mediaType(response: UpstreamResponse): string {
  const type = response.header('content-type') ?? '';
  const end = type.indexOf(';');
  return (end < 0 ? type : type.slice(0, end)).trim().toLowerCase();
}

/**
 * Throws a `model-bad-reply` (and hangs up) when the answer to a streamed request is neither an event stream
 * nor JSON: an HTML error page from a reverse proxy, say, which read as events would be an empty
 * reply. An answer without a content type is read as events.
 */
export async function checkStreamType(call: UpstreamCall, baseURL?: string): Promise<void> {
  const type = mediaType(call.response);
  if (type === '' || type === 'text/event-stream' || type === 'application/json') return;
  const { bytes } = await readBodyCapped(call.response.body, EXCERPT_CHARS).catch(() => ({
    bytes: new Uint8Array(0),
  }));
  call.hangUp();
  throw badReply(
    baseURL,
    `the model server answered a streamed request with ${JSON.stringify(type.slice(0, 100))}, not an event stream; it begins ${excerpt(new TextDecoder().decode(bytes))}`,
  );
}

/**
 * Whether an event's JSON text may go past the nesting or count of values a reply may have. A
 * text of n characters holds at most n values and nests at most n/2 levels, so the usual event
 * (a token in a chunk of a few hundred characters) needs no count at all.
 */
function mayExceedShape(text: string, limits: JsonShapeLimits): boolean {
  return text.length > limits.maxValues || text.length > 2 * limits.maxDepth;
}

/**
 * Whether a read is exactly one event of one `data:` line (`data: …` and a blank line, no other
 * line break; a `\r` is one too), within the longest event read.
 */
function isOneDataEvent(text: string, maxEventBytes: number): boolean {
  // The first line break is the second-last character and the last is one too.
  return (
    text.length <= maxEventBytes &&
    text.startsWith('data: ') &&
    text.indexOf('\n') === text.length - 2 &&
    text.charCodeAt(text.length - 1) === 10 &&
    !text.includes('\r')
  );
}

/**
 * Reads a streamed reply, handing `onPieces` the pieces of each network read on the turn it
 * arrives (nothing waits between the read and the reply events it makes), and resolves at the
 * stream's end. A server that answers a streamed request with one JSON reply is read as that
 * reply. A fault (a bad event, a limit) hangs up and rejects; so does a broken connection.
 * `pause` and `resume` of the call's body hold the reading while the client catches up.
 */
export async function streamPieces(
  call: UpstreamCall,
  settings: UpstreamSettings,
  memory: MemoryReservation | undefined,
  onPieces: (pieces: UpstreamPiece[]) => void,
): Promise<void> {
  if (mediaType(call.response) === 'application/json') {
    onPieces([await readReply(call, settings, memory)]);
    return;
  }
  await checkStreamType(call, settings.baseURL);
  let batch: UpstreamPiece[] = [];
  let done = false;
  let fault: unknown;
  // Most chunks differ from the one before only in their text: read without a parse.
  const template = new ContentChunkTemplate();
  /** One event's data: `[DONE]`, a chunk the template reads, or one parsed in full. */
  const readEvent = (data: string): void => {
    if (done || fault !== undefined) return;
    if (data === '[DONE]') {
      done = true;
      return;
    }
    const text = template.read(data);
    if (text !== undefined) {
      batch.push({
        content: text || undefined,
        reasoning: undefined,
        finishReason: undefined,
        usage: undefined,
      });
      return;
    }
    // An event is read like a whole reply, within its nesting and values.
    if (mayExceedShape(data, settings.json)) {
      const shape = measureJson(data, settings.json);
      if ('exceeds' in shape) {
        fault = badReply(
          settings.baseURL,
          `the model server sent a stream event with more nesting or JSON values than the proxy reads (limits.${shape.exceeds === 'maxDepth' ? 'maxJsonDepth' : 'maxJsonValues'}); the proxy closed the connection`,
        );
        return;
      }
    }
    let parsed: unknown;
    try {
      parsed = parseJsonText(data);
    } catch {
      fault = badReply(
        settings.baseURL,
        `the model server sent a stream event that is not JSON: ${JSON.stringify(data.slice(0, 200))}`,
      );
      return;
    }
    let piece: UpstreamPiece;
    try {
      piece = pieceOf(parsed, true, settings.baseURL);
    } catch (error) {
      fault = error;
      return;
    }
    batch.push(piece);
    if (
      piece.content !== undefined &&
      piece.reasoning === undefined &&
      piece.finishReason === undefined &&
      piece.usage === undefined
    )
      template.learn(data, piece.content);
  };
  const parser = createParser({
    // A line or an event that never ends would be buffered for ever.
    maxBufferSize: settings.maxEventBytes,
    onError(error: ParseError) {
      if (error.type === 'max-buffer-size-exceeded' && fault === undefined)
        fault = badReply(
          settings.baseURL,
          `the model server sent a stream line or event longer than ${settings.maxEventBytes} characters, the most the proxy reads (limits.maxUpstreamEventBytes); the proxy closed the connection`,
        );
    },
    onEvent: (event) => readEvent(event.data),
  });
  const decoder = new TextDecoder();
  let atEventEnd = true;
  const body = call.response.body;
  try {
    await body.forEach((chunk) => {
      if (done) return;
      const text = decoder.decode(chunk, { stream: true });
      // A read that is one whole `data:` event, after a read that ended one, is that event:
      // the parser holds nothing then, and a server writes most tokens so.
      if (atEventEnd && isOneDataEvent(text, settings.maxEventBytes)) readEvent(text.slice(6, -2));
      else parser.feed(text);
      atEventEnd = text.endsWith('\n\n');
      if (batch.length > 0) {
        const pieces = batch;
        batch = [];
        onPieces(pieces);
      }
      if (fault !== undefined) throw fault;
      // The server may keep the connection open after [DONE]: nothing more is read.
      if (done) body.cancel();
    });
  } catch (error) {
    call.hangUp();
    throw upstreamFailure(error, settings, call.timeout, true);
  } finally {
    call.end();
  }
}
