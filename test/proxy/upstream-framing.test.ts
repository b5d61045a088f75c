/**
 * A model server's stream reads the same however it frames its events: one per network read
 * (which the proxy reads without its SSE parser), split anywhere, several in one read, CRLF line
 * ends, other fields and comments, `data:` without its space.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer } from '../../src/http/node-server.ts';
import type { RunningServer } from '../../src/proxy/index.ts';
import { createProxyApp } from '../../src/proxy/index.ts';
import { joinedChatStream } from './harness.ts';

const TOKENS = ['Hel', 'lo, ', 'wor', 'ld ', '"quoted"', ' \\ ', 'é😀', '.'];

const chunk = (content: string | undefined, finish: string | null = null) =>
  JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta: content === undefined ? {} : { content }, finish_reason: finish }],
  });

/** The events' data, in order: the text, then the finish and [DONE]. */
const DATA = [...TOKENS.map((token) => chunk(token)), chunk(undefined, 'stop'), '[DONE]'];

/** Ways to frame the events as the network reads they are written in. */
const FRAMINGS: Record<string, () => string[]> = {
  'one event per read': () => DATA.map((data) => `data: ${data}\n\n`),
  'split in the middle of lines': () => {
    const text = DATA.map((data) => `data: ${data}\n\n`).join('');
    return Array.from({ length: Math.ceil(text.length / 37) }, (_, i) =>
      text.slice(i * 37, i * 37 + 37),
    );
  },
  'several events in a read': () => [
    DATA.slice(0, 3)
      .map((data) => `data: ${data}\n\n`)
      .join(''),
    ...DATA.slice(3).map((data) => `data: ${data}\n\n`),
  ],
  'CRLF line ends': () => DATA.map((data) => `data: ${data}\r\n\r\n`),
  'other fields and comments': () =>
    DATA.map((data, i) => `: keep-alive\nid: ${i}\nevent: message\ndata: ${data}\n\n`),
  'data: without its space': () => DATA.map((data) => `data:${data}\n\n`),
  'an event and the start of the next in a read': () => {
    const events = DATA.map((data) => `data: ${data}\n\n`);
    return events.map((event, i) =>
      i === 0 ? event + events[1]!.slice(0, 10) : i === 1 ? event.slice(10) : event,
    );
  },
};

let upstream: Server | undefined;
let proxy: RunningServer | undefined;
afterEach(async () => {
  await proxy?.close();
  upstream?.closeAllConnections();
  await new Promise<void>((resolve) => (upstream ? upstream.close(() => resolve()) : resolve()));
  upstream = undefined;
  proxy = undefined;
});

async function serveFraming(
  reads: readonly string[],
  limits: { maxUpstreamEventBytes?: number } = {},
): Promise<string> {
  upstream = createServer((request, response) => {
    request.resume();
    request.on('end', async () => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const read of reads) {
        response.write(read);
        // Apart in time, so they mostly arrive as reads of their own.
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      response.end();
    });
  });
  await new Promise<void>((resolve) => upstream!.listen(0, '127.0.0.1', () => resolve()));
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;
  proxy = await startServer(createProxyApp({ upstream: url, protocol: 'hermes', limits }), {
    port: 0,
    host: '127.0.0.1',
  });
  return proxy.url;
}

describe('a streamed reply framed any way', () => {
  for (const [name, reads] of Object.entries(FRAMINGS)) {
    it(`reads the same text: ${name}`, async () => {
      const url = await serveFraming(reads());
      const response = await fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'm',
          stream: true,
          messages: [{ role: 'user', content: 'Hi' }],
        }),
      });
      expect(response.status).toBe(200);
      const sse = await response.text();
      expect(joinedChatStream(sse).content).toBe(TOKENS.join(''));
      expect(sse).toContain('"finish_reason":"stop"');
      expect(sse.trimEnd().endsWith('data: [DONE]')).toBe(true);
    });
  }

  for (const [name, split] of [
    ['in one read', false],
    ['over two reads', true],
  ] as const)
    it(`reads an event longer than the buffer limit that arrives with its end, ${name}, the same way`, async () => {
      const long = `data: ${chunk('x'.repeat(3000))}\n\n`;
      const url = await serveFraming(split ? [long.slice(0, 1000), long.slice(1000)] : [long], {
        maxUpstreamEventBytes: 1024,
      });
      const response = await fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'm',
          stream: true,
          messages: [{ role: 'user', content: 'Hi' }],
        }),
      });
      // The limit bounds what is held waiting for an event's end (limits.test.ts); an event
      // whose end came with it is read, whether the fast path or the parser reads it.
      expect(joinedChatStream(await response.text()).content).toBe('x'.repeat(3000));
    });
});
