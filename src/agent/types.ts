import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4FinishReason,
} from '@ai-sdk/provider';
import type { ToolwireError } from '../core/errors.ts';
import type {
  JsonSchema,
  ParseEvent,
  ProtocolFault,
  ToolCallProtocol,
  ValidationProblem,
} from '../core/index.ts';
import type { ProtocolName } from '../protocols/index.ts';
import type { ConversationEntry, ToolOutcome } from './conversation.ts';

/** What a tool's `execute` receives besides its input. */
export interface ToolExecutionContext {
  readonly toolCallId: string;
  /** Aborted when the run is aborted or the tool's time is up: stop work and return. */
  readonly signal: AbortSignal;
}

/**
 * A tool the agent may call. Without `execute` it is a front-end tool: the run pauses with an
 * `awaiting-tools` event until its result is passed to `resumeAgent`.
 */
export interface AgentTool {
  readonly description?: string;
  readonly inputSchema: JsonSchema;
  /**
   * Runs the call. Whatever it returns becomes the result and whatever it throws the error the
   * model reads (any value: a cycle, a BigInt or a getter that throws is described, never fatal
   * to the run). Text, JSON data, or content parts (`[{type: 'text', text}, {type: 'image', …}]`).
   */
  // biome-ignore lint/suspicious/noExplicitAny: the input has been validated against inputSchema.
  readonly execute?: (input: any, context: ToolExecutionContext) => unknown;
  /** Overrides the run's `toolTimeoutMs` for this tool. */
  readonly timeoutMs?: number;
}

export type AgentTools = Readonly<Record<string, AgentTool>>;

/**
 * Token counts as the provider reported them. A count is `undefined` when it is unknown: the
 * server reported none (many OpenAI-compatible servers send usage in a stream only when asked),
 * or a turn cut at its call (xml's one action per turn) whose model went on writing: the rest of
 * a cut turn is read for the usage only while it is short (see `readToFinish`). Over a run, each
 * count is the sum over the steps that reported it, and `undefined` while none has; it is never
 * a 0 standing for "unknown".
 */
export interface AgentUsage {
  readonly inputTokens: number | undefined;
  readonly outputTokens: number | undefined;
}

/** Why a run ended. */
export type StopReason =
  /** The model finished: `attempt_completion` (xml) or a turn without a call. */
  | 'completed'
  /** `maxSteps` model turns ran without completion. */
  | 'max-steps'
  /** `maxConsecutiveFailures` turns in a row produced nothing that worked. */
  | 'max-failures'
  /** `maxDurationMs` passed. */
  | 'timeout'
  /** The caller's `signal` aborted the run. */
  | 'aborted'
  /** A model turn was longer than `maxStepChars`. */
  | 'output-limit'
  /** Front-end tools must answer: pass their results to `resumeAgent`. */
  | 'awaiting-tools'
  /** The model could not be called (e.g. no server answers). */
  | 'error';

/** A call the run waits on: a front-end tool's, to be answered through `resumeAgent`. */
export interface PendingCall {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly input: unknown;
}

/**
 * Everything needed to continue a paused run, as plain JSON: a server can store it between
 * requests and pass it to `resumeAgent` later.
 */
export interface RunState {
  readonly version: 1;
  readonly runId: string;
  readonly protocol: string;
  readonly conversation: readonly ConversationEntry[];
  /** Model turns taken so far. */
  readonly steps: number;
  readonly usage: AgentUsage;
  readonly consecutiveFailures: number;
  /** The paused turn's calls in order; each has an outcome in `settled` or is pending. */
  readonly batch: readonly PendingCall[];
  readonly settled: readonly ToolOutcome[];
  readonly pending: readonly PendingCall[];
}

export type ToolErrorKind = 'invalid-input' | 'execution' | 'timeout' | 'aborted';

/** What a run reports as it goes. Model-side names follow the AI SDK's stream parts. */
export type AgentEvent =
  | { readonly type: 'run-start'; readonly runId: string; readonly protocol: string }
  | { readonly type: 'step-start'; readonly step: number }
  /** Text, reasoning and tool-input parts, exactly as the protocol's parser emits them. */
  | Exclude<ParseEvent, { readonly type: 'tool-call' | 'error' }>
  | {
      readonly type: 'tool-call';
      readonly toolCallId: string;
      readonly toolName: string;
      readonly input: unknown;
      readonly problems?: readonly ValidationProblem[];
    }
  | {
      readonly type: 'tool-result';
      readonly toolCallId: string;
      readonly toolName: string;
      /**
       * The output exactly as the model receives it: JSON data (what JSON cannot write, such as
       * a BigInt, a cycle or a getter that throws, becomes text saying so), cut to
       * `maxResultChars` with a notice.
       */
      readonly output: unknown;
    }
  | {
      readonly type: 'tool-error';
      readonly toolCallId: string;
      readonly toolName: string;
      readonly kind: ToolErrorKind;
      /** What the model is told, cut to `maxResultChars` like a result. */
      readonly error: string;
    }
  /** The model wrote malformed call markup; `fault.raw` is exactly what it wrote. */
  | { readonly type: 'protocol-error'; readonly fault: ProtocolFault }
  | {
      readonly type: 'awaiting-tools';
      readonly calls: readonly PendingCall[];
      readonly state: RunState;
    }
  | {
      readonly type: 'step-finish';
      readonly step: number;
      readonly usage: AgentUsage;
      readonly finishReason: LanguageModelV4FinishReason['unified'];
      /** The generation was cut after the turn's first call (one action per turn). */
      readonly cut: boolean;
    }
  | {
      readonly type: 'finish';
      readonly stopReason: StopReason;
      readonly steps: number;
      readonly usage: AgentUsage;
      readonly cost?: number;
      readonly answer?: string;
      readonly message?: string;
    }
  /**
   * The run failed (its stop reason is `error`): a failed model call is a `ModelCallError`
   * whose `kind` says how (`model-unreachable`, `model-timeout`, `model-http-status`,
   * `model-bad-reply`); the `finish` event that follows has its message.
   */
  | { readonly type: 'error'; readonly error: ToolwireError };

export interface RunAgentOptions {
  readonly model: LanguageModelV4;
  /** Default `xml`. */
  readonly protocol?: ToolCallProtocol | ProtocolName;
  readonly tools: AgentTools;
  /** The user's request. */
  readonly prompt: string;
  /** Earlier turns to continue from (a `result.conversation` of an earlier run). */
  readonly conversation?: readonly ConversationEntry[];
  /** Your own instructions; the protocol's section is added after them. */
  readonly system?: string;
  /** Most model turns. Default 20. The model is warned on the last one. */
  readonly maxSteps?: number;
  /**
   * `one`: generation is cut as soon as the first call is complete and only that call runs
   * (Probe's XML protocol, the default for xml); what follows the call is not read as output,
   * only the stream's end, for its usage (up to 256 characters or 5 s). `all`: every call of the turn runs, in parallel
   * (default for hermes and execute).
   */
  readonly actionsPerTurn?: 'one' | 'all';
  /**
   * `tool`: the run completes when the model calls `completionTool` (default for xml, which adds
   * `attempt_completion` when it is not declared). `no-call`: a turn without a call is the final
   * answer (default for hermes and execute).
   */
  readonly completion?: 'tool' | 'no-call';
  /** Default `attempt_completion`; its input's `result` is the answer. */
  readonly completionTool?: string;
  /** Turns in a row without anything that worked before the run stops. Default 3. */
  readonly maxConsecutiveFailures?: number;
  /** Per tool call. Default 60 000 ms. */
  readonly toolTimeoutMs?: number;
  /** The whole run. Default: none. */
  readonly maxDurationMs?: number;
  /** Characters of one model turn before it is cut and the run stops. Default 1 000 000. */
  readonly maxStepChars?: number;
  /**
   * Characters of one tool result sent back to the model, measured on what the protocol writes
   * for it (escapes and JSON included) for every kind of output: text, objects, arrays, content
   * parts, front-end answers and errors. A longer result is cut and ends with a notice such as
   * `[output cut: 1200 more characters not shown]`. A whole number of at least 1, or `Infinity`
   * for no cap; anything else throws a `RangeError`. Default 50 000. Example: `maxResultChars:
   * 20_000`.
   */
  readonly maxResultChars?: number;
  readonly signal?: AbortSignal;
  /** Extra settings for every model call (temperature, maxOutputTokens, providerOptions…). */
  readonly callOptions?: Omit<LanguageModelV4CallOptions, 'prompt' | 'abortSignal' | 'tools'>;
  /**
   * Prices a run's usage; the figure is reported in the `finish` event and `result.cost`. A count
   * the provider did not report is `undefined`: price it as you see fit. A figure that is not a
   * finite number (NaN from arithmetic on `undefined`) is left out. Example:
   * `cost: (usage) => usage.inputTokens === undefined ? NaN : usage.inputTokens * 1e-6`.
   */
  readonly cost?: (usage: AgentUsage, modelId: string) => number;
  /** Ids for runs and calls. Default: random. */
  readonly generateId?: () => string;
}

export interface AgentResult {
  readonly runId: string;
  readonly stopReason: StopReason;
  /** The final answer when `completed`. */
  readonly answer?: string;
  /** Why the run stopped, in words, for reasons other than `completed`. */
  readonly message?: string;
  /**
   * When `error`: what failed, typed (the `error` event's error; `message` is its message). A
   * failed model call is a `ModelCallError`: switch on its `kind`.
   */
  readonly error?: ToolwireError;
  readonly steps: number;
  readonly usage: AgentUsage;
  readonly cost?: number;
  readonly conversation: readonly ConversationEntry[];
  /** Set when `awaiting-tools`: pass it to `resumeAgent` with the pending calls' results. */
  readonly state?: RunState;
}

/** A running agent: read its events, await its result, or abort it. */
export interface AgentRun extends AsyncIterable<AgentEvent> {
  readonly result: Promise<AgentResult>;
  abort(reason?: string): void;
}
