import type { ParseOptions, ToolCallProtocol, ToolChoiceDemand } from '../core/index.ts';
import { ModelCallError } from '../core/model-call-error.ts';
import { describeDemand, notFollowedMessage } from '../core/tool-choice.ts';
import {
  type FinishCause,
  finishCauseFor,
  isInterrupted,
  judgeAttempt,
  meetsDemand,
} from '../core/tool-choice-policy.ts';
import { HttpError } from '../http/http-error.ts';
import { estimateJsonCost, measureJson } from '../http/json-shape.ts';
import type { ChatRequest } from './conversation.ts';
import type { MemoryReservation } from './memory-budget.ts';
import { type ReplyEvent, ReplyReader } from './reply-events.ts';
import {
  callUpstream,
  checkStreamType,
  readReply,
  streamPieces,
  type UpstreamCall,
  type UpstreamPiece,
  type UpstreamSettings,
  type UpstreamUsage,
} from './upstream.ts';
import type { ConstraintFields, ConstraintOption } from './upstream-constraint.ts';
import {
  retryMessages,
  toolChoicePlan,
  type UpstreamMessage,
  upstreamMessages,
} from './upstream-messages.ts';

/** How a reply ended, in chat completions' words (`stop`, `length`, `tool_calls`, …). */
export interface ReplyEnd {
  readonly finishReason: string;
  readonly calls: number;
  /** Summed over the attempts; undefined when the model server reported none. */
  readonly usage: UpstreamUsage | undefined;
}

export interface ReplyRunSettings {
  readonly upstream: UpstreamSettings;
  readonly protocol: ToolCallProtocol;
  /** Parse limits (`maxCallChars`, `maxDepth`); tools come from the request. */
  readonly parseOptions: Omit<ParseOptions, 'tools'>;
  /** Extra attempts when `tool_choice` demands a call and the model wrote none. */
  readonly toolChoiceRetries: number;
  /**
   * Most memory the events held while a demanded call has not started may take (see
   * `heldCost`); past it the model server is hung up on and the client gets 502.
   */
  readonly maxHeldBytes: number;
  /** The request's share of the proxy's memory: whole replies and held events are added to it. */
  readonly memory?: MemoryReservation;
  /** The client's `Authorization`, sent upstream unless the proxy has a key of its own for it. */
  readonly authorization: string | undefined;
  readonly signal: AbortSignal;
  /** Constrained decoding (`--constrain`): none when absent. */
  readonly constraint?: UpstreamConstraint;
}

/**
 * The proxy's constrained decoding, as a reply run uses it: the fields that make the model server
 * enforce this request's tool choice (a grammar), and what the server made of them.
 */
export interface UpstreamConstraint {
  /**
   * The ways to constrain this request, best first, or none (none wanted, none the server takes,
   * the client's own constraint, each stopped after refusals).
   */
  optionsFor(
    request: ChatRequest,
    protocol: ToolCallProtocol,
    signal: AbortSignal,
  ): Promise<readonly ConstraintOption[]>;
  /** The server refused `option` (`error`) and took the request with a lesser one or none. */
  refused(option: ConstraintOption, error: ModelCallError): void;
  /** The server took a request with `option`. */
  accepted(option: ConstraintOption): void;
}

/** A refusal of the request's fields: 400 or 422 (a server's validation error). */
function isRefusal(error: unknown): error is ModelCallError {
  return (
    ModelCallError.isInstance(error) &&
    error.kind === 'model-http-status' &&
    (error.status === 400 || error.status === 422)
  );
}

/** Memory one held event takes besides its text: the event object and its place in the list. */
const HELD_EVENT_BYTES = 64;

/** What holding an event costs: its text (two bytes a UTF-16 unit, at worst) and the event. */
function heldCost(event: ReplyEvent): number {
  const text = 'delta' in event ? event.delta.length : 0;
  return HELD_EVENT_BYTES + 2 * text;
}

/**
 * Holds each call read in `events[from…]` to the limits of a whole reply (its arguments are
 * parsed again to answer a Messages client) and adds what it takes to the request's memory.
 * Returns whether one of them meets `demand`.
 */
function chargeCalls(
  events: readonly ReplyEvent[],
  from: number,
  settings: ReplyRunSettings,
  demand: ToolChoiceDemand | undefined,
): boolean {
  let met = false;
  for (let i = from; i < events.length; i++) {
    const event = events[i]!;
    if (event.type !== 'call-end') continue;
    const shape = measureJson(event.input, settings.upstream.json);
    if ('exceeds' in shape)
      throw new HttpError(
        502,
        `the model wrote a call of ${event.name} whose arguments hold more nesting or JSON values than the proxy reads (limits.${shape.exceeds === 'maxDepth' ? 'maxJsonDepth' : 'maxJsonValues'}); the proxy closed the connection`,
        { kind: 'model-bad-reply' },
      );
    settings.memory?.grow(estimateJsonCost(2 * event.input.length, shape), 'reply');
    if (meetsDemand(demand, event.name)) met = true;
  }
  return met;
}

/**
 * A chat completions finish reason in the policy's words: OpenAI's, and vLLM's `abort` and
 * `error` (a request stopped or failed on the server); any other word is the model's own end.
 */
export function finishCauseOf(reason: string): FinishCause {
  switch (reason) {
    case 'stop':
      return 'stop';
    case 'length':
      return 'length';
    case 'content_filter':
      return 'content-filter';
    case 'tool_calls':
    case 'function_call':
      return 'tool-calls';
    case 'error':
      return 'error';
    case 'abort':
      return 'interrupted';
    default:
      return 'other';
  }
}

/**
 * The finish reason the client gets: `tool_calls` when calls were read and the policy says so,
 * else the model server's own word (`stop` when it gave none).
 */
function finishReasonFor(reason: string | undefined, calls: number): string {
  const said = reason ?? 'stop';
  return calls > 0 && finishCauseFor(finishCauseOf(said), calls) === 'tool-calls'
    ? 'tool_calls'
    : said;
}

function addUsage(
  first: UpstreamUsage | undefined,
  second: UpstreamUsage | undefined,
): UpstreamUsage | undefined {
  if (!first || !second) return first ?? second;
  const sum = (a: number | undefined, b: number | undefined) =>
    a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0);
  const prompt = sum(first.prompt_tokens, second.prompt_tokens);
  const completion = sum(first.completion_tokens, second.completion_tokens);
  const total = sum(first.total_tokens, second.total_tokens);
  return {
    ...(prompt === undefined ? {} : { prompt_tokens: prompt }),
    ...(completion === undefined ? {} : { completion_tokens: completion }),
    ...(total === undefined ? {} : { total_tokens: total }),
  };
}

/** The body sent upstream: the client's settings, the constraint, the rendered messages, no tools. */
function upstreamBody(
  request: ChatRequest,
  messages: readonly UpstreamMessage[],
  constraint: ConstraintFields | undefined,
): Record<string, unknown> {
  return {
    ...request.settings,
    ...constraint,
    model: request.model,
    messages,
    stream: request.stream,
    ...(request.stream && request.includeUsage ? { stream_options: { include_usage: true } } : {}),
  };
}

/** A reply being read: how it ends, and a hold on its reading while the client catches up. */
export interface ReplyRun {
  /** How the reply ended; rejects with what stopped it. */
  readonly ended: Promise<ReplyEnd>;
  /** Stops reading the model server until `resume` (the client's buffer is full). */
  pause(): void;
  resume(): void;
}

/**
 * One reply to a chat request: asks the model server (streamed when the client streams), reads
 * calls out of its text as they come, and hands `sink` each batch of reply events on the turn
 * the model server's bytes arrived, with no promise between a network read and the events it
 * makes.
 *
 * The first batch, empty, comes as soon as the model server has answered (unless a call is
 * demanded), so a streaming client gets its response's head without waiting for the first token.
 *
 * When `tool_choice` demands a call, nothing of an attempt goes out until a call starts: an
 * answer without a call is then retried with a correction, and after the last attempt fails the
 * client gets a clear error instead of a reply (422, before anything was sent).
 *
 * With constrained decoding (`settings.constraint`), the request carries the fields that make the
 * model server follow the format's grammar; then an answer without the demanded call is not
 * retried (the grammar allowed none other). A server that refuses them (400, 422) is asked with
 * the next option (a structural tag, then a grammar), then without any, and the constraint is
 * told what was refused and what was taken.
 */
export function startReply(
  request: ChatRequest,
  settings: ReplyRunSettings,
  sink: (events: ReplyEvent[]) => void,
): ReplyRun {
  let call: UpstreamCall | undefined;
  let paused = false;
  const ended = runAttempts(request, settings, sink, (current) => {
    call = current;
    if (paused) current.response.body.pause();
  });
  return {
    ended,
    pause() {
      paused = true;
      call?.response.body.pause();
    },
    resume() {
      paused = false;
      call?.response.body.resume();
    },
  };
}

async function runAttempts(
  request: ChatRequest,
  settings: ReplyRunSettings,
  sink: (events: ReplyEvent[]) => void,
  onCall: (call: UpstreamCall) => void,
): Promise<ReplyEnd> {
  const plan = toolChoicePlan(request);
  const demand = plan.demand;
  const parseOptions: ParseOptions = { ...settings.parseOptions, tools: plan.read };
  let messages = upstreamMessages(request, settings.protocol, plan);
  let options: readonly ConstraintOption[] =
    (await settings.constraint?.optionsFor(request, settings.protocol, settings.signal)) ?? [];
  /** The option the server took, kept for the retries. */
  let constraint: ConstraintOption | undefined;
  let usage: UpstreamUsage | undefined;
  const answers: string[] = [];
  for (let attempt = 1; ; attempt++) {
    const reader = new ReplyReader(settings.protocol, parseOptions, {
      maxCalls: request.parallelToolCalls ? Number.POSITIVE_INFINITY : 1,
      // Only a retry shows the model what it wrote; no more of it than is ever held.
      keepText: demand !== undefined,
      maxTextChars: Math.floor(settings.maxHeldBytes / 2),
    });
    // Held while a demanded call has not started: an attempt without one is never shown.
    let held: ReplyEvent[] | undefined = demand ? [] : undefined;
    let heldBytes = 0;
    let finishReason: string | undefined;
    let demandMet = demand === undefined;
    const release = (events: ReplyEvent[]): void => {
      if (held === undefined) {
        if (events.length > 0) sink(events);
        return;
      }
      let started = false;
      for (const event of events) {
        held.push(event);
        const cost = heldCost(event);
        heldBytes += cost;
        settings.memory?.grow(cost, 'reply');
        if (event.type === 'call-start') started = true;
      }
      if (!started) {
        // A model that never starts the call would otherwise be held in memory to its end.
        if (heldBytes > settings.maxHeldBytes)
          throw new HttpError(
            502,
            `tool_choice demanded ${describeDemand(demand!)}, and the model server's reply went past ${settings.maxHeldBytes} bytes (limits.maxUpstreamReplyBytes) without one starting; the proxy closed the connection`,
            { param: 'tool_choice', kind: 'model-bad-reply' },
          );
        return;
      }
      const out = held;
      held = undefined;
      sink(out);
    };
    const take = (piece: UpstreamPiece, out: ReplyEvent[]) => {
      if (piece.reasoning !== undefined) out.push({ type: 'reasoning', delta: piece.reasoning });
      if (piece.content !== undefined) {
        const from = out.length;
        reader.push(piece.content, out);
        if (chargeCalls(out, from, settings, demand)) demandMet = true;
      }
      if (piece.finishReason !== undefined) finishReason = piece.finishReason;
      if (piece.usage !== undefined) usage = addUsage(usage, piece.usage);
    };

    const send = (fields: ConstraintFields | undefined) =>
      callUpstream(settings.upstream, '/chat/completions', {
        method: 'POST',
        body: upstreamBody(request, messages, fields),
        authorization: settings.authorization,
        signal: settings.signal,
      });
    // Each option in turn, then none: a refusal is the option's fault only when a lesser one
    // (or none) is then taken, so refusals are told only after that.
    let call: UpstreamCall | undefined;
    const refusals: Array<{ option: ConstraintOption; error: ModelCallError }> = [];
    constraint = undefined;
    for (const option of options) {
      try {
        call = await send(option.fields);
        constraint = option;
        break;
      } catch (error) {
        if (!isRefusal(error)) throw error;
        refusals.push({ option, error });
      }
    }
    call ??= await send(undefined);
    for (const { option, error } of refusals) settings.constraint?.refused(option, error);
    if (constraint !== undefined) settings.constraint?.accepted(constraint);
    // A retry goes with what was taken, without trying the refused ones again.
    options = constraint === undefined ? [] : [constraint];
    onCall(call);
    // An answer that is no reply at all is an error before anything goes out.
    if (request.stream) await checkStreamType(call);
    // The server answered: a client not waiting for a demanded call may be told so at once.
    if (attempt === 1 && held === undefined) sink([]);
    try {
      if (request.stream) {
        await streamPieces(call, settings.upstream, settings.memory, (pieces) => {
          const out: ReplyEvent[] = [];
          for (const piece of pieces) take(piece, out);
          release(out);
        });
      } else {
        const out: ReplyEvent[] = [];
        take(await readReply(call, settings.upstream, settings.memory), out);
        release(out);
      }
    } catch (error) {
      // Whatever stopped the reply, nothing more of it is read.
      call.hangUp();
      throw error;
    }
    const interrupted = isInterrupted(
      finishReason === undefined ? undefined : finishCauseOf(finishReason),
    );
    const out: ReplyEvent[] = [];
    reader.end(interrupted, out);
    if (chargeCalls(out, 0, settings, demand)) demandMet = true;
    release(out);

    const verdict = judgeAttempt({
      demand,
      demandMet,
      interrupted,
      number: attempt,
      // The server's grammar made the call if the model could: asking again would not help.
      retries: constraint === undefined ? settings.toolChoiceRetries : 0,
    });
    if (verdict !== 'accept') {
      answers.push(reader.text);
      if (verdict === 'retry') {
        messages = retryMessages(messages, reader.text, demand!);
        continue;
      }
      throw new HttpError(
        422,
        notFollowedMessage('tool_choice', demand!, answers.join('\n\n'), answers.length),
        { param: 'tool_choice', kind: 'tool-choice-not-followed' },
      );
    }
    if (held !== undefined && held.length > 0) sink(held);
    const calls = reader.calls;
    return { finishReason: finishReasonFor(finishReason, calls), calls, usage };
  }
}
