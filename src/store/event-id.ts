/**
 * Event ids as Redis Streams write them, `MS-SEQ` (two whole numbers), made the same way by the
 * memory store, so a client's `Last-Event-ID` means the same thing whichever store wrote it.
 */

export interface EventId {
  readonly ms: number;
  readonly seq: number;
}

const DIGITS = /^[0-9]{1,16}$/;

/** The id in `text`, or undefined when it is not one (a client's header is untrusted). */
export function parseEventId(text: string): EventId | undefined {
  const dash = text.indexOf('-');
  if (dash === -1) return undefined;
  const ms = text.slice(0, dash);
  const seq = text.slice(dash + 1);
  if (!DIGITS.test(ms) || !DIGITS.test(seq)) return undefined;
  const id = { ms: Number(ms), seq: Number(seq) };
  return Number.isSafeInteger(id.ms) && Number.isSafeInteger(id.seq) ? id : undefined;
}

export function formatEventId(id: EventId): string {
  return `${id.ms}-${id.seq}`;
}

/** Negative, zero or positive as `a` comes before, with or after `b`. */
export function compareEventIds(a: EventId, b: EventId): number {
  return a.ms === b.ms ? a.seq - b.seq : a.ms - b.ms;
}

/**
 * Whether the id `a` comes before `b`, both as text (Redis's own ids); text that is not an id
 * comes before anything it differs from, so a waiter holding one is woken rather than stuck.
 */
export function isEventIdBefore(a: string, b: string): boolean {
  const left = parseEventId(a);
  const right = parseEventId(b);
  if (left === undefined || right === undefined) return a !== b;
  return compareEventIds(left, right) < 0;
}

/** The id after `last` at time `now`: a later millisecond, or the next number in the same one. */
export function nextEventId(last: EventId | undefined, now: number): EventId {
  if (last === undefined || now > last.ms) return { ms: now, seq: 0 };
  return { ms: last.ms, seq: last.seq + 1 };
}
