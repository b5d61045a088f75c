import { createHash, timingSafeEqual } from 'node:crypto';
import { getHeapStatistics } from 'node:v8';
import { type Context, Hono } from 'hono';
import { createIdGenerator, type ToolCallProtocol } from '../core/index.ts';
import { ModelCallError } from '../core/model-call-error.ts';
import { LOOPBACK_HOSTNAMES } from '../http/host-names.ts';
import { HttpError } from '../http/http-error.ts';
import { DEFAULT_JSON_SHAPE_LIMITS, JsonTextReader } from '../http/json-shape.ts';
import { hostGuard, hostPolicy, sameOriginGuard } from '../http/request-guard.ts';
import { sseResponse } from '../http/sse-response.ts';
import {
  type ProtocolChoice,
  type ProtocolName,
  protocolByName,
  protocolNameFor,
} from '../protocols/index.ts';
import { readMessagesRequest } from './anthropic-request.ts';
import { MessageBuilder, MessageEvents, type MessageIdentity } from './anthropic-response.ts';
import type { ChatRequest } from './conversation.ts';
import { type ClientApi, errorResponse, httpErrorOf } from './errors.ts';
import { MemoryBudget, type MemoryReservation } from './memory-budget.ts';
import { readChatCompletionsRequest } from './openai-request.ts';
import {
  ChatCompletionBuilder,
  ChatCompletionChunks,
  type CompletionIdentity,
} from './openai-response.ts';
import type { ReplyEvent } from './reply-events.ts';
import { type ReplyEnd, runReply } from './reply-run.ts';
import { readRequestJson } from './request-body.ts';
import { type EarlierConversation, readResponsesRequest } from './responses/request.ts';
import { checkServable, LeftOutToolsLog, wholeResponse } from './responses/route.ts';
import { DEFAULT_RESPONSE_STORE_LIMITS, ResponseStore } from './responses/store.ts';
import {
  callUpstream,
  readReplyJson,
  type UpstreamSettings,
  type UpstreamTarget,
  upstreamTarget,
} from './upstream.ts';
import { type UpstreamMessage, upstreamMessages } from './upstream-messages.ts';

export interface ProxyLimits {
  /** Largest request body read, in bytes; larger get 413. Default 16 MiB. */
  readonly maxBodyBytes: number;
  /** Longest a request's body may take to arrive; then 408. Default 30 s. */
  readonly bodyTimeoutMs: number;
  /**
   * Deepest nesting of arrays and objects in a request body (400) or a whole model-server reply
   * (502). Calls the model writes may nest 8 levels less, so they fit in the next request.
   * Default 128.
   */
  readonly maxJsonDepth: number;
  /** Most JSON values (keys included) in a request body (413) or a whole reply (502). Default 1,000,000. */
  readonly maxJsonValues: number;
  /**
   * Memory all requests being answered may hold, as estimated from each body's size and count of
   * values. A request that never fits gets 413, one that does not fit now 503. Default 1 GiB,
   * or half of the heap limit when that is less.
   */
  readonly memoryBudgetBytes: number;
  /** Requests answered at once (`/v1/models` included); more get 429. Default 64. */
  readonly maxConcurrentRequests: number;
  /** Longest one upstream request may take, its reply stream included. Default 10 minutes. */
  readonly upstreamTimeoutMs: number;
  /**
   * Largest whole (not streamed) model-server reply read, in bytes, and most of a streamed reply
   * held while `tool_choice` waits for a demanded call (its text plus a share per event).
   * Past it the connection is closed and the client gets 502. Default 8 MiB.
   */
  readonly maxUpstreamReplyBytes: number;
  /** Longest line or event of a streamed reply, in characters; past it as above. Default 1 MiB. */
  readonly maxUpstreamEventBytes: number;
  /** Largest number of characters one call may span. Default 16 MiB. */
  readonly maxCallChars: number;
}

/** The default memory budget: 1 GiB, or half of the heap when the heap is smaller than 2 GiB. */
const DEFAULT_MEMORY_BUDGET = Math.min(
  2 ** 30,
  Math.floor(getHeapStatistics().heap_size_limit / 2),
);

export const DEFAULT_PROXY_LIMITS: ProxyLimits = {
  maxBodyBytes: 16 * 1024 * 1024,
  bodyTimeoutMs: 30_000,
  maxJsonDepth: DEFAULT_JSON_SHAPE_LIMITS.maxDepth,
  maxJsonValues: DEFAULT_JSON_SHAPE_LIMITS.maxValues,
  memoryBudgetBytes: DEFAULT_MEMORY_BUDGET,
  maxConcurrentRequests: 64,
  upstreamTimeoutMs: 10 * 60_000,
  maxUpstreamReplyBytes: 8 * 1024 * 1024,
  maxUpstreamEventBytes: 1024 * 1024,
  maxCallChars: 16 * 1024 * 1024,
};

/**
 * Levels of a request around a call's arguments (body, messages, message, content, block,
 * input, and a margin): a call nested up to the rest can be sent back in the next request.
 */
const REQUEST_ENVELOPE_DEPTH = 8;

export interface ProxyOptions {
  /**
   * Base URL of the OpenAI-compatible model server, e.g. `http://127.0.0.1:11434/v1`. Credentials
   * in it (`http://user:pass@host/v1`) are sent as basic authentication, never shown.
   */
  readonly upstream: string;
  /**
   * The format the model is told to write calls in and read in: a format's name or alias,
   * `auto`, or `model` (the format of each request's model id). Default `model`.
   */
  readonly protocol?: ProtocolChoice;
  /** When set, clients must send it (`Authorization: Bearer …` or `x-api-key`). */
  readonly apiKey?: string;
  /**
   * The key sent to the model server; without one (and without credentials in `upstream`), the
   * client's `Authorization` goes upstream.
   */
  readonly upstreamApiKey?: string;
  /** Extra attempts when `tool_choice` demands a call and the model wrote none. Default 1. */
  readonly toolChoiceRetries?: number;
  readonly limits?: Partial<ProxyLimits>;
  /** Host names requests may be addressed to. Default: the loopback names. */
  readonly allowedHostnames?: readonly string[];
  /** Also admit any IP address as the Host (a proxy listening on a network address). */
  readonly allowIpAddressHosts?: boolean;
  /** The fetch used to reach the model server (tests, custom agents). Default: global fetch. */
  readonly fetch?: typeof globalThis.fetch;
  /** Most Responses API responses kept for `previous_response_id` (0 keeps none). Default 1000. */
  readonly maxStoredResponses?: number;
  /** Most bytes (as JSON) those kept responses may hold; past it the oldest go. Default 64 MiB. */
  readonly maxStoredResponseBytes?: number;
}

export interface ProxyApp {
  readonly app: Hono;
  readonly limits: ProxyLimits;
  /** Requests being answered now. */
  active(): number;
  /** Aborts the requests being answered. */
  close(): void;
}

/** The upstream's base URL and credentials, or a TypeError naming the option. */
function checkedUpstream(value: string, apiKey: string | undefined): UpstreamTarget {
  let target: UpstreamTarget;
  try {
    target = upstreamTarget(value);
  } catch (error) {
    throw new TypeError(`createProxyApp: ${(error as Error).message}`);
  }
  if (target.authorization !== undefined && apiKey !== undefined)
    throw new TypeError(
      'createProxyApp: the upstream URL carries credentials and upstreamApiKey is set: the model server takes one Authorization, give one of them',
    );
  return target;
}

/** The store of Responses API responses, its limits from the options (a TypeError naming a bad one). */
function storeFor(options: ProxyOptions): ResponseStore<EarlierConversation> {
  const limits = {
    maxResponses: options.maxStoredResponses ?? DEFAULT_RESPONSE_STORE_LIMITS.maxResponses,
    maxBytes: options.maxStoredResponseBytes ?? DEFAULT_RESPONSE_STORE_LIMITS.maxBytes,
  };
  for (const [name, value] of [
    ['maxStoredResponses', limits.maxResponses],
    ['maxStoredResponseBytes', limits.maxBytes],
  ] as const)
    if (!Number.isSafeInteger(value) || value < 0)
      throw new TypeError(
        `createProxyApp: ${name} must be a whole number of at least 0, not ${String(value)}`,
      );
  return new ResponseStore<EarlierConversation>(limits);
}

/** The largest retry count taken: each is a whole extra model call. */
const MAX_TOOL_CHOICE_RETRIES = 5;

function checkedLimits(limits: ProxyLimits): ProxyLimits {
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value < 1)
      throw new TypeError(
        `createProxyApp: limits.${name} must be a whole number of at least 1, not ${String(value)}`,
      );
  }
  return limits;
}

function sameSecret(given: string, expected: string): boolean {
  // Hashes have one length, so the comparison takes the same time whatever was sent.
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** The key a client sent: OpenAI clients as a bearer token, Anthropic clients as `x-api-key`. */
function clientKey(c: Context): string | undefined {
  const authorization = c.req.header('authorization');
  if (authorization?.toLowerCase().startsWith('bearer ')) return authorization.slice(7).trim();
  return c.req.header('x-api-key');
}

/** What the client's credentials say upstream: its `Authorization`, or its `x-api-key` as one. */
function clientAuthorization(c: Context): string | undefined {
  const authorization = c.req.header('authorization');
  if (authorization !== undefined) return authorization;
  const key = c.req.header('x-api-key');
  return key === undefined ? undefined : `Bearer ${key}`;
}

function apiOf(path: string): ClientApi {
  return path === '/v1/messages' || path.startsWith('/v1/messages/') ? 'anthropic' : 'openai';
}

/** How one API writes a reply: streamed (events) or whole (one object). */
interface ReplyWriter {
  /** What the stream begins with once the model server has answered. */
  start(): string;
  encode(events: readonly ReplyEvent[]): string;
  finish(end: ReplyEnd): string;
  error(error: HttpError): string;
}

/** A new Messages reply's identity. */
function messageIdentity(request: ChatRequest): MessageIdentity {
  return { id: `msg_${crypto.randomUUID().replaceAll('-', '')}`, model: request.model };
}

/** A new chat completion's identity. */
function completionIdentity(request: ChatRequest): CompletionIdentity {
  return {
    id: `chatcmpl-${crypto.randomUUID()}`,
    model: request.model,
    created: Math.floor(Date.now() / 1000),
  };
}

function streamWriter(api: ClientApi, request: ChatRequest): ReplyWriter {
  if (api === 'anthropic') {
    const events = new MessageEvents(messageIdentity(request));
    return {
      start: () => events.start(),
      encode: (batch) => events.encode(batch),
      finish: (end) => events.finish(end),
      error: (error) => events.error(error),
    };
  }
  const chunks = new ChatCompletionChunks(completionIdentity(request));
  return {
    // OpenAI's first chunk names the role: clients see the reply has begun.
    start: () => chunks.encode([{ type: 'text', delta: '' }]),
    encode: (batch) => chunks.encode(batch),
    finish: (end) => chunks.finish(end, request.includeUsage),
    error: (error) => chunks.error(error),
  };
}

async function wholeReply(
  api: ClientApi,
  request: ChatRequest,
  run: AsyncGenerator<ReplyEvent[], ReplyEnd>,
): Promise<Response> {
  const builder = api === 'anthropic' ? new MessageBuilder() : new ChatCompletionBuilder();
  for (;;) {
    const step = await run.next();
    if (step.done) {
      const body =
        builder instanceof MessageBuilder
          ? builder.build(messageIdentity(request), step.value)
          : builder.build(completionIdentity(request), step.value);
      return Response.json(body);
    }
    builder.add(step.value);
  }
}

/**
 * Streams a reply. The response begins once the first batch is ready, so an error before it (no
 * model server, its error status, a demanded call never written) is an HTTP error in the
 * client's format; an error after it ends the stream with the API's error event.
 */
async function streamedReply(
  api: ClientApi,
  request: ChatRequest,
  run: AsyncGenerator<ReplyEvent[], ReplyEnd>,
  abort: () => void,
  done: () => void,
): Promise<Response> {
  const writer = streamWriter(api, request);
  const encoder = new TextEncoder();
  let first: IteratorResult<ReplyEvent[], ReplyEnd> | undefined = await run.next();
  let started = false;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        let text = started ? '' : writer.start();
        started = true;
        // A pull that enqueues nothing is not called again: read on until there is output
        // (a call's end, say, writes nothing in chat completions) or the reply is over.
        for (;;) {
          const step = first ?? (await run.next());
          first = undefined;
          text += step.done ? writer.finish(step.value) : writer.encode(step.value);
          if (step.done) {
            controller.enqueue(encoder.encode(text));
            controller.close();
            done();
            return;
          }
          if (text.length > 0) break;
        }
        controller.enqueue(encoder.encode(text));
      } catch (error) {
        const failure = httpErrorOf(error);
        controller.enqueue(encoder.encode(writer.error(failure)));
        controller.close();
        done();
      }
    },
    async cancel() {
      // The client went away: stop asking the model server.
      abort();
      done();
      await run.return(undefined as never).catch(() => {});
    },
  });
  return sseResponse(stream);
}

/** Longest the proxy waits for the model server's tokenizer before it estimates instead. */
const TOKENIZE_TIMEOUT_MS = 10_000;

/** The rendered prompt as one text: what a tokenizer counts (the chat template's own tokens aside). */
function promptText(messages: readonly UpstreamMessage[]): string {
  return messages
    .map((message) =>
      typeof message.content === 'string'
        ? message.content
        : message.content
            .map((part) => (typeof part.text === 'string' ? part.text : ''))
            .join('\n'),
    )
    .join('\n\n');
}

/**
 * The model server's root, where llama.cpp and vLLM serve `/tokenize`: the base URL without its
 * trailing `/v1`.
 */
function serverRoot(baseURL: string): string {
  return baseURL.endsWith('/v1') ? baseURL.slice(0, -3) : baseURL;
}

/** How many tokens a `/tokenize` reply counts (llama.cpp: `tokens`; vLLM: `count` and `tokens`). */
function tokenCountOf(reply: unknown): number | undefined {
  if (typeof reply !== 'object' || reply === null) return undefined;
  const { count, tokens } = reply as { count?: unknown; tokens?: unknown };
  if (Number.isSafeInteger(count) && (count as number) >= 0) return count as number;
  return Array.isArray(tokens) ? tokens.length : undefined;
}

/**
 * The proxy: `POST /v1/chat/completions`, `POST /v1/responses` (not streamed yet) and
 * `POST /v1/messages` with tools for a model server that has none (or bad ones), and
 * `GET /v1/models` passed through. Calls are read out of the
 * model's text in the protocol's format as it streams, checked against the tools' schemas, and
 * sent in the client's API shapes.
 */
export function createProxyApp(options: ProxyOptions): ProxyApp {
  const limits = checkedLimits({ ...DEFAULT_PROXY_LIMITS, ...options.limits });
  const retries = options.toolChoiceRetries ?? 1;
  if (!Number.isInteger(retries) || retries < 0 || retries > MAX_TOOL_CHOICE_RETRIES)
    throw new TypeError(
      `createProxyApp: toolChoiceRetries must be a whole number from 0 to ${MAX_TOOL_CHOICE_RETRIES}, not ${String(retries)}`,
    );
  const choice = options.protocol ?? 'model';
  // Fails now, not at the first request, on a choice no format has.
  protocolNameFor(choice, '');
  const target = checkedUpstream(options.upstream, options.upstreamApiKey);
  const upstream: UpstreamSettings = {
    baseURL: target.baseURL,
    authorization:
      options.upstreamApiKey === undefined
        ? target.authorization
        : `Bearer ${options.upstreamApiKey}`,
    timeoutMs: limits.upstreamTimeoutMs,
    maxReplyBytes: limits.maxUpstreamReplyBytes,
    maxEventBytes: limits.maxUpstreamEventBytes,
    json: { maxDepth: limits.maxJsonDepth, maxValues: limits.maxJsonValues },
    fetch: options.fetch ?? globalThis.fetch,
  };
  const budget = new MemoryBudget(limits.memoryBudgetBytes);
  const responses = storeFor(options);
  const leftOutTools = new LeftOutToolsLog();
  /** The client's credentials go upstream only when the proxy has none of its own for it. */
  const upstreamAuthorization = (c: Context) =>
    upstream.authorization === undefined ? clientAuthorization(c) : undefined;
  const protocols = new Map<ProtocolName, ToolCallProtocol>();
  const protocolFor = (model: string): ToolCallProtocol => {
    const name = protocolNameFor(choice, model);
    let protocol = protocols.get(name);
    if (!protocol) {
      protocol = protocolByName(name);
      protocols.set(name, protocol);
    }
    return protocol;
  };
  const controllers = new Set<AbortController>();
  let active = 0;

  /** A place among the requests answered at once (429 when none is free) and a memory share. */
  interface Place {
    readonly controller: AbortController;
    readonly memory: MemoryReservation;
    /** Gives the place back; the first call counts. */
    done(): void;
  }
  const admit = (c: Context): Place => {
    if (active >= limits.maxConcurrentRequests)
      throw new HttpError(
        429,
        `the proxy is answering ${active} requests, its most at once (limits.maxConcurrentRequests); try again shortly`,
      );
    active++;
    const controller = new AbortController();
    controllers.add(controller);
    const memory = budget.open();
    let released = false;
    const abort = () => controller.abort();
    c.req.raw.signal.addEventListener('abort', abort, { once: true });
    return {
      controller,
      memory,
      done() {
        if (released) return;
        released = true;
        active--;
        controllers.delete(controller);
        memory.release();
        c.req.raw.signal.removeEventListener('abort', abort);
      },
    };
  };

  const app = new Hono();
  app.onError((error, c) => {
    const failure = httpErrorOf(error);
    // A failure that is neither a refusal nor the model server's is the proxy's own: logged.
    if (!HttpError.isInstance(error) && !ModelCallError.isInstance(error))
      console.error('toolwire proxy:', error);
    return errorResponse(apiOf(c.req.path), failure);
  });
  app.notFound((c) =>
    errorResponse(
      apiOf(c.req.path),
      new HttpError(
        404,
        `${c.req.method} ${c.req.path} is not served here: the proxy answers POST /v1/chat/completions, POST /v1/responses, POST /v1/messages, POST /v1/messages/count_tokens and GET /v1/models`,
      ),
    ),
  );
  app.use(
    hostGuard(
      hostPolicy(
        options.allowedHostnames ?? [...LOOPBACK_HOSTNAMES],
        options.allowIpAddressHosts ?? false,
      ),
    ),
  );
  // No page may use the proxy: a browser's cross-site request is refused.
  app.use(sameOriginGuard());
  // Claude Code probes the server with `HEAD /` before its first request: a bare 200, which says
  // nothing but that the proxy is up, so it needs no key (Hono answers HEAD with the GET route).
  app.get('/', (c) => c.body(null, 200));
  if (options.apiKey !== undefined) {
    const expected = options.apiKey;
    app.use(async (c, next) => {
      const key = clientKey(c);
      if (key === undefined || !sameSecret(key, expected))
        throw new HttpError(
          401,
          key === undefined
            ? 'this proxy needs an API key: send it as "Authorization: Bearer <key>" or "x-api-key: <key>"'
            : 'the API key sent is not the one this proxy was started with',
        );
      await next();
    });
  }

  // The model server's list, as JSON only: an HTML page or a broken answer is its fault (502).
  app.get('/v1/models', async (c) => {
    const place = admit(c);
    try {
      const call = await callUpstream(upstream, '/models', {
        method: 'GET',
        authorization: upstreamAuthorization(c),
        signal: place.controller.signal,
      });
      return Response.json(await readReplyJson(call, upstream, place.memory, 'model list'));
    } finally {
      place.done();
    }
  });

  /** Reads JSON texts inside a request (calls' arguments) within what the body's limits leave. */
  const textsReader = (values: number) =>
    new JsonTextReader({
      maxDepth: Math.max(1, limits.maxJsonDepth - REQUEST_ENVELOPE_DEPTH),
      maxValues: limits.maxJsonValues - values,
    });
  /** The model's reply to a request, read in its format: the same run for every API. */
  const replyRun = (c: Context, place: Place, request: ChatRequest, idPrefix: string) =>
    runReply(request, {
      upstream,
      protocol: protocolFor(request.model),
      parseOptions: {
        maxCallChars: limits.maxCallChars,
        maxDepth: Math.max(1, limits.maxJsonDepth - REQUEST_ENVELOPE_DEPTH),
        generateId: createIdGenerator(idPrefix),
      },
      toolChoiceRetries: retries,
      maxHeldBytes: limits.maxUpstreamReplyBytes,
      memory: place.memory,
      authorization: upstreamAuthorization(c),
      signal: place.controller.signal,
    });

  const answer = (api: ClientApi) => async (c: Context) => {
    const place = admit(c);
    const { controller, done } = place;
    const abort = () => controller.abort();
    try {
      const { body, values } = await readRequestJson(c.req.raw, limits, place.memory);
      const texts = textsReader(values);
      const request =
        api === 'anthropic' ? readMessagesRequest(body) : readChatCompletionsRequest(body, texts);
      place.memory.grow(texts.cost);
      const run = replyRun(c, place, request, api === 'anthropic' ? 'toolu' : 'call');
      if (!request.stream) {
        const response = await wholeReply(api, request, run);
        done();
        return response;
      }
      return await streamedReply(api, request, run, abort, done);
    } catch (error) {
      done();
      throw error;
    }
  };
  app.post('/v1/chat/completions', answer('openai'));
  app.post('/v1/messages', answer('anthropic'));

  // The Responses API (Codex, the Agents SDK): the same reply run, answered as a `response`
  // object; each one kept (unless `store: false`) for a later `previous_response_id`.
  app.post('/v1/responses', async (c) => {
    const place = admit(c);
    try {
      const { body, values } = await readRequestJson(c.req.raw, limits, place.memory);
      const texts = textsReader(values);
      const request = readResponsesRequest(body, { texts, earlier: (id) => responses.get(id) });
      place.memory.grow(texts.cost);
      checkServable(request);
      leftOutTools.note(request);
      return await wholeResponse(request, replyRun(c, place, request.chat, 'call'), responses);
    } finally {
      place.done();
    }
  });

  // Claude Code asks how long its conversation is. The model server's tokenizer counts the prompt
  // as the proxy renders it where it serves one (llama.cpp, vLLM); else an estimate of a token
  // per four characters, and a header saying so.
  app.post('/v1/messages/count_tokens', async (c) => {
    const place = admit(c);
    try {
      const { body } = await readRequestJson(c.req.raw, limits, place.memory);
      const request = readMessagesRequest(body, { forCounting: true });
      const text = promptText(upstreamMessages(request, protocolFor(request.model)));
      const tokenizer: UpstreamSettings = {
        ...upstream,
        baseURL: serverRoot(upstream.baseURL),
        timeoutMs: Math.min(upstream.timeoutMs, TOKENIZE_TIMEOUT_MS),
      };
      let counted: number | undefined;
      try {
        const call = await callUpstream(tokenizer, '/tokenize', {
          method: 'POST',
          // llama.cpp reads `content`, vLLM `prompt` (and `model`); each ignores the other's.
          body: { model: request.model, content: text, prompt: text, add_special: false },
          authorization: upstreamAuthorization(c),
          signal: place.controller.signal,
        });
        counted = tokenCountOf(await readReplyJson(call, tokenizer, place.memory, 'token count'));
      } catch {
        // No tokenizer there (404), or it failed: the estimate below answers.
      }
      const estimated = counted === undefined;
      const inputTokens = counted ?? Math.max(1, Math.ceil(text.length / 4));
      return Response.json(
        { input_tokens: inputTokens },
        { headers: { 'x-toolwire-token-count': estimated ? 'estimate' : 'tokenizer' } },
      );
    } finally {
      place.done();
    }
  });

  return {
    app,
    limits,
    active: () => active,
    close() {
      for (const controller of controllers) controller.abort();
    },
  };
}
