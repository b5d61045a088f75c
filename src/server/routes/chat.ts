import { type Context, Hono } from 'hono';
import { resumeAgent, runAgent } from '../../agent/index.ts';
import {
  frameUIMessageChunk,
  UI_MESSAGE_STREAM_DONE,
  UI_MESSAGE_STREAM_HEADERS,
  type UIMessagesRun,
} from '../../agent/ui/ui-message-stream.ts';
import { parseJsonText } from '../../core/parse-json.ts';
import { HttpError } from '../../http/http-error.ts';
import { readJsonBody } from '../../http/json-body.ts';
import { MAX_CHAT_ID_CHARS, parseChatRequest } from '../chat-request.ts';
import { logResponse, runReadHooks } from '../log-stream.ts';
import type { ServerSettings } from '../options.ts';
import { resumeProtocol } from '../resume-protocol.ts';
import { resumePaused } from '../resume-run.ts';
import { UIMessageReadFailure, UIMessageWire } from '../ui-message-wire.ts';
import type { RunRouteContext } from './runs.ts';

/**
 * The AI SDK's chat (`useChat` with `DefaultChatTransport`) served from toolwire's runs:
 * `POST /api/chat` starts a run from the messages, or resumes the paused run the messages answer
 * (the assistant message's id is the run's), and `GET /api/chat/:id/stream` reads the chat's
 * running run again from its start (`204` when none runs), on any instance sharing the store;
 * `POST /api/chat/:id/abort` stops the chat's run (a dropped connection does not).
 * Each run is written to its log as UI message stream frames (`UIMessageWire`, in
 * ui-message-wire.ts; the body is read in chat-request.ts); a resumed run appends to the same
 * log, so reading it from the start rebuilds the whole assistant message.
 */

/** Why a chat's paused run ended when the chat went on without its answers. */
const UNANSWERED_RUN = 'the chat went on with a new message instead of answering';

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
    const protocol = resumeProtocol(settings, stored);
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
