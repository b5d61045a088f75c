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

  /** Notes a frame sent to the reader. */
  sent(frame: string): void {
    const xml = frame.startsWith('data: ') ? frame.slice(6) : frame;
    if (xml.startsWith('</')) {
      this.openTag = undefined;
      return;
    }
    if (!xml.startsWith('<') || xml.includes('</')) return;
    const name = xml.slice(1).split(/[\s>]/, 1)[0];
    const tag = STREAMED_BLOCK_TAGS.find((candidate) => candidate === name);
    if (tag !== undefined) this.openTag = tag;
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
