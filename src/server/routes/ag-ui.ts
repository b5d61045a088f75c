import { type Context, Hono } from 'hono';
import { resumeAgent, runAgent } from '../../agent/index.ts';
import { type AgUiRunRequest, pendingToolResults } from '../../agent/ui/ag-ui.ts';
import { ToolwireError } from '../../core/errors.ts';
import { HttpError } from '../../http/http-error.ts';
import { readJsonBody } from '../../http/json-body.ts';
import { MAX_ID_CHARS, parseAgUiRequest } from '../ag-ui-request.ts';
import { AgUiReadFailure, AgUiWire } from '../ag-ui-wire.ts';
import type { RunSlot } from '../live-runs.ts';
import { type LogStreamOptions, logResponse, resumeAfter, runReadHooks } from '../log-stream.ts';
import type { ServerSettings } from '../options.ts';
import { resumeProtocol } from '../resume-protocol.ts';
import { resumePaused } from '../resume-run.ts';
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
 * The input is read in ag-ui-request.ts; a run's events are written by `AgUiWire` (ag-ui-wire.ts).
 */

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
        // A 409 when this server lacks the run's protocol object: the run is given back, paused.
        const protocol = resumeProtocol(settings, claimed, "POST /api/ag-ui: the thread's run");
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
