import type { DecodedEvent } from '../../src/stream/blocks.ts';
import { createBlockDecoder } from '../../src/stream/decoder.ts';

/** How one response's body ended: closed by the server, or broken (`reason`). */
export type BodyEnd =
  | { readonly broken: false }
  | { readonly broken: true; readonly reason: string };

/**
 * Reads a run's content-block stream over one or more responses with one incremental decoder,
 * handing over events as each network chunk completes them. After a response that stopped
 * short, `dropPartialMessage` forgets the message it was cut off in; the next response, read
 * after `lastEventId`, then continues the same stream, and what is shown is what one unbroken
 * read shows. `end` is for the real end of the stream only (it closes what is left open).
 */
export class RunStreamReader {
  private readonly decoder = createBlockDecoder();

  /** The id of the last complete event read (what a reconnect reads after). */
  get lastEventId(): string | undefined {
    return this.decoder.lastEventId;
  }

  /** Reads one response's body to its end; never throws for a broken connection. */
  async read(response: Response, onEvents: (events: DecodedEvent[]) => void): Promise<BodyEnd> {
    if (!response.body) return { broken: true, reason: 'the response has no body' };
    const reader = response.body.getReader();
    try {
      while (true) {
        const { done, value } = await reader.read();
        if (done) return { broken: false };
        const events = this.decoder.push(value);
        if (events.length > 0) onEvents(events);
      }
    } catch (error) {
      return { broken: true, reason: (error as Error)?.message || String(error) };
    } finally {
      reader.releaseLock();
    }
  }

  /** The connection stopped short: the next response continues after `lastEventId`. */
  dropPartialMessage(): void {
    this.decoder.dropPartialMessage();
  }

  /** The stream is over: what was left open is reported (unclosed block…). */
  end(onEvents: (events: DecodedEvent[]) => void): void {
    const rest = this.decoder.end();
    if (rest.length > 0) onEvents(rest);
  }
}

/**
 * An event after which the server sends nothing more: the run completed, waits for answers, or
 * stopped in an error. A call the model wrote malformed is an error block too, but the run
 * goes on after it.
 */
export function endsStream(event: DecodedEvent): boolean {
  if (event.type === 'meta-final' || event.type === 'awaiting-frontend-tools') return true;
  if (event.type !== 'error') return false;
  const { error } = event;
  const kind =
    typeof error === 'object' && error !== null && !Array.isArray(error)
      ? (error as { readonly type?: unknown }).type
      : undefined;
  return kind !== 'malformed_call';
}
