/**
 * The proxy bench's floor: a plain node `http` pipe in front of the model server. Each request is
 * forwarded with `http.request` over a kept-alive `http.Agent` (same method, path under the
 * upstream's base, and the headers a model server needs), its body piped up, the reply's status,
 * headers and body piped back, none of it read. What toolwire's proxy costs beyond this is the
 * cost of being more than bytes forwarded.
 *
 * Child: node bench/pipe.ts <upstream base URL>, with an IPC channel (bench/proxy-ipc.ts).
 */
import {
  Agent,
  createServer,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
  request,
  type Server,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveBenchIpc } from './proxy-ipc.ts';

export interface RunningPipe {
  /** `http://127.0.0.1:PORT`. */
  readonly url: string;
  close(): Promise<void>;
}

/** The request headers passed up: what says what the body is and who asks. */
const FORWARDED_REQUEST_HEADERS = [
  'content-type',
  'content-length',
  'transfer-encoding',
  'accept',
  'authorization',
] as const;

function forwarded(headers: IncomingHttpHeaders, names: readonly string[]): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const name of names) {
    const value = headers[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/** Reply headers that belong to the connection they came on, not to the reply. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'date']);

/**
 * A pipe to `upstream` (the model server's base URL, `http://host:port/v1`): a request to
 * `/v1/<path>` goes to `<upstream>/<path>`.
 */
export function createPipeServer(upstream: string): Server {
  const base = new URL(upstream.replace(/\/+$/, ''));
  const prefix = base.pathname;
  const agent = new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
  const server = createServer((incoming, outgoing) => {
    const path = (incoming.url ?? '/').replace(/^\/v1(?=\/|$)/, '');
    const up = request(
      {
        host: base.hostname,
        port: base.port,
        method: incoming.method,
        path: `${prefix}${path}`,
        headers: forwarded(incoming.headers, FORWARDED_REQUEST_HEADERS),
        agent,
      },
      (reply) => {
        const headers: OutgoingHttpHeaders = {};
        for (const [name, value] of Object.entries(reply.headers))
          if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = value;
        outgoing.writeHead(reply.statusCode ?? 502, headers);
        reply.pipe(outgoing);
      },
    );
    up.on('error', () => {
      if (!outgoing.headersSent) {
        outgoing.writeHead(502, { 'content-type': 'application/json' });
        outgoing.end('{"error":{"message":"the model server did not answer"}}');
      } else outgoing.destroy();
    });
    // A client that leaves cancels the upstream request, as with the proxies.
    outgoing.on('close', () => {
      if (!outgoing.writableFinished) up.destroy();
    });
    incoming.pipe(up);
  });
  server.on('close', () => agent.destroy());
  return server;
}

/** Starts a pipe on a free loopback port. */
export async function startPipe(upstream: string): Promise<RunningPipe> {
  const server = createPipeServer(upstream);
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

if (import.meta.main) {
  const [upstream] = process.argv.slice(2);
  if (!process.send || !upstream)
    throw new Error('usage (as a child with IPC): node bench/pipe.ts <upstream URL>');
  const pipe = await startPipe(upstream);
  serveBenchIpc(`${pipe.url}/v1`, () => pipe.close());
}
