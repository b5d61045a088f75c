/**
 * One proxy of the proxy bench in a process of its own, so the CPU time and memory it reports
 * are its own: toolwire's proxy, the Hono pass-through, or the plain node `http` pipe, in front
 * of the bench's model server.
 *
 * Child: node bench/proxy-child.ts <proxy|pass-through|pipe> <upstream base URL>, with an IPC
 * channel (bench/proxy-ipc.ts): `ready` with the base URL clients use
 * (`http://127.0.0.1:PORT/v1`), `cpu` and `stats` answered; exits when the channel closes (after
 * closing its server, so a `--cpu-prof` profile is written). The pipe is started from
 * bench/pipe.ts itself, so its process does not load the proxy's modules.
 */
import { startServer } from '../src/http/node-server.ts';
import { createProxyApp } from '../src/proxy/index.ts';
import { createPassThroughApp } from './pass-through.ts';
import { startPipe } from './pipe.ts';
import { serveBenchIpc } from './proxy-ipc.ts';

export const PROXY_SIDES = ['proxy', 'pass-through', 'pipe'] as const;
export type ProxySide = (typeof PROXY_SIDES)[number];

/**
 * More than the bench's most concurrent streams: the default (64) would answer the 100-stream
 * level with 429s.
 */
export const BENCH_MAX_CONCURRENT_REQUESTS = 256;

export function benchServerApp(side: 'proxy' | 'pass-through', upstream: string) {
  return side === 'proxy'
    ? createProxyApp({
        upstream,
        protocol: 'model',
        limits: { maxConcurrentRequests: BENCH_MAX_CONCURRENT_REQUESTS },
      })
    : createPassThroughApp(upstream);
}

/** Starts the side's server on a free loopback port: its URL (`http://127.0.0.1:PORT`), and how to stop it. */
export async function startSide(
  side: ProxySide,
  upstream: string,
): Promise<{ url: string; close(): Promise<void> }> {
  if (side === 'pipe') return startPipe(upstream);
  return startServer(benchServerApp(side, upstream), { port: 0, host: '127.0.0.1' });
}

if (import.meta.main) {
  const [side, upstream] = process.argv.slice(2);
  const known = PROXY_SIDES.find((name) => name === side);
  if (!process.send || !known || !upstream)
    throw new Error(
      `usage (as a child with IPC): node bench/proxy-child.ts <${PROXY_SIDES.join('|')}> <upstream URL>`,
    );
  const server = await startSide(known, upstream);
  serveBenchIpc(`${server.url}/v1`, () => server.close());
}
