import { SSE_HEADERS } from '../stream/sse.ts';

/** The headers of a Server-Sent Events response (for servers that write their own). */
export { SSE_HEADERS };

/**
 * A streamed response of Server-Sent Events: the body as it comes, with the headers that keep
 * caches and buffering proxies from holding it back. The framing of each event is the caller's
 * (`frameSse`, or an API's own `event:`/`data:` lines); `headers` adds to the SSE ones.
 */
export function sseResponse(
  body: ReadableStream<Uint8Array>,
  headers: Readonly<Record<string, string>> = {},
): Response {
  return new Response(body, { headers: { ...SSE_HEADERS, ...headers } });
}
