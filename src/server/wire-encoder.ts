import type { AgentEvent, AgentResult } from '../agent/index.ts';

/**
 * A run's wire format for its event log: the SSE messages (`data: …\n\n`, no `id:`, which the
 * log adds) a reader gets, made from the agent's events. The driver sends every frame to the
 * store; a log is read back in the format it was written in. Implemented for the content-block
 * stream (blocks-wire.ts), AG-UI (ag-ui-wire.ts) and the AI SDK's UI message stream
 * (ui-message-wire.ts).
 */
export interface WireEncoder {
  /** The stream's first frames, never empty (blocks: `meta_init`); a response reads from the first. */
  start(): string[];
  push(event: AgentEvent): string[];
  /** After the run's result: what closes the stream. */
  finish(result: AgentResult): string[];
  /**
   * What closes the stream as it stands, then `instance_lost`: written by a sweep if this
   * instance dies. Must not change the encoder (it is asked with every append).
   */
  tail(): string[];
  /** What closes the stream as it stands, then why the server cannot go on. */
  failure(message: string): string[];
  /**
   * What `failure(message)` would write now, without changing the encoder (as `tail()`): taken
   * before frames that end the stream (a pause's), for when the store then refuses them.
   */
  ending(message: string): string[];
}
