import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { ServerApp } from './app.ts';
import { canonicalBindHost, listenAddress } from './host-names.ts';

export interface RunningServer {
  /** `http://host:port`, with the port actually bound (useful with port 0). */
  readonly url: string;
  readonly port: number;
  /** Aborts the runs, closes the connections and stops listening. */
  close(): Promise<void>;
}

/**
 * Serves the app on Node's HTTP server. Port 0 picks a free port. `host` may be written any way
 * `--host` takes it (`::1`, `[::1]`, `127.1`); the URL uses its canonical form.
 */
export async function startServer(
  server: Pick<ServerApp, 'app' | 'close'>,
  options: { port: number; host: string },
): Promise<RunningServer> {
  const http = await new Promise<Server>((resolve, reject) => {
    const created = serve(
      { fetch: server.app.fetch, port: options.port, hostname: listenAddress(options.host) },
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
