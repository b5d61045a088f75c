/**
 * The floor a tool-call parser is measured against: the least a reader of hermes text can do.
 * It finds `<tool_call>`, finds `</tool_call>`, and `JSON.parse`s what lies between; the text
 * outside calls comes out as it is. It streams arguments not at all, checks no schema, recovers
 * from nothing, and handles none of a real model's variations: a parser that is close to it has
 * little left to shave.
 *
 * Streamed, it holds back only what could be the start of the marker it looks for, and searches
 * each chunk with the marker's length less one before it, so its work is linear in the text at
 * every chunk size (a string grown by `+=` and searched from the start would be quadratic).
 */

export const FLOOR_OPEN = '<tool_call>';
export const FLOOR_CLOSE = '</tool_call>';

export type FloorEvent =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'tool-call'; readonly toolName: string; readonly input: string };

interface HermesCall {
  readonly name?: unknown;
  readonly arguments?: unknown;
}

function callEvent(body: string): FloorEvent {
  const call = JSON.parse(body) as HermesCall;
  return {
    type: 'tool-call',
    toolName: String(call.name),
    input: JSON.stringify(call.arguments ?? {}),
  };
}

/** How many of `text`'s last characters are a proper prefix of `marker` (0 when none). */
function partialMarkerAtEnd(text: string, marker: string): number {
  const from = Math.max(0, text.length - marker.length + 1);
  const first = marker.charCodeAt(0);
  for (let start = from; start < text.length; start++) {
    if (text.charCodeAt(start) === first && marker.startsWith(text.slice(start)))
      return text.length - start;
  }
  return 0;
}

/** The whole text at once: one `indexOf` for each marker, one `JSON.parse` for each call. */
export function floorParse(text: string): FloorEvent[] {
  const events: FloorEvent[] = [];
  let position = 0;
  for (;;) {
    const open = text.indexOf(FLOOR_OPEN, position);
    if (open < 0) break;
    const bodyStart = open + FLOOR_OPEN.length;
    const close = text.indexOf(FLOOR_CLOSE, bodyStart);
    if (close < 0) break;
    if (open > position) events.push({ type: 'text', text: text.slice(position, open) });
    events.push(callEvent(text.slice(bodyStart, close)));
    position = close + FLOOR_CLOSE.length;
  }
  if (position < text.length) events.push({ type: 'text', text: text.slice(position) });
  return events;
}

/** The same reader fed in chunks: events per chunk, as a stream parser returns them. */
export class FloorStreamReader {
  /** Outside a call: the end of the text that may begin `<tool_call>`. */
  private held = '';
  private inCall = false;
  /** Inside a call: the body so far, in pieces, joined once at its close. */
  private body: string[] = [];
  /** Inside a call: the body's last characters that may begin `</tool_call>`. */
  private bodyTail = '';

  push(chunk: string): FloorEvent[] {
    const events: FloorEvent[] = [];
    let rest = chunk;
    while (rest.length > 0)
      rest = this.inCall ? this.readBody(rest, events) : this.readText(rest, events);
    return events;
  }

  end(): FloorEvent[] {
    const left = this.inCall ? FLOOR_OPEN + this.body.join('') + this.bodyTail : this.held;
    this.held = '';
    this.body = [];
    this.bodyTail = '';
    this.inCall = false;
    return left.length > 0 ? [{ type: 'text', text: left }] : [];
  }

  private readText(chunk: string, events: FloorEvent[]): string {
    const text = this.held + chunk;
    const open = text.indexOf(FLOOR_OPEN);
    if (open >= 0) {
      if (open > 0) events.push({ type: 'text', text: text.slice(0, open) });
      this.held = '';
      this.inCall = true;
      return text.slice(open + FLOOR_OPEN.length);
    }
    const keep = partialMarkerAtEnd(text, FLOOR_OPEN);
    if (text.length > keep) events.push({ type: 'text', text: text.slice(0, text.length - keep) });
    this.held = keep > 0 ? text.slice(text.length - keep) : '';
    return '';
  }

  private readBody(chunk: string, events: FloorEvent[]): string {
    const text = this.bodyTail + chunk;
    const close = text.indexOf(FLOOR_CLOSE);
    if (close >= 0) {
      this.body.push(text.slice(0, close));
      events.push(callEvent(this.body.join('')));
      this.body = [];
      this.bodyTail = '';
      this.inCall = false;
      return text.slice(close + FLOOR_CLOSE.length);
    }
    const keep = partialMarkerAtEnd(text, FLOOR_CLOSE);
    if (text.length > keep) this.body.push(text.slice(0, text.length - keep));
    this.bodyTail = keep > 0 ? text.slice(text.length - keep) : '';
    return '';
  }
}

/** Every chunk through one FloorStreamReader, then its end; the events of all of them. */
export function floorStream(chunks: readonly string[]): FloorEvent[] {
  const reader = new FloorStreamReader();
  const events: FloorEvent[] = [];
  for (const chunk of chunks) for (const event of reader.push(chunk)) events.push(event);
  for (const event of reader.end()) events.push(event);
  return events;
}
