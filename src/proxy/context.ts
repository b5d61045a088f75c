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
import { untilAborted } from './until-aborted.ts';
import type { UpstreamSettings } from './upstream.ts';
import {
  type ConstrainMode,
  type ConstraintOption,
  type ConstraintRequest,
  clientConstraintField,
  constraintOptions,
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
  /** One line for the operator: the kind found, a constraint refused (one line: app.ts `logLine`s it). */
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

/** Refusals of one field in a row, with no request taking it between, that stop it being sent. */
export const REFUSALS_IN_A_ROW = 3;

/**
 * Words of a server's refusal that say it does not know or take the field at all (pydantic's
 * extra-field error, "unknown field", "not supported"), as opposed to refusing this request's
 * grammar or schema: only these stop the field at once.
 */
const UNKNOWN_FIELD_WORDS = [
  'extra inputs are not permitted',
  'extra_forbidden',
  'unknown field',
  'unrecognized',
  'unrecognised',
  'not supported',
  'unsupported',
  'not implemented',
];

/** The refusal says the server does not take `field` (its top-level body key is named). */
function saysFieldUnknown(option: ConstraintOption, detail: string | undefined): boolean {
  if (detail === undefined) return false;
  const text = detail.toLowerCase();
  const named = Object.keys(option.fields).some((key) => text.includes(key.toLowerCase()));
  return named && UNKNOWN_FIELD_WORDS.some((words) => text.includes(words));
}

/**
 * The proxy's constrained decoding: which server it talks to, found out once (on the first
 * request that wants a constraint, with the proxy's own signal, so a client that leaves does not
 * stop it; a failure, an unreachable server or one that only answered "not now" is not kept),
 * and which fields the server refused.
 *
 * Refusals are kept per field, and a field is stopped (the next option is sent from then on,
 * said once in the log) only when the server says it does not know or take it
 * (`saysFieldUnknown`), or after `REFUSALS_IN_A_ROW` refusals with none taken between: one
 * request's grammar refused (a schema the server's compiler rejects, a size limit) leaves the
 * next request constrained. A request that carries a field of the client's own that constrains
 * output (`clientConstraintField`) gets none of the proxy's, so its refusal is never counted.
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
  /** Fields the server will not take: never sent again. */
  const stopped = new Set<string>();
  /** Refusals of a field since a request last took it. */
  const inARow = new Map<string, number>();
  const detected = (): Promise<DetectedUpstream> => {
    if (detection !== undefined) return detection;
    const started = settings.detectUpstream(closing).then(
      (found) => {
        // Nothing learned (no answer, or only 5xx/429 while the server loads; `retryable` is
        // set whenever `unreachable` is): not kept, the next request that wants a constraint
        // asks again.
        if (found.retryable === true) detection = undefined;
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
    async optionsFor(request, protocol, signal) {
      if (constrain === 'off') return [];
      const choice = request.toolChoice;
      const wanted: ConstraintRequest = {
        tools: request.tools,
        toolChoice: choice.type === 'tool' ? { toolName: choice.toolName } : choice.type,
        parallelToolCalls: request.parallelToolCalls,
        mode: constrain,
      };
      if (!constraintWanted(wanted)) return [];
      const { kind, version } = await untilAborted(detected(), signal);
      // The client's own constraint is the one the server gets: ours would clash or stack.
      if (clientConstraintField(kind, request.settings) !== undefined) return [];
      return constraintOptions(kind, protocol, {
        ...wanted,
        ...(version === undefined ? {} : { version }),
      }).filter((option) => !stopped.has(option.field));
    },
    refused(option, error) {
      if (stopped.has(option.field)) return;
      const count = (inARow.get(option.field) ?? 0) + 1;
      const unknown = saysFieldUnknown(option, error.detail);
      if (!unknown && count < REFUSALS_IN_A_ROW) {
        inARow.set(option.field, count);
        return;
      }
      stopped.add(option.field);
      inARow.delete(option.field);
      const why = unknown ? 'it does not take it' : `${count} refusals in a row`;
      log(
        `the model server refused the constrained decoding field ${option.field} (HTTP ${error.status}${error.detail === undefined ? '' : `: ${error.detail}`}); ${why}, so it is not sent again (--constrain off says so from the start)`,
      );
    },
    accepted(option) {
      inARow.delete(option.field);
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
