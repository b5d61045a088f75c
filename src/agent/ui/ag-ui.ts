import { ToolwireError } from '../../core/errors.ts';
import type { JsonSchema } from '../../core/index.ts';
import { parseJsonText } from '../../core/parse-json.ts';
import { CompletionTextReader } from '../completion-text.ts';
import type { ConversationEntry, ToolOutcome } from '../conversation.ts';
import type { ToolResultInput } from '../run-agent.ts';
import type { AgentEvent, AgentTools, AgentUsage } from '../types.ts';
import { UNANSWERED_CALL } from './ui-message-stream.ts';

/**
 * The run as AG-UI events (the Agent–User Interaction protocol, version 1.0), and an AG-UI
 * `RunAgentInput` as what a run needs. The types are structural, written from `@ag-ui/core` 1.0:
 * nothing of that package runs here.
 *
 * | agent event | AG-UI event |
 * | --- | --- |
 * | `run-start` | `RUN_STARTED {threadId, runId}` |
 * | `step-start` / `step-finish` | `STEP_STARTED` / `STEP_FINISHED {stepName: 'step-N'}` |
 * | `text-*` | `TEXT_MESSAGE_START/CONTENT/END` (a message opens with its first character that is not white space) |
 * | `reasoning-*` | `REASONING_START` + `REASONING_MESSAGE_START` / `_CONTENT` / `_END` + `REASONING_END` |
 * | `tool-input-start/delta/end` | `TOOL_CALL_START/ARGS/END` |
 * | `tool-call` not streamed | `TOOL_CALL_START` + one `TOOL_CALL_ARGS` (its JSON) + `TOOL_CALL_END` |
 * | completion tool's `tool-input-*` / `tool-call` | its `result` as a text message, streamed as it is written |
 * | `tool-result` / `tool-error` | `TOOL_CALL_RESULT` (an error's has `metadata.toolwire.isError`) |
 * | `protocol-error` | a shown call: its `TOOL_CALL_RESULT` says what was wrong; else `CUSTOM toolwire.protocol-error` |
 * | `awaiting-tools` | `RUN_FINISHED {outcome: {type: 'success', pendingToolCallIds}}` |
 * | `finish` completed / max-steps | `RUN_FINISHED {result: answer, usage}` |
 * | `finish` aborted | `RUN_FINISHED {outcome: {type: 'cancelled'}}` |
 * | `error`; `finish` for any other reason | `RUN_ERROR {message, code: the error's kind or the stop reason}` |
 *
 * Exactly one terminal event ends the stream, after everything open has been closed. Message
 * ids are made from the AG-UI run id, so they are unique in a thread however the model's
 * provider numbers its parts. A call's result is sent only for a call this stream showed: a
 * resumed run does not repeat the front-end results the client sent itself.
 */

export const AG_UI_PROTOCOL_VERSION = '1.0';

/** Token counts for one model, as AG-UI's `TokenUsage` holds them. */
export interface AgUiTokenUsage {
  readonly model?: string;
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly totalTokens?: number;
}

export type AgUiRunOutcome =
  | { readonly type: 'success'; readonly pendingToolCallIds?: readonly string[] }
  | { readonly type: 'cancelled' };

/** What toolwire writes under `metadata.toolwire` of a failed call's result or a run's end. */
export interface AgUiToolwireMetadata {
  readonly isError?: true;
  /** A tool error's kind (`execution`, `timeout`…), or `protocol-error` for malformed markup. */
  readonly kind?: string;
  /** Why a run that did not complete stopped (`max-steps`), and in words. */
  readonly stopReason?: string;
  readonly message?: string;
}

/** The AG-UI events this module writes (a subset of `@ag-ui/core`'s `Event`). */
export type AgUiEvent =
  | {
      readonly type: 'RUN_STARTED';
      readonly threadId: string;
      readonly runId: string;
      readonly protocolVersion: string;
    }
  | {
      readonly type: 'RUN_FINISHED';
      readonly threadId: string;
      readonly runId: string;
      readonly result?: unknown;
      readonly outcome?: AgUiRunOutcome;
      readonly usage?: readonly AgUiTokenUsage[];
      readonly metadata?: { readonly toolwire: AgUiToolwireMetadata };
    }
  | {
      readonly type: 'RUN_ERROR';
      readonly message: string;
      readonly code: string;
      readonly usage?: readonly AgUiTokenUsage[];
    }
  | { readonly type: 'STEP_STARTED' | 'STEP_FINISHED'; readonly stepName: string }
  | { readonly type: 'TEXT_MESSAGE_START'; readonly messageId: string; readonly role: 'assistant' }
  | { readonly type: 'TEXT_MESSAGE_CONTENT'; readonly messageId: string; readonly delta: string }
  | { readonly type: 'TEXT_MESSAGE_END'; readonly messageId: string }
  | { readonly type: 'REASONING_START' | 'REASONING_END'; readonly messageId: string }
  | {
      readonly type: 'REASONING_MESSAGE_START';
      readonly messageId: string;
      readonly role: 'reasoning';
    }
  | {
      readonly type: 'REASONING_MESSAGE_CONTENT';
      readonly messageId: string;
      readonly delta: string;
    }
  | { readonly type: 'REASONING_MESSAGE_END'; readonly messageId: string }
  | {
      readonly type: 'TOOL_CALL_START';
      readonly toolCallId: string;
      readonly toolCallName: string;
      readonly parentMessageId: string;
    }
  | { readonly type: 'TOOL_CALL_ARGS'; readonly toolCallId: string; readonly delta: string }
  | { readonly type: 'TOOL_CALL_END'; readonly toolCallId: string }
  | {
      readonly type: 'TOOL_CALL_RESULT';
      readonly messageId: string;
      readonly toolCallId: string;
      readonly content: string;
      readonly role: 'tool';
      readonly metadata?: { readonly toolwire: AgUiToolwireMetadata };
    }
  | { readonly type: 'CUSTOM'; readonly name: string; readonly value: unknown };

export interface AgUiEventOptions {
  /** The AG-UI thread (`RunAgentInput.threadId`). */
  readonly threadId: string;
  /** The AG-UI run (`RunAgentInput.runId`): a resumed agent run is a new AG-UI run. */
  readonly runId: string;
  /** The model's id, named in the usage of the run's end. */
  readonly model?: string;
  /** The tool whose `result` is the final answer (default `attempt_completion`): shown as text. */
  readonly completionTool?: string;
}

/** Why a stream ends without the run's own end: the code and words of its `RUN_ERROR`. */
export interface AgUiFailure {
  readonly code: string;
  readonly message: string;
}

const INCOMPLETE: AgUiFailure = {
  code: 'incomplete',
  message: "the run's events ended before the run did",
};

/**
 * The agent's events as AG-UI events, one event at a time: a synchronous state machine, so a
 * server can encode as the run goes and store what it sent. `push` each agent event; `end` when
 * the events stop without the run's end (a failure, a lost connection to the run); `tail` says,
 * without changing anything, what would close the stream as it stands.
 */
export class AgUiEncoder {
  private readonly threadId: string;
  private readonly runId: string;
  private readonly model: string | undefined;
  private readonly completionTool: string;
  private started = false;
  private ended = false;
  private step: string | undefined;
  private text: string | undefined;
  /** White space that opens a text run, held until text that is not white space arrives. */
  private heldSpace = '';
  private reasoning: string | undefined;
  /** The assistant message the step's calls belong to: its last text message, or one made up. */
  private parent: string | undefined;
  /** Calls this stream showed (`TOOL_CALL_START`), those still open, and those answered. */
  private readonly shown = new Set<string>();
  private readonly openCalls = new Set<string>();
  private readonly answered = new Set<string>();
  /** Completion calls, by id: their `result` streams as text. */
  private readonly answers = new Map<
    string,
    { readonly reader: CompletionTextReader; streamed: string; messageId?: string }
  >();
  private pending: readonly string[] | undefined;
  private error: AgUiFailure | undefined;
  private ids = 0;

  constructor(options: AgUiEventOptions) {
    this.threadId = options.threadId;
    this.runId = options.runId;
    this.model = options.model;
    this.completionTool = options.completionTool ?? 'attempt_completion';
  }

  /** Whether the terminal event (`RUN_FINISHED` or `RUN_ERROR`) has been written. */
  get done(): boolean {
    return this.ended;
  }

  /** `RUN_STARTED`, unless written already (the first `push` writes it otherwise). */
  begin(): AgUiEvent[] {
    const out: AgUiEvent[] = [];
    if (!this.ended) this.start(out);
    return out;
  }

  push(event: AgentEvent): AgUiEvent[] {
    const out: AgUiEvent[] = [];
    if (this.ended) return out;
    this.start(out);
    switch (event.type) {
      case 'step-start':
        this.closeAll(out);
        this.step = `step-${event.step}`;
        this.parent = undefined;
        out.push({ type: 'STEP_STARTED', stepName: this.step });
        break;
      case 'step-finish':
        this.closeAll(out);
        break;
      case 'text-delta':
        this.textDelta(event.delta, out);
        break;
      case 'text-end':
        this.closeText(out);
        this.heldSpace = '';
        break;
      case 'reasoning-delta':
        if (event.delta.length === 0) break;
        this.closeText(out);
        if (this.reasoning === undefined) {
          this.reasoning = this.nextId('reasoning');
          out.push(
            { type: 'REASONING_START', messageId: this.reasoning },
            { type: 'REASONING_MESSAGE_START', messageId: this.reasoning, role: 'reasoning' },
          );
        }
        out.push({
          type: 'REASONING_MESSAGE_CONTENT',
          messageId: this.reasoning,
          delta: event.delta,
        });
        break;
      case 'reasoning-end':
        this.closeReasoning(out);
        break;
      case 'tool-input-start':
        this.closeText(out);
        this.closeReasoning(out);
        // A completion call is not a call to show: its `result` streams as the answer's text.
        if (event.toolName === this.completionTool)
          this.answers.set(event.id, { reader: new CompletionTextReader(), streamed: '' });
        else this.startCall(event.id, event.toolName, out);
        break;
      case 'tool-input-delta': {
        if (this.openCalls.has(event.id) && event.delta.length > 0)
          out.push({ type: 'TOOL_CALL_ARGS', toolCallId: event.id, delta: event.delta });
        else this.answerDelta(event.id, event.delta, out);
        break;
      }
      case 'tool-input-end':
        this.endCall(event.id, out);
        if (this.answers.get(event.id)?.messageId === this.text) this.closeText(out);
        break;
      case 'tool-call':
        this.call(event, out);
        break;
      case 'tool-result':
        this.result(event.toolCallId, resultText(event.output), undefined, out);
        break;
      case 'tool-error':
        this.result(event.toolCallId, event.error, event.kind, out);
        break;
      case 'protocol-error':
        this.protocolError(event.fault, out);
        break;
      case 'awaiting-tools':
        this.pending = event.calls.map((call) => call.toolCallId);
        this.closeAll(out);
        this.ended = true;
        out.push({
          type: 'RUN_FINISHED',
          threadId: this.threadId,
          runId: this.runId,
          outcome: { type: 'success', pendingToolCallIds: this.pending },
          ...this.usage(event.state.usage),
        });
        break;
      case 'error':
        // The run's `finish` follows at once; it ends the stream, with the usage.
        this.error = { code: event.error.kind, message: event.error.message };
        break;
      case 'finish':
        this.finish(event, out);
        break;
      // run-start (RUN_STARTED is written by `start`), text-start and reasoning-start (a
      // message opens with its first character): nothing to write.
      default:
        break;
    }
    return out;
  }

  /**
   * The events stopped before the run's end: closes what is open and writes `RUN_ERROR` (by
   * default code `incomplete`). Nothing when the stream has ended already.
   */
  end(failure: AgUiFailure = INCOMPLETE): AgUiEvent[] {
    if (this.ended) return [];
    const out = this.tail(failure);
    this.started = true;
    this.ended = true;
    this.step = undefined;
    this.text = undefined;
    this.reasoning = undefined;
    this.openCalls.clear();
    return out;
  }

  /**
   * What `end(failure)` would write now, without writing it: a server keeps it beside what it
   * sent, so whoever finds the run lost can close its stream (`instance_lost`).
   */
  tail(failure: AgUiFailure): AgUiEvent[] {
    if (this.ended) return [];
    const out: AgUiEvent[] = [];
    if (!this.started)
      out.push({
        type: 'RUN_STARTED',
        threadId: this.threadId,
        runId: this.runId,
        protocolVersion: AG_UI_PROTOCOL_VERSION,
      });
    out.push(...this.closing(), {
      type: 'RUN_ERROR',
      message: failure.message,
      code: failure.code,
    });
    return out;
  }

  private start(out: AgUiEvent[]): void {
    if (this.started) return;
    this.started = true;
    out.push({
      type: 'RUN_STARTED',
      threadId: this.threadId,
      runId: this.runId,
      protocolVersion: AG_UI_PROTOCOL_VERSION,
    });
  }

  private nextId(kind: string): string {
    this.ids++;
    return `${this.runId}:${kind}:${this.ids}`;
  }

  /** The events that close whatever is open, innermost first, the step last. */
  private closing(): AgUiEvent[] {
    const out: AgUiEvent[] = [];
    if (this.text !== undefined) out.push({ type: 'TEXT_MESSAGE_END', messageId: this.text });
    if (this.reasoning !== undefined)
      out.push(
        { type: 'REASONING_MESSAGE_END', messageId: this.reasoning },
        { type: 'REASONING_END', messageId: this.reasoning },
      );
    for (const toolCallId of this.openCalls) out.push({ type: 'TOOL_CALL_END', toolCallId });
    if (this.step !== undefined) out.push({ type: 'STEP_FINISHED', stepName: this.step });
    return out;
  }

  private closeAll(out: AgUiEvent[]): void {
    out.push(...this.closing());
    this.text = undefined;
    this.heldSpace = '';
    this.reasoning = undefined;
    this.openCalls.clear();
    this.step = undefined;
  }

  private closeText(out: AgUiEvent[]): void {
    if (this.text === undefined) return;
    out.push({ type: 'TEXT_MESSAGE_END', messageId: this.text });
    this.text = undefined;
  }

  private closeReasoning(out: AgUiEvent[]): void {
    if (this.reasoning === undefined) return;
    out.push(
      { type: 'REASONING_MESSAGE_END', messageId: this.reasoning },
      { type: 'REASONING_END', messageId: this.reasoning },
    );
    this.reasoning = undefined;
  }

  /** Text between calls: white space alone (the newline after a call) opens no message. */
  private textDelta(delta: string, out: AgUiEvent[]): void {
    if (delta.length === 0) return;
    if (this.text === undefined) {
      if (delta.trim().length === 0) {
        this.heldSpace += delta;
        return;
      }
      delta = this.heldSpace + delta;
      this.heldSpace = '';
      this.openText(out);
    }
    out.push({ type: 'TEXT_MESSAGE_CONTENT', messageId: this.text as string, delta });
  }

  private openText(out: AgUiEvent[]): void {
    this.closeReasoning(out);
    this.text = this.nextId('text');
    // The step's next calls belong to the message that says what they are for.
    this.parent = this.text;
    out.push({ type: 'TEXT_MESSAGE_START', messageId: this.text, role: 'assistant' });
  }

  private startCall(toolCallId: string, toolName: string, out: AgUiEvent[]): void {
    // A call id seen twice is the same call: AG-UI would add its arguments to the first's.
    if (this.shown.has(toolCallId)) return;
    this.parent ??= this.nextId('message');
    this.shown.add(toolCallId);
    this.openCalls.add(toolCallId);
    out.push({
      type: 'TOOL_CALL_START',
      toolCallId,
      toolCallName: toolName,
      parentMessageId: this.parent,
    });
  }

  private endCall(toolCallId: string, out: AgUiEvent[]): void {
    if (!this.openCalls.delete(toolCallId)) return;
    out.push({ type: 'TOOL_CALL_END', toolCallId });
  }

  /** A piece of a completion call's arguments: the part of `result` it completes, as text. */
  private answerDelta(id: string, delta: string, out: AgUiEvent[]): void {
    const answer = this.answers.get(id);
    if (answer === undefined || delta.length === 0) return;
    const piece = answer.reader.push(delta);
    if (piece.length === 0) return;
    if (answer.messageId === undefined) {
      this.closeText(out);
      this.openText(out);
      answer.messageId = this.text;
    }
    // Another message opened since (events made by hand): the answer goes on there.
    if (this.text !== answer.messageId) return;
    answer.streamed += piece;
    out.push({ type: 'TEXT_MESSAGE_CONTENT', messageId: this.text as string, delta: piece });
  }

  private call(event: Extract<AgentEvent, { type: 'tool-call' }>, out: AgUiEvent[]): void {
    const valid = event.problems === undefined || event.problems.length === 0;
    if (event.toolName === this.completionTool && valid) {
      const result = (event.input as { result?: unknown } | null)?.result;
      const answer = typeof result === 'string' ? result : JSON.stringify(result ?? null);
      const streaming = this.answers.get(event.toolCallId);
      const streamed = streaming?.streamed ?? '';
      // What did not stream (a call given whole, or coerced) goes out now: the rest after what
      // streamed, or the whole answer when it is not what streamed.
      const continues = answer.startsWith(streamed);
      const rest = continues ? answer.slice(streamed.length) : answer;
      this.closeReasoning(out);
      // The rest goes on in the answer's message while it is open, else in a message of its own.
      const open = streaming?.messageId !== undefined && this.text === streaming.messageId;
      if (!(open && continues)) this.closeText(out);
      if (rest.length > 0) {
        if (this.text === undefined) this.openText(out);
        out.push({ type: 'TEXT_MESSAGE_CONTENT', messageId: this.text as string, delta: rest });
      }
      this.closeText(out);
      return;
    }
    this.closeText(out);
    this.closeReasoning(out);
    if (!this.shown.has(event.toolCallId)) {
      // Not streamed (or a completion call that turned out invalid): shown whole now, so its
      // error result has a call to answer.
      this.startCall(event.toolCallId, event.toolName, out);
      out.push({
        type: 'TOOL_CALL_ARGS',
        toolCallId: event.toolCallId,
        delta: JSON.stringify(event.input ?? {}),
      });
    }
    this.endCall(event.toolCallId, out);
  }

  private result(
    toolCallId: string,
    content: string,
    errorKind: string | undefined,
    out: AgUiEvent[],
  ): void {
    // A call this stream did not show: a front-end result the client sent itself (a resumed
    // run), or a completion call's. The client has it already or never needed it.
    if (!this.shown.has(toolCallId) || this.answered.has(toolCallId)) return;
    this.closeText(out);
    this.closeReasoning(out);
    this.endCall(toolCallId, out);
    this.answered.add(toolCallId);
    out.push({
      type: 'TOOL_CALL_RESULT',
      messageId: this.nextId('result'),
      toolCallId,
      content,
      role: 'tool',
      ...(errorKind === undefined
        ? {}
        : { metadata: { toolwire: { isError: true, kind: errorKind } } }),
    });
  }

  private protocolError(
    fault: Extract<AgentEvent, { type: 'protocol-error' }>['fault'],
    out: AgUiEvent[],
  ): void {
    const id = fault.toolCallId;
    if (id !== undefined && this.shown.has(id) && !this.answered.has(id) && !fault.dropped) {
      // The call was shown while it streamed and will never run: its result says why, so no
      // client takes it for a front-end call still to answer.
      this.result(id, `${fault.message}\n\n${fault.raw}`, 'protocol-error', out);
      return;
    }
    this.closeText(out);
    this.closeReasoning(out);
    out.push({
      type: 'CUSTOM',
      name: 'toolwire.protocol-error',
      value: { code: fault.code, message: fault.message, raw: fault.raw },
    });
  }

  private finish(event: Extract<AgentEvent, { type: 'finish' }>, out: AgUiEvent[]): void {
    this.closeAll(out);
    this.ended = true;
    const usage = this.usage(event.usage);
    const base = { threadId: this.threadId, runId: this.runId } as const;
    switch (event.stopReason) {
      case 'completed':
        out.push({
          type: 'RUN_FINISHED',
          ...base,
          ...(event.answer === undefined ? {} : { result: event.answer }),
          ...usage,
        });
        return;
      case 'max-steps':
        out.push({
          type: 'RUN_FINISHED',
          ...base,
          ...usage,
          metadata: {
            toolwire: {
              stopReason: event.stopReason,
              ...(event.message === undefined ? {} : { message: event.message }),
            },
          },
        });
        return;
      case 'aborted':
        out.push({ type: 'RUN_FINISHED', ...base, outcome: { type: 'cancelled' }, ...usage });
        return;
      case 'awaiting-tools':
        // Only when no awaiting-tools event came before (events made by hand).
        out.push({
          type: 'RUN_FINISHED',
          ...base,
          outcome: { type: 'success', pendingToolCallIds: this.pending ?? [] },
          ...usage,
        });
        return;
      default: {
        const failure =
          event.stopReason === 'error' && this.error
            ? this.error
            : {
                code: event.stopReason,
                message: event.message ?? `the run stopped (${event.stopReason})`,
              };
        out.push({ type: 'RUN_ERROR', message: failure.message, code: failure.code, ...usage });
      }
    }
  }

  private usage(usage: AgentUsage): { usage?: AgUiTokenUsage[] } {
    const { inputTokens, outputTokens } = usage;
    if (inputTokens === undefined && outputTokens === undefined) return {};
    return {
      usage: [
        {
          ...(this.model === undefined ? {} : { model: this.model }),
          ...(inputTokens === undefined ? {} : { inputTokens }),
          ...(outputTokens === undefined ? {} : { outputTokens }),
          ...(inputTokens === undefined || outputTokens === undefined
            ? {}
            : { totalTokens: inputTokens + outputTokens }),
        },
      ],
    };
  }
}

/**
 * One AG-UI event as an SSE message (`data: <JSON>` and a blank line), as AG-UI's HTTP clients
 * read it. JSON text escapes line breaks, so the message is one `data:` line; a server adds its
 * `id:` line before it.
 */
export function frameAgUiEvent(event: AgUiEvent): string {
  return `data: ${JSON.stringify(event)}\n\n`;
}

/** A tool's output as a result's content: text as it is, anything else as its JSON text. */
function resultText(output: unknown): string {
  if (typeof output === 'string') return output;
  return JSON.stringify(output ?? null) ?? 'null';
}

/**
 * A run's events as AG-UI events: `RUN_STARTED` first, exactly one `RUN_FINISHED` or
 * `RUN_ERROR` last, everything opened closed before it. Events that stop before the run's
 * `finish`, or that throw, end with `RUN_ERROR` (code `incomplete`, or the error's kind).
 * Example: `for await (const event of toAgUiEvents(runAgent(options), {threadId, runId}))`.
 */
export async function* toAgUiEvents(
  events: AsyncIterable<AgentEvent> | Iterable<AgentEvent>,
  options: AgUiEventOptions,
): AsyncGenerator<AgUiEvent, void, undefined> {
  const encoder = new AgUiEncoder(options);
  try {
    for await (const event of events) {
      yield* encoder.push(event);
      if (encoder.done) return;
    }
  } catch (error) {
    yield* encoder.end({
      code: ToolwireError.isInstance(error) ? error.kind : 'error',
      message: error instanceof Error ? error.message : String(error),
    });
    return;
  }
  yield* encoder.end();
}

// ── RunAgentInput → a run ────────────────────────────────────────────────────────────────────

/** A part of a multimodal AG-UI message; only text parts are read. */
export interface AgUiContentPart {
  readonly type: string;
  readonly text?: string;
}

export interface AgUiToolCall {
  readonly id: string;
  readonly type: 'function';
  readonly function: { readonly name: string; readonly arguments: string };
}

/** An AG-UI message (`@ag-ui/core`'s `Message`), the fields read here. */
export type AgUiMessage =
  | {
      readonly id: string;
      readonly role: 'user';
      readonly content: string | readonly AgUiContentPart[];
    }
  | {
      readonly id: string;
      readonly role: 'assistant';
      readonly content?: string;
      readonly toolCalls?: readonly AgUiToolCall[];
    }
  | {
      readonly id: string;
      readonly role: 'tool';
      readonly toolCallId: string;
      readonly content: string | readonly AgUiContentPart[];
      readonly error?: string;
    }
  | {
      readonly id: string;
      readonly role: 'system' | 'developer' | 'reasoning';
      readonly content: string;
    }
  | { readonly id: string; readonly role: 'activity' };

/** A tool the client runs itself (AG-UI's `Tool`). */
export interface AgUiTool {
  readonly name: string;
  readonly description: string;
  readonly parameters?: unknown;
}

/** AG-UI's `RunAgentInput`, the fields read here (state, forwardedProps, resume are not). */
export interface AgUiRunAgentInput {
  readonly threadId: string;
  readonly runId: string;
  readonly messages: readonly AgUiMessage[];
  readonly tools?: readonly AgUiTool[];
  readonly context?: readonly { readonly description: string; readonly value: string }[];
}

/** What `runAgent` or `resumeAgent` needs from an AG-UI request. */
export interface AgUiRunRequest {
  readonly threadId: string;
  readonly runId: string;
  /** The last message's text when it is a user message: a new run's request. */
  readonly prompt: string | undefined;
  /** Every message but that last user message, as a conversation to continue. */
  readonly conversation: readonly ConversationEntry[];
  /**
   * The results in the tool messages that end the input, in order: the answers to a paused
   * run's front-end calls, and the results of the calls the server ran in the same turn, which
   * the client keeps too (`pendingToolResults` keeps those `resumeAgent` takes). Empty when
   * the input does not end with tool messages.
   */
  readonly toolResults: readonly ToolResultInput[];
  /** The client's tools, as front-end tools (no `execute`: the run pauses on their calls). */
  readonly tools: AgentTools;
  /** The system and developer messages, then the input's context, as instructions. */
  readonly system: string | undefined;
}

export interface AgUiInputLimits {
  /** Messages at most. Default 2000. */
  readonly maxMessages?: number;
  /** How deeply a call's parsed arguments may nest. Default 64. */
  readonly maxArgumentsDepth?: number;
}

/** An AG-UI input that cannot be read as a run; `path` names the place (`messages[2].role`). */
export class AgUiInputError extends ToolwireError {
  readonly path: string;

  constructor(path: string, problem: string) {
    super('request-refused', `${path} ${problem}`);
    this.path = path;
  }
}

/**
 * Reads an AG-UI `RunAgentInput` (the client's, checked as strictly as any input) as what a
 * run needs. Throws `AgUiInputError` naming the first place that cannot be read.
 * Assistant text becomes `respond`, its tool calls `call` (arguments parsed from their JSON
 * text; text that is not JSON is kept as it is), tool messages `results` (grouped, each naming
 * its call's tool; a call no tool message answers gets the error result `UNANSWERED_CALL`),
 * reasoning messages `think`; activity messages are left out.
 */
export function agUiInputToRun(input: unknown, limits: AgUiInputLimits = {}): AgUiRunRequest {
  const maxMessages = limits.maxMessages ?? 2000;
  const maxDepth = limits.maxArgumentsDepth ?? 64;
  const body = record(input, 'input');
  const threadId = nonEmptyString(body.threadId, 'threadId');
  const runId = nonEmptyString(body.runId, 'runId');
  if (!Array.isArray(body.messages))
    throw new AgUiInputError('messages', 'must be an array of messages');
  const messages = body.messages as unknown[];
  if (messages.length > maxMessages)
    throw new AgUiInputError(
      'messages',
      `has ${messages.length} messages, more than the ${maxMessages} taken`,
    );

  const system: string[] = [];
  const conversation: ConversationEntry[] = [];
  const calls = new Map<string, string>();
  // Calls some tool message answers; the others get an error result where their turn ends.
  const answered = new Set(
    messages.flatMap((message) =>
      typeof message === 'object' && message !== null && 'toolCallId' in message
        ? [(message as { toolCallId: unknown }).toolCallId]
        : [],
    ),
  );
  let results: ToolOutcome[] = [];
  let unanswered: ToolOutcome[] = [];
  const flushResults = () => {
    results.push(...unanswered);
    unanswered = [];
    if (results.length === 0) return;
    conversation.push({ type: 'results', results });
    results = [];
  };
  const lastIndex = messages.length - 1;
  let prompt: string | undefined;

  messages.forEach((value, index) => {
    const at = `messages[${index}]`;
    const message = record(value, at);
    const role = message.role;
    if (role !== 'tool' && role !== 'activity') flushResults();
    switch (role) {
      case 'user': {
        const text = messageText(message.content, `${at}.content`);
        if (index === lastIndex) prompt = text;
        else conversation.push({ type: 'user', content: text });
        break;
      }
      case 'assistant': {
        if (message.content !== undefined && message.content !== null) {
          const text = stringField(message.content, `${at}.content`);
          if (text.length > 0) conversation.push({ type: 'respond', content: text });
        }
        if (message.toolCalls === undefined) break;
        if (!Array.isArray(message.toolCalls))
          throw new AgUiInputError(`${at}.toolCalls`, 'must be an array of tool calls');
        message.toolCalls.forEach((callValue: unknown, callIndex: number) => {
          const callAt = `${at}.toolCalls[${callIndex}]`;
          const call = record(callValue, callAt);
          const toolCallId = nonEmptyString(call.id, `${callAt}.id`);
          const fn = record(call.function, `${callAt}.function`);
          const toolName = nonEmptyString(fn.name, `${callAt}.function.name`);
          const args = stringField(fn.arguments, `${callAt}.function.arguments`);
          calls.set(toolCallId, toolName);
          // A call the conversation moved past without an answer (the user wrote instead)
          // still gets a result, so the model never reads a call left hanging.
          if (!answered.has(toolCallId))
            unanswered.push({ toolCallId, toolName, output: UNANSWERED_CALL, isError: true });
          conversation.push({
            type: 'call',
            toolCallId,
            toolName,
            input: parseArguments(args, `${callAt}.function.arguments`, maxDepth),
          });
        });
        break;
      }
      case 'tool': {
        const toolCallId = nonEmptyString(message.toolCallId, `${at}.toolCallId`);
        const toolName = calls.get(toolCallId);
        if (toolName === undefined)
          throw new AgUiInputError(
            `${at}.toolCallId`,
            `names no call of an earlier assistant message (${JSON.stringify(toolCallId.slice(0, 80))})`,
          );
        const content = messageText(message.content, `${at}.content`);
        const error =
          message.error === undefined ? undefined : stringField(message.error, `${at}.error`);
        const output =
          error === undefined ? content : content.length > 0 ? `${error}\n\n${content}` : error;
        results.push({
          toolCallId,
          toolName,
          output,
          ...(error === undefined ? {} : { isError: true }),
        });
        break;
      }
      case 'system':
      case 'developer':
        system.push(stringField(message.content, `${at}.content`));
        break;
      case 'reasoning': {
        const text = stringField(message.content, `${at}.content`);
        if (text.length > 0) conversation.push({ type: 'think', content: text });
        break;
      }
      case 'activity':
        break;
      default:
        throw new AgUiInputError(
          `${at}.role`,
          'must be user, assistant, tool, system, developer, reasoning or activity',
        );
    }
  });
  // The tool messages that end the input answer the calls a paused run waits on.
  const toolResults: ToolResultInput[] = results.map((result) => ({
    toolCallId: result.toolCallId,
    output: result.output,
    ...(result.isError ? { isError: true } : {}),
  }));
  flushResults();

  const contextText = readContext(body.context);
  if (contextText !== undefined) system.push(contextText);
  return {
    threadId,
    runId,
    prompt,
    conversation,
    toolResults,
    tools: readTools(body.tools),
    system: system.length > 0 ? system.join('\n\n') : undefined,
  };
}

/**
 * The results that answer a paused run's pending calls, for `resumeAgent`: the trailing tool
 * messages also hold the results of the calls the server ran in the paused turn, which its
 * state has already. A pending call left unanswered stays unanswered, so `resumeAgent` says so.
 */
export function pendingToolResults(
  results: readonly ToolResultInput[],
  pending: readonly { readonly toolCallId: string }[],
): ToolResultInput[] {
  const ids = new Set(pending.map((call) => call.toolCallId));
  return results.filter((result) => ids.has(result.toolCallId));
}

function readTools(value: unknown): AgentTools {
  if (value === undefined) return {};
  if (!Array.isArray(value)) throw new AgUiInputError('tools', 'must be an array of tools');
  // No prototype: a tool named __proto__ or constructor is a name like any other.
  const tools: Record<string, { description?: string; inputSchema: JsonSchema }> =
    Object.create(null);
  value.forEach((toolValue: unknown, index: number) => {
    const at = `tools[${index}]`;
    const tool = record(toolValue, at);
    const name = nonEmptyString(tool.name, `${at}.name`);
    if (name in tools) throw new AgUiInputError(`${at}.name`, `repeats the tool ${name}`);
    const description =
      tool.description === undefined
        ? undefined
        : stringField(tool.description, `${at}.description`);
    const parameters = tool.parameters;
    if (
      parameters !== undefined &&
      (typeof parameters !== 'object' || parameters === null || Array.isArray(parameters))
    )
      throw new AgUiInputError(`${at}.parameters`, 'must be a JSON Schema object');
    tools[name] = {
      ...(description === undefined || description.length === 0 ? {} : { description }),
      // An absent schema and an empty one mean the same: no arguments declared.
      inputSchema: (parameters as JsonSchema | undefined) ?? { type: 'object', properties: {} },
    };
  });
  return tools;
}

function readContext(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) throw new AgUiInputError('context', 'must be an array');
  if (value.length === 0) return undefined;
  const lines = value.map((itemValue: unknown, index: number) => {
    const item = record(itemValue, `context[${index}]`);
    const description = stringField(item.description, `context[${index}].description`);
    const text = stringField(item.value, `context[${index}].value`);
    return `- ${description}: ${text}`;
  });
  return `Context from the application:\n${lines.join('\n')}`;
}

/** A message's text: a string, or the text of its parts (other parts cannot be read). */
function messageText(value: unknown, at: string): string {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) throw new AgUiInputError(at, 'must be a string or an array of parts');
  return value
    .map((partValue: unknown, index: number) => {
      const part = record(partValue, `${at}[${index}]`);
      if (part.type !== 'text')
        throw new AgUiInputError(
          `${at}[${index}].type`,
          `is ${JSON.stringify(String(part.type).slice(0, 40))}; only text parts are read`,
        );
      return stringField(part.text, `${at}[${index}].text`);
    })
    .join('\n');
}

/** A call's arguments: their JSON, or the text itself when it is not JSON (as a model wrote it). */
function parseArguments(text: string, at: string, maxDepth: number): unknown {
  if (text.trim().length === 0) return {};
  let value: unknown;
  try {
    value = parseJsonText(text);
  } catch {
    return text;
  }
  if (depthOf(value, maxDepth) > maxDepth)
    throw new AgUiInputError(at, `nests deeper than ${maxDepth} levels`);
  return value;
}

/** How deeply a parsed JSON value nests, counted without recursion, up to `limit + 1`. */
function depthOf(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop() as [unknown, number];
    if (typeof item !== 'object' || item === null) continue;
    const inner = depth + 1;
    if (inner > deepest) deepest = inner;
    if (deepest > limit) return deepest;
    for (const child of Object.values(item)) stack.push([child, inner]);
  }
  return deepest;
}

function record(value: unknown, at: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new AgUiInputError(at, 'must be an object');
  return value as Record<string, unknown>;
}

function stringField(value: unknown, at: string): string {
  if (typeof value !== 'string') throw new AgUiInputError(at, 'must be a string');
  return value;
}

function nonEmptyString(value: unknown, at: string): string {
  const text = stringField(value, at);
  if (text.length === 0) throw new AgUiInputError(at, 'must not be empty');
  return text;
}
