import { type Context, Hono } from 'hono';
import { type AgentEvent, type AgentResult, resumeAgent, runAgent } from '../../agent/index.ts';
import {
  AG_UI_PROTOCOL_VERSION,
  AgUiEncoder,
  type AgUiEvent,
  type AgUiEventOptions,
  AgUiInputError,
  type AgUiRunRequest,
  agUiInputToRun,
  frameAgUiEvent,
  pendingToolResults,
} from '../../agent/ui/ag-ui.ts';
import { ToolwireError } from '../../core/errors.ts';
import { HttpError } from '../../http/http-error.ts';
import { readJsonBody } from '../../http/json-body.ts';
import {
  type ConversationLimits,
  checkToolAnswers,
  parseConversationInput,
} from '../conversation-input.ts';
import type { RunSlot } from '../live-runs.ts';
import {
  framedEvent,
  type LogStreamOptions,
  logResponse,
  type ReadFailure,
  resumeAfter,
  runReadHooks,
} from '../log-stream.ts';
import type { ServerSettings } from '../options.ts';
import { resumeProtocol } from '../resume-protocol.ts';
import { resumePaused } from '../resume-run.ts';
import type { WireEncoder } from '../wire-encoder.ts';
import { RUN_ID_HEADER, type RunRouteContext } from './runs.ts';

/**
 * AG-UI clients (`@ag-ui/client`'s `HttpAgent`, CopilotKit) served from toolwire's runs:
 * `POST /api/ag-ui` takes a `RunAgentInput` and answers with the run's AG-UI events over SSE,
 * each with its `id:`. A run that calls a client tool ends (`RUN_FINISHED` with
 * `pendingToolCallIds`) and waits, paused in the store; the client's next run on the thread,
 * whose messages end with the tool results, continues it, on any instance sharing the store.
 * Every AG-UI run is an event log of its own, read again from its start or after
 * `Last-Event-ID` with `GET /api/ag-ui/threads/:threadId/runs/:runId/events`. A client that
 * drops its connection does not stop the run; `POST /api/ag-ui/threads/:threadId/abort` does.
 */

const WHERE = 'POST /api/ag-ui';
/** Ids come from the client: long enough for any UUID or name, short enough for a key. */
const MAX_ID_CHARS = 200;

export interface AgUiRequestOptions {
  readonly limits: ConversationLimits;
  /** The server's own tools: a client tool may not take one's name. */
  readonly serverTools: readonly string[];
}

/**
 * The `RunAgentInput` an AG-UI client posts, as what a run needs. The messages are the client's,
 * so what they make is held to the limits of a run's `conversation` (entries, nesting). The
 * messages must end with a user message (a new run) or with tool messages (the answers to a
 * paused run's front-end calls). Throws a 400 `HttpError` naming the place (`param`).
 */
export function parseAgUiRequest(body: unknown, options: AgUiRequestOptions): AgUiRunRequest {
  const { limits } = options;
  let request: AgUiRunRequest;
  try {
    request = agUiInputToRun(body, {
      maxMessages: limits.maxConversationEntries,
      maxArgumentsDepth: limits.maxConversationDepth,
    });
  } catch (error) {
    if (!(error instanceof AgUiInputError)) throw error;
    throw new HttpError(400, `${WHERE}: ${error.message}`, { param: error.path, cause: error });
  }
  for (const [name, id] of [
    ['threadId', request.threadId],
    ['runId', request.runId],
  ] as const)
    if (id.length > MAX_ID_CHARS)
      throw new HttpError(400, `${WHERE}: ${name} is longer than ${MAX_ID_CHARS} characters`, {
        param: name,
      });
  parseConversationInput(request.conversation, limits, WHERE);
  checkToolAnswers(request.toolResults, limits, `${WHERE} (tool results)`);
  if (request.prompt === undefined && request.toolResults.length === 0)
    throw new HttpError(
      400,
      `${WHERE}: the messages must end with a user message (a new run) or with tool messages (the results a paused run waits for)`,
      { param: 'messages' },
    );
  if (request.prompt !== undefined && request.prompt.trim().length === 0)
    throw new HttpError(400, `${WHERE}: the last user message is empty; ask something`, {
      param: 'messages',
    });
  const taken = Object.keys(request.tools).filter((name) => options.serverTools.includes(name));
  if (taken.length > 0)
    throw new HttpError(
      400,
      `${WHERE}: the client tool${taken.length > 1 ? 's' : ''} ${taken
        .slice(0, 5)
        .map((name) => JSON.stringify(name.slice(0, 64)))
        .join(
          ', ',
        )} take${taken.length > 1 ? '' : 's'} the name of a server tool; rename ${taken.length > 1 ? 'them' : 'it'}`,
      { param: 'tools' },
    );
  return request;
}

/** What a lost instance's run ends with in AG-UI: its `RUN_ERROR`. */
export const AG_UI_INSTANCE_LOST = {
  code: 'instance_lost',
  message:
    'the server instance running this run stopped answering (its lease ran out); the run is over',
} as const;

/** The frame a reader gets when the store fails mid-read: the run's `RUN_ERROR`. */
export function agUiStoreFailureFrame(message: string): string {
  return frameAgUiEvent({ type: 'RUN_ERROR', code: 'store_unavailable', message });
}

/** The events that open or close something, as `AgUiReadFailure` follows them. */
const OPENING_EVENTS = new Set([
  'RUN_STARTED',
  'RUN_FINISHED',
  'RUN_ERROR',
  'STEP_STARTED',
  'STEP_FINISHED',
  'TEXT_MESSAGE_START',
  'TEXT_MESSAGE_END',
  'REASONING_START',
  'REASONING_END',
  'REASONING_MESSAGE_START',
  'REASONING_MESSAGE_END',
  'TOOL_CALL_START',
  'TOOL_CALL_END',
]);

/**
 * What a reader of an AG-UI run's log has open, from the frames it was sent (a reader on any
 * instance has only those), so that a store failure mid-read ends its stream as AG-UI wants it
 * (and as the encoder's own `tail` would): the open message, reasoning and calls end, then the
 * step, then one `RUN_ERROR` `store_unavailable`; `RUN_STARTED` first if the reader got none.
 * Nothing once the reader got its terminal event.
 */
export class AgUiReadFailure implements ReadFailure {
  private readonly ids: { readonly threadId: string; readonly runId: string };
  private started = false;
  private ended = false;
  private step: string | undefined;
  private text: string | undefined;
  private reasoning: string | undefined;
  private reasoningMessage: string | undefined;
  private readonly openCalls = new Set<string>();

  /** The AG-UI thread and run read (for a `RUN_STARTED` the reader never got). */
  constructor(ids: { readonly threadId: string; readonly runId: string }) {
    this.ids = ids;
  }

  sent(frame: string): void {
    const event = framedEvent(frame, OPENING_EVENTS);
    if (event === undefined) return;
    const id = (key: string) => (typeof event[key] === 'string' ? event[key] : undefined);
    switch (event.type) {
      case 'RUN_STARTED':
        this.started = true;
        break;
      case 'RUN_FINISHED':
      case 'RUN_ERROR':
        this.ended = true;
        break;
      case 'STEP_STARTED':
        this.step = id('stepName');
        break;
      case 'STEP_FINISHED':
        this.step = undefined;
        break;
      case 'TEXT_MESSAGE_START':
        this.text = id('messageId');
        break;
      case 'TEXT_MESSAGE_END':
        this.text = undefined;
        break;
      case 'REASONING_START':
        this.reasoning = id('messageId');
        break;
      case 'REASONING_END':
        this.reasoning = undefined;
        break;
      case 'REASONING_MESSAGE_START':
        this.reasoningMessage = id('messageId');
        break;
      case 'REASONING_MESSAGE_END':
        this.reasoningMessage = undefined;
        break;
      case 'TOOL_CALL_START': {
        const callId = id('toolCallId');
        if (callId !== undefined) this.openCalls.add(callId);
        break;
      }
      case 'TOOL_CALL_END': {
        const callId = id('toolCallId');
        if (callId !== undefined) this.openCalls.delete(callId);
        break;
      }
    }
  }

  frame(message: string): string {
    if (this.ended) return '';
    const out: AgUiEvent[] = [];
    if (!this.started)
      out.push({ type: 'RUN_STARTED', ...this.ids, protocolVersion: AG_UI_PROTOCOL_VERSION });
    // Innermost first, the step last, as the encoder closes them.
    if (this.text !== undefined) out.push({ type: 'TEXT_MESSAGE_END', messageId: this.text });
    if (this.reasoningMessage !== undefined)
      out.push({ type: 'REASONING_MESSAGE_END', messageId: this.reasoningMessage });
    if (this.reasoning !== undefined)
      out.push({ type: 'REASONING_END', messageId: this.reasoning });
    for (const toolCallId of this.openCalls) out.push({ type: 'TOOL_CALL_END', toolCallId });
    if (this.step !== undefined) out.push({ type: 'STEP_FINISHED', stepName: this.step });
    return out.map(frameAgUiEvent).join('') + agUiStoreFailureFrame(message);
  }
}

/**
 * A run as AG-UI's SSE frames, for the event log (the driver's `WireEncoder`): `RUN_STARTED` first, each agent event's AG-UI
 * events one frame each, one terminal event last. `tail` is what closes the stream as it stands
 * if this instance dies (open messages and calls end, `RUN_ERROR instance_lost`); it changes
 * nothing.
 */
export class AgUiWire implements WireEncoder {
  private readonly encoder: AgUiEncoder;

  constructor(options: AgUiEventOptions) {
    this.encoder = new AgUiEncoder(options);
  }

  start(): string[] {
    return this.encoder.begin().map(frameAgUiEvent);
  }

  push(event: AgentEvent): string[] {
    return this.encoder.push(event).map(frameAgUiEvent);
  }

  /**
   * After the run's result: nothing when its `finish` event ended the stream (it always does);
   * a run that ended without one (a bug) says so rather than leave the client waiting.
   */
  finish(result: AgentResult): string[] {
    return this.encoder
      .end({
        code: result.error?.kind ?? result.stopReason,
        message: result.message ?? `the run stopped (${result.stopReason})`,
      })
      .map(frameAgUiEvent);
  }

  /** The server cannot go on (an encoder or the run threw): the stream ends with `server_error`. */
  failure(message: string): string[] {
    return this.encoder.end({ code: 'server_error', message }).map(frameAgUiEvent);
  }

  ending(message: string): string[] {
    return this.encoder.tail({ code: 'server_error', message }).map(frameAgUiEvent);
  }

  tail(): string[] {
    return this.encoder.tail(AG_UI_INSTANCE_LOST).map(frameAgUiEvent);
  }
}

/**
 * The event log of one AG-UI run. Both ids are the client's: each is encoded (`:` and `%`
 * included), so no two thread/run pairs share a log (`a:b`/`c` and `a`/`b:c` would).
 */
export function agUiLog(threadId: string, runId: string): string {
  return `agui:${encodeURIComponent(threadId)}:${encodeURIComponent(runId)}`;
}

/** A client's id in a route's path, held to what `POST /api/ag-ui` takes (it keys the store). */
function idParam(c: Context, name: 'threadId' | 'runId', where: string): string {
  const id = c.req.param(name) ?? '';
  if (id.length > MAX_ID_CHARS)
    throw new HttpError(400, `${where}: ${name} is longer than ${MAX_ID_CHARS} characters`, {
      param: name,
    });
  return id;
}

export function agUiRoutes(settings: ServerSettings, context: RunRouteContext): Hono {
  const { options, limits } = settings;
  const { store, live, now, drive } = context;
  const routes = new Hono();
  const pointerTtlMs = limits.pausedRunTtlMs + limits.finishedRunTtlMs;

  const readBody = (c: Context) =>
    readJsonBody(c.req.raw, { maxBytes: limits.maxBodyBytes, ...settings.bodyShape }).then(
      (read) => read.body,
    );

  const wireFor = (request: AgUiRunRequest) =>
    new AgUiWire({
      threadId: request.threadId,
      runId: request.runId,
      model: settings.modelName,
      ...(options.runSettings?.completionTool === undefined
        ? {}
        : { completionTool: options.runSettings.completionTool }),
    });

  const systemFor = (request: AgUiRunRequest) => {
    const parts = [options.runSettings?.system, request.system].filter(
      (part): part is string => typeof part === 'string' && part.length > 0,
    );
    return parts.length > 0 ? { system: parts.join('\n\n') } : {};
  };

  /**
   * The response that reads AG-UI run `ids`'s log after `after` (undefined: from its start).
   * `runId`: the stored run writing that log now, if known: its reader is noted and told when
   * the store fails under it.
   */
  const read = (
    c: Context,
    ids: { readonly threadId: string; readonly runId: string },
    runId: string | undefined,
    after: string | undefined,
  ) => {
    const failure = new AgUiReadFailure(ids);
    const hooks: Partial<LogStreamOptions> =
      runId === undefined ? {} : runReadHooks(context, runId);
    return logResponse({
      store,
      log: agUiLog(ids.threadId, ids.runId),
      after,
      signal: c.req.raw.signal,
      headers: runId === undefined ? {} : { [RUN_ID_HEADER]: runId },
      ...hooks,
      onFrame: (frame) => failure.sent(frame),
      failureFrame: (message) => failure.frame(message),
      unknown: `no AG-UI run ${JSON.stringify(ids.runId)} of thread ${JSON.stringify(ids.threadId)} is known: it never ran here, or the server has forgotten it`,
    });
  };

  /** A new agent run from the input's messages. */
  const start = async (request: AgUiRunRequest, log: string, slot: RunSlot) => {
    const protocol = settings.defaultProtocol;
    const protocolName = typeof protocol === 'string' ? protocol : protocol.name;
    const runId = context.generateRunId();
    slot.assign(runId);
    const lease = await store.createRun(
      {
        runId,
        wire: 'ag-ui',
        log,
        protocol: protocolName,
        customProtocol: typeof protocol !== 'string',
        prompt: request.prompt ?? '',
        tail: [],
      },
      now(),
    );
    // The thread's run: where its client's tool results go when it pauses.
    await store.setPointer('thread', request.threadId, { run: runId }, pointerTtlMs, now());
    const controller = new AbortController();
    const run = runAgent({
      ...options.runSettings,
      ...systemFor(request),
      model: options.model!,
      protocol,
      tools: { ...settings.tools, ...request.tools },
      prompt: request.prompt ?? '',
      conversation: request.conversation,
      signal: controller.signal,
    });
    await drive(lease, run, controller, wireFor(request));
    return runId;
  };

  /** The paused run of the thread, continued with the client's tool results. */
  const resume = async (request: AgUiRunRequest, log: string, slot: RunSlot) => {
    const waiting = await store.pointer('thread', request.threadId);
    const runId = waiting?.run;
    if (runId !== undefined) slot.assign(runId);
    const nothingWaits = (why: string) =>
      new HttpError(
        409,
        `POST /api/ag-ui: the messages end with tool results, and ${why}; send a user message to start a run`,
      );
    if (runId === undefined)
      throw nothingWaits(`thread ${JSON.stringify(request.threadId)} has no run waiting for them`);
    await resumePaused({
      store,
      now,
      drive,
      runId,
      log,
      notClaimed: (run) =>
        nothingWaits(
          run === undefined
            ? 'its run has been forgotten'
            : `its run is ${run.status === 'running' ? 'running' : `over (${run.outcome ?? 'ended'})`}`,
        ),
      start: (state, claimed, signal) => {
        const protocol = resumeProtocol(settings, claimed);
        if (protocol === undefined)
          // Given back, paused, for an instance that has the protocol object.
          throw new HttpError(
            409,
            `POST /api/ag-ui: the thread's run was started in the protocol object ${JSON.stringify(claimed.protocol)}, which this server does not have`,
          );
        return resumeAgent(state, pendingToolResults(request.toolResults, state.pending), {
          ...options.runSettings,
          // The instructions are not part of the paused state: the client sends them each run.
          ...systemFor(request),
          model: options.model!,
          protocol: protocol as Parameters<typeof resumeAgent>[2]['protocol'],
          tools: { ...settings.tools, ...request.tools },
          signal,
        });
      },
      wire: () => wireFor(request),
      mismatch: (error, state) =>
        new HttpError(422, `POST /api/ag-ui: ${error.message}`, {
          cause: error,
          extra: { pendingToolCallIds: state.pending.map((call) => call.toolCallId) },
        }),
      beforeDrive: () =>
        store.setPointer('thread', request.threadId, { run: runId }, pointerTtlMs, now()),
    });
    return runId;
  };

  routes.post('/', async (c) => {
    if (!options.model)
      throw new HttpError(
        409,
        'POST /api/ag-ui: this server replays a recording; it runs no model',
      );
    const request = parseAgUiRequest(await readBody(c), {
      limits,
      // The completion tool is the server's too, declared or not.
      serverTools: [
        ...Object.keys(settings.tools),
        options.runSettings?.completionTool ?? 'attempt_completion',
      ],
    });
    const log = agUiLog(request.threadId, request.runId);
    // Taken before the first store round trip, so concurrent requests count it (--max-runs).
    const slot = live.reserve();
    let runId: string;
    try {
      runId =
        request.toolResults.length > 0
          ? await resume(request, log, slot)
          : await start(request, log, slot);
    } catch (error) {
      // The store refuses a second run on a log: this AG-UI run has run already.
      if (
        ToolwireError.isInstance(error) &&
        error.kind === 'request-refused' &&
        !HttpError.isInstance(error)
      )
        throw new HttpError(
          409,
          `POST /api/ag-ui: run ${JSON.stringify(request.runId)} of thread ${JSON.stringify(request.threadId)} has run already; a new run needs a new runId (read it again with GET /api/ag-ui/threads/:threadId/runs/:runId/events)`,
          { cause: error },
        );
      throw error;
    } finally {
      slot.release();
    }
    return read(c, request, runId, undefined);
  });

  routes.get('/threads/:threadId/runs/:runId/events', async (c) => {
    const where = 'GET /api/ag-ui/threads/:threadId/runs/:runId/events';
    const ids = { threadId: idParam(c, 'threadId', where), runId: idParam(c, 'runId', where) };
    const after = resumeAfter(c.req.raw);
    // The stored run that writes this log now: the thread's run, if its log is this one. An
    // earlier AG-UI run of the thread has ended (its stored run paused there, or finished).
    const current = (await store.pointer('thread', ids.threadId))?.run;
    const stored = current === undefined ? undefined : await store.getRun(current);
    const runId = stored?.log === agUiLog(ids.threadId, ids.runId) ? stored.runId : undefined;
    return read(c, ids, runId, after);
  });

  // AG-UI clients stop a run by dropping its connection, which no longer stops it: this does.
  routes.post('/threads/:threadId/abort', async (c) => {
    const threadId = idParam(c, 'threadId', 'POST /api/ag-ui/threads/:threadId/abort');
    const runId = (await store.pointer('thread', threadId))?.run;
    const answer =
      runId === undefined
        ? 'unknown'
        : await store.requestAbort(runId, 'stopped by the user', now());
    if (answer === 'unknown')
      throw new HttpError(404, `no run of thread ${JSON.stringify(threadId)} is known here`);
    if (answer === 'aborting') return c.json({ threadId, status: 'aborting' }, 202);
    if (answer === 'aborted') return c.json({ threadId, status: 'aborted' });
    throw new HttpError(409, `the run of thread ${JSON.stringify(threadId)} has already finished`);
  });

  return routes;
}
