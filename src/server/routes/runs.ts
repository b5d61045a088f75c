import { type Context, Hono } from 'hono';
import { describeRunError, ResumeMismatchError, resumeAgent, runAgent } from '../../agent/index.ts';
import { HttpError } from '../../http/http-error.ts';
import { readJsonBody } from '../../http/json-body.ts';
import { formatBytes } from '../../http/memory-estimate.ts';
import { sseResponse } from '../../http/sse-response.ts';
import { type ProtocolName, protocolNameFor } from '../../protocols/index.ts';
import type { MetaInitData } from '../../stream/index.ts';
import { AgentBlockAdapter } from '../agent-blocks.ts';
import { parseConversationInput } from '../conversation-input.ts';
import type { ServerSettings } from '../options.ts';
import { replayStream } from '../replay.ts';
import { parseStartRun, parseToolResults } from '../requests.ts';
import type { RunRecord, RunRegistry } from '../run-registry.ts';
import { runToSse } from '../run-stream.ts';

/** The run id travels in this header of a run's response (and in `meta_init`'s agent_uuid). */
export const RUN_ID_HEADER = 'x-run-id';
/** Set on replayed responses: the recording's label. */
export const REPLAY_HEADER = 'x-toolwire-replay';

/**
 * `POST /api/runs` (start a run, or play the recording), `POST /api/runs/:id/tool-results`
 * (resume a run paused on front-end tools) and `POST /api/runs/:id/abort`. A run beyond the
 * registry's limit throws its `RunLimitError`, which the app answers with 429.
 */
export function runRoutes(
  settings: ServerSettings,
  registry: RunRegistry,
  generateRunId: () => string,
): Hono {
  const { options, limits } = settings;
  const routes = new Hono();

  const readBody = (c: Context) =>
    readJsonBody(c.req.raw, { maxBytes: limits.maxBodyBytes, ...settings.bodyShape }).then(
      (read) => read.body,
    );

  const metaFor = (record: RunRecord, resumed: boolean): MetaInitData => ({
    format: 'xml',
    user_query: record.prompt,
    agent_uuid: record.id,
    model: settings.modelName,
    protocol: record.protocol,
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
   * The response for a run that streams under `controller`: the registry pauses it when it
   * waits for front-end tools and finishes it when it ends; a reader that leaves aborts it.
   */
  const streamRun = (
    c: Context,
    record: RunRecord,
    controller: AbortController,
    run: ReturnType<typeof runAgent>,
    resumed: boolean,
  ) => {
    const owns = () => record.controller === controller;
    run.result.then(
      (result) => {
        if (!owns()) return;
        if (result.stopReason === 'awaiting-tools' && result.state && !controller.signal.aborted)
          registry.pause(record, result.state);
        else registry.finish(record, result.stopReason);
      },
      () => {
        if (owns()) registry.finish(record, 'error');
      },
    );
    const disconnect = () => {
      if (owns() && record.status === 'running')
        controller.abort(new Error('the client disconnected'));
    };
    c.req.raw.signal.addEventListener('abort', disconnect, { once: true });
    const body = runToSse({
      run,
      meta: metaFor(record, resumed),
      adapter: adapterFor(),
      onEvent: (event) => {
        // Paused before the page sees the block, so its answer can never come too early.
        if (event.type === 'awaiting-tools' && owns()) registry.pause(record, event.state);
      },
      onCancel: disconnect,
    });
    return sseResponse(body, { [RUN_ID_HEADER]: record.id });
  };

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
    const controller = new AbortController();
    const record = registry.start(generateRunId(), request.prompt, protocol, controller);
    if (replaying) {
      const { recording } = playable!;
      const body = replayStream(recording, settings.playableDelayMs, controller.signal, (outcome) =>
        registry.finish(record, outcome),
      );
      c.req.raw.signal.addEventListener('abort', () => controller.abort(), { once: true });
      return sseResponse(body, { [RUN_ID_HEADER]: record.id, [REPLAY_HEADER]: recording.label });
    }
    const run = runAgent({
      ...options.runSettings,
      model: options.model!,
      protocol,
      tools: settings.tools,
      prompt: request.prompt,
      ...(conversation === undefined ? {} : { conversation }),
      signal: controller.signal,
    });
    return streamRun(c, record, controller, run, false);
  });

  const findRun = (id: string): RunRecord => {
    const record = registry.get(id);
    if (!record)
      throw new HttpError(
        404,
        `no run has the id ${JSON.stringify(id)}: it never existed, or the server has forgotten it (finished runs are kept for ${minutes(limits.finishedRunTtlMs)}; beyond ${limits.maxRememberedRuns} runs or ${formatBytes(limits.maxRememberedBytes)} the oldest are forgotten first)`,
      );
    return record;
  };

  routes.post('/:id/tool-results', async (c) => {
    const record = findRun(c.req.param('id'));
    const results = parseToolResults(await readBody(c));
    if (record.status !== 'paused' || !record.state) {
      const why =
        record.status === 'running'
          ? 'it is running, not waiting for front-end tools'
          : `it has finished (${record.outcome ?? 'ended'})`;
      throw new HttpError(409, `run ${record.id} takes no tool results: ${why}`);
    }
    registry.ensureCapacity();
    const state = record.state;
    const controller = new AbortController();
    let run: ReturnType<typeof resumeAgent>;
    try {
      run = resumeAgent(
        state,
        results.map((result) => ({
          toolCallId: result.toolUseId,
          output: result.content,
          isError: result.isError,
        })),
        {
          ...options.runSettings,
          model: options.model!,
          // The object the run started in; a format's name is kept in the state.
          protocol: record.format ?? (state.protocol as ProtocolName),
          tools: settings.tools,
          signal: controller.signal,
        },
      );
    } catch (error) {
      if (error instanceof ResumeMismatchError)
        throw new HttpError(422, error.message, {
          cause: error,
          extra: {
            pending: state.pending.map((call) => ({
              tool_use_id: call.toolCallId,
              name: call.toolName,
            })),
          },
        });
      throw error;
    }
    registry.resumed(record, controller);
    return streamRun(c, record, controller, run, true);
  });

  routes.post('/:id/abort', (c) => {
    const record = findRun(c.req.param('id'));
    if (record.status === 'running') {
      record.controller?.abort(new Error('stopped by the user'));
      return c.json({ id: record.id, status: 'aborting' }, 202);
    }
    if (record.status === 'paused') {
      registry.finish(record, 'aborted');
      return c.json({ id: record.id, status: 'aborted' });
    }
    throw new HttpError(
      409,
      `run ${record.id} has already finished (${record.outcome ?? 'ended'})`,
    );
  });

  return routes;
}

function minutes(ms: number): string {
  const count = ms / 60_000;
  return count >= 1 && Number.isInteger(count)
    ? `${count} minute${count === 1 ? '' : 's'}`
    : `${ms} ms`;
}
