import { CompletionTextReader } from '../agent/completion-text.ts';
import type { AgentEvent, AgentResult } from '../agent/index.ts';
import type { ToolwireError } from '../core/errors.ts';
import { parseJsonText } from '../core/parse-json.ts';
import type {
  BlockEvent,
  JsonValue,
  MetaFinalData,
  PendingFrontendTool,
  ToolResultPart,
} from '../stream/index.ts';

export interface AgentBlockOptions {
  /**
   * The tool whose `result` is the final answer (`attempt_completion` for xml). Its call is not
   * shown as a call: its `result` streams as a text block, the answer the user reads.
   */
  readonly completionTool?: string;
  /**
   * The payload of the error block for a failed run (the agent's `error` event, typed: switch
   * on its `kind`). Default: `{type: 'run_error', kind, message}`.
   */
  readonly describeError?: (error: ToolwireError) => JsonValue;
}

/** A result block for a call the agent ran (or tried to). */
function clientResult(
  id: string,
  name: string,
  content: string | ToolResultPart[],
  isError?: true,
): BlockEvent {
  return {
    type: 'tool-result',
    kind: 'client',
    id,
    name,
    content,
    ...(isError ? { isError } : {}),
  };
}

type Open =
  | { readonly kind: 'text' }
  | { readonly kind: 'thinking' }
  | { readonly kind: 'call'; readonly id: string; arguments: string }
  | { readonly kind: 'answer'; readonly id: string; readonly reader: CompletionTextReader };

/**
 * The agent loop's events as content blocks (the content-block stream). A synchronous state machine: `push`
 * each event, then `finish` with the run's result. One block is open at a time, as the format
 * requires: text and thinking stream as deltas, calls stream their arguments, results and the
 * rest are whole blocks. `meta_final` comes only for a completed run; a paused run ends with
 * `awaiting_frontend_tools`, any other stop with an error block saying why.
 */
export class AgentBlockAdapter {
  private readonly completionTool: string;
  private readonly describeError: (error: ToolwireError) => JsonValue;
  private open: Open | undefined;
  /** Leading white space of a text run, held until text that is not white space arrives. */
  private heldSpace = '';
  /** Arguments of calls that streamed, by id, to tell whether the final ones differ. */
  private readonly streamedCalls = new Map<string, string>();
  /** Answer text streamed from completion calls, by call id. */
  private readonly streamedAnswers = new Map<string, string>();
  private errorSent = false;

  constructor(options: AgentBlockOptions = {}) {
    this.completionTool = options.completionTool ?? 'attempt_completion';
    this.describeError =
      options.describeError ??
      ((error) => ({ type: 'run_error', kind: error.kind, message: error.message }));
  }

  push(event: AgentEvent): BlockEvent[] {
    const out: BlockEvent[] = [];
    switch (event.type) {
      case 'text-delta':
        this.text(event.delta, out);
        break;
      case 'text-end':
        if (this.open?.kind === 'text') this.close(out);
        this.heldSpace = '';
        break;
      case 'reasoning-delta':
        if (event.delta.length === 0) break;
        this.ensure('thinking', out);
        out.push({ type: 'thinking-delta', delta: event.delta });
        break;
      case 'reasoning-end':
        if (this.open?.kind === 'thinking') this.close(out);
        break;
      case 'tool-input-start':
        this.close(out);
        if (event.toolName === this.completionTool) {
          this.open = { kind: 'answer', id: event.id, reader: new CompletionTextReader() };
          this.streamedAnswers.set(event.id, '');
        } else {
          this.open = { kind: 'call', id: event.id, arguments: '' };
          out.push({ type: 'tool-call-start', kind: 'client', id: event.id, name: event.toolName });
        }
        break;
      case 'tool-input-delta':
        this.inputDelta(event.id, event.delta, out);
        break;
      case 'tool-input-end':
        this.endInput(event.id, out);
        break;
      case 'tool-call':
        this.call(event, out);
        break;
      case 'tool-result':
        this.close(out);
        out.push(clientResult(event.toolCallId, event.toolName, resultContent(event.output)));
        break;
      case 'tool-error':
        this.close(out);
        out.push(clientResult(event.toolCallId, event.toolName, event.error, true));
        break;
      case 'protocol-error': {
        this.close(out);
        const { fault } = event;
        if (fault.toolCallId !== undefined && this.streamedCalls.has(fault.toolCallId)) {
          // The call was shown while it streamed: its card gets the failure as its result.
          out.push(
            clientResult(
              fault.toolCallId,
              fault.toolName ?? 'tool',
              `${fault.message}\n\n${fault.raw}`,
              true,
            ),
          );
        } else {
          out.push({
            type: 'error',
            error: { type: 'malformed_call', message: fault.message, raw: fault.raw },
          });
        }
        break;
      }
      case 'awaiting-tools':
        this.close(out);
        out.push({
          type: 'awaiting-frontend-tools',
          tools: event.calls.map(
            (call): PendingFrontendTool => ({
              tool_use_id: call.toolCallId,
              name: call.toolName,
              input: toJson(call.input),
            }),
          ),
        });
        break;
      case 'error':
        this.close(out);
        this.errorSent = true;
        out.push({ type: 'error', error: this.describeError(event.error) });
        break;
      // run-start, step-start, step-finish, text-start, reasoning-start: nothing to show;
      // finish: see `finish`, which has the conversation.
      default:
        break;
    }
    return out;
  }

  /** The run is over: what closes the stream (meta_final, or why it stopped). */
  finish(result: AgentResult): BlockEvent[] {
    const out: BlockEvent[] = [];
    this.close(out);
    switch (result.stopReason) {
      case 'completed':
        out.push({ type: 'meta-final', data: metaFinal(result) });
        break;
      case 'awaiting-tools':
        break;
      case 'error':
        // The error event has been sent already; a result made elsewhere may carry it alone,
        // or (made by hand) only its words.
        if (!this.errorSent)
          out.push({
            type: 'error',
            error: result.error
              ? this.describeError(result.error)
              : { type: 'run_error', message: result.message ?? 'the run failed' },
          });
        break;
      default:
        out.push({
          type: 'error',
          error: {
            type: result.stopReason,
            message: result.message ?? `the run stopped (${result.stopReason})`,
          },
        });
    }
    return out;
  }

  /** Closes a block left open (an aborted stream), so what was sent is well formed. */
  close(out: BlockEvent[] = []): BlockEvent[] {
    const open = this.open;
    this.open = undefined;
    if (!open) return out;
    if (open.kind === 'text') out.push({ type: 'text-end' });
    else if (open.kind === 'thinking') out.push({ type: 'thinking-end' });
    else if (open.kind === 'call') {
      out.push({ type: 'tool-call-end', id: open.id });
      this.streamedCalls.set(open.id, open.arguments);
    } else {
      if (this.streamedAnswers.get(open.id)) out.push({ type: 'text-end' });
      this.streamedAnswers.set(open.id, open.reader.text);
    }
    return out;
  }

  private ensure(kind: 'text' | 'thinking', out: BlockEvent[]): void {
    if (this.open?.kind === kind) return;
    this.close(out);
    this.open = { kind };
    out.push({ type: kind === 'text' ? 'text-start' : 'thinking-start' });
  }

  /** Text between calls: white space alone (the newline after a call…) opens no block. */
  private text(delta: string, out: BlockEvent[]): void {
    if (delta.length === 0) return;
    if (this.open?.kind !== 'text') {
      if (delta.trim().length === 0) {
        this.heldSpace += delta;
        return;
      }
      delta = this.heldSpace + delta;
      this.heldSpace = '';
      this.ensure('text', out);
    }
    out.push({ type: 'text-delta', delta });
  }

  private inputDelta(id: string, delta: string, out: BlockEvent[]): void {
    const open = this.open;
    if (open === undefined || open.kind === 'text' || open.kind === 'thinking' || open.id !== id)
      return;
    if (delta.length === 0) return;
    if (open.kind === 'call') {
      open.arguments += delta;
      out.push({ type: 'tool-call-delta', id, delta });
      return;
    }
    const text = open.reader.push(delta);
    if (text.length === 0) return;
    const before = this.streamedAnswers.get(id) ?? '';
    // The answer's text block opens with its first character.
    if (before.length === 0) out.push({ type: 'text-start' });
    this.streamedAnswers.set(id, before + text);
    out.push({ type: 'text-delta', delta: text });
  }

  private endInput(id: string, out: BlockEvent[]): void {
    const open = this.open;
    if (open && (open.kind === 'call' || open.kind === 'answer') && open.id === id) this.close(out);
  }

  private call(event: Extract<AgentEvent, { type: 'tool-call' }>, out: BlockEvent[]): void {
    this.close(out);
    const valid = event.problems === undefined || event.problems.length === 0;
    const args = JSON.stringify(event.input ?? {});
    if (event.toolName === this.completionTool && valid) {
      const result = (event.input as { result?: unknown } | null)?.result;
      const answer = typeof result === 'string' ? result : JSON.stringify(result ?? null);
      const streamed = this.streamedAnswers.get(event.toolCallId) ?? '';
      // What did not stream (a call given whole, or coerced) goes out now.
      const rest = answer.startsWith(streamed) ? answer.slice(streamed.length) : answer;
      if (rest.length > 0)
        out.push(
          { type: 'text-start' },
          { type: 'text-delta', delta: rest },
          {
            type: 'text-end',
          },
        );
      return;
    }
    const streamed = this.streamedCalls.get(event.toolCallId);
    // A call shown while it streamed gets its final arguments only when they differ.
    if (streamed === args) return;
    out.push({
      type: 'tool-call',
      kind: 'client',
      id: event.toolCallId,
      name: event.toolName,
      arguments: args,
    });
  }
}

function metaFinal(result: AgentResult): MetaFinalData {
  return {
    conversation_history: toJson(result.conversation),
    stop_reason: result.stopReason,
    total_steps: result.steps,
    generated_files: null,
    cost: result.cost ?? null,
    // null, not 0, for a count the provider did not report: the page says "usage unknown".
    cumulative_usage: {
      input_tokens: result.usage.inputTokens ?? null,
      output_tokens: result.usage.outputTokens ?? null,
    },
    ...(result.answer === undefined ? {} : { answer: result.answer }),
  };
}

/** Any value as JSON data (what JSON.stringify keeps; `undefined` becomes null). */
export function toJson(value: unknown): JsonValue {
  if (value === undefined) return null;
  const text = JSON.stringify(value);
  return text === undefined ? null : (parseJsonText(text) as JsonValue);
}

/**
 * A tool's output as a result block's content: text as it is; a list of text and image parts
 * (`{type:'text', text}`, `{type:'image', data|url, mediaType}`) as a multimodal result;
 * anything else as its JSON text.
 */
export function resultContent(output: unknown): string | ToolResultPart[] {
  if (typeof output === 'string') return output;
  if (Array.isArray(output) && output.length > 0) {
    const parts: ToolResultPart[] = [];
    for (const item of output) {
      const part = resultPart(item);
      if (!part) return JSON.stringify(output);
      parts.push(part);
    }
    return parts;
  }
  return JSON.stringify(output ?? null);
}

function resultPart(item: unknown): ToolResultPart | undefined {
  if (typeof item !== 'object' || item === null) return undefined;
  const part = item as Record<string, unknown>;
  if (part.type === 'text' && typeof part.text === 'string')
    return { type: 'text', text: part.text };
  if (part.type !== 'image') return undefined;
  const mediaType = part.mediaType ?? part.media_type ?? 'image/png';
  if (typeof mediaType !== 'string') return undefined;
  if (typeof part.url === 'string') return { type: 'image', src: part.url, mediaType };
  if (typeof part.src === 'string') return { type: 'image', src: part.src, mediaType };
  if (typeof part.data === 'string')
    return { type: 'image', src: `data:${mediaType};base64,${part.data}`, mediaType };
  return undefined;
}
