import type { DecodedEvent } from '../../src/stream/blocks.ts';
import { createBlockDecoder } from '../../src/stream/decoder.ts';

/**
 * Reads a response body through the incremental decoder, handing over events as each network
 * chunk completes them. Throws when the connection breaks (the events read so far are kept).
 */
export async function readBlockStream(
  response: Response,
  onEvents: (events: DecodedEvent[]) => void,
): Promise<void> {
  if (!response.body) throw new Error('the response has no body');
  const decoder = createBlockDecoder();
  const reader = response.body.getReader();
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      const events = decoder.push(value);
      if (events.length > 0) onEvents(events);
    }
  } finally {
    // What was left open is reported (unclosed block…), on a clean end and a broken one alike.
    const rest = decoder.end();
    if (rest.length > 0) onEvents(rest);
    reader.releaseLock();
  }
}
