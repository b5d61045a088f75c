import type { AgentEvent, AgentResult } from '../agent/index.ts';
import {
  AG_UI_PROTOCOL_VERSION,
  AgUiEncoder,
  type AgUiEvent,
  type AgUiEventOptions,
  frameAgUiEvent,
} from '../agent/ui/ag-ui.ts';
import { framedEvent, type ReadFailure } from './log-stream.ts';
import type { WireEncoder } from './wire-encoder.ts';

/** What a lost instance's run ends with in AG-UI: its `RUN_ERROR`. */
export const AG_UI_INSTANCE_LOST = {
  code: 'instance_lost',
  message:
    'the server instance running this run stopped answering (its lease ran out); the run is over',
} as const;

/** The frame a reader gets when the store fails mid-read: the run's `RUN_ERROR`. */
export function agUiStoreFailureFrame(message: string): string {
  return frameAgUiEvent({ type: 'RUN_ERROR', code: 'store_unavailable', message });
}

/** The events that open or close something, as `AgUiReadFailure` follows them. */
const OPENING_EVENTS = new Set([
  'RUN_STARTED',
  'RUN_FINISHED',
  'RUN_ERROR',
  'STEP_STARTED',
  'STEP_FINISHED',
  'TEXT_MESSAGE_START',
  'TEXT_MESSAGE_END',
  'REASONING_START',
  'REASONING_END',
  'REASONING_MESSAGE_START',
  'REASONING_MESSAGE_END',
  'TOOL_CALL_START',
  'TOOL_CALL_END',
]);

/**
 * What a reader of an AG-UI run's log has open, from the frames it was sent (a reader on any
 * instance has only those), so that a store failure mid-read ends its stream as AG-UI wants it
 * (and as the encoder's own `tail` would): the open message, reasoning and calls end, then the
 * step, then one `RUN_ERROR` `store_unavailable`; `RUN_STARTED` first if the reader got none.
 * Nothing once the reader got its terminal event.
 */
export class AgUiReadFailure implements ReadFailure {
  private readonly ids: { readonly threadId: string; readonly runId: string };
  private started = false;
  private ended = false;
  private step: string | undefined;
  private text: string | undefined;
  private reasoning: string | undefined;
  private reasoningMessage: string | undefined;
  private readonly openCalls = new Set<string>();

  /** The AG-UI thread and run read (for a `RUN_STARTED` the reader never got). */
  constructor(ids: { readonly threadId: string; readonly runId: string }) {
    this.ids = ids;
  }

  sent(frame: string): void {
    const event = framedEvent(frame, OPENING_EVENTS);
    if (event === undefined) return;
    const id = (key: string) => (typeof event[key] === 'string' ? event[key] : undefined);
    switch (event.type) {
      case 'RUN_STARTED':
        this.started = true;
        break;
      case 'RUN_FINISHED':
      case 'RUN_ERROR':
        this.ended = true;
        break;
      case 'STEP_STARTED':
        this.step = id('stepName');
        break;
      case 'STEP_FINISHED':
        this.step = undefined;
        break;
      case 'TEXT_MESSAGE_START':
        this.text = id('messageId');
        break;
      case 'TEXT_MESSAGE_END':
        this.text = undefined;
        break;
      case 'REASONING_START':
        this.reasoning = id('messageId');
        break;
      case 'REASONING_END':
        this.reasoning = undefined;
        break;
      case 'REASONING_MESSAGE_START':
        this.reasoningMessage = id('messageId');
        break;
      case 'REASONING_MESSAGE_END':
        this.reasoningMessage = undefined;
        break;
      case 'TOOL_CALL_START': {
        const callId = id('toolCallId');
        if (callId !== undefined) this.openCalls.add(callId);
        break;
      }
      case 'TOOL_CALL_END': {
        const callId = id('toolCallId');
        if (callId !== undefined) this.openCalls.delete(callId);
        break;
      }
    }
  }

  frame(message: string): string {
    if (this.ended) return '';
    const out: AgUiEvent[] = [];
    if (!this.started)
      out.push({ type: 'RUN_STARTED', ...this.ids, protocolVersion: AG_UI_PROTOCOL_VERSION });
    // Innermost first, the step last, as the encoder closes them.
    if (this.text !== undefined) out.push({ type: 'TEXT_MESSAGE_END', messageId: this.text });
    if (this.reasoningMessage !== undefined)
      out.push({ type: 'REASONING_MESSAGE_END', messageId: this.reasoningMessage });
    if (this.reasoning !== undefined)
      out.push({ type: 'REASONING_END', messageId: this.reasoning });
    for (const toolCallId of this.openCalls) out.push({ type: 'TOOL_CALL_END', toolCallId });
    if (this.step !== undefined) out.push({ type: 'STEP_FINISHED', stepName: this.step });
    return out.map(frameAgUiEvent).join('') + agUiStoreFailureFrame(message);
  }
}

/**
 * A run as AG-UI's SSE frames, for the event log (the driver's `WireEncoder`): `RUN_STARTED` first, each agent event's AG-UI
 * events one frame each, one terminal event last. `tail` is what closes the stream as it stands
 * if this instance dies (open messages and calls end, `RUN_ERROR instance_lost`); it changes
 * nothing.
 */
export class AgUiWire implements WireEncoder {
  private readonly encoder: AgUiEncoder;

  constructor(options: AgUiEventOptions) {
    this.encoder = new AgUiEncoder(options);
  }

  start(): string[] {
    return this.encoder.begin().map(frameAgUiEvent);
  }

  push(event: AgentEvent): string[] {
    return this.encoder.push(event).map(frameAgUiEvent);
  }

  /**
   * After the run's result: nothing when its `finish` event ended the stream (it always does);
   * a run that ended without one (a bug) says so rather than leave the client waiting.
   */
  finish(result: AgentResult): string[] {
    return this.encoder
      .end({
        code: result.error?.kind ?? result.stopReason,
        message: result.message ?? `the run stopped (${result.stopReason})`,
      })
      .map(frameAgUiEvent);
  }

  /** The server cannot go on (an encoder or the run threw): the stream ends with `server_error`. */
  failure(message: string): string[] {
    return this.encoder.end({ code: 'server_error', message }).map(frameAgUiEvent);
  }

  ending(message: string): string[] {
    return this.encoder.tail({ code: 'server_error', message }).map(frameAgUiEvent);
  }

  tail(): string[] {
    return this.encoder.tail(AG_UI_INSTANCE_LOST).map(frameAgUiEvent);
  }
}
