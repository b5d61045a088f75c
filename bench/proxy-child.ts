/**
 * One proxy of the proxy bench in a process of its own, so the CPU time it reports is its own:
 * toolwire's proxy or the pass-through, in front of the bench's model server.
 *
 * Child: node bench/proxy-child.ts <proxy|pass-through> <upstream base URL>, with an IPC channel:
 * sends `{type:'ready', url}` (the base URL clients use, `http://127.0.0.1:PORT/v1`); answers
 * `{type:'cpu'}` with `{type:'cpu', micros}` (user + system time so far); exits when the channel
 * closes (after closing its server, so a `--cpu-prof` profile is written).
 */

import { startServer } from '../src/http/node-server.ts';
import { createProxyApp } from '../src/proxy/index.ts';
import { createPassThroughApp } from './pass-through.ts';

export type ProxySide = 'proxy' | 'pass-through';

/**
 * More than the bench's most concurrent streams: the default (64) would answer the 100-stream
 * level with 429s.
 */
export const BENCH_MAX_CONCURRENT_REQUESTS = 256;

export function benchServerApp(side: ProxySide, upstream: string) {
  return side === 'proxy'
    ? createProxyApp({
        upstream,
        protocol: 'model',
        limits: { maxConcurrentRequests: BENCH_MAX_CONCURRENT_REQUESTS },
      })
    : createPassThroughApp(upstream);
}

if (import.meta.main) {
  const [side, upstream] = process.argv.slice(2);
  if (!process.send || (side !== 'proxy' && side !== 'pass-through') || !upstream)
    throw new Error(
      'usage (as a child with IPC): node bench/proxy-child.ts <proxy|pass-through> <upstream URL>',
    );
  const server = await startServer(benchServerApp(side, upstream), {
    port: 0,
    host: '127.0.0.1',
  });
  process.on('message', (message: { type?: string }) => {
    if (message.type !== 'cpu') return;
    const usage = process.cpuUsage();
    process.send!({ type: 'cpu', micros: usage.user + usage.system });
  });
  process.on('disconnect', () => {
    // process.exit() still writes a --cpu-prof profile; the upstream pool would keep us alive.
    void server.close().then(() => process.exit(0));
  });
  process.send({ type: 'ready', url: `${server.url}/v1` });
}
