import type { ReplyEvent } from './reply-events.ts';

/**
 * Joins neighbouring deltas of one kind (text, reasoning, one call's arguments) in a batch, so a
 * client gets one message per run of them instead of one per parser event.
 */
export function coalesce(events: readonly ReplyEvent[]): ReplyEvent[] {
  const out: ReplyEvent[] = [];
  for (const event of events) {
    const last = out[out.length - 1];
    if (last !== undefined && last.type === event.type) {
      if (event.type === 'text' || event.type === 'reasoning') {
        out[out.length - 1] = {
          type: event.type,
          delta: (last as typeof event).delta + event.delta,
        };
        continue;
      }
      if (event.type === 'call-delta' && (last as typeof event).id === event.id) {
        out[out.length - 1] = { ...event, delta: (last as typeof event).delta + event.delta };
        continue;
      }
    }
    out.push(event);
  }
  return out;
}
