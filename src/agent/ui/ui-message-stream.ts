import type { UIMessage, UIMessageChunk } from 'ai';
import { CompletionTextReader } from '../completion-text.ts';
import type { ConversationEntry, ToolOutcome } from '../conversation.ts';
import type { ToolResultInput } from '../run-agent.ts';
import type { AgentEvent, AgentUsage, StopReason } from '../types.ts';

/**
 * The agent's events as the AI SDK's UI message stream (what `useChat` reads), and the
 * messages `useChat` sends back as what a run needs. Types come from `ai` (an optional peer);
 * nothing of it runs here.
 *
 * | agent event | UI message chunk |
 * | --- | --- |
 * | `run-start` | `start {messageId}` |
 * | `step-start` / `step-finish` | `start-step` / `finish-step` |
 * | `text-*`, `reasoning-*` | `text-*`, `reasoning-*` (same ids; a part opens with its first character) |
 * | `tool-input-start` / `-delta` | `tool-input-start {dynamic}` / `tool-input-delta` |
 * | `tool-call` | `tool-input-available`; with `problems`: `tool-input-error` |
 * | completion tool's `tool-input-*` / `tool-call` | its `result` as a text part, streamed as written |
 * | `tool-result` / `tool-error` | `tool-output-available` / `tool-output-error` |
 * | `protocol-error` | a shown call: `tool-output-error`; else `data-toolwire-fault` |
 * | `awaiting-tools` | `finish {finishReason: 'tool-calls', messageMetadata}` |
 * | `finish` | `finish {finishReason: stop / length / error, messageMetadata}`; aborted: `abort {reason}` |
 * | `error`; `finish` max-failures / timeout | `error {errorText}` (then `finish`) |
 *
 * A result for a call the stream never showed is left out (see `resumedCalls`). Front-end tools
 * (no `execute`) reach the page as `tool-input-available`; it answers with `addToolOutput` and
 * sends the messages again, which `uiMessagesToRun` reads.
 *
 * Tool parts are dynamic (`dynamic-tool`): the page does not declare the server's tools.
 */

/** What `finish` carries as `messageMetadata`: how the run ended and what it used. */
export interface ToolwireMessageMetadata {
  readonly stopReason: StopReason;
  readonly steps: number;
  /** A count the provider did not report is null, not 0. */
  readonly usage: { readonly inputTokens: number | null; readonly outputTokens: number | null };
  readonly cost?: number;
}

/** The data of a `data-toolwire-fault` part: call markup the model got wrong. */
export interface ToolwireFaultData {
  readonly code: string;
  readonly message: string;
  readonly raw: string;
}

export interface UIMessageStreamOptions {
  /** The assistant message's id, sent in `start`; a resumed run repeats the paused message's. */
  readonly messageId: string;
  /** The tool whose `result` is the final answer; its call is shown as text. */
  readonly completionTool?: string;
  /**
   * Calls of this message that an earlier response showed: a resumed run's pending calls
   * (`state.pending`). Their results (the front-end answers) are sent, so a reader that replays
   * the run's log from its start sees them answered. Any other result for a call this response
   * did not show is left out: a reader of this response alone would not know the call.
   */
  readonly resumedCalls?: Iterable<string>;
}

type Finish = Extract<UIMessageChunk, { type: 'finish' }>['finishReason'];

const FINISH_REASONS: Partial<Record<StopReason, Finish>> = {
  completed: 'stop',
  'max-steps': 'length',
  'output-limit': 'length',
  'awaiting-tools': 'tool-calls',
};

/**
 * The mapping as a synchronous state machine: `push` each agent event and send what it returns;
 * `done` is true once the terminal chunk has gone (`finish`, `abort` or `error` then `finish`).
 * `tail` says what closes the stream as it stands if the run can go no further (an instance
 * that died): open parts end, then `error`.
 */
export class UIMessageChunkEncoder {
  private readonly messageId: string;
  private readonly completionTool: string;
  /** Text parts the agent opened, by id: whether the UI part is open, and white space held. */
  private readonly texts = new Map<string, { opened: boolean; held: string }>();
  /** Reasoning parts open in the UI. */
  private readonly reasonings = new Set<string>();
  /** Calls the reader knows: shown by this response, or by an earlier one (`resumedCalls`). */
  private readonly shownCalls = new Set<string>();
  /** Calls shown while their input streams, until their `tool-call` or fault. */
  private readonly streamingCalls = new Set<string>();
  /** Completion calls streaming: the answer read out of their input so far. */
  private readonly answers = new Map<string, { reader: CompletionTextReader; streamed: string }>();
  private ended = false;

  constructor(options: UIMessageStreamOptions) {
    this.messageId = options.messageId;
    this.completionTool = options.completionTool ?? 'attempt_completion';
    for (const id of options.resumedCalls ?? []) this.shownCalls.add(id);
  }

  /** True once the stream's last chunk has been returned; later events give nothing. */
  get done(): boolean {
    return this.ended;
  }

  push(event: AgentEvent): UIMessageChunk[] {
    const out: UIMessageChunk[] = [];
    if (this.ended) return out;
    switch (event.type) {
      case 'run-start':
        out.push({ type: 'start', messageId: this.messageId });
        break;
      case 'step-start':
        out.push({ type: 'start-step' });
        break;
      case 'step-finish':
        this.closeParts(out);
        out.push({ type: 'finish-step' });
        break;
      case 'text-start':
        if (!this.texts.has(event.id)) this.texts.set(event.id, { opened: false, held: '' });
        break;
      case 'text-delta':
        this.text(event.id, event.delta, out);
        break;
      case 'text-end':
        this.endText(event.id, out);
        break;
      case 'reasoning-start':
        break;
      case 'reasoning-delta':
        if (event.delta.length === 0) break;
        if (!this.reasonings.has(event.id)) {
          this.reasonings.add(event.id);
          out.push({ type: 'reasoning-start', id: event.id });
        }
        out.push({ type: 'reasoning-delta', id: event.id, delta: event.delta });
        break;
      case 'reasoning-end':
        if (this.reasonings.delete(event.id)) out.push({ type: 'reasoning-end', id: event.id });
        break;
      case 'tool-input-start':
        // The completion call's input is not shown: its `result` comes as text.
        if (event.toolName === this.completionTool) {
          this.answers.set(event.id, { reader: new CompletionTextReader(), streamed: '' });
          break;
        }
        this.shownCalls.add(event.id);
        this.streamingCalls.add(event.id);
        out.push({
          type: 'tool-input-start',
          toolCallId: event.id,
          toolName: event.toolName,
          dynamic: true,
        });
        break;
      case 'tool-input-delta':
        if (this.answers.has(event.id)) this.answerDelta(event.id, event.delta, out);
        else if (event.delta.length > 0 && this.shownCalls.has(event.id))
          out.push({ type: 'tool-input-delta', toolCallId: event.id, inputTextDelta: event.delta });
        break;
      case 'tool-input-end':
        break;
      case 'tool-call':
        this.call(event, out);
        break;
      case 'tool-result':
        if (this.shownCalls.has(event.toolCallId))
          out.push({
            type: 'tool-output-available',
            toolCallId: event.toolCallId,
            output: event.output ?? null,
            dynamic: true,
          });
        break;
      case 'tool-error':
        if (this.shownCalls.has(event.toolCallId))
          out.push({
            type: 'tool-output-error',
            toolCallId: event.toolCallId,
            errorText: event.error,
            dynamic: true,
          });
        break;
      case 'protocol-error': {
        const { fault } = event;
        if (fault.toolCallId !== undefined) this.streamingCalls.delete(fault.toolCallId);
        if (fault.toolCallId !== undefined && this.shownCalls.has(fault.toolCallId)) {
          // The call was shown while it streamed: its part gets the failure.
          out.push({
            type: 'tool-output-error',
            toolCallId: fault.toolCallId,
            errorText: `${fault.message}\n\n${fault.raw}`,
            dynamic: true,
          });
        } else {
          const data: ToolwireFaultData = {
            code: fault.code,
            message: fault.message,
            raw: fault.raw,
          };
          out.push({ type: 'data-toolwire-fault', data });
        }
        break;
      }
      case 'awaiting-tools': {
        this.closeParts(out);
        const { state } = event;
        const messageMetadata: ToolwireMessageMetadata = {
          stopReason: 'awaiting-tools',
          steps: state.steps,
          usage: usageOf(state.usage),
        };
        out.push({ type: 'finish', finishReason: 'tool-calls', messageMetadata });
        this.ended = true;
        break;
      }
      case 'error':
        this.closeParts(out);
        out.push({ type: 'error', errorText: event.error.message });
        break;
      case 'finish':
        this.closeParts(out);
        this.finish(event, out);
        this.ended = true;
        break;
    }
    return out;
  }

  /**
   * What ends the stream as sent so far when the run cannot (its instance was lost): open parts
   * end, then `error`. Changes nothing: the encoder can go on if the run does.
   */
  tail(errorText: string): UIMessageChunk[] {
    if (this.ended) return [];
    return [...this.closing(), { type: 'error', errorText }];
  }

  private finish(event: Extract<AgentEvent, { type: 'finish' }>, out: UIMessageChunk[]): void {
    if (event.stopReason === 'aborted') {
      out.push({ type: 'abort', reason: event.message ?? 'the run was aborted' });
      return;
    }
    const finishReason = FINISH_REASONS[event.stopReason];
    // A run that failed says why, unless its `error` event did already.
    if (finishReason === undefined && event.stopReason !== 'error')
      out.push({
        type: 'error',
        errorText: event.message ?? `the run stopped (${event.stopReason})`,
      });
    const messageMetadata: ToolwireMessageMetadata = {
      stopReason: event.stopReason,
      steps: event.steps,
      usage: usageOf(event.usage),
      ...(event.cost === undefined ? {} : { cost: event.cost }),
    };
    out.push({ type: 'finish', finishReason: finishReason ?? 'error', messageMetadata });
  }

  /** Text between calls: white space alone (the newline after a call) opens no part. */
  private text(id: string, delta: string, out: UIMessageChunk[]): void {
    if (delta.length === 0) return;
    let text = this.texts.get(id);
    if (text === undefined) {
      text = { opened: false, held: '' };
      this.texts.set(id, text);
    }
    if (!text.opened) {
      if (delta.trim().length === 0) {
        text.held += delta;
        return;
      }
      delta = text.held + delta;
      text.held = '';
      text.opened = true;
      out.push({ type: 'text-start', id });
    }
    out.push({ type: 'text-delta', id, delta });
  }

  /** A completion call's input streams: the answer it holds so far goes out as text. */
  private answerDelta(callId: string, delta: string, out: UIMessageChunk[]): void {
    const answer = this.answers.get(callId)!;
    const text = answer.reader.push(delta);
    if (text.length === 0) return;
    const id = answerId(callId);
    if (answer.streamed.length === 0) {
      this.texts.set(id, { opened: true, held: '' });
      out.push({ type: 'text-start', id });
    }
    answer.streamed += text;
    out.push({ type: 'text-delta', id, delta: text });
  }

  private endText(id: string, out: UIMessageChunk[]): void {
    const text = this.texts.get(id);
    this.texts.delete(id);
    if (text?.opened) out.push({ type: 'text-end', id });
  }

  /** Ends the parts left open, so the message is complete. */
  private closeParts(out: UIMessageChunk[]): void {
    out.push(...this.closing());
    this.texts.clear();
    this.reasonings.clear();
    this.streamingCalls.clear();
  }

  /**
   * What ends the parts left open: text and reasoning end; a call whose input was still
   * streaming (the run stopped inside it) gets an error, so its part does not wait forever.
   */
  private closing(): UIMessageChunk[] {
    const out: UIMessageChunk[] = [];
    for (const [id, text] of this.texts) if (text.opened) out.push({ type: 'text-end', id });
    for (const id of this.reasonings) out.push({ type: 'reasoning-end', id });
    for (const toolCallId of this.streamingCalls)
      out.push({
        type: 'tool-output-error',
        toolCallId,
        errorText: UNFINISHED_CALL,
        dynamic: true,
      });
    return out;
  }

  private call(event: Extract<AgentEvent, { type: 'tool-call' }>, out: UIMessageChunk[]): void {
    const valid = event.problems === undefined || event.problems.length === 0;
    const streamed = this.answers.get(event.toolCallId)?.streamed ?? '';
    this.answers.delete(event.toolCallId);
    this.streamingCalls.delete(event.toolCallId);
    if (event.toolName === this.completionTool && valid) {
      const result = (event.input as { result?: unknown } | null)?.result;
      const answer = typeof result === 'string' ? result : JSON.stringify(result ?? null);
      const id = answerId(event.toolCallId);
      // What did not stream (a call given whole, or coerced) goes out now; an answer that is
      // not what streamed (coerced) follows it whole.
      const open = this.texts.get(id)?.opened === true;
      let rest = answer;
      if (open && answer.startsWith(streamed)) rest = answer.slice(streamed.length);
      else this.endText(id, out);
      if (rest.length > 0) {
        if (this.texts.get(id)?.opened !== true) {
          this.texts.set(id, { opened: true, held: '' });
          out.push({ type: 'text-start', id });
        }
        out.push({ type: 'text-delta', id, delta: rest });
      }
      this.endText(id, out);
      return;
    }
    this.shownCalls.add(event.toolCallId);
    const identity = {
      toolCallId: event.toolCallId,
      toolName: event.toolName,
      input: event.input ?? null,
      dynamic: true,
    } as const;
    if (valid) out.push({ type: 'tool-input-available', ...identity });
    else
      out.push({
        type: 'tool-input-error',
        ...identity,
        errorText: (event.problems ?? []).map((problem) => problem.message).join('\n'),
      });
  }
}

/** The text part a completion call's answer is shown in. */
function answerId(toolCallId: string): string {
  return `answer-${toolCallId}`;
}

function usageOf(usage: AgentUsage): ToolwireMessageMetadata['usage'] {
  return { inputTokens: usage.inputTokens ?? null, outputTokens: usage.outputTokens ?? null };
}

/**
 * The agent's events as UI message chunks (see the table above). The stream ends with the run:
 * `finish` (`tool-calls` when front-end tools must answer), `abort`, or `error` then `finish`.
 */
export async function* toUIMessageStream(
  events: AsyncIterable<AgentEvent> | Iterable<AgentEvent>,
  options: UIMessageStreamOptions,
): AsyncGenerator<UIMessageChunk> {
  const encoder = new UIMessageChunkEncoder(options);
  for await (const event of events) {
    yield* encoder.push(event);
    if (encoder.done) return;
  }
}

// ── SSE framing ────────────────────────────────────────────────────────────────────────────────

/** The headers of a UI message stream response (the AI SDK's, without `connection`). */
export const UI_MESSAGE_STREAM_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  'x-vercel-ai-ui-message-stream': 'v1',
  'x-accel-buffering': 'no',
};

/** The message that ends a UI message stream. */
export const UI_MESSAGE_STREAM_DONE = 'data: [DONE]\n\n';

/** One chunk as an SSE message: JSON escapes line breaks, so one `data:` line holds it. */
export function frameUIMessageChunk(chunk: UIMessageChunk): string {
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

/** Chunks as SSE messages, then `[DONE]`. */
export async function* toUIMessageSse(
  chunks: AsyncIterable<UIMessageChunk> | Iterable<UIMessageChunk>,
): AsyncGenerator<string> {
  for await (const chunk of chunks) yield frameUIMessageChunk(chunk);
  yield UI_MESSAGE_STREAM_DONE;
}

// ── messages in ────────────────────────────────────────────────────────────────────────────────

/** What a run needs from the messages `useChat` sent. */
export interface UIMessagesRun {
  /** The text of the last user message: the request. */
  readonly prompt: string;
  /** Everything before the last user message, as conversation entries. */
  readonly conversation: ConversationEntry[];
  /**
   * The outcomes of the tool parts after the last user message that have one (`output-available`
   * and `output-error`), in order: the answers to a paused run's front-end calls (and the results
   * the server sent for its own; keep those whose ids the run waits on).
   */
  readonly results: ToolResultInput[];
  /** The id of the assistant message the messages end with, if they do: a resumed run repeats it. */
  readonly assistantMessageId?: string;
}

type Part = UIMessage['parts'][number];

/** A tool part, static (`tool-NAME`) or dynamic, as the fields read here. */
interface ToolPartFields {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly state: string;
  readonly input?: unknown;
  readonly output?: unknown;
  readonly errorText?: string;
}

/**
 * The messages a chat sent, as a run: the last user message is the prompt, what came before it
 * the conversation (user text; the assistant's reasoning, text, calls and their results, step by
 * step; a call left without an output gets an error result, `UNANSWERED_CALL`), and the tool
 * outputs after it the results a paused run waits for. System messages, files, sources and data
 * parts are left out. Throws a `TypeError` naming the first malformed message or part: the
 * messages come from a client.
 */
export function uiMessagesToRun(messages: readonly UIMessage[]): UIMessagesRun {
  if (!Array.isArray(messages)) throw new TypeError('messages must be an array of UI messages');
  messages.forEach(checkMessage);
  let lastUser = -1;
  for (let index = messages.length - 1; index >= 0; index--) {
    if (messages[index]!.role === 'user') {
      lastUser = index;
      break;
    }
  }
  if (lastUser === -1) throw new TypeError('the messages hold no user message to answer');
  const conversation: ConversationEntry[] = [];
  for (const message of messages.slice(0, lastUser)) conversation.push(...messageEntries(message));
  const results: ToolResultInput[] = [];
  for (const message of messages.slice(lastUser + 1)) {
    if (message.role !== 'assistant') continue;
    for (const part of message.parts) {
      const tool = toolPart(part);
      const outcome = tool && toolOutcome(tool);
      if (outcome)
        results.push({
          toolCallId: outcome.toolCallId,
          output: outcome.output,
          ...(outcome.isError ? { isError: true } : {}),
        });
    }
  }
  const last = messages[messages.length - 1]!;
  return {
    prompt: textOf(messages[lastUser]!),
    conversation,
    results,
    ...(last.role === 'assistant' ? { assistantMessageId: last.id } : {}),
  };
}

function checkMessage(message: unknown, index: number): void {
  const where = `messages[${index}]`;
  if (typeof message !== 'object' || message === null)
    throw new TypeError(`${where} is not an object`);
  const { role, parts, id } = message as { role?: unknown; parts?: unknown; id?: unknown };
  if (role !== 'user' && role !== 'assistant' && role !== 'system')
    throw new TypeError(`${where}.role must be user, assistant or system`);
  if (typeof id !== 'string') throw new TypeError(`${where}.id must be a string`);
  if (!Array.isArray(parts)) throw new TypeError(`${where}.parts must be an array`);
  parts.forEach((part: unknown, partIndex) => {
    const at = `${where}.parts[${partIndex}]`;
    if (typeof part !== 'object' || part === null) throw new TypeError(`${at} is not an object`);
    const { type, text } = part as { type?: unknown; text?: unknown };
    if (typeof type !== 'string') throw new TypeError(`${at}.type must be a string`);
    if ((type === 'text' || type === 'reasoning') && typeof text !== 'string')
      throw new TypeError(`${at}.text must be a string`);
    if (type === 'dynamic-tool' || type.startsWith('tool-')) {
      const tool = part as { toolCallId?: unknown; toolName?: unknown; state?: unknown };
      if (typeof tool.toolCallId !== 'string' || tool.toolCallId.length === 0)
        throw new TypeError(`${at}.toolCallId must be a non-empty string`);
      if (typeof tool.state !== 'string') throw new TypeError(`${at}.state must be a string`);
      if (type === 'dynamic-tool' && typeof tool.toolName !== 'string')
        throw new TypeError(`${at}.toolName must be a string`);
    }
  });
}

function textOf(message: UIMessage): string {
  return message.parts
    .filter((part): part is Extract<Part, { type: 'text' }> => part.type === 'text')
    .map((part) => part.text)
    .join('');
}

function toolPart(part: Part): ToolPartFields | undefined {
  if (part.type === 'dynamic-tool') return part as unknown as ToolPartFields;
  if (part.type.startsWith('tool-'))
    return { ...(part as object), toolName: part.type.slice('tool-'.length) } as ToolPartFields;
  return undefined;
}

function toolOutcome(tool: ToolPartFields): ToolOutcome | undefined {
  if (tool.state === 'output-available')
    return { toolCallId: tool.toolCallId, toolName: tool.toolName, output: tool.output ?? null };
  if (tool.state === 'output-error')
    return {
      toolCallId: tool.toolCallId,
      toolName: tool.toolName,
      output: tool.errorText ?? 'the tool failed',
      isError: true,
    };
  return undefined;
}

/** The error of a call whose input was still streaming when the run stopped. */
export const UNFINISHED_CALL = 'the run stopped before this call was complete';

/** The result of an earlier call that has none in the messages. */
export const UNANSWERED_CALL = 'no result: the conversation went on without one';

/** One message as conversation entries; an assistant's calls are followed by their step's results. */
function messageEntries(message: UIMessage): ConversationEntry[] {
  if (message.role === 'user') {
    const content = textOf(message);
    return content.length > 0 ? [{ type: 'user', content }] : [];
  }
  if (message.role !== 'assistant') return [];
  const entries: ConversationEntry[] = [];
  let outcomes: ToolOutcome[] = [];
  const endStep = () => {
    if (outcomes.length > 0) entries.push({ type: 'results', results: outcomes });
    outcomes = [];
  };
  for (const part of message.parts) {
    if (part.type === 'step-start') {
      endStep();
      continue;
    }
    if (part.type === 'text' || part.type === 'reasoning') {
      if (part.text.length === 0) continue;
      // Text after a step's results belongs to the next turn.
      endStep();
      entries.push({ type: part.type === 'text' ? 'respond' : 'think', content: part.text });
      continue;
    }
    const tool = toolPart(part);
    if (tool === undefined) continue;
    entries.push({
      type: 'call',
      toolCallId: tool.toolCallId,
      toolName: tool.toolName,
      input: tool.input ?? {},
    });
    // A call the conversation moved past without an answer (the user wrote instead) still
    // gets a result, so the model never reads a call left hanging.
    outcomes.push(
      toolOutcome(tool) ?? {
        toolCallId: tool.toolCallId,
        toolName: tool.toolName,
        output: UNANSWERED_CALL,
        isError: true,
      },
    );
  }
  endStep();
  return entries;
}
