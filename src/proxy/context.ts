/**
 * What every route of the proxy shares: its limits, the model server, the places among the
 * requests answered at once with their memory, the reading of a request's body, and the one
 * reply run every API answers from.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context } from 'hono';
import { createIdGenerator, type ToolCallProtocol } from '../core/index.ts';
import { HttpError } from '../http/http-error.ts';
import type { JsonBody } from '../http/json-body.ts';
import { JsonTextReader } from '../http/json-shape.ts';
import {
  type ProtocolChoice,
  type ProtocolName,
  protocolByName,
  protocolNameFor,
} from '../protocols/index.ts';
import type { ChatRequest } from './conversation.ts';
import { MemoryBudget, type MemoryReservation } from './memory-budget.ts';
import { type ProxyLimits, REQUEST_ENVELOPE_DEPTH } from './options.ts';
import type { ReplyEvent } from './reply-events.ts';
import { type ReplyRun, startReply, type UpstreamConstraint } from './reply-run.ts';
import { readRequestJson } from './request-body.ts';
import type { UpstreamSettings } from './upstream.ts';
import {
  type ConstrainMode,
  type ConstraintRequest,
  constraintFields,
  constraintWanted,
} from './upstream-constraint.ts';
import type { DetectedUpstream, UpstreamKind } from './upstream-kind.ts';

/** A place among the requests answered at once (429 when none is free) and a memory share. */
export interface Place {
  /** Aborted when the client leaves or the proxy closes: stops the model server's request. */
  readonly controller: AbortController;
  readonly memory: MemoryReservation;
  /** Gives the place back; the first call counts. */
  done(): void;
  /** Node's response, when Node serves the request: a stream is written straight to it. */
  readonly outgoing?: ServerResponse;
}

/**
 * The model's reply to one request, not started yet: started with the sink that takes its
 * batches of reply events as they are read (streamed or collected).
 */
export type PendingReply = (sink: (events: ReplyEvent[]) => void) => ReplyRun;

/** Node's request and response, when @hono/node-server serves the app. */
function nodeBindings(
  c: Context,
): { incoming: IncomingMessage; outgoing: ServerResponse } | undefined {
  const env = c.env as { incoming?: IncomingMessage; outgoing?: ServerResponse } | undefined;
  return env?.incoming !== undefined && env.outgoing !== undefined
    ? { incoming: env.incoming, outgoing: env.outgoing }
    : undefined;
}

export interface ProxyContext {
  readonly limits: ProxyLimits;
  readonly upstream: UpstreamSettings;
  /** Takes a place for a request, or throws 429 when the proxy is answering its most. */
  admit(c: Context): Place;
  /**
   * The request's JSON body within the limits, its cost charged to the place's memory; sent as
   * `application/json` unless `anyContentType` (Ollama's API, whose clients often say nothing).
   */
  readBody(c: Context, place: Place, anyContentType?: boolean): Promise<JsonBody>;
  /** Reads JSON texts inside a request (calls' arguments) within what the body's values leave. */
  textsReader(values: number): JsonTextReader;
  /** The model's reply to a request, read in its format; ids of calls start with `idPrefix`. */
  replyRun(c: Context, place: Place, request: ChatRequest, idPrefix: string): PendingReply;
  /** The client's credentials, when they go upstream (the proxy has none of its own). */
  upstreamAuthorization(c: Context): string | undefined;
  /**
   * The format a model id's requests are written and read in: the proxy's protocol object when
   * it was given one, else the format its choice means for that id.
   */
  protocolFor(model: string): ToolCallProtocol;
}

export interface ProxyContextSettings {
  readonly limits: ProxyLimits;
  readonly upstream: UpstreamSettings;
  /** A choice resolved per model id (cached by format name), or one protocol for every model. */
  readonly protocol: ProtocolChoice | ToolCallProtocol;
  readonly toolChoiceRetries: number;
  /** When the model server is made to enforce tool choice with a grammar. */
  readonly constrain: ConstrainMode;
  /** The model server's kind, or `auto`: found out by `detectUpstream` when first needed. */
  readonly upstreamKind: UpstreamKind | 'auto';
  readonly detectUpstream: (signal: AbortSignal) => Promise<DetectedUpstream>;
  /** One line for the operator: the kind found, a constraint refused. */
  readonly log: (line: string) => void;
}

export interface ProxyContextHandle {
  readonly context: ProxyContext;
  /** Requests being answered now. */
  active(): number;
  /** Aborts the requests being answered. */
  close(): void;
}

/** What an OpenAI client sends as its key, or an Anthropic client's `x-api-key` as one. */
function clientAuthorization(c: Context): string | undefined {
  const authorization = c.req.header('authorization');
  if (authorization !== undefined) return authorization;
  const key = c.req.header('x-api-key');
  return key === undefined ? undefined : `Bearer ${key}`;
}

/** `promise`, or a rejection with the signal's reason as soon as `signal` aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', abort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', abort);
        reject(error);
      },
    );
  });
}

/**
 * The proxy's constrained decoding: which server it talks to, found out once (on the first
 * request that wants a constraint, with the proxy's own signal, so a client that leaves does not
 * stop it; a failure or an unreachable server is not kept), and whether the server refused a
 * constraint (then none is sent again, said once in the log).
 */
function upstreamConstraint(
  settings: ProxyContextSettings,
  closing: AbortSignal,
): UpstreamConstraint {
  const { constrain, upstreamKind, log } = settings;
  let detection: Promise<DetectedUpstream> | undefined =
    upstreamKind === 'auto'
      ? undefined
      : Promise.resolve({ kind: upstreamKind, evidence: 'named by the proxy options' });
  let refused = false;
  const detected = (): Promise<DetectedUpstream> => {
    if (detection !== undefined) return detection;
    const started = settings.detectUpstream(closing).then(
      (found) => {
        // No server answered at all: not kept, the next request that wants a constraint asks again.
        if (found.unreachable === true) detection = undefined;
        else
          log(
            `upstream kind ${found.kind}${found.version === undefined ? '' : ` ${found.version}`} (${found.evidence})`,
          );
        return found;
      },
      (error: unknown) => {
        detection = undefined;
        throw error;
      },
    );
    detection = started;
    return started;
  };
  return {
    async fieldsFor(request, protocol, signal) {
      if (refused || constrain === 'off') return undefined;
      const choice = request.toolChoice;
      const wanted: ConstraintRequest = {
        tools: request.tools,
        toolChoice: choice.type === 'tool' ? { toolName: choice.toolName } : choice.type,
        parallelToolCalls: request.parallelToolCalls,
        mode: constrain,
      };
      if (!constraintWanted(wanted)) return undefined;
      const { kind, version } = await untilAborted(detected(), signal);
      const fields = constraintFields(kind, protocol, {
        ...wanted,
        ...(version === undefined ? {} : { version }),
      });
      // The client's own constraint (a response_format, a grammar) is the one the server gets.
      if (fields === undefined || Object.keys(fields).some((key) => key in request.settings))
        return undefined;
      return refused ? undefined : fields;
    },
    refused(fields, error) {
      if (refused) return;
      refused = true;
      log(
        `the model server refused the constrained decoding field${Object.keys(fields).length === 1 ? '' : 's'} ${Object.keys(fields).join(', ')} (HTTP ${error.status}${error.detail === undefined ? '' : `: ${error.detail}`}) and took the request without; no more are sent to it (--constrain off says so from the start)`,
      );
    },
  };
}

export function createProxyContext(settings: ProxyContextSettings): ProxyContextHandle {
  const { limits, upstream } = settings;
  const budget = new MemoryBudget(limits.memoryBudgetBytes);
  const protocols = new Map<ProtocolName, ToolCallProtocol>();
  const controllers = new Set<AbortController>();
  // Aborted when the proxy closes: stops a detection of the model server's kind.
  const closing = new AbortController();
  const constraint = upstreamConstraint(settings, closing.signal);
  let active = 0;
  const { protocol: given } = settings;

  const protocolFor = (model: string): ToolCallProtocol => {
    if (typeof given !== 'string') return given;
    const name = protocolNameFor(given, model);
    let protocol = protocols.get(name);
    if (!protocol) {
      protocol = protocolByName(name);
      protocols.set(name, protocol);
    }
    return protocol;
  };

  const upstreamAuthorization = (c: Context) =>
    upstream.authorization === undefined ? clientAuthorization(c) : undefined;

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
    const node = nodeBindings(c);
    // A client that leaves stops the model server's request: Node says so when its response
    // closes before it ended; any other server through the request's signal.
    const abort = () => {
      if (!node?.outgoing.writableFinished) controller.abort();
    };
    if (node) node.outgoing.once('close', abort);
    else c.req.raw.signal.addEventListener('abort', abort, { once: true });
    return {
      controller,
      memory,
      ...(node ? { outgoing: node.outgoing } : {}),
      done() {
        if (released) return;
        released = true;
        active--;
        controllers.delete(controller);
        memory.release();
        if (node) node.outgoing.off('close', abort);
        else c.req.raw.signal.removeEventListener('abort', abort);
      },
    };
  };

  const callDepth = Math.max(1, limits.maxJsonDepth - REQUEST_ENVELOPE_DEPTH);
  const context: ProxyContext = {
    limits,
    upstream,
    admit,
    readBody: (c, place, anyContentType = false) =>
      readRequestJson(nodeBindings(c)?.incoming ?? c.req.raw, limits, place.memory, anyContentType),
    textsReader: (values) =>
      new JsonTextReader({ maxDepth: callDepth, maxValues: limits.maxJsonValues - values }),
    replyRun: (c, place, request, idPrefix) => (sink) =>
      startReply(
        request,
        {
          upstream,
          protocol: protocolFor(request.model),
          parseOptions: {
            maxCallChars: limits.maxCallChars,
            maxDepth: callDepth,
            generateId: createIdGenerator(idPrefix),
          },
          toolChoiceRetries: settings.toolChoiceRetries,
          maxHeldBytes: limits.maxUpstreamReplyBytes,
          memory: place.memory,
          authorization: upstreamAuthorization(c),
          signal: place.controller.signal,
          constraint,
        },
        sink,
      ),
    upstreamAuthorization,
    protocolFor,
  };
  return {
    context,
    active: () => active,
    close() {
      closing.abort();
      for (const controller of controllers) controller.abort();
    },
  };
}
