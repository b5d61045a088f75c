import { createHash, timingSafeEqual } from 'node:crypto';
import { type Context, Hono } from 'hono';
import { ModelCallError } from '../core/model-call-error.ts';
import { LOOPBACK_HOSTNAMES } from '../http/host-names.ts';
import { HttpError } from '../http/http-error.ts';
import { hostGuard, hostPolicy, sameOriginGuard } from '../http/request-guard.ts';
import { protocolNameFor } from '../protocols/index.ts';
import { createProxyContext } from './context.ts';
import { apiOfPath, errorResponse, httpErrorOf } from './errors.ts';
import { logLine } from './log-line.ts';
import {
  DEFAULT_PROXY_LIMITS,
  isToolCallProtocol,
  type ProxyLimits,
  type ProxyOptions,
} from './options.ts';
import {
  type KeptConversations,
  ownMemoryConversations,
  sharedConversations,
} from './responses/kept-conversations.ts';
import type { EarlierConversation } from './responses/request.ts';
import { LeftOutToolsLog } from './responses/route.ts';
import { DEFAULT_RESPONSE_STORE_LIMITS, ResponseStore } from './responses/store.ts';
import { chatCompletionsRoute } from './routes/chat-completions.ts';
import { countTokensRoute } from './routes/count-tokens.ts';
import { messagesRoute } from './routes/messages.ts';
import { modelsRoute } from './routes/models.ts';
import { ollamaRoutes } from './routes/ollama.ts';
import { responsesRoute } from './routes/responses.ts';
import { type UpstreamSettings, type UpstreamTarget, upstreamTarget } from './upstream.ts';
import { CONSTRAIN_MODES, type ConstrainMode } from './upstream-constraint.ts';
import { detectUpstreamKind, UPSTREAM_KINDS, type UpstreamKind } from './upstream-kind.ts';
import { fetchTransport, nodeTransport } from './upstream-transport.ts';

export {
  DEFAULT_PROXY_LIMITS,
  type ProxyLimits,
  type ProxyOptions,
} from './options.ts';

export interface ProxyApp {
  readonly app: Hono;
  readonly limits: ProxyLimits;
  /** Requests being answered now. */
  active(): number;
  /** Aborts the requests being answered; a given `store` stays open (its owner closes it). */
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

/**
 * Where Responses API responses are kept: the given store's `responses`, or the proxy's own
 * memory with its limits from the options (a TypeError naming a bad one).
 */
function keptConversationsFor(
  options: ProxyOptions,
  limits: ProxyLimits,
  log: (line: string) => void,
): KeptConversations {
  if (options.store === undefined) return ownMemoryConversations(ownMemoryFor(options));
  for (const name of ['maxStoredResponses', 'maxStoredResponseBytes'] as const)
    if (options[name] !== undefined)
      throw new TypeError(
        `createProxyApp: ${name} bounds the proxy's own memory; with a store, give it in the store's limits`,
      );
  return sharedConversations(options.store.responses, {
    maxTextBytes: options.store.limits.maxStoredResponseBytes,
    maxDepth: limits.maxJsonDepth,
    log,
  });
}

/** The proxy's own memory of responses, its limits from the options (a TypeError naming a bad one). */
function ownMemoryFor(options: ProxyOptions): ResponseStore<EarlierConversation> {
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

/** `constrain` and `upstreamKind` as given, or a TypeError naming the one that is none. */
function constraintOptions(options: ProxyOptions): {
  constrain: ConstrainMode;
  upstreamKind: UpstreamKind | 'auto';
} {
  const constrain = options.constrain ?? 'demanded';
  if (!CONSTRAIN_MODES.includes(constrain))
    throw new TypeError(
      `createProxyApp: constrain must be ${CONSTRAIN_MODES.join(', ')}, not ${String(constrain)}`,
    );
  const upstreamKind = options.upstreamKind ?? 'auto';
  if (upstreamKind !== 'auto' && !UPSTREAM_KINDS.includes(upstreamKind))
    throw new TypeError(
      `createProxyApp: upstreamKind must be auto, ${UPSTREAM_KINDS.join(', ')}, not ${String(upstreamKind)}`,
    );
  return { constrain, upstreamKind };
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

/**
 * The proxy: `POST /v1/chat/completions`, `POST /v1/responses`, `POST /v1/messages` and
 * Ollama's `POST /api/chat` with tools for a model server that has none (or bad ones), and the
 * model lists passed through.
 * Calls are read out of the model's text in the protocol's format as it streams, checked
 * against the tools' schemas, and sent in the client's API shapes. Each API's route is a
 * module of `routes/`; what they share is the proxy's context (`context.ts`).
 */
export function createProxyApp(options: ProxyOptions): ProxyApp {
  const limits = checkedLimits({ ...DEFAULT_PROXY_LIMITS, ...options.limits });
  const retries = options.toolChoiceRetries ?? 1;
  if (!Number.isInteger(retries) || retries < 0 || retries > MAX_TOOL_CHOICE_RETRIES)
    throw new TypeError(
      `createProxyApp: toolChoiceRetries must be a whole number from 0 to ${MAX_TOOL_CHOICE_RETRIES}, not ${String(retries)}`,
    );
  const choice = options.protocol ?? 'model';
  // Fails now, not at the first request, on a choice no format has or a protocol that is none.
  if (typeof choice === 'string') protocolNameFor(choice, '');
  else if (!isToolCallProtocol(choice))
    throw new TypeError(
      "createProxyApp: protocol must be a format's name or alias, auto, model, or a ToolCallProtocol (with name, formatTools, formatToolCall, formatToolResponse, createStreamParser)",
    );
  const target = checkedUpstream(options.upstream, options.upstreamApiKey);
  const constraint = constraintOptions(options);
  // Node's own client unless the caller gave a fetch: it costs a fraction of fetch's layers.
  const transport = options.fetch === undefined ? nodeTransport() : fetchTransport(options.fetch);
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
    transport,
  };
  const given = options.log ?? ((line: string) => console.error(`toolwire proxy: ${line}`));
  // Every line for the operator is one line, whatever a model server or the store put in it.
  const log = (line: string) => given(logLine(line));
  const handle = createProxyContext({
    limits,
    protocol: choice,
    toolChoiceRetries: retries,
    upstream,
    ...constraint,
    detectUpstream: (signal) => detectUpstreamKind(upstream, signal),
    log,
  });
  const kept = keptConversationsFor(options, limits, log);
  const proxy = handle.context;

  const app = new Hono();
  app.onError((error, c) => {
    const failure = httpErrorOf(error);
    // A failure that is neither a refusal nor the model server's is the proxy's own: logged.
    // One line, as every line the proxy logs: the stack's frames joined on it.
    if (!HttpError.isInstance(error) && !ModelCallError.isInstance(error))
      log(`unexpected failure: ${error.stack ?? `${error.name}: ${error.message}`}`);
    return errorResponse(apiOfPath(c.req.path), failure);
  });
  app.notFound((c) =>
    errorResponse(
      apiOfPath(c.req.path),
      new HttpError(
        404,
        `${c.req.method} ${c.req.path} is not served here: the proxy answers POST /v1/chat/completions, POST /v1/responses, POST /v1/messages, POST /v1/messages/count_tokens, GET /v1/models, POST /api/chat, GET /api/tags, POST /api/show, GET /api/version and GET /api/ps`,
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

  modelsRoute(app, proxy);
  chatCompletionsRoute(app, proxy);
  messagesRoute(app, proxy);
  countTokensRoute(app, proxy);
  responsesRoute(app, proxy, { kept, leftOutTools: new LeftOutToolsLog() });
  ollamaRoutes(app, proxy);

  return {
    app,
    limits,
    active: handle.active,
    close() {
      handle.close();
      transport.close();
    },
  };
}
