import type { AgentEvent, AgentResult } from '../agent/index.ts';
import { BlockEncoder, type BlockEvent, type MetaInitData } from '../stream/index.ts';
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
    // A copy: closing the block must not change the encoder that goes on writing.
    const copy: BlockEncoder = Object.assign(
      Object.create(Object.getPrototypeOf(this.encoder) as object) as BlockEncoder,
      this.encoder,
    );
    return [copy.end(), new BlockEncoder().encode(INSTANCE_LOST_ERROR)].filter(nonEmpty);
  }

  failure(message: string): string[] {
    return [
      this.encoder.end(),
      new BlockEncoder().encode({ type: 'error', error: { type: 'server_error', message } }),
    ].filter(nonEmpty);
  }

  private encode(events: readonly BlockEvent[]): string[] {
    return events.map((event) => this.encoder.encode(event)).filter(nonEmpty);
  }
}

function nonEmpty(frame: string): boolean {
  return frame.length > 0;
}
