import type { AgentEvent, AgentResult } from '../agent/index.ts';
import { BlockEncoder, type BlockEvent, frameSse, type MetaInitData } from '../stream/index.ts';
import { TAG } from '../stream/tags.ts';
import type { AgentBlockAdapter } from './agent-blocks.ts';
import type { WireEncoder } from './wire-encoder.ts';

/** What a lost instance's run ends with, after the blocks it left open are closed. */
const INSTANCE_LOST_ERROR: BlockEvent = {
  type: 'error',
  error: {
    type: 'instance_lost',
    message:
      'the server instance running this run stopped answering (its lease ran out); the run is over',
  },
};

/** The content-block stream as a run's wire format: `meta_init`, the adapter's blocks, the end. */
export class BlocksWire implements WireEncoder {
  private readonly encoder = new BlockEncoder();
  private readonly adapter: AgentBlockAdapter;
  private readonly meta: MetaInitData;

  constructor(options: { readonly adapter: AgentBlockAdapter; readonly meta: MetaInitData }) {
    this.adapter = options.adapter;
    this.meta = options.meta;
  }

  start(): string[] {
    return this.encode([{ type: 'meta-init', data: this.meta }]);
  }

  push(event: AgentEvent): string[] {
    return this.encode(this.adapter.push(event));
  }

  finish(result: AgentResult): string[] {
    return [...this.encode(this.adapter.finish(result)), this.encoder.end()].filter(nonEmpty);
  }

  tail(): string[] {
    return [this.copyOfEncoder().end(), new BlockEncoder().encode(INSTANCE_LOST_ERROR)].filter(
      nonEmpty,
    );
  }

  failure(message: string): string[] {
    return failureFrames(this.encoder, message);
  }

  ending(message: string): string[] {
    return failureFrames(this.copyOfEncoder(), message);
  }

  /** A copy: closing the block must not change the encoder that goes on writing. */
  private copyOfEncoder(): BlockEncoder {
    return Object.assign(
      Object.create(Object.getPrototypeOf(this.encoder) as object) as BlockEncoder,
      this.encoder,
    );
  }

  private encode(events: readonly BlockEvent[]): string[] {
    return events.map((event) => this.encoder.encode(event)).filter(nonEmpty);
  }
}

/** The open block closed by `encoder`, then a `server_error` saying `message`. */
function failureFrames(encoder: BlockEncoder, message: string): string[] {
  return [
    encoder.end(),
    new BlockEncoder().encode({ type: 'error', error: { type: 'server_error', message } }),
  ].filter(nonEmpty);
}

function nonEmpty(frame: string): boolean {
  return frame.length > 0;
}

const LESS_THAN = 0x3c;
const GREATER_THAN = 0x3e;
const SPACE = 0x20;

/** The blocks a frame may leave open: their start tag is a frame of its own. */
const STREAMED_BLOCK_TAGS = [TAG.thinking, TAG.text, TAG.toolCall, TAG.serverToolCall];

/**
 * What a reader of a content-block log has open, from the frames it was sent (a reader on any
 * instance has only those), so a store failure mid-read ends its stream well formed: the open
 * block closed, then the `store_unavailable` error. The encoder writes a streamed block's start
 * tag as a frame of its own and its end tag as another (attribute values are escaped, so an
 * end tag is never inside a start tag).
 */
export class BlocksReadFailure {
  private openTag: string | undefined;

  /**
   * Notes a frame sent to the reader. Every frame of every reader comes here, deltas of any
   * length among them: only a frame's first characters are looked at, and a start tag's frame
   * (short) is the only one searched for an end tag.
   */
  sent(frame: string): void {
    const at = frame.startsWith('data: ') ? 6 : 0;
    if (frame.startsWith('</', at)) {
      this.openTag = undefined;
      return;
    }
    for (const tag of STREAMED_BLOCK_TAGS) {
      if (!frame.startsWith(tag, at + 1) || frame.charCodeAt(at) !== LESS_THAN) continue;
      const after = frame.charCodeAt(at + 1 + tag.length);
      // `<content-block-text>` opens; `<content-block-tool_call … ></content-block-tool_call>` is whole.
      if ((after === GREATER_THAN || after === SPACE) && !frame.includes('</', at)) {
        this.openTag = tag;
      }
      return;
    }
  }

  /** The frames that end the reader's stream: the open block closed, then the error. */
  frame(message: string): string {
    const close = this.openTag === undefined ? '' : frameSse(`</${this.openTag}>`);
    return (
      close +
      new BlockEncoder().encode({ type: 'error', error: { type: 'store_unavailable', message } })
    );
  }
}
