/**
 * The proxy bench's floor: a proxy on the same stack as toolwire's (Hono, served by
 * @hono/node-server through the same `startServer`) that forwards `POST /v1/chat/completions` to
 * the model server as it came and streams the reply back untouched. It reads nothing of either
 * body, so what toolwire's proxy costs beyond it is what reading requests and replies costs.
 */
import { Hono } from 'hono';

export interface PassThroughApp {
  readonly app: Hono;
  close(): void;
}

/** `upstream`: the model server's base URL, `http://host:port/v1`. */
export function createPassThroughApp(upstream: string): PassThroughApp {
  const base = upstream.replace(/\/+$/, '');
  const app = new Hono();
  app.post('/v1/chat/completions', async (c) => {
    // The body as bytes, like toolwire's proxy reads it, so both send the server a sized body.
    const body = await c.req.arrayBuffer();
    const authorization = c.req.header('authorization');
    const reply = await fetch(`${base}/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(authorization === undefined ? {} : { authorization }),
      },
      body,
      // A client that leaves cancels the upstream request, as with toolwire's proxy.
      signal: c.req.raw.signal,
    });
    return new Response(reply.body, {
      status: reply.status,
      headers: {
        'content-type': reply.headers.get('content-type') ?? 'application/json',
        'cache-control': 'no-cache',
      },
    });
  });
  // Closing the server closes its connections, which cancels what they were streaming.
  return { app, close() {} };
}
