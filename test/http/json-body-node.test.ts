/**
 * readJsonBody on Node's own request (what the proxy reads when Node serves it): the same limits
 * as on a web request, with the body's bytes as the client sends them.
 */
import { createServer, type IncomingMessage, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpError } from '../../src/http/http-error.ts';
import { type JsonBodyLimits, readJsonBody } from '../../src/http/json-body.ts';

const LIMITS: JsonBodyLimits = { maxBytes: 1024, maxDepth: 8, maxValues: 1000, timeoutMs: 5000 };

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** What the server made of each body: the parsed value, or the refusal's status and message. */
type Outcome = { body: unknown; values: number } | { status: number; message: string };

async function serve(limits: JsonBodyLimits): Promise<{ port: number; outcomes: Outcome[] }> {
  const outcomes: Outcome[] = [];
  let notify: (() => void) | undefined;
  server = createServer((incoming: IncomingMessage, outgoing) => {
    readJsonBody(incoming, limits).then(
      (read) => {
        outcomes.push(read);
        outgoing.end('ok');
      },
      (error: unknown) => {
        const refused = error as HttpError;
        expect(HttpError.isInstance(refused)).toBe(true);
        outcomes.push({ status: refused.status, message: refused.message });
        outgoing.statusCode = refused.status;
        outgoing.end(refused.message);
      },
    );
    notify?.();
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', () => resolve()));
  return { port: (server.address() as AddressInfo).port, outcomes };
}

/** Sends the body in the pieces given, `gapMs` apart; resolves with the answer's status and text. */
function send(
  port: number,
  pieces: readonly string[],
  options: { gapMs?: number; headers?: Record<string, string>; abortAfter?: number } = {},
): Promise<{ status: number; text: string } | 'aborted'> {
  return new Promise((resolve, reject) => {
    const sent = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/',
        headers: { 'content-type': 'application/json', ...options.headers },
      },
      (answer) => {
        let text = '';
        answer.setEncoding('utf8');
        answer.on('data', (part: string) => {
          text += part;
        });
        answer.on('end', () => resolve({ status: answer.statusCode ?? 0, text }));
      },
    );
    sent.on('error', (error) =>
      options.abortAfter === undefined ? reject(error) : resolve('aborted'),
    );
    let at = 0;
    const next = () => {
      if (options.abortAfter !== undefined && at === options.abortAfter) {
        sent.destroy();
        return;
      }
      const piece = pieces[at++];
      if (piece === undefined) {
        sent.end();
        return;
      }
      sent.write(piece);
      setTimeout(next, options.gapMs ?? 0);
    };
    next();
  });
}

const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
};

describe('readJsonBody from a Node request', () => {
  it('reads a body sent in pieces (chunked, no Content-Length)', async () => {
    const { port, outcomes } = await serve(LIMITS);
    const answer = await send(port, ['{"a":', '[1,2', ',3]}']);
    expect(answer).toEqual({ status: 200, text: 'ok' });
    expect(outcomes).toEqual([{ body: { a: [1, 2, 3] }, values: 6 }]);
  });

  it('refuses a body larger than maxBytes as its bytes arrive (413), and by its Content-Length', async () => {
    const { port, outcomes } = await serve(LIMITS);
    const piece = `"${'x'.repeat(400)}",`;
    const answer = await send(port, ['[', piece, piece, piece, '1]']);
    expect(answer).toMatchObject({ status: 413 });
    expect(outcomes[0]).toEqual({
      status: 413,
      message: 'the body is larger than 1024 bytes, the most this server reads',
    });
    const declared = await send(port, ['[]'], { headers: { 'content-length': '2000' } }).catch(
      () => 'refused before the body',
    );
    expect(
      declared === 'refused before the body' || (declared as { status: number }).status === 413,
    ).toBe(true);
  });

  it('gives the body timeoutMs to arrive in whole (408)', async () => {
    const { port, outcomes } = await serve({ ...LIMITS, timeoutMs: 60 });
    const answer = await send(port, ['[', '1', ',', '2', ']'], { gapMs: 40 });
    expect(answer).toMatchObject({ status: 408 });
    expect(outcomes[0]).toEqual({ status: 408, message: 'the body did not arrive within 0.06 s' });
  });

  it('tells a body the client broke off (400), without waiting for the timeout', async () => {
    const { port, outcomes } = await serve(LIMITS);
    const started = Date.now();
    expect(await send(port, ['[1,', '2,'], { gapMs: 20, abortAfter: 2 })).toBe('aborted');
    await until(() => outcomes.length > 0);
    expect(outcomes[0]).toMatchObject({ status: 400 });
    expect((outcomes[0] as { message: string }).message).toMatch(/^the body could not be read: /);
    expect(Date.now() - started).toBeLessThan(LIMITS.timeoutMs!);
  });
});
