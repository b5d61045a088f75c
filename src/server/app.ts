import { randomUUID } from 'node:crypto';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { type Context, Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import {
  type AgentTools,
  ResumeMismatchError,
  type RunAgentOptions,
  resumeAgent,
  runAgent,
} from '../agent/index.ts';
import type { ProtocolName } from '../protocols/index.ts';
import { type ProtocolChoice, protocolNameFor } from '../protocols/index.ts';
import { type MetaInitData, SSE_HEADERS } from '../stream/index.ts';
import { AgentBlockAdapter } from './agent-blocks.ts';
import { DEFAULT_CONVERSATION_LIMITS, parseConversationInput } from './conversation-input.ts';
import { LOOPBACK_HOSTNAMES } from './host-names.ts';
import { formatBytes } from './memory-estimate.ts';
import { describeRunError } from './model-errors.ts';
import {
  checkModelServer,
  type ModelServerCheck,
  type ModelServerProbe,
} from './model-server-probe.ts';
import { type Recording, replayStream } from './replay.ts';
import { hostGuard, hostPolicy, sameOriginGuard } from './request-guard.ts';
import {
  BODY_SHAPE_LIMITS,
  parseStartRun,
  parseToolResults,
  RequestError,
  readJsonBody,
} from './requests.ts';
import { RunLimitError, type RunRecord, RunRegistry } from './run-registry.ts';
import { runToSse } from './run-stream.ts';
import { defaultWebRoot, pageNotBuilt, readPageFile } from './static-page.ts';

export interface ServerLimits {
  /** Largest request body read, in bytes. Default 1 MiB. */
  readonly maxBodyBytes: number;
  /** Runs streaming at once (resumes included); more get 429. Default 4. */
  readonly maxConcurrentRuns: number;
  /** How long a run paused on front-end tools waits for their results. Default 30 minutes. */
  readonly pausedRunTtlMs: number;
  /**
   * How long a finished run's outcome is remembered, so a late request gets 409 (what happened)
   * rather than 404. Default 10 minutes.
   */
  readonly finishedRunTtlMs: number;
  /**
   * Paused and finished runs remembered at most. Beyond it the oldest finished run is forgotten
   * first, then the oldest paused one; a forgotten run's id gets 404. Default 1000.
   * @example { maxRememberedRuns: 200 }
   */
  readonly maxRememberedRuns: number;
  /**
   * The estimated memory paused and finished runs may hold, in bytes (a paused run holds its
   * prompt and conversation; a finished one only its outcome). Beyond it runs are forgotten as
   * for `maxRememberedRuns`; a paused run larger than this on its own is dropped (409 says so).
   * Default 64 MiB.
   * @example { maxRememberedBytes: 16 * 1024 * 1024 }
   */
  readonly maxRememberedBytes: number;
  /**
   * Entries a conversation sent with a run (`conversation`, to continue it) may have; more get
   * 400. Its bytes are bounded by `maxBodyBytes`. Default 2000.
   * @example { maxConversationEntries: 500 }
   */
  readonly maxConversationEntries: number;
  /**
   * How deeply a call's input or a result's output in that conversation may nest (arrays and
   * objects); deeper gets 400. Default 64.
   * @example { maxConversationDepth: 32 }
   */
  readonly maxConversationDepth: number;
  /**
   * How long `GET /api/status` waits for the model server to answer before it says none does.
   * Default 2000 (2 s).
   * @example { modelProbeTimeoutMs: 500 }
   */
  readonly modelProbeTimeoutMs: number;
}

export const DEFAULT_LIMITS: ServerLimits = {
  maxBodyBytes: 1024 * 1024,
  maxConcurrentRuns: 4,
  pausedRunTtlMs: 30 * 60_000,
  finishedRunTtlMs: 10 * 60_000,
  maxRememberedRuns: 1000,
  maxRememberedBytes: 64 * 1024 * 1024,
  ...DEFAULT_CONVERSATION_LIMITS,
  modelProbeTimeoutMs: 2000,
};

/** The most `setTimeout` waits as asked (longer delays fire at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Each limit is a whole number in range, or a TypeError says which is not. */
function checkedLimits(limits: ServerLimits): ServerLimits {
  for (const [name, value] of Object.entries(limits)) {
    const most = name.endsWith('Ms') ? MAX_TIMER_MS : Number.MAX_SAFE_INTEGER;
    if (!Number.isInteger(value) || value < 1 || value > most)
      throw new TypeError(
        `createServerApp: limits.${name} must be a whole number from 1 to ${most}, not ${String(value)}`,
      );
  }
  return limits;
}

export interface ReplaySettings {
  readonly recording: Recording;
  /**
   * Pause between messages, in ms, so the replay streams like a run; 0 sends them as fast as
   * the reader takes them. Default 25.
   * @example { recording, delayMs: 0 }
   */
  readonly delayMs?: number;
}

/** The pause between replayed messages when none is given. */
export const DEFAULT_REPLAY_DELAY_MS = 25;

/** Agent settings every run gets besides its model, tools, prompt and signal. */
export type RunSettings = Omit<
  RunAgentOptions,
  'model' | 'tools' | 'prompt' | 'conversation' | 'signal' | 'protocol'
>;

export interface ServerAppOptions {
  /** The model runs ask. Required unless `replay` is given. */
  readonly model?: LanguageModelV4;
  /** The model's name in `meta_init` and messages. Default: the model's id. */
  readonly modelName?: string;
  /** Where the model server is, to say so when it does not answer. */
  readonly baseURL?: string;
  /**
   * The protocol of runs that do not ask for one: a format's name or alias, `auto`, or `model`
   * (the format of the model's id). Default `xml`.
   * @example 'model'
   */
  readonly protocol?: ProtocolChoice;
  /** The agent's tools: executed ones and front-end ones (no `execute`). */
  readonly tools?: AgentTools;
  readonly runSettings?: RunSettings;
  /** Serve this recording for every run instead of asking a model. */
  readonly replay?: ReplaySettings;
  /**
   * A recording a live server plays when a run asks for it (`replay: true`), without asking
   * the model: the page offers it when no model server answers. Ignored when `replay` is given
   * (that recording is played).
   * @example { recording: parseRecording(text, 'recorded-run.sse') }
   */
  readonly recording?: ReplaySettings;
  /**
   * How `GET /api/status` asks whether the model server is there (see `openAICompatibleProbe`).
   * Without it the status says the server is not checked.
   * @example openAICompatibleProbe('http://127.0.0.1:11434/v1')
   */
  readonly probeModelServer?: ModelServerProbe;
  /** The built page's folder. Default: `dist/web` (see `defaultWebRoot`). */
  readonly webRoot?: string;
  readonly limits?: Partial<ServerLimits>;
  /** Run ids. Default: random UUIDs. */
  readonly generateRunId?: () => string;
  /**
   * Host names requests may be addressed to (the Host header and the URL), in any spelling:
   * they are compared in WHATWG URL form, and a loopback name admits every loopback spelling
   * (`127.1`, `[0:0:0:0:0:0:0:1]`, `[::ffff:127.0.0.1]`, `*.localhost`, …). Anything else is
   * refused with 403, so a web page cannot reach this server through a DNS name that points to
   * it (DNS rebinding). `'any'` turns the check off: only for a server behind a proxy that
   * checks Host itself. Default: `LOOPBACK_HOSTNAMES`.
   * @example { allowedHostnames: [...LOOPBACK_HOSTNAMES, 'devbox.lan'] }
   */
  readonly allowedHostnames?: readonly string[] | 'any';
  /**
   * Also admit requests addressed by any IP address, for a server on a network address (a
   * rebinding page can only use a DNS name). Default false.
   */
  readonly allowIpAddressHosts?: boolean;
}

/** The names a browser uses for a server on loopback (each admits every loopback spelling). */
export { LOOPBACK_HOSTNAMES };

export interface ServerApp {
  readonly app: Hono;
  readonly registry: RunRegistry;
  readonly limits: ServerLimits;
  /** Aborts the runs that stream and forgets the paused ones. */
  close(): void;
}

/** The run id travels in this header of a run's response (and in `meta_init`'s agent_uuid). */
export const RUN_ID_HEADER = 'x-run-id';
/** Set on replayed responses: the recording's label. */
export const REPLAY_HEADER = 'x-toolwire-replay';

/**
 * The HTTP API and the page, as a Hono app (runs on Node through `@hono/node-server`; see
 * `startServer`). Routes: `POST /api/runs`, `POST /api/runs/:id/tool-results`,
 * `POST /api/runs/:id/abort`, `GET /api/info`, `GET /api/status`, and the page at `GET /`.
 */
export function createServerApp(options: ServerAppOptions): ServerApp {
  if (!options.model && !options.replay)
    throw new TypeError('createServerApp: give a model, or a recording to replay');
  const limits = checkedLimits({ ...DEFAULT_LIMITS, ...options.limits });
  // A body is read within these before it is parsed; a conversation's values sit a few levels
  // below the body's top, so its own depth limit decides where they may go.
  const bodyShape = {
    maxDepth: Math.max(BODY_SHAPE_LIMITS.maxDepth, limits.maxConversationDepth + 16),
    maxValues: BODY_SHAPE_LIMITS.maxValues,
  };
  const replayDelayMs = checkedDelay(options.replay, 'replay');
  // What a run that asks for a recording plays: the replay server's, else the one offered.
  const playable = options.replay ?? options.recording;
  const playableDelayMs = options.replay
    ? replayDelayMs
    : checkedDelay(options.recording, 'recording');
  const registry = new RunRegistry(limits);
  const generateRunId = options.generateRunId ?? randomUUID;
  const modelName = options.modelName ?? options.model?.modelId ?? 'replay';
  // `model` is the format of this server's model; a run records the format's own name.
  const modelId = options.model?.modelId ?? modelName;
  let defaultProtocol: ProtocolName;
  try {
    defaultProtocol = protocolNameFor(options.protocol ?? 'xml', modelId);
  } catch (error) {
    throw new TypeError(`createServerApp: ${(error as Error).message}`);
  }
  const tools = options.tools ?? {};
  const webRoot = options.webRoot ?? defaultWebRoot();
  const app = new Hono();

  app.onError((error, c) => {
    if (error instanceof HTTPException) return error.getResponse();
    return c.json({ error: `internal server error: ${error.message}` }, 500);
  });

  const allowedHostnames = options.allowedHostnames ?? LOOPBACK_HOSTNAMES;
  if (allowedHostnames !== 'any')
    app.use('*', hostGuard(hostPolicy(allowedHostnames, options.allowIpAddressHosts === true)));
  // A page on another site may send simple POSTs here (no CORS preflight for them), or read
  // through a tag: only this server's own page may use the API.
  app.use('/api/*', sameOriginGuard());

  app.get('/api/info', (c) =>
    c.json({
      mode: options.replay ? 'replay' : 'live',
      model: modelName,
      ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
      protocol: defaultProtocol,
      ...(options.replay ? { recording: options.replay.recording.label } : {}),
      frontendTools: Object.entries(tools)
        .filter(([, tool]) => !tool.execute)
        .map(([name]) => name),
      ...(options.replay ? { replayDelayMs } : {}),
      limits,
      activeRuns: registry.active,
    }),
  );

  // One probe at a time: pages opened together share its answer.
  let probing: Promise<ModelServerCheck> | undefined;
  const probeModelServer = (probe: ModelServerProbe) => {
    probing ??= checkModelServer(probe, limits.modelProbeTimeoutMs).finally(() => {
      probing = undefined;
    });
    return probing;
  };

  app.get('/api/status', async (c) => {
    const recording = playable ? { recording: playable.recording.label } : {};
    if (options.replay) return c.json({ mode: 'replay', modelServer: 'none', ...recording });
    const baseURL = options.baseURL === undefined ? {} : { baseURL: options.baseURL };
    if (!options.probeModelServer)
      return c.json({ mode: 'live', modelServer: 'unchecked', ...baseURL, ...recording });
    const check = await probeModelServer(options.probeModelServer);
    return c.json({
      mode: 'live',
      modelServer: check.answers ? 'answers' : 'no-answer',
      ...baseURL,
      ...(check.answers ? {} : { problem: check.problem }),
      ...recording,
    });
  });

  const metaFor = (record: RunRecord, resumed: boolean): MetaInitData => ({
    format: 'xml',
    user_query: record.prompt,
    agent_uuid: record.id,
    model: modelName,
    protocol: record.protocol,
    ...(resumed ? { resumed: true } : {}),
  });

  const adapterFor = () =>
    new AgentBlockAdapter({
      ...(options.runSettings?.completionTool === undefined
        ? {}
        : { completionTool: options.runSettings.completionTool }),
      describeError: (message) =>
        describeRunError(message, {
          ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
          model: modelName,
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
    return new Response(body, { headers: { ...SSE_HEADERS, [RUN_ID_HEADER]: record.id } });
  };

  const limitError = (error: unknown): never => {
    if (error instanceof RunLimitError) throw new RequestError(429, error.message);
    throw error;
  };

  app.post('/api/runs', async (c) => {
    const request = parseStartRun(await readJsonBody(c.req.raw, limits.maxBodyBytes, bodyShape));
    const conversation =
      request.conversation === undefined
        ? undefined
        : parseConversationInput(request.conversation, limits, 'POST /api/runs');
    const replaying = options.replay !== undefined || request.replay === true;
    if (replaying && !playable)
      throw new RequestError(
        409,
        'POST /api/runs: "replay" asks for a recording, and this server has none (toolwire serve finds examples/recorded-run.sse; createServerApp takes `recording`)',
      );
    const protocol =
      request.protocol === undefined ? defaultProtocol : protocolNameFor(request.protocol, modelId);
    const controller = new AbortController();
    let record: RunRecord;
    try {
      record = registry.start(generateRunId(), request.prompt, protocol, controller);
    } catch (error) {
      return limitError(error);
    }
    if (replaying) {
      const { recording } = playable!;
      const body = replayStream(recording, playableDelayMs, controller.signal, (outcome) =>
        registry.finish(record, outcome),
      );
      c.req.raw.signal.addEventListener('abort', () => controller.abort(), { once: true });
      return new Response(body, {
        headers: { ...SSE_HEADERS, [RUN_ID_HEADER]: record.id, [REPLAY_HEADER]: recording.label },
      });
    }
    const run = runAgent({
      ...options.runSettings,
      model: options.model!,
      protocol,
      tools,
      prompt: request.prompt,
      ...(conversation === undefined ? {} : { conversation }),
      signal: controller.signal,
    });
    return streamRun(c, record, controller, run, false);
  });

  const findRun = (id: string): RunRecord => {
    const record = registry.get(id);
    if (!record)
      throw new RequestError(
        404,
        `no run has the id ${JSON.stringify(id)}: it never existed, or the server has forgotten it (finished runs are kept for ${minutes(limits.finishedRunTtlMs)}; beyond ${limits.maxRememberedRuns} runs or ${formatBytes(limits.maxRememberedBytes)} the oldest are forgotten first)`,
      );
    return record;
  };

  app.post('/api/runs/:id/tool-results', async (c) => {
    const record = findRun(c.req.param('id'));
    const results = parseToolResults(await readJsonBody(c.req.raw, limits.maxBodyBytes, bodyShape));
    if (record.status !== 'paused' || !record.state) {
      const why =
        record.status === 'running'
          ? 'it is running, not waiting for front-end tools'
          : `it has finished (${record.outcome ?? 'ended'})`;
      throw new RequestError(409, `run ${record.id} takes no tool results: ${why}`);
    }
    try {
      registry.ensureCapacity();
    } catch (error) {
      return limitError(error);
    }
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
          protocol: state.protocol as ProtocolName,
          tools,
          signal: controller.signal,
        },
      );
    } catch (error) {
      if (error instanceof ResumeMismatchError)
        throw new RequestError(422, error.message, {
          pending: state.pending.map((call) => ({
            tool_use_id: call.toolCallId,
            name: call.toolName,
          })),
        });
      throw error;
    }
    registry.resumed(record, controller);
    return streamRun(c, record, controller, run, true);
  });

  app.post('/api/runs/:id/abort', (c) => {
    const record = findRun(c.req.param('id'));
    if (record.status === 'running') {
      record.controller?.abort(new Error('stopped by the user'));
      return c.json({ id: record.id, status: 'aborting' }, 202);
    }
    if (record.status === 'paused') {
      registry.finish(record, 'aborted');
      return c.json({ id: record.id, status: 'aborted' });
    }
    throw new RequestError(
      409,
      `run ${record.id} has already finished (${record.outcome ?? 'ended'})`,
    );
  });

  app.all('/api/*', (c) => {
    throw new RequestError(404, `no API route ${c.req.method} ${c.req.path}`);
  });

  app.get('*', async (c) => {
    const file = await readPageFile(webRoot, c.req.path);
    if (file) return c.body(file.body as Uint8Array<ArrayBuffer>, 200, file.headers);
    if (c.req.path === '/' || c.req.path === '/index.html')
      return c.html(pageNotBuilt(webRoot), 503);
    return c.text(`not found: ${c.req.path}`, 404);
  });

  return { app, registry, limits, close: () => registry.closeAll() };
}

/** A recording's pause between messages: its own, else the default; a bad one throws. */
function checkedDelay(settings: ReplaySettings | undefined, name: string): number {
  const delayMs = settings?.delayMs ?? DEFAULT_REPLAY_DELAY_MS;
  if (!Number.isInteger(delayMs) || delayMs < 0 || delayMs > MAX_TIMER_MS)
    throw new TypeError(
      `createServerApp: ${name}.delayMs must be a whole number of milliseconds from 0 to ${MAX_TIMER_MS}, not ${String(delayMs)}`,
    );
  return delayMs;
}

function minutes(ms: number): string {
  const count = ms / 60_000;
  return count >= 1 && Number.isInteger(count)
    ? `${count} minute${count === 1 ? '' : 's'}`
    : `${ms} ms`;
}
