/**
 * The Node server under the apps bounds what a client may take before the app sees its request:
 * a client that sends its headers a byte at a time loses its socket instead of holding it.
 */
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  HEADERS_TIMEOUT_MS,
  REQUEST_TIMEOUT_MS,
  type RunningServer,
  startServer,
} from '../../src/http/node-server.ts';

let running: RunningServer | undefined;

afterEach(async () => {
  await running?.close();
  running = undefined;
});

function helloApp() {
  return { app: { fetch: () => new Response('hello') }, close: () => {} };
}

describe('startServer', () => {
  it('has Node wait less than its defaults (60 s for headers, 300 s for a request)', () => {
    expect(HEADERS_TIMEOUT_MS).toBeLessThan(60_000);
    expect(REQUEST_TIMEOUT_MS).toBeLessThan(300_000);
  });

  it('closes a socket whose headers never finish', async () => {
    running = await startServer(helloApp() as never, {
      port: 0,
      host: '127.0.0.1',
      headersTimeoutMs: 200,
      requestTimeoutMs: 400,
    });
    const socket = connect(running.port, '127.0.0.1');
    const closed = new Promise<string>((resolve) => {
      let received = '';
      socket.on('data', (data) => {
        received += data.toString('latin1');
      });
      socket.on('close', () => resolve(received));
      socket.on('error', () => {});
    });
    socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    // One more header byte now and then, never the blank line that ends them.
    const drip = setInterval(() => {
      if (!socket.destroyed) socket.write('X');
    }, 50);
    try {
      const received = await closed;
      expect(received).toMatch(/^HTTP\/1\.1 408/);
    } finally {
      clearInterval(drip);
      socket.destroy();
    }
  });
});
