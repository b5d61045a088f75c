/**
 * Server-Sent Events framing for the encoder: one payload becomes one message, one `data:` line
 * per line of the payload, ended by a blank line. A reader joins the lines with `\n`, so newlines
 * survive. The space after `data:` is always written, because a reader strips exactly one, and a
 * payload line that itself starts with a space keeps it.
 */
export function frameSse(payload: string): string {
  if (payload.includes('\r'))
    throw new TypeError(
      'frameSse: SSE cannot carry a carriage return inside data; escape it first (the block encoder writes &#13;)',
    );
  return `data: ${payload.replaceAll('\n', '\ndata: ')}\n\n`;
}

/** Response headers for an SSE body (no `Connection`: HTTP/2 forbids it, servers add it). */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  // Proxies such as nginx otherwise buffer the stream and the page sees nothing until the end.
  'x-accel-buffering': 'no',
};
