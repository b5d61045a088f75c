/**
 * A loopback pass-through between the client program and the proxy that records every exchange
 * (method, path, the request's JSON body, status, the start of the response) to a JSON-lines
 * file: when a client fails through the proxy, this shows the exact request and answer.
 * Bodies and responses are forwarded unchanged; only `host` is rewritten to the proxy's.
 */
import { appendFileSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordingTap {
  /** The tap's origin, `http://127.0.0.1:PORT` (append the same path as for the proxy). */
  origin: string;
  /** Status of each exchange, in order, with its method and path. */
  exchanges: readonly { method: string; path: string; status: number }[];
  close(): Promise<void>;
}

/** Headers worth recording: what says which API and version the client speaks. */
const RECORDED_HEADERS = [
  'content-type',
  'user-agent',
  'accept',
  'anthropic-version',
  'anthropic-beta',
  'openai-beta',
  'originator',
  'version',
  'x-stainless-package-version',
];
const RECORDED_RESPONSE_CHARS = 64 * 1024;

function picked(headers: Record<string, unknown>, names: readonly string[]) {
  const out: Record<string, unknown> = {};
  for (const name of names) if (headers[name] !== undefined) out[name] = headers[name];
  return out;
}

function parsedOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export async function startRecordingTap(target: string, logFile: string): Promise<RecordingTap> {
  const targetUrl = new URL(target);
  const exchanges: { method: string; path: string; status: number }[] = [];
  let sequence = 0;
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const number = ++sequence;
    const method = request.method ?? 'GET';
    const path = request.url ?? '/';
    const upstream = httpRequest(
      {
        host: targetUrl.hostname,
        port: targetUrl.port,
        method,
        path,
        headers: { ...request.headers, host: targetUrl.host },
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        let recorded = '';
        answer.on('data', (chunk: Buffer) => {
          if (recorded.length < RECORDED_RESPONSE_CHARS) recorded += chunk.toString('utf8');
          response.write(chunk);
        });
        answer.on('end', () => {
          response.end();
          const status = answer.statusCode ?? 0;
          exchanges.push({ method, path, status });
          appendFileSync(
            logFile,
            `${JSON.stringify({
              exchange: number,
              at: new Date().toISOString(),
              method,
              path,
              requestHeaders: picked(request.headers, RECORDED_HEADERS),
              body: body.length > 0 ? parsedOrText(body.toString('utf8')) : undefined,
              status,
              responseHeaders: picked(answer.headers, [
                'content-type',
                'x-toolwire-left-out-tools',
              ]),
              response: recorded.slice(0, RECORDED_RESPONSE_CHARS),
            })}\n`,
          );
        });
      },
    );
    upstream.on('error', (error) => {
      exchanges.push({ method, path, status: 0 });
      appendFileSync(
        logFile,
        `${JSON.stringify({ exchange: number, method, path, error: String(error) })}\n`,
      );
      if (!response.headersSent) response.writeHead(502);
      response.end();
    });
    // The client hung up before the answer ended: hang up on the proxy too.
    response.on('close', () => {
      if (!response.writableFinished) upstream.destroy();
    });
    upstream.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    exchanges,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
