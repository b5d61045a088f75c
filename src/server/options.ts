import type { LanguageModelV4 } from '@ai-sdk/provider';
import type { AgentTools, RunAgentOptions } from '../agent/index.ts';
import type { ToolCallProtocol } from '../core/index.ts';
import type { JsonShapeLimits } from '../http/json-shape.ts';
import { type ProtocolChoice, type ProtocolName, protocolNameFor } from '../protocols/index.ts';
import type { RunStore } from '../store/run-store.ts';
import { DEFAULT_CONVERSATION_LIMITS } from './conversation-input.ts';
import type { ModelServerProbe } from './model-server-probe.ts';
import type { Recording } from './replay.ts';
import { BODY_SHAPE_LIMITS } from './requests.ts';
import { defaultWebRoot } from './static-page.ts';

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
  /**
   * A running run that no response has read for this long is aborted (a dropped connection no
   * longer aborts a run: it can be read again, until then). Default 120000 (2 minutes).
   * @example { unreadRunAbortMs: 30_000 }
   */
  readonly unreadRunAbortMs: number;
  /**
   * How long the instance running a run holds it without renewing (it renews every third of
   * this); an instance that dies is found out within this and the sweep's 5 s, and its runs end
   * with an `instance_lost` error. Default 10000.
   */
  readonly leaseMs: number;
  /** Events a run's log keeps at most; the oldest are trimmed (a resume before them gets 410). Default 100000. */
  readonly maxRunEvents: number;
  /** How long a run's events are kept, in ms; older ones are trimmed. Default 3600000 (1 hour). */
  readonly maxLogAgeMs: number;
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
  unreadRunAbortMs: 2 * 60_000,
  leaseMs: 10_000,
  maxRunEvents: 100_000,
  maxLogAgeMs: 60 * 60_000,
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
   * The protocol of runs that do not ask for one: a format's name or alias, `auto`, `model` (the
   * format of the model's id), or a protocol object (one built by `defineFormat`, derived from a
   * chat template, or written by hand). A run that asks for a format by name still gets it.
   * Default `xml`.
   * @example 'model'
   * @example defineFormat(spec)
   */
  readonly protocol?: ProtocolChoice | ToolCallProtocol;
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
  /**
   * Where runs live: their state, their event logs (what a client reads again after a dropped
   * connection) and who runs them. Instances that share a store (Redis) answer, stop and serve
   * each other's runs. Default: a memory store of this app's own, bounded by `limits`; a store
   * given here keeps its own limits (`createRunStore(spec, { limits })`).
   * @example { store: await createRunStore('redis://127.0.0.1:6379') }
   */
  readonly store?: RunStore;
  /** The time runs are stamped and leases counted with. Default: `Date.now`. Tests give their own. */
  readonly clock?: () => number;
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

/** What the routes work from: the options, checked, with their defaults filled in. */
export interface ServerSettings {
  readonly options: ServerAppOptions;
  readonly limits: ServerLimits;
  /** What a request body may hold before it is parsed. */
  readonly bodyShape: JsonShapeLimits;
  /** The replay server's pause between messages. */
  readonly replayDelayMs: number;
  /** What a run that asks for a recording plays: the replay server's, else the one offered. */
  readonly playable: ReplaySettings | undefined;
  readonly playableDelayMs: number;
  /** The model's name in `meta_init` and messages. */
  readonly modelName: string;
  /** The id a run's `model` protocol choice is resolved from. */
  readonly modelId: string;
  /** What a run that asks for no protocol gets: a format's name, or the server's protocol object. */
  readonly defaultProtocol: ProtocolName | ToolCallProtocol;
  /** Its name, as `GET /api/info` and a run's `meta_init` show it. */
  readonly defaultProtocolName: string;
  readonly tools: AgentTools;
  readonly webRoot: string;
}

/** The options checked (a TypeError names the first that cannot be used), defaults filled in. */
export function serverSettings(options: ServerAppOptions): ServerSettings {
  if (!options.model && !options.replay)
    throw new TypeError('createServerApp: give a model, or a recording to replay');
  const limits = checkedLimits({ ...DEFAULT_LIMITS, ...options.limits });
  const replayDelayMs = checkedDelay(options.replay, 'replay');
  const modelName = options.modelName ?? options.model?.modelId ?? 'replay';
  // `model` is the format of this server's model; a run records the format's own name.
  const modelId = options.model?.modelId ?? modelName;
  const defaultProtocol = checkedProtocol(options.protocol ?? 'xml', modelId);
  return {
    options,
    limits,
    // A body is read within these before it is parsed; a conversation's values sit a few levels
    // below the body's top, so its own depth limit decides where they may go.
    bodyShape: {
      maxDepth: Math.max(BODY_SHAPE_LIMITS.maxDepth, limits.maxConversationDepth + 16),
      maxValues: BODY_SHAPE_LIMITS.maxValues,
    },
    replayDelayMs,
    playable: options.replay ?? options.recording,
    playableDelayMs: options.replay ? replayDelayMs : checkedDelay(options.recording, 'recording'),
    modelName,
    modelId,
    defaultProtocol,
    defaultProtocolName:
      typeof defaultProtocol === 'string' ? defaultProtocol : defaultProtocol.name,
    tools: options.tools ?? {},
    webRoot: options.webRoot ?? defaultWebRoot(),
  };
}

/** The format's own name for a choice, or the protocol object given; a TypeError for neither. */
function checkedProtocol(
  protocol: ProtocolChoice | ToolCallProtocol,
  modelId: string,
): ProtocolName | ToolCallProtocol {
  if (typeof protocol === 'string') {
    try {
      return protocolNameFor(protocol, modelId);
    } catch (error) {
      throw new TypeError(`createServerApp: ${(error as Error).message}`);
    }
  }
  const methods = ['formatTools', 'formatToolCall', 'formatToolResponse', 'createStreamParser'];
  const object = protocol as unknown as Record<string, unknown> | null;
  if (
    typeof object !== 'object' ||
    object === null ||
    typeof object.name !== 'string' ||
    methods.some((method) => typeof object[method] !== 'function')
  )
    throw new TypeError(
      "createServerApp: protocol must be a format's name or alias, auto, model, or a ToolCallProtocol (with name, formatTools, formatToolCall, formatToolResponse, createStreamParser)",
    );
  return protocol;
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
