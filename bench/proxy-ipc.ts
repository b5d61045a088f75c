/**
 * The IPC side of a proxy bench child (the proxy, the pass-through or the pipe): it reports its
 * CPU time, memory and event loop delay when asked, and closes its server when the channel
 * closes. Imports nothing of the proxy, so the pipe's process stays as small as a pipe is.
 *
 * Messages: sends `{type:'ready', url}`; answers `{type:'cpu'}` with `{type:'cpu', micros}`
 * (user + system time so far) and `{type:'stats'}` with `{type:'stats', micros, rssBytes,
 * heapUsedBytes, loopDelayMs}` (the event loop's delay p50/p99/max since the last stats, then
 * reset).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** Serves the IPC channel for a running server whose clients use `url`. */
export function serveBenchIpc(url: string, close: () => Promise<void>): void {
  if (!process.send) throw new Error('a bench child needs an IPC channel (start it with fork)');
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  process.on('message', (message: { type?: string }) => {
    const usage = process.cpuUsage();
    const micros = usage.user + usage.system;
    if (message.type === 'cpu') process.send!({ type: 'cpu', micros });
    if (message.type === 'stats') {
      const memory = process.memoryUsage();
      const ms = (nanos: number) => nanos / 1e6;
      process.send!({
        type: 'stats',
        micros,
        rssBytes: memory.rss,
        heapUsedBytes: memory.heapUsed,
        loopDelayMs: {
          p50: ms(delay.percentile(50)),
          p99: ms(delay.percentile(99)),
          max: ms(delay.max),
        },
      });
      delay.reset();
    }
  });
  process.on('disconnect', () => {
    // process.exit() still writes a --cpu-prof profile; the upstream pool would keep us alive.
    void close().then(() => process.exit(0));
  });
  process.send({ type: 'ready', url });
}
