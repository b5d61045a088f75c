import type {
  LanguageModelV4FinishReason,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from '@ai-sdk/provider';
import { ToolwireError } from '../core/errors.ts';
import {
  createIdGenerator,
  type ParseEvent,
  type ProtocolFault,
  type ToolCallProtocol,
  type ToolDefinition,
  type ValidationProblem,
} from '../core/index.ts';
import { classifyModelFailure } from '../core/model-call-error.ts';
import { parseJsonText } from '../core/parse-json.ts';
import { CALLS_RUN_TOGETHER } from '../protocols/define/format-entry.ts';
import { formatEntry, protocolByName } from '../protocols/index.ts';
import { type ConversationEntry, renderConversation, type ToolOutcome } from './conversation.ts';
import { EventQueue } from './event-queue.ts';
import { runBatch, type ToolRun, type ToolRunOutcome } from './executor.ts';
import {
  findUndeclaredToolNames,
  invalidInputMessage,
  lastStepWarning,
  malformedCallMessage,
  noActionMessage,
  unknownToolMessage,
} from './feedback.ts';
import { outcomeForModel } from './result-cap.ts';
import { readToFinish } from './stream-end.ts';
import type {
  AgentEvent,
  AgentResult,
  AgentRun,
  AgentTool,
  AgentUsage,
  PendingCall,
  RunAgentOptions,
  RunState,
  StopReason,
} from './types.ts';

const DEFAULTS = {
  maxSteps: 20,
  maxConsecutiveFailures: 3,
  toolTimeoutMs: 60_000,
  maxStepChars: 1_000_000,
  maxResultChars: 50_000,
  completionTool: 'attempt_completion',
} as const;

/** Finish reasons that mean the model did not end its output itself. */
const INTERRUPTED_FINISH: ReadonlySet<string> = new Set(['length', 'content-filter', 'error']);

/** A front-end tool's answer, passed to `resumeAgent`. */
export interface ToolResultInput {
  readonly toolCallId: string;
  readonly output: unknown;
  readonly isError?: boolean;
}

/** Thrown by `resumeAgent` when the results do not answer exactly the pending calls. */
export class ResumeMismatchError extends ToolwireError {
  constructor(message: string) {
    super('resume-mismatch', message);
  }
}

/** Starts a run. Read its events with `for await`, or just await `result`. */
export function runAgent(options: RunAgentOptions): AgentRun {
  const loop = new AgentLoop(options);
  loop.conversation.push(...loop.withResultsForModel(options.conversation ?? []), {
    type: 'user',
    content: options.prompt,
  });
  return loop.start(undefined);
}

/**
 * Continues a run paused on front-end tools. `results` must answer exactly the pending calls
 * (`state.pending`); anything else throws `ResumeMismatchError` before the run goes on.
 */
export function resumeAgent(
  state: RunState,
  results: readonly ToolResultInput[],
  options: Omit<RunAgentOptions, 'prompt' | 'conversation'>,
): AgentRun {
  if (state?.version !== 1) throw new TypeError('not a toolwire run state (version 1 expected)');
  const expected = new Set(state.pending.map((call) => call.toolCallId));
  const given = new Map<string, ToolResultInput>();
  for (const result of results) {
    if (given.has(result.toolCallId)) {
      throw new ResumeMismatchError(`result for call "${result.toolCallId}" given twice`);
    }
    given.set(result.toolCallId, result);
  }
  const missing = [...expected].filter((id) => !given.has(id));
  const unexpected = [...given.keys()].filter((id) => !expected.has(id));
  if (missing.length > 0 || unexpected.length > 0) {
    const parts = [];
    if (missing.length > 0) parts.push(`missing results for ${missing.join(', ')}`);
    if (unexpected.length > 0) parts.push(`no pending call has the id ${unexpected.join(', ')}`);
    throw new ResumeMismatchError(
      `the results do not match the pending calls (${[...expected].join(', ')}): ${parts.join('; ')}`,
    );
  }
  const loop = new AgentLoop(options, state);
  return loop.start(given);
}

/** Everything but the request itself, which `runAgent` puts in the conversation. */
type LoopOptions = Omit<RunAgentOptions, 'prompt' | 'conversation'>;

/** Why the run ends; a step that returns `undefined` lets the run go on. */
interface Stop {
  readonly reason: StopReason;
  readonly answer?: string;
  readonly message?: string;
  /** For `error`: what failed, typed. */
  readonly error?: ToolwireError;
}

interface ParsedCall {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly input: unknown;
  readonly problems: readonly ValidationProblem[];
}

class AgentLoop {
  readonly conversation: ConversationEntry[] = [];
  private readonly protocol: ToolCallProtocol;
  private readonly tools: Map<string, AgentTool>;
  private readonly definitions: ToolDefinition[];
  private readonly declared: Set<string>;
  private readonly completion: 'tool' | 'no-call';
  private readonly completionTool: string;
  private readonly actionsPerTurn: 'one' | 'all';
  private readonly maxSteps: number;
  private readonly maxFailures: number;
  private readonly maxResultChars: number;
  private readonly generateId: () => string;
  private readonly runId: string;
  private readonly queue = new EventQueue<AgentEvent>();
  private readonly controller = new AbortController();
  /** Why `controller` was aborted: the caller, or the run's time limit. */
  private abortCause: 'aborted' | 'timeout' | undefined;
  private steps = 0;
  private usage: AgentUsage = { inputTokens: undefined, outputTokens: undefined };
  private consecutiveFailures = 0;
  private readonly options: LoopOptions;
  private readonly resumed: RunState | undefined;

  constructor(options: LoopOptions, resumed?: RunState) {
    this.options = options;
    this.resumed = resumed;
    this.protocol =
      typeof options.protocol === 'object'
        ? options.protocol
        : protocolByName(options.protocol ?? 'xml');
    // The format's own conventions (Probe's XML: one action, a completion tool); a protocol
    // the registry does not know runs its calls together.
    const conventions = formatEntry(this.protocol.name)?.agent ?? CALLS_RUN_TOGETHER;
    this.completion = options.completion ?? conventions.completion;
    this.actionsPerTurn = options.actionsPerTurn ?? conventions.actionsPerTurn;
    this.completionTool = options.completionTool ?? DEFAULTS.completionTool;
    this.maxSteps = options.maxSteps ?? DEFAULTS.maxSteps;
    this.maxFailures = options.maxConsecutiveFailures ?? DEFAULTS.maxConsecutiveFailures;
    this.maxResultChars = resultCap(options.maxResultChars);
    this.generateId = options.generateId ?? createIdGenerator('call');
    this.tools = new Map(Object.entries(options.tools));
    if (this.completion === 'tool' && !this.tools.has(this.completionTool)) {
      this.tools.set(this.completionTool, completionToolFor());
    }
    this.definitions = [...this.tools].map(([name, tool]) => ({
      name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      inputSchema: tool.inputSchema,
    }));
    this.declared = new Set(this.tools.keys());
    this.runId = resumed?.runId ?? this.generateId();
    if (resumed) {
      this.conversation.push(...resumed.conversation);
      this.steps = resumed.steps;
      // A state read back from JSON has no key for a count that was unknown.
      this.usage = {
        inputTokens: tokenCount(resumed.usage?.inputTokens),
        outputTokens: tokenCount(resumed.usage?.outputTokens),
      };
      this.consecutiveFailures = resumed.consecutiveFailures;
    }
  }

  start(resumeResults: Map<string, { output: unknown; isError?: boolean }> | undefined): AgentRun {
    const result = this.run(resumeResults);
    // The result is also delivered through the events; an unread rejection is not a crash.
    result.catch(() => {});
    return {
      result,
      abort: (reason) => this.abort('aborted', reason),
      [Symbol.asyncIterator]: () => this.queue[Symbol.asyncIterator](),
    };
  }

  private abort(cause: 'aborted' | 'timeout', reason?: string): void {
    if (this.controller.signal.aborted) return;
    this.abortCause = cause;
    this.controller.abort(new Error(reason ?? cause));
  }

  private emit(event: AgentEvent): void {
    this.queue.push(event);
  }

  private async run(
    resumeResults: Map<string, { output: unknown; isError?: boolean }> | undefined,
  ): Promise<AgentResult> {
    const { signal, maxDurationMs } = this.options;
    const onAbort = () => this.abort('aborted', 'aborted by the caller');
    if (signal?.aborted) onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const timer =
      maxDurationMs === undefined
        ? undefined
        : setTimeout(() => this.abort('timeout', 'the run took too long'), maxDurationMs);
    this.emit({ type: 'run-start', runId: this.runId, protocol: this.protocol.name });
    let stop: Stop | undefined;
    try {
      if (this.resumed && resumeResults) stop = await this.finishPausedBatch(resumeResults);
      while (stop === undefined) {
        if (this.controller.signal.aborted) stop = this.stopForAbort();
        else if (this.steps >= this.maxSteps) {
          stop = {
            reason: 'max-steps',
            message: `stopped after ${this.maxSteps} steps (maxSteps) without a final answer`,
          };
        } else {
          this.steps++;
          stop = await this.turn();
        }
      }
    } catch (error) {
      const failure = runFailure(error, this.options.model.modelId);
      this.emit({ type: 'error', error: failure });
      stop = { reason: 'error', message: failure.message, error: failure };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
    return this.finish(stop);
  }

  private pausedState: RunState | undefined;

  private finish(stop: Stop): AgentResult {
    const priced = this.options.cost?.(this.usage, this.options.model.modelId);
    // A price of unknown usage (undefined × a rate) is NaN: no figure rather than a wrong one.
    const cost = typeof priced === 'number' && Number.isFinite(priced) ? priced : undefined;
    const result: AgentResult = {
      runId: this.runId,
      stopReason: stop.reason,
      ...(stop.answer === undefined ? {} : { answer: stop.answer }),
      ...(stop.message === undefined ? {} : { message: stop.message }),
      ...(stop.error === undefined ? {} : { error: stop.error }),
      steps: this.steps,
      usage: this.usage,
      ...(cost === undefined ? {} : { cost }),
      conversation: [...this.conversation],
      ...(this.pausedState ? { state: this.pausedState } : {}),
    };
    this.emit({
      type: 'finish',
      stopReason: result.stopReason,
      steps: result.steps,
      usage: result.usage,
      ...(cost === undefined ? {} : { cost }),
      ...(result.answer === undefined ? {} : { answer: result.answer }),
      ...(result.message === undefined ? {} : { message: result.message }),
    });
    this.queue.close();
    return result;
  }

  private stopForAbort(): Stop {
    return this.abortCause === 'timeout'
      ? {
          reason: 'timeout',
          message: `the run took longer than maxDurationMs (${this.options.maxDurationMs} ms)`,
        }
      : { reason: 'aborted', message: 'the run was aborted' };
  }

  // ── one model turn ─────────────────────────────────────────────────────────────────────────

  private prompt(): LanguageModelV4Prompt {
    const instructions =
      this.completion === 'tool'
        ? `When the task is complete, call ${this.completionTool} with your final answer as "result".`
        : 'When you have the final answer, reply with it and call no tool.';
    const perTurn =
      this.actionsPerTurn === 'one'
        ? 'Call exactly one tool per reply, then wait for its result.'
        : 'You may call several tools in one reply; they run in parallel and their results come back in order.';
    const system = [
      this.options.system,
      this.protocol.formatTools(this.definitions),
      perTurn,
      instructions,
    ]
      .filter((part): part is string => typeof part === 'string' && part.length > 0)
      .join('\n\n');
    const messages = renderConversation(this.protocol, this.conversation);
    if (this.steps === this.maxSteps) {
      const warning = lastStepWarning(this.completion, this.completionTool);
      const last = messages[messages.length - 1];
      if (last?.role === 'user') {
        messages[messages.length - 1] = { role: 'user', content: `${last.content}\n\n${warning}` };
      } else messages.push({ role: 'user', content: warning });
    }
    return [
      { role: 'system', content: system },
      ...messages.map((message) => ({
        role: message.role,
        content: [{ type: 'text' as const, text: message.content }],
      })),
    ];
  }

  private async turn(): Promise<Stop | undefined> {
    const step = this.steps;
    this.emit({ type: 'step-start', step });
    const stepController = new AbortController();
    const onRunAbort = () => stepController.abort(this.controller.signal.reason);
    this.controller.signal.addEventListener('abort', onRunAbort, { once: true });
    const turn = new TurnRecorder();
    let usage: LanguageModelV4Usage | undefined;
    let finishReason: LanguageModelV4FinishReason['unified'] = 'other';
    let finished = false;
    let cut = false;
    let tooLong = false;
    try {
      const { stream } = await this.options.model.doStream({
        ...this.options.callOptions,
        prompt: this.prompt(),
        abortSignal: stepController.signal,
      });
      const parser = this.protocol.createStreamParser({
        tools: this.definitions,
        generateId: this.generateId,
      });
      const maxChars = this.options.maxStepChars ?? DEFAULTS.maxStepChars;
      let chars = 0;
      const reader = stream.getReader();
      // Cancelling ends a pending read at once, even when a stalled server sends nothing more.
      const stopReading = () => reader.cancel(stepController.signal.reason).catch(() => {});
      stepController.signal.addEventListener('abort', stopReading, { once: true });
      try {
        reading: while (true) {
          const { done, value } = await reader.read();
          if (done) break;
          const part: LanguageModelV4StreamPart = value;
          switch (part.type) {
            case 'text-delta': {
              chars += part.delta.length;
              if (chars > maxChars) {
                tooLong = true;
                break reading;
              }
              for (const event of parser.push(part.delta)) {
                this.handleParseEvent(event, turn);
                if (event.type === 'tool-call' && this.actionsPerTurn === 'one') {
                  // One action per turn: what the model would write next is not needed, but
                  // the usage it reports at the end is.
                  cut = true;
                  usage = (await readToFinish(reader)).usage;
                  break reading;
                }
              }
              break;
            }
            case 'reasoning-start':
            case 'reasoning-end':
              this.emit({ type: part.type, id: part.id });
              if (part.type === 'reasoning-end') turn.flush();
              break;
            case 'reasoning-delta':
              turn.reasoning(part.delta);
              this.emit({ type: 'reasoning-delta', id: part.id, delta: part.delta });
              break;
            case 'finish':
              usage = part.usage;
              finishReason = part.finishReason.unified;
              finished = true;
              break;
            case 'error':
              throw part.error;
          }
        }
        if (!cut && !tooLong && !stepController.signal.aborted) {
          // Cut at the length limit (or with no finish at all), a call still open may be
          // incomplete however it looks: the parser reports it instead of completing it.
          const interrupted = !finished || INTERRUPTED_FINISH.has(finishReason);
          for (const event of parser.end({ interrupted })) this.handleParseEvent(event, turn);
        }
      } finally {
        // A cut or too long turn stops the model's generation (the request is aborted); after a
        // stream read to its end, the abort changes nothing.
        if (cut || tooLong) stepController.abort(new Error('turn cut'));
        stepController.signal.removeEventListener('abort', stopReading);
        reader.releaseLock();
      }
    } catch (error) {
      // The model call failed where it happened: typed here, reported by `run`.
      if (!this.controller.signal.aborted) throw runFailure(error, this.options.model.modelId);
    } finally {
      this.controller.signal.removeEventListener('abort', onRunAbort);
    }
    turn.flush();
    this.conversation.push(...turn.entries);
    const stepUsage = toAgentUsage(usage);
    this.usage = addUsage(this.usage, stepUsage);
    this.emit({
      type: 'step-finish',
      step,
      usage: stepUsage,
      finishReason: cut ? 'tool-calls' : finishReason,
      cut,
    });
    if (this.controller.signal.aborted) return this.stopForAbort();
    if (tooLong) {
      return {
        reason: 'output-limit',
        message: `the model wrote more than maxStepChars (${this.options.maxStepChars ?? DEFAULTS.maxStepChars} characters) in one turn`,
      };
    }
    return this.afterTurn(turn);
  }

  private handleParseEvent(event: ParseEvent, turn: TurnRecorder): void {
    switch (event.type) {
      case 'text-delta':
        turn.text(event.delta);
        this.emit(event);
        break;
      case 'reasoning-delta':
        turn.reasoning(event.delta);
        this.emit(event);
        break;
      case 'reasoning-end':
        turn.flush();
        this.emit(event);
        break;
      case 'tool-call': {
        const call: ParsedCall = {
          toolCallId: event.toolCallId,
          toolName: event.toolName,
          input: parseJsonText(event.input),
          problems: event.problems ?? [],
        };
        turn.call(call);
        this.emit({
          type: 'tool-call',
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          input: call.input,
          ...(event.problems ? { problems: event.problems } : {}),
        });
        break;
      }
      case 'error':
        // Markup dropped from a call that still came out: nothing to write again.
        if (!event.error.dropped) turn.faults.push(event.error);
        this.emit({ type: 'protocol-error', fault: event.error });
        break;
      default:
        this.emit(event);
    }
  }

  // ── after the turn: run the calls, feed back ────────────────────────────────────────────────

  private async afterTurn(turn: TurnRecorder): Promise<Stop | undefined> {
    const calls = turn.calls;
    const completionCall =
      this.completion === 'tool'
        ? calls.find((call) => call.toolName === this.completionTool)
        : undefined;

    if (calls.length === 0) {
      if (turn.faults.length === 0 && this.completion === 'no-call') {
        return { reason: 'completed', answer: turn.answerText() };
      }
      let message: string;
      if (turn.faults.length > 0) message = malformedCallMessage(turn.faults);
      else {
        const unknown = findUndeclaredToolNames(this.protocol, turn.answerText(), this.declared);
        message =
          unknown.length > 0
            ? unknownToolMessage(unknown, this.definitions)
            : noActionMessage(
                this.protocol,
                this.definitions,
                this.completion === 'tool' ? this.completionTool : undefined,
              );
      }
      this.conversation.push({ type: 'feedback', content: message });
      return this.countFailure(false);
    }

    const batch: PendingCall[] = [];
    const outcomes = new Map<string, ToolOutcome>();
    const runs: ToolRun[] = [];
    const pending: PendingCall[] = [];
    for (const call of calls) {
      if (call === completionCall && call.problems.length === 0) continue;
      batch.push({ toolCallId: call.toolCallId, toolName: call.toolName, input: call.input });
      const tool = this.tools.get(call.toolName)!;
      if (call.problems.length > 0) {
        const outcome = this.forModel({
          ...callIdentity(call),
          output: invalidInputMessage(call.toolName, call.problems),
          isError: true,
        });
        this.emit({
          type: 'tool-error',
          ...callIdentity(call),
          kind: 'invalid-input',
          error: outcomeText(outcome),
        });
        outcomes.set(call.toolCallId, outcome);
      } else if (!tool.execute) {
        pending.push({ toolCallId: call.toolCallId, toolName: call.toolName, input: call.input });
      } else {
        runs.push({ ...callIdentity(call), input: call.input, tool: tool as ToolRun['tool'] });
      }
    }

    await runBatch(
      runs,
      (run) => run.tool.timeoutMs ?? this.options.toolTimeoutMs ?? DEFAULTS.toolTimeoutMs,
      this.controller.signal,
      (run, outcome) => outcomes.set(run.toolCallId, this.report(run, outcome)),
      // Past the cap the description is cut anyway; one character more shows that it was.
      this.maxResultChars + 1,
    );

    if (pending.length > 0 && !this.controller.signal.aborted) {
      const state: RunState = {
        version: 1,
        runId: this.runId,
        protocol: this.protocol.name,
        conversation: structuredClone(this.conversation),
        steps: this.steps,
        usage: this.usage,
        consecutiveFailures: this.consecutiveFailures,
        batch,
        settled: [...outcomes.values()],
        pending,
      };
      this.pausedState = state;
      this.emit({ type: 'awaiting-tools', calls: pending, state });
      return {
        reason: 'awaiting-tools',
        message: `waiting for the results of ${pending.map((call) => call.toolName).join(', ')}`,
      };
    }
    return this.recordResults(batch, outcomes, turn.faults, completionCall);
  }

  /**
   * Turns a finished call into what the model will read, and emits it. The event carries the
   * same output the model gets (JSON data, capped), so every reader can show or store it.
   */
  private report(run: ToolRun, outcome: ToolRunOutcome): ToolOutcome {
    const identity = { toolCallId: run.toolCallId, toolName: run.toolName };
    if (outcome.ok) {
      const result = this.forModel({ ...identity, output: outcome.output });
      this.emit({ type: 'tool-result', ...identity, output: result.output });
      return result;
    }
    const error = outcome.kind === 'timeout' ? `${run.toolName} ${outcome.error}` : outcome.error;
    const result = this.forModel({ ...identity, output: error, isError: true });
    this.emit({ type: 'tool-error', ...identity, kind: outcome.kind, error: outcomeText(result) });
    return result;
  }

  /** An outcome as the model reads it: JSON data within `maxResultChars` (see result-cap). */
  private forModel(outcome: ToolOutcome): ToolOutcome {
    return outcomeForModel(this.protocol, outcome, this.maxResultChars);
  }

  /** A conversation given by the caller, its results held to the same rules as this run's own. */
  withResultsForModel(entries: readonly ConversationEntry[]): ConversationEntry[] {
    return entries.map((entry) =>
      entry.type === 'results'
        ? { type: 'results', results: entry.results.map((result) => this.forModel(result)) }
        : entry,
    );
  }

  private recordResults(
    batch: readonly PendingCall[],
    outcomes: ReadonlyMap<string, ToolOutcome>,
    faults: readonly ProtocolFault[],
    completionCall: ParsedCall | undefined,
  ): Stop | undefined {
    const results = batch.map((call) => outcomes.get(call.toolCallId)!);
    if (results.length > 0) this.conversation.push({ type: 'results', results });
    if (faults.length > 0) {
      this.conversation.push({ type: 'feedback', content: malformedCallMessage(faults) });
    }
    if (this.controller.signal.aborted) return this.stopForAbort();
    if (completionCall && completionCall.problems.length === 0) {
      const { result } = completionCall.input as { result?: unknown };
      return {
        reason: 'completed',
        answer: typeof result === 'string' ? result : JSON.stringify(result ?? null),
      };
    }
    const worked = results.some((result) => !result.isError);
    return this.countFailure(worked);
  }

  private countFailure(worked: boolean): Stop | undefined {
    this.consecutiveFailures = worked ? 0 : this.consecutiveFailures + 1;
    if (this.consecutiveFailures >= this.maxFailures) {
      return {
        reason: 'max-failures',
        message: `stopped after ${this.consecutiveFailures} turns in a row without a working tool call (maxConsecutiveFailures)`,
      };
    }
    return undefined;
  }

  /** The paused turn's front-end results arrived: complete its batch, then go on. */
  private async finishPausedBatch(
    results: Map<string, { output: unknown; isError?: boolean }>,
  ): Promise<Stop | undefined> {
    const state = this.resumed!;
    const outcomes = new Map<string, ToolOutcome>();
    for (const outcome of state.settled) outcomes.set(outcome.toolCallId, outcome);
    for (const call of state.pending) {
      const given = results.get(call.toolCallId)!;
      // A front-end answer is held to the same rules as a tool's output: JSON data, capped.
      const outcome = this.forModel({
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        output: given.output,
        ...(given.isError ? { isError: true } : {}),
      });
      if (given.isError) {
        this.emit({
          type: 'tool-error',
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          kind: 'execution',
          error: outcomeText(outcome),
        });
      } else {
        this.emit({
          type: 'tool-result',
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          output: outcome.output,
        });
      }
      outcomes.set(call.toolCallId, outcome);
    }
    return this.recordResults(state.batch, outcomes, [], undefined);
  }
}

/** Collects one turn as conversation entries, in the order the model wrote them. */
class TurnRecorder {
  readonly entries: ConversationEntry[] = [];
  readonly calls: ParsedCall[] = [];
  readonly faults: ProtocolFault[] = [];
  private kind: 'respond' | 'think' | undefined;
  private buffer = '';

  text(delta: string): void {
    this.append('respond', delta);
  }

  reasoning(delta: string): void {
    this.append('think', delta);
  }

  private append(kind: 'respond' | 'think', delta: string): void {
    if (this.kind !== kind) this.flush();
    this.kind = kind;
    this.buffer += delta;
  }

  call(call: ParsedCall): void {
    this.flush();
    this.calls.push(call);
    this.entries.push({
      type: 'call',
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      input: call.input,
    });
  }

  flush(): void {
    const content = this.buffer.trim();
    if (this.kind && content.length > 0) this.entries.push({ type: this.kind, content });
    this.kind = undefined;
    this.buffer = '';
  }

  /** The turn's text (no reasoning): the answer of a turn without calls. */
  answerText(): string {
    this.flush();
    return this.entries
      .filter((entry) => entry.type === 'respond')
      .map((entry) => (entry as { content: string }).content)
      .join('\n');
  }
}

function callIdentity(call: ParsedCall) {
  return { toolCallId: call.toolCallId, toolName: call.toolName };
}

function completionToolFor(): AgentTool {
  return {
    description:
      'Finish the task: give the user your final answer. Call it only when the task is complete.',
    inputSchema: {
      type: 'object',
      properties: { result: { type: 'string', description: 'The final answer for the user.' } },
      required: ['result'],
    },
  };
}

/** A step's usage; a count the provider did not report stays undefined (unknown, not 0). */
function toAgentUsage(usage: LanguageModelV4Usage | undefined): AgentUsage {
  return {
    inputTokens: tokenCount(usage?.inputTokens?.total),
    outputTokens: tokenCount(usage?.outputTokens?.total),
  };
}

function tokenCount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** Sums what is known: a count is undefined only while no step has reported it. */
function addUsage(total: AgentUsage, step: AgentUsage): AgentUsage {
  const add = (a: number | undefined, b: number | undefined) =>
    a === undefined ? b : b === undefined ? a : a + b;
  return {
    inputTokens: add(total.inputTokens, step.inputTokens),
    outputTokens: add(total.outputTokens, step.outputTokens),
  };
}

/** An outcome's output as text, for a `tool-error` event. */
function outcomeText(outcome: ToolOutcome): string {
  return typeof outcome.output === 'string' ? outcome.output : JSON.stringify(outcome.output);
}

/** `maxResultChars`, checked: a whole number of at least 1, or Infinity for no cap. */
function resultCap(value: number | undefined): number {
  if (value === undefined) return DEFAULTS.maxResultChars;
  if (value === Number.POSITIVE_INFINITY || (Number.isInteger(value) && value >= 1)) return value;
  throw new RangeError(
    `maxResultChars must be a whole number of at least 1 (or Infinity for no cap), not ${String(value)}`,
  );
}

/**
 * Why a run failed, typed: a toolwire error as it is; anything else thrown while the model was
 * called or its stream read is a failed model call (`classifyModelFailure`: unreachable, timeout,
 * an HTTP status, a reply that cannot be read).
 */
function runFailure(error: unknown, model: string): ToolwireError {
  if (ToolwireError.isInstance(error)) return error;
  const failure = classifyModelFailure(error, { model });
  // An AbortError the run did not ask for: the provider or its fetch was stopped.
  if (failure === undefined)
    return new ToolwireError('aborted', 'the model call was aborted', { cause: error });
  return failure;
}
