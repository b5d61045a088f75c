/**
 * A caller's fetch as the proxy's transport: the body hands over its chunks, holds while paused,
 * and a cancel ends the reading, paused or not.
 */
import { describe, expect, it } from 'vitest';
import { fetchTransport } from '../../src/proxy/upstream-transport.ts';

/** A fetch whose reply body gives the chunks pushed into it. */
function scriptedFetch() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({
    start(given) {
      controller = given;
    },
  });
  const fetch = (async () =>
    new Response(body, {
      headers: { 'content-type': 'text/event-stream' },
    })) as typeof globalThis.fetch;
  return {
    fetch,
    push: (text: string) => controller.enqueue(new TextEncoder().encode(text)),
    end: () => controller.close(),
  };
}

const turns = async (count = 5) => {
  for (let i = 0; i < count; i++) await new Promise((resolve) => setImmediate(resolve));
};

async function open(fetch: typeof globalThis.fetch) {
  return fetchTransport(fetch).send({
    url: 'http://127.0.0.1:1/v1/chat/completions',
    method: 'POST',
    headers: {},
    body: '{}',
    signal: new AbortController().signal,
  });
}

describe('fetchTransport', () => {
  it('hands over each chunk, holds while paused, and ends with the body', async () => {
    const server = scriptedFetch();
    const response = await open(server.fetch);
    expect(response.status).toBe(200);
    expect(response.header('content-type')).toBe('text/event-stream');
    const seen: string[] = [];
    const done = response.body.forEach((chunk) => {
      seen.push(new TextDecoder().decode(chunk));
    });
    server.push('a');
    await turns();
    expect(seen).toEqual(['a']);
    // The read already waiting delivers its chunk; nothing after it until resume.
    response.body.pause();
    server.push('b');
    server.push('c');
    await turns();
    expect(seen).toEqual(['a', 'b']);
    response.body.resume();
    await turns();
    expect(seen).toEqual(['a', 'b', 'c']);
    server.end();
    await done;
  });

  it('ends a paused reading when cancelled', async () => {
    const server = scriptedFetch();
    const response = await open(server.fetch);
    const seen: string[] = [];
    const done = response.body.forEach((chunk) => {
      seen.push(new TextDecoder().decode(chunk));
    });
    response.body.pause();
    server.push('in flight');
    server.push('held');
    await turns();
    response.body.cancel();
    await expect(done).resolves.toBeUndefined();
    expect(seen).toEqual(['in flight']);
  });
});

describe('fetchTransport and redirects', () => {
  it('asks fetch not to follow a redirect, as the proxy’s own HTTP client does not', async () => {
    // A model server that redirects would otherwise send the proxy's key and the prompt to
    // wherever it points; the 3xx comes back as the model server's answer instead.
    const inits: RequestInit[] = [];
    const fetch = (async (_url: string, init: RequestInit) => {
      inits.push(init);
      return new Response(null, { status: 302, headers: { location: 'http://elsewhere/' } });
    }) as unknown as typeof globalThis.fetch;
    const response = await open(fetch);
    expect(inits.map((init) => init.redirect)).toEqual(['manual']);
    expect(response.status).toBe(302);
  });

  it('does not reach the place a real redirect points to', async () => {
    const { createServer } = await import('node:http');
    let reachedTarget = 0;
    const target = createServer((_request, response) => {
      reachedTarget++;
      response.end('{}');
    });
    const redirecting = createServer((_request, response) => {
      const port = (target.address() as { port: number }).port;
      response.writeHead(307, { location: `http://127.0.0.1:${port}/v1/chat/completions` });
      response.end();
    });
    try {
      await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
      await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
      const port = (redirecting.address() as { port: number }).port;
      const response = await fetchTransport(globalThis.fetch).send({
        url: `http://127.0.0.1:${port}/v1/chat/completions`,
        method: 'POST',
        headers: { authorization: 'Bearer secret' },
        body: '{}',
        signal: new AbortController().signal,
      });
      await response.body.cancel();
      expect(response.status).toBe(307);
      expect(reachedTarget).toBe(0);
    } finally {
      redirecting.closeAllConnections();
      target.closeAllConnections();
      await new Promise((resolve) => redirecting.close(resolve));
      await new Promise((resolve) => target.close(resolve));
    }
  });
});
