import type { UIMessage } from 'ai';
import { type Context, Hono } from 'hono';
import { type AgentEvent, type AgentResult, resumeAgent, runAgent } from '../../agent/index.ts';
import {
  frameUIMessageChunk,
  UI_MESSAGE_STREAM_DONE,
  UI_MESSAGE_STREAM_HEADERS,
  UIMessageChunkEncoder,
  type UIMessageStreamOptions,
  type UIMessagesRun,
  UNFINISHED_CALL,
  uiMessagesToRun,
} from '../../agent/ui/ui-message-stream.ts';
import { parseJsonText } from '../../core/parse-json.ts';
import type { ToolCallProtocol } from '../../core/protocol.ts';
import { HttpError } from '../../http/http-error.ts';
import { readJsonBody } from '../../http/json-body.ts';
import type { ProtocolName } from '../../protocols/index.ts';
import type { StoredRun } from '../../store/run-store.ts';
import {
  type ConversationLimits,
  checkToolAnswers,
  parseConversationInput,
} from '../conversation-input.ts';
import { framedEvent, logResponse, type ReadFailure, runReadHooks } from '../log-stream.ts';
import type { ServerSettings } from '../options.ts';
import { resumeProtocol } from '../resume-protocol.ts';
import { resumePaused } from '../resume-run.ts';
import type { WireEncoder } from '../wire-encoder.ts';
import type { RunRouteContext } from './runs.ts';

/**
 * The AI SDK's chat (`useChat` with `DefaultChatTransport`) served from toolwire's runs:
 * `POST /api/chat` starts a run from the messages, or resumes the paused run the messages answer
 * (the assistant message's id is the run's), and `GET /api/chat/:id/stream` reads the chat's
 * running run again from its start (`204` when none runs), on any instance sharing the store;
 * `POST /api/chat/:id/abort` stops the chat's run (a dropped connection does not).
 * Each run is written to its log as UI message stream frames (`UIMessageWire`); a resumed run
 * appends to the same log, so reading it from the start rebuilds the whole assistant message.
 */

/** What `POST /api/chat` carries, read and checked. */
export interface ChatRequest {
  /** The chat's id (`useChat`'s `id`). */
  readonly chatId: string;
  readonly trigger: 'submit-message' | 'regenerate-message';
  /** The messages as the client holds them. */
  readonly messages: readonly UIMessage[];
  /** What a run needs from them: prompt, conversation, the front-end answers. */
  readonly run: UIMessagesRun;
}

const TRIGGERS = new Set(['submit-message', 'regenerate-message']);
/** A chat's id as `POST /api/chat` takes it; longer ones are cut in messages. */
const MAX_CHAT_ID_CHARS = 200;

/**
 * The body `DefaultChatTransport.sendMessages` posts (`{id, messages, trigger, messageId, …}`,
 * plus whatever the app adds through its `body` option, which is left alone). The messages are
 * the client's, so they are held to the limits of a run's `conversation`: the entries they make
 * and how deeply call inputs and tool outputs nest. Throws a 400 `HttpError` naming the place.
 */
export function parseChatRequest(body: unknown, limits: ConversationLimits): ChatRequest {
  const where = 'POST /api/chat';
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new HttpError(400, `${where}: the body must be a JSON object (what useChat sends)`);
  const { id, messages, trigger } = body as Record<string, unknown>;
  if (typeof id !== 'string' || id.length === 0 || id.length > MAX_CHAT_ID_CHARS)
    throw new HttpError(
      400,
      `${where}: "id" must be the chat's id, a string of 1 to ${MAX_CHAT_ID_CHARS} characters`,
      {
        param: 'id',
      },
    );
  if (typeof trigger !== 'string' || !TRIGGERS.has(trigger))
    throw new HttpError(400, `${where}: "trigger" must be submit-message or regenerate-message`, {
      param: 'trigger',
    });
  if (!Array.isArray(messages))
    throw new HttpError(400, `${where}: "messages" must be an array of UI messages`, {
      param: 'messages',
    });
  let run: UIMessagesRun;
  try {
    run = uiMessagesToRun(messages as UIMessage[]);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    throw new HttpError(400, `${where}: ${error.message}`, { param: 'messages' });
  }
  // The conversation and the answers, checked as a run's `conversation` is.
  parseConversationInput(run.conversation, limits, where);
  checkToolAnswers(run.results, limits, `${where} (tool outputs)`);
  return {
    chatId: id,
    trigger: trigger as ChatRequest['trigger'],
    messages: messages as UIMessage[],
    run,
  };
}

/** Why a chat's paused run ended when the chat went on without its answers. */
export const UNANSWERED_RUN = 'the chat went on with a new message instead of answering';

/** What a lost instance's run ends with in the UI message stream. */
export const INSTANCE_LOST_TEXT =
  'the server instance running this run stopped answering (its lease ran out); the run is over';

/**
 * A run as the UI message stream's SSE frames, for the event log: `start` first, each agent
 * event's chunks, one frame each, and `data: [DONE]` after the last. `tail` and `failure` say
 * what closes the stream as it stands (open parts end, an `error`, `[DONE]`): `tail` if this
 * instance dies (it changes nothing, the run may go on), `failure` when the server cannot go on.
 */
export class UIMessageWire implements WireEncoder {
  private readonly encoder: UIMessageChunkEncoder;
  private readonly messageId: string;
  private doneSent = false;

  /** `messageId`: the run's (a resumed run repeats it, with its pending calls as `resumedCalls`). */
  constructor(options: UIMessageStreamOptions) {
    this.encoder = new UIMessageChunkEncoder(options);
    this.messageId = options.messageId;
  }

  /** The stream's first frame, `start`, written before the run's first event. */
  start(): string[] {
    return [frameUIMessageChunk({ type: 'start', messageId: this.messageId })];
  }

  push(event: AgentEvent): string[] {
    const chunks = this.encoder.push(event);
    // `start` went out with `start()`.
    const frames = (
      event.type === 'run-start' ? chunks.filter((c) => c.type !== 'start') : chunks
    ).map(frameUIMessageChunk);
    if (this.encoder.done && !this.doneSent) {
      this.doneSent = true;
      frames.push(UI_MESSAGE_STREAM_DONE);
    }
    return frames;
  }

  /**
   * After the run's result: nothing when its `finish` event ended the stream (it always does);
   * a run that ended without one says so rather than leave the client waiting.
   */
  finish(result: AgentResult): string[] {
    return this.failure(result.message ?? `the run stopped (${result.stopReason})`);
  }

  tail(): string[] {
    if (this.doneSent) return [];
    return [
      ...this.encoder.tail(INSTANCE_LOST_TEXT).map(frameUIMessageChunk),
      UI_MESSAGE_STREAM_DONE,
    ];
  }

  /** Ends the stream with an error saying why (the server could not go on); once. */
  failure(message: string): string[] {
    const frames = this.ending(message);
    this.doneSent = true;
    return frames;
  }

  ending(message: string): string[] {
    if (this.doneSent) return [];
    return [...this.encoder.tail(message).map(frameUIMessageChunk), UI_MESSAGE_STREAM_DONE];
  }
}

/** The chunks that open or close a part, as `UIMessageReadFailure` follows them. */
const PART_CHUNKS = new Set([
  'text-start',
  'text-end',
  'reasoning-start',
  'reasoning-end',
  'tool-input-start',
  'tool-input-available',
  'tool-input-error',
  'tool-output-available',
  'tool-output-error',
]);

/**
 * What a reader of a UI message stream log has open, from the frames it was sent (a reader on
 * any instance has only those), so that a store failure mid-read ends its message complete, as
 * the encoder's own `tail` would: open text and reasoning parts end, a call whose input was
 * streaming gets an error, then the `error` and `[DONE]`. Nothing after `[DONE]`.
 */
export class UIMessageReadFailure implements ReadFailure {
  private readonly texts = new Set<string>();
  private readonly reasonings = new Set<string>();
  private readonly streamingCalls = new Set<string>();
  private done = false;

  sent(frame: string): void {
    if (frame === UI_MESSAGE_STREAM_DONE) {
      this.done = true;
      return;
    }
    const chunk = framedEvent(frame, PART_CHUNKS);
    if (chunk === undefined) return;
    const id = typeof chunk.id === 'string' ? chunk.id : undefined;
    const callId = typeof chunk.toolCallId === 'string' ? chunk.toolCallId : undefined;
    switch (chunk.type) {
      case 'text-start':
        if (id !== undefined) this.texts.add(id);
        break;
      case 'text-end':
        if (id !== undefined) this.texts.delete(id);
        break;
      case 'reasoning-start':
        if (id !== undefined) this.reasonings.add(id);
        break;
      case 'reasoning-end':
        if (id !== undefined) this.reasonings.delete(id);
        break;
      case 'tool-input-start':
        if (callId !== undefined) this.streamingCalls.add(callId);
        break;
      default:
        // Its input is whole, or it has its output: the call's part is no longer streaming.
        if (callId !== undefined) this.streamingCalls.delete(callId);
    }
  }

  frame(message: string): string {
    if (this.done) return '';
    return [
      ...[...this.texts].map((id) => frameUIMessageChunk({ type: 'text-end', id })),
      ...[...this.reasonings].map((id) => frameUIMessageChunk({ type: 'reasoning-end', id })),
      ...[...this.streamingCalls].map((toolCallId) =>
        frameUIMessageChunk({
          type: 'tool-output-error',
          toolCallId,
          errorText: UNFINISHED_CALL,
          dynamic: true,
        }),
      ),
      frameUIMessageChunk({ type: 'error', errorText: message }),
      UI_MESSAGE_STREAM_DONE,
    ].join('');
  }
}

/** The run id travels in this header of a chat response too. */
const RUN_ID_HEADER = 'x-run-id';
/** How a logged frame of a tool's result starts (`tool-output-available` / `-error`). */
const TOOL_OUTPUT_FRAME = 'data: {"type":"tool-output-';

/**
 * `POST /api/chat` and `GET /api/chat/:id/stream`, as `DefaultChatTransport` calls them, and
 * `POST /api/chat/:id/abort`, the Stop an app calls beside `stop()`.
 */
export function chatRoutes(settings: ServerSettings, context: RunRouteContext): Hono {
  const { options, limits } = settings;
  const { store, live, now } = context;
  const routes = new Hono();
  // The chat's pointer lives as long as a paused run and the finished run after it.
  const pointerTtlMs = store.limits.pausedRunTtlMs + store.limits.finishedRunTtlMs;

  const readBody = (c: Context) =>
    readJsonBody(c.req.raw, { maxBytes: limits.maxBodyBytes, ...settings.bodyShape }).then(
      (read) => read.body,
    );

  /**
   * The response that reads a run's log from its start, or from a continuation's first entry
   * (`after` just before it: the message goes on there with nothing open).
   */
  const readRun = (c: Context, runId: string, log: string, after: string | undefined) => {
    const failure = new UIMessageReadFailure();
    return logResponse({
      store,
      log,
      after,
      afterIsBoundary: true,
      signal: c.req.raw.signal,
      headers: { ...UI_MESSAGE_STREAM_HEADERS, [RUN_ID_HEADER]: runId },
      ...runReadHooks(context, runId),
      onFrame: (frame) => failure.sent(frame),
      failureFrame: (message) => failure.frame(message),
      unknown: `no chat run has the id ${JSON.stringify(runId)}`,
    });
  };

  /** The chat id in a route's path, held to what `POST /api/chat` takes (it keys the store). */
  const chatIdParam = (c: Context, where: string) => {
    const chatId = c.req.param('id') ?? '';
    if (chatId.length > MAX_CHAT_ID_CHARS)
      throw new HttpError(
        400,
        `${where}: the chat's id is longer than ${MAX_CHAT_ID_CHARS} characters`,
        { param: 'id' },
      );
    return chatId;
  };

  /** The protocol a paused run goes on in: its format's name, or this server's own object. */
  const protocolToResume = (run: StoredRun): ProtocolName | ToolCallProtocol => {
    const protocol = resumeProtocol(settings, run);
    if (protocol !== undefined) return protocol;
    throw new HttpError(
      409,
      `run ${run.runId} was started in the protocol object ${JSON.stringify(run.protocol)}, which this server does not have; answer it on a server configured with it`,
    );
  };

  const resume = async (c: Context, chatId: string, runId: string, input: UIMessagesRun) => {
    const stored = await store.getRun(runId);
    if (
      stored?.wire === 'ui-message' &&
      stored.status === 'finished' &&
      (await answeredInLog(stored.log, input.results))
    )
      return nothingToAnswer(runId);
    if (stored?.wire !== 'ui-message' || stored.status !== 'paused')
      throw new HttpError(
        409,
        `POST /api/chat: the last assistant message answers tool calls of run ${JSON.stringify(runId)}, which ${stored === undefined || stored.wire !== 'ui-message' ? 'this server does not know (or has forgotten)' : `is ${stored.status}, not waiting for them`}; send the conversation on with a new user message`,
      );
    const protocol = protocolToResume(stored);
    // Taken before the first store round trip, so concurrent requests count it (--max-runs).
    const slot = live.reserve(runId);
    try {
      const { lease, after } = await resumePaused({
        store,
        now,
        drive: context.drive,
        runId,
        notClaimed: () =>
          new HttpError(409, `POST /api/chat: run ${runId} is no longer waiting for tool results`),
        start: (state, _, signal) => {
          // The messages carry the server's own results too: only the pending calls' go on.
          const pending = new Set(state.pending.map((call) => call.toolCallId));
          const answers = input.results.filter((result) => pending.has(result.toolCallId));
          return resumeAgent(state, answers, {
            ...options.runSettings,
            model: options.model!,
            protocol,
            tools: settings.tools,
            signal,
          });
        },
        wire: (state) =>
          new UIMessageWire({
            messageId: runId,
            resumedCalls: state.pending.map((call) => call.toolCallId),
          }),
        mismatch: (error) => new HttpError(422, error.message, { cause: error }),
      });
      await store.setPointer('chat', chatId, { run: runId, log: lease.log }, pointerTtlMs, now());
      // The response is the continuation: it starts at its own `start`.
      return readRun(c, runId, lease.log, after);
    } finally {
      slot.release();
    }
  };

  /**
   * Whether the run's log holds a result for every call `results` answers: then the messages
   * carry nothing the run did not send itself. The AI SDK's `Chat` sends them on its own
   * (`sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithToolCalls`) after a run that
   * stopped after a step of server tools (its steps ran out, it was stopped).
   */
  const answeredInLog = async (log: string, results: UIMessagesRun['results']) => {
    const answered = new Set<string>();
    const reading = new AbortController();
    try {
      for await (const item of store.read(log, undefined, reading.signal)) {
        if ('end' in item) break;
        // The encoder writes `type` first: only result frames are parsed.
        if (!item.frame.startsWith(TOOL_OUTPUT_FRAME)) continue;
        const chunk = parseJsonText(item.frame.slice('data: '.length)) as { toolCallId?: unknown };
        if (typeof chunk.toolCallId === 'string') answered.add(chunk.toolCallId);
      }
    } finally {
      reading.abort();
    }
    return results.every((result) => answered.has(result.toolCallId));
  };

  /**
   * The answer to messages that carry nothing new for a finished run: the same message, closed
   * by an empty step, so `lastAssistantMessageIsCompleteWithToolCalls` is false and the client
   * neither shows an error (a 409 would be one) nor sends again. Not logged: the run is over.
   */
  const nothingToAnswer = (runId: string) =>
    new Response(
      [
        frameUIMessageChunk({ type: 'start', messageId: runId }),
        frameUIMessageChunk({ type: 'start-step' }),
        frameUIMessageChunk({ type: 'finish-step' }),
        frameUIMessageChunk({ type: 'finish' }),
        UI_MESSAGE_STREAM_DONE,
      ].join(''),
      { headers: { ...UI_MESSAGE_STREAM_HEADERS, [RUN_ID_HEADER]: runId } },
    );

  /**
   * The chat goes on with a new user message: a run of it still waiting for front-end answers
   * will not get them (the conversation sent gives its calls `UNANSWERED_CALL`), so it ends now
   * rather than wait out its time.
   */
  const finishUnanswered = async (chatId: string) => {
    const previous = (await store.pointer('chat', chatId))?.run;
    if (previous === undefined) return;
    const stored = await store.getRun(previous);
    if (stored?.status === 'paused' && stored.wire === 'ui-message')
      await store.requestAbort(previous, UNANSWERED_RUN, now());
  };

  routes.post('/', async (c) => {
    const request = parseChatRequest(await readBody(c), limits);
    const { run: input } = request;
    if (input.assistantMessageId !== undefined && input.results.length > 0)
      return resume(c, request.chatId, input.assistantMessageId, input);
    if (input.prompt.trim().length === 0)
      throw new HttpError(
        400,
        'POST /api/chat: the last user message has no text to answer (file parts are not read)',
        { param: 'messages' },
      );
    const protocol = settings.defaultProtocol;
    // Taken before the first store round trip, so concurrent requests count it (--max-runs).
    const slot = live.reserve();
    try {
      await finishUnanswered(request.chatId);
      const runId = context.generateRunId();
      slot.assign(runId);
      const lease = await store.createRun(
        {
          runId,
          wire: 'ui-message',
          protocol: typeof protocol === 'string' ? protocol : protocol.name,
          customProtocol: typeof protocol !== 'string',
          prompt: input.prompt,
          tail: [],
        },
        now(),
      );
      const controller = new AbortController();
      const run = runAgent({
        ...options.runSettings,
        model: options.model!,
        protocol,
        tools: settings.tools,
        prompt: input.prompt,
        conversation: input.conversation,
        signal: controller.signal,
      });
      // The assistant message's id is the run's: the answers to its front-end calls name it.
      await context.drive(lease, run, controller, new UIMessageWire({ messageId: runId }));
      await store.setPointer(
        'chat',
        request.chatId,
        { run: runId, log: lease.log },
        pointerTtlMs,
        now(),
      );
      return readRun(c, runId, lease.log, undefined);
    } finally {
      slot.release();
    }
  });

  routes.get('/:id/stream', async (c) => {
    const pointer = await store.pointer('chat', chatIdParam(c, 'GET /api/chat/:id/stream'));
    const runId = pointer?.run;
    const stored = runId === undefined ? undefined : await store.getRun(runId);
    // Only a running run is resumed; the client has what ended before.
    if (stored?.status !== 'running') return c.body(null, 204);
    return readRun(c, stored.runId, stored.log, undefined);
  });

  // useChat's `stop()` only closes the connection, which no longer stops a run: this does, on
  // any instance, as `POST /api/runs/:id/abort` does for a run.
  routes.post('/:id/abort', async (c) => {
    const chatId = chatIdParam(c, 'POST /api/chat/:id/abort');
    const runId = (await store.pointer('chat', chatId))?.run;
    const answer =
      runId === undefined
        ? 'unknown'
        : await store.requestAbort(runId, 'stopped by the user', now());
    const named = JSON.stringify(chatId);
    if (runId === undefined || answer === 'unknown')
      throw new HttpError(
        404,
        `no run of chat ${named} is known: it never ran one, or the server has forgotten it`,
      );
    if (answer === 'aborting') return c.json({ id: chatId, runId, status: 'aborting' }, 202);
    if (answer === 'aborted') return c.json({ id: chatId, runId, status: 'aborted' });
    const run = await store.getRun(runId);
    throw new HttpError(
      409,
      `the run of chat ${named} (${runId}) has already finished (${run?.outcome ?? 'ended'})`,
    );
  });

  return routes;
}
