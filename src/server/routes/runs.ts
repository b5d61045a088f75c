import { type Context, Hono } from 'hono';
import { describeRunError, resumeAgent, runAgent } from '../../agent/index.ts';
import { HttpError } from '../../http/http-error.ts';
import { readJsonBody } from '../../http/json-body.ts';
import { formatBytes } from '../../http/memory-estimate.ts';
import { sseResponse } from '../../http/sse-response.ts';
import { protocolNameFor } from '../../protocols/index.ts';
import type { RunStore, StoredRun } from '../../store/run-store.ts';
import type { MetaInitData } from '../../stream/index.ts';
import { AgentBlockAdapter } from '../agent-blocks.ts';
import { BlocksReadFailure, BlocksWire } from '../blocks-wire.ts';
import { parseConversationInput } from '../conversation-input.ts';
import type { LiveRuns } from '../live-runs.ts';
import { logResponse, resumeAfter, runReadHooks } from '../log-stream.ts';
import type { ServerSettings } from '../options.ts';
import { replayStream } from '../replay.ts';
import { parseStartRun, parseToolResults } from '../requests.ts';
import { resumeProtocol } from '../resume-protocol.ts';
import { resumePaused } from '../resume-run.ts';
import type { DriveRun } from '../run-driver.ts';

/** The run id travels in this header of a run's response (and in `meta_init`'s agent_uuid). */
export const RUN_ID_HEADER = 'x-run-id';
/** Set on replayed responses: the recording's label. */
export const REPLAY_HEADER = 'x-toolwire-replay';

/** What the run routes work with besides the settings. */
export interface RunRouteContext {
  readonly store: RunStore;
  readonly live: LiveRuns;
  readonly generateRunId: () => string;
  readonly now: () => number;
  /** Drives a run here into the store (the app's, shared by every run route). */
  readonly drive: DriveRun;
}

/**
 * `POST /api/runs` (start a run, or play the recording), `POST /api/runs/:id/tool-results`
 * (resume a run paused on front-end tools, on any instance sharing the store),
 * `POST /api/runs/:id/abort` (stop it, on any instance) and `GET /api/runs/:id/events` (read
 * it again, from the start or after `Last-Event-ID` / `?after=`). A run is driven into the
 * store by the instance that runs it (`RunDriver`); every response is a read of its log, so a
 * client that leaves ends its read, not the run. A run beyond this instance's limit throws
 * `RunLimitError`, which the app answers with 429.
 */
export function runRoutes(settings: ServerSettings, context: RunRouteContext): Hono {
  const { options, limits } = settings;
  const { store, live, now } = context;
  const routes = new Hono();

  const readBody = (c: Context) =>
    readJsonBody(c.req.raw, { maxBytes: limits.maxBodyBytes, ...settings.bodyShape }).then(
      (read) => read.body,
    );

  const metaFor = (
    runId: string,
    prompt: string,
    protocol: string,
    resumed: boolean,
  ): MetaInitData => ({
    format: 'xml',
    user_query: prompt,
    agent_uuid: runId,
    model: settings.modelName,
    protocol,
    ...(resumed ? { resumed: true } : {}),
  });

  const adapterFor = () =>
    new AgentBlockAdapter({
      ...(options.runSettings?.completionTool === undefined
        ? {}
        : { completionTool: options.runSettings.completionTool }),
      // Whatever the agent's error event carries goes to describeRunError as it is.
      describeError: (failure) =>
        describeRunError(failure, {
          ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
          model: settings.modelName,
        }),
    });

  /**
   * The response that reads a run's log after `after` (undefined: from its start).
   * `afterIsBoundary`: `after` is where a continuation starts, so nothing is open there.
   */
  const readRun = (
    c: Context,
    runId: string,
    log: string,
    after: string | undefined,
    afterIsBoundary = false,
  ) => {
    const failure = new BlocksReadFailure();
    return logResponse({
      store,
      log,
      after,
      afterIsBoundary,
      signal: c.req.raw.signal,
      headers: { [RUN_ID_HEADER]: runId },
      ...runReadHooks(context, runId),
      onFrame: (frame) => failure.sent(frame),
      failureFrame: (message) => failure.frame(message),
      unknown: unknownRun(runId),
    });
  };

  /** A run's content-block wire, starting with `meta`. */
  const blocksWire = (meta: MetaInitData) => new BlocksWire({ adapter: adapterFor(), meta });

  routes.post('/', async (c) => {
    const request = parseStartRun(await readBody(c));
    const conversation =
      request.conversation === undefined
        ? undefined
        : parseConversationInput(request.conversation, limits, 'POST /api/runs');
    const replaying = options.replay !== undefined || request.replay === true;
    const { playable } = settings;
    if (replaying && !playable)
      throw new HttpError(
        409,
        'POST /api/runs: "replay" asks for a recording, and this server has none (toolwire serve finds examples/recorded-run.sse; createServerApp takes `recording`)',
      );
    const protocol =
      request.protocol === undefined
        ? settings.defaultProtocol
        : protocolNameFor(request.protocol, settings.modelId);
    const protocolName = typeof protocol === 'string' ? protocol : protocol.name;
    // Taken before the first await: requests that come meanwhile count this run.
    const slot = live.reserve();
    try {
      const runId = context.generateRunId();
      slot.assign(runId);
      const controller = new AbortController();
      if (replaying) {
        // A recording is replayable already: it is played to this reader, not logged.
        const { recording } = playable!;
        const release = live.own({ runId, controller });
        const body = replayStream(recording, settings.playableDelayMs, controller.signal, release);
        c.req.raw.signal.addEventListener('abort', () => controller.abort(), { once: true });
        return sseResponse(body, { [RUN_ID_HEADER]: runId, [REPLAY_HEADER]: recording.label });
      }
      const lease = await store.createRun(
        {
          runId,
          wire: 'blocks',
          protocol: protocolName,
          customProtocol: typeof protocol !== 'string',
          prompt: request.prompt,
          tail: [],
        },
        now(),
      );
      const run = runAgent({
        ...options.runSettings,
        model: options.model!,
        protocol,
        tools: settings.tools,
        prompt: request.prompt,
        ...(conversation === undefined ? {} : { conversation }),
        signal: controller.signal,
      });
      await context.drive(
        lease,
        run,
        controller,
        blocksWire(metaFor(runId, request.prompt, protocolName, false)),
      );
      return readRun(c, runId, lease.log, undefined);
    } finally {
      // A no-op once the run owns the slot; gives it back when the start failed.
      slot.release();
    }
  });

  const findRun = async (id: string): Promise<StoredRun> => {
    const run = await store.getRun(id);
    if (!run) throw new HttpError(404, unknownRun(id));
    return run;
  };

  const unknownRun = (id: string) =>
    `no run has the id ${JSON.stringify(id)}: it never existed, or the server has forgotten it (finished runs are kept for ${minutes(store.limits.finishedRunTtlMs)}; beyond ${store.limits.maxRememberedRuns} runs or ${formatBytes(store.limits.maxRememberedBytes)} the oldest are forgotten first)`;

  const notPaused = (run: StoredRun) =>
    new HttpError(
      409,
      `run ${run.runId} takes no tool results: ${
        run.status === 'running'
          ? 'it is running, not waiting for front-end tools'
          : `it has finished (${run.outcome ?? 'ended'})`
      }`,
    );

  routes.post('/:id/tool-results', async (c) => {
    const stored = await findRun(c.req.param('id'));
    const results = parseToolResults(await readBody(c));
    if (stored.status !== 'paused') throw notPaused(stored);
    const protocol = resumeProtocol(settings, stored);
    // Taken before the claim's round trip; the resumed run takes it over.
    const slot = live.reserve(stored.runId);
    try {
      const { lease, after } = await resumePaused({
        store,
        now,
        drive: context.drive,
        runId: stored.runId,
        notClaimed: (run) =>
          run === undefined ? new HttpError(404, unknownRun(stored.runId)) : notPaused(run),
        start: (state, _, signal) =>
          resumeAgent(
            state,
            results.map((result) => ({
              toolCallId: result.toolUseId,
              output: result.content,
              isError: result.isError,
            })),
            {
              ...options.runSettings,
              model: options.model!,
              protocol,
              tools: settings.tools,
              signal,
            },
          ),
        wire: () => blocksWire(metaFor(stored.runId, stored.prompt, stored.protocol, true)),
        mismatch: (error, state) =>
          new HttpError(422, error.message, {
            cause: error,
            extra: {
              pending: state.pending.map((call) => ({
                tool_use_id: call.toolCallId,
                name: call.toolName,
              })),
            },
          }),
      });
      // The response is the continuation: it starts at the resumed meta_init.
      return readRun(c, stored.runId, lease.log, after, true);
    } finally {
      slot.release();
    }
  });

  routes.get('/:id/events', async (c) => {
    const after = resumeAfter(c.req.raw);
    const stored = await findRun(c.req.param('id'));
    return readRun(c, stored.runId, stored.log, after);
  });

  routes.post('/:id/abort', async (c) => {
    const id = c.req.param('id');
    const local = live.get(id);
    if (local !== undefined && local.lease === undefined) {
      // A replay: played here only.
      local.controller.abort(new Error('stopped by the user'));
      return c.json({ id, status: 'aborting' }, 202);
    }
    const answer = await store.requestAbort(id, 'stopped by the user', now());
    if (answer === 'unknown') throw new HttpError(404, unknownRun(id));
    if (answer === 'aborting') return c.json({ id, status: 'aborting' }, 202);
    if (answer === 'aborted') return c.json({ id, status: 'aborted' });
    const run = await store.getRun(id);
    throw new HttpError(409, `run ${id} has already finished (${run?.outcome ?? 'ended'})`);
  });

  return routes;
}

function minutes(ms: number): string {
  const count = ms / 60_000;
  return count >= 1 && Number.isInteger(count)
    ? `${count} minute${count === 1 ? '' : 's'}`
    : `${ms} ms`;
}
