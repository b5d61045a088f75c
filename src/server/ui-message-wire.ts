import type { AgentEvent, AgentResult } from '../agent/index.ts';
import {
  frameUIMessageChunk,
  UI_MESSAGE_STREAM_DONE,
  UIMessageChunkEncoder,
  type UIMessageStreamOptions,
  UNFINISHED_CALL,
} from '../agent/ui/ui-message-stream.ts';
import { framedEvent, type ReadFailure } from './log-stream.ts';
import type { WireEncoder } from './wire-encoder.ts';

/** What a lost instance's run ends with in the UI message stream. */
export const INSTANCE_LOST_TEXT =
  'the server instance running this run stopped answering (its lease ran out); the run is over';

/**
 * A run as the UI message stream's SSE frames, for the event log: `start` first, each agent
 * event's chunks, one frame each, and `data: [DONE]` after the last. `tail` and `failure` say
 * what closes the stream as it stands (open parts end, an `error`, `[DONE]`): `tail` if this
 * instance dies (it changes nothing, the run may go on), `failure` when the server cannot go on.
 */
export class UIMessageWire implements WireEncoder {
  private readonly encoder: UIMessageChunkEncoder;
  private readonly messageId: string;
  private doneSent = false;

  /** `messageId`: the run's (a resumed run repeats it, with its pending calls as `resumedCalls`). */
  constructor(options: UIMessageStreamOptions) {
    this.encoder = new UIMessageChunkEncoder(options);
    this.messageId = options.messageId;
  }

  /** The stream's first frame, `start`, written before the run's first event. */
  start(): string[] {
    return [frameUIMessageChunk({ type: 'start', messageId: this.messageId })];
  }

  push(event: AgentEvent): string[] {
    const chunks = this.encoder.push(event);
    // `start` went out with `start()`.
    const frames = (
      event.type === 'run-start' ? chunks.filter((c) => c.type !== 'start') : chunks
    ).map(frameUIMessageChunk);
    if (this.encoder.done && !this.doneSent) {
      this.doneSent = true;
      frames.push(UI_MESSAGE_STREAM_DONE);
    }
    return frames;
  }

  /**
   * After the run's result: nothing when its `finish` event ended the stream (it always does);
   * a run that ended without one says so rather than leave the client waiting.
   */
  finish(result: AgentResult): string[] {
    return this.failure(result.message ?? `the run stopped (${result.stopReason})`);
  }

  tail(): string[] {
    if (this.doneSent) return [];
    return [
      ...this.encoder.tail(INSTANCE_LOST_TEXT).map(frameUIMessageChunk),
      UI_MESSAGE_STREAM_DONE,
    ];
  }

  /** Ends the stream with an error saying why (the server could not go on); once. */
  failure(message: string): string[] {
    const frames = this.ending(message);
    this.doneSent = true;
    return frames;
  }

  ending(message: string): string[] {
    if (this.doneSent) return [];
    return [...this.encoder.tail(message).map(frameUIMessageChunk), UI_MESSAGE_STREAM_DONE];
  }
}

/** The chunks that open or close a part, as `UIMessageReadFailure` follows them. */
const PART_CHUNKS = new Set([
  'text-start',
  'text-end',
  'reasoning-start',
  'reasoning-end',
  'tool-input-start',
  'tool-input-available',
  'tool-input-error',
  'tool-output-available',
  'tool-output-error',
]);

/**
 * What a reader of a UI message stream log has open, from the frames it was sent (a reader on
 * any instance has only those), so that a store failure mid-read ends its message complete, as
 * the encoder's own `tail` would: open text and reasoning parts end, a call whose input was
 * streaming gets an error, then the `error` and `[DONE]`. Nothing after `[DONE]`.
 */
export class UIMessageReadFailure implements ReadFailure {
  private readonly texts = new Set<string>();
  private readonly reasonings = new Set<string>();
  private readonly streamingCalls = new Set<string>();
  private done = false;

  sent(frame: string): void {
    if (frame === UI_MESSAGE_STREAM_DONE) {
      this.done = true;
      return;
    }
    const chunk = framedEvent(frame, PART_CHUNKS);
    if (chunk === undefined) return;
    const id = typeof chunk.id === 'string' ? chunk.id : undefined;
    const callId = typeof chunk.toolCallId === 'string' ? chunk.toolCallId : undefined;
    switch (chunk.type) {
      case 'text-start':
        if (id !== undefined) this.texts.add(id);
        break;
      case 'text-end':
        if (id !== undefined) this.texts.delete(id);
        break;
      case 'reasoning-start':
        if (id !== undefined) this.reasonings.add(id);
        break;
      case 'reasoning-end':
        if (id !== undefined) this.reasonings.delete(id);
        break;
      case 'tool-input-start':
        if (callId !== undefined) this.streamingCalls.add(callId);
        break;
      default:
        // Its input is whole, or it has its output: the call's part is no longer streaming.
        if (callId !== undefined) this.streamingCalls.delete(callId);
    }
  }

  frame(message: string): string {
    if (this.done) return '';
    return [
      ...[...this.texts].map((id) => frameUIMessageChunk({ type: 'text-end', id })),
      ...[...this.reasonings].map((id) => frameUIMessageChunk({ type: 'reasoning-end', id })),
      ...[...this.streamingCalls].map((toolCallId) =>
        frameUIMessageChunk({
          type: 'tool-output-error',
          toolCallId,
          errorText: UNFINISHED_CALL,
          dynamic: true,
        }),
      ),
      frameUIMessageChunk({ type: 'error', errorText: message }),
      UI_MESSAGE_STREAM_DONE,
    ].join('');
  }
}
