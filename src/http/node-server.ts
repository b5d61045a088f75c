import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import { canonicalBindHost, listenAddress } from './host-names.ts';

/** How long a client may take to send a request's headers. */
export const HEADERS_TIMEOUT_MS = 15_000;
/** How long a client may take to send a whole request (headers and body). */
export const REQUEST_TIMEOUT_MS = 60_000;

export interface RunningServer {
  /** `http://host:port`, with the port actually bound (useful with port 0). */
  readonly url: string;
  readonly port: number;
  /** Aborts the runs, closes the connections and stops listening. */
  close(): Promise<void>;
}

/** What `startServer` serves: a fetch handler (a Hono app's), and what to stop when it closes. */
export interface ServableApp {
  readonly app: Pick<Hono, 'fetch'>;
  /** Called first when the server closes (aborts the runs or requests being answered). */
  close(): void;
}

/**
 * Serves the app (the server's or the proxy's) on Node's HTTP server. Port 0 picks a free port. `host` may be written any way
 * `--host` takes it (`::1`, `[::1]`, `127.1`); the URL uses its canonical form.
 */
export async function startServer(
  server: ServableApp,
  options: {
    port: number;
    host: string;
    /** How long a client may take to send its headers (default `HEADERS_TIMEOUT_MS`). */
    headersTimeoutMs?: number;
    /** How long a client may take to send a whole request (default `REQUEST_TIMEOUT_MS`). */
    requestTimeoutMs?: number;
  },
): Promise<RunningServer> {
  const headersTimeout = options.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
  const http = await new Promise<Server>((resolve, reject) => {
    const created = serve(
      {
        fetch: server.app.fetch,
        port: options.port,
        hostname: listenAddress(options.host),
        // A client that sends its headers or its request a byte at a time holds a socket: Node
        // waits 60 s for headers and 300 s for a request by default, and checks every 30 s. The
        // apps time their own bodies out sooner (the proxy's bodyTimeoutMs); these bound what
        // comes before the app sees a request.
        serverOptions: {
          headersTimeout,
          requestTimeout: options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
          connectionsCheckingInterval: Math.min(1000, headersTimeout / 2),
        },
      },
      () => resolve(created as Server),
    ) as Server;
    created.once('error', reject);
  });
  const { port } = http.address() as AddressInfo;
  const host = canonicalBindHost(options.host)?.hostname ?? options.host;
  return {
    url: `http://${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close();
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
