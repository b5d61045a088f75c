/**
 * The proxy bench's child processes: the model server and each proxy run in a process of their
 * own (started with an IPC channel), so each one's CPU time and memory are its own and the load
 * generator's are not in them.
 */
import { type ChildProcess, fork } from 'node:child_process';

export interface BenchChild {
  /** Base URL clients use, `http://127.0.0.1:PORT/v1`. */
  readonly url: string;
  /** Asks the child something over IPC and waits for its answer of the same type. */
  ask(message: { type: string; [field: string]: unknown }): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

/** What a proxy child reports about itself (see bench/proxy-child.ts). */
export interface ChildStats {
  /** User + system CPU time so far, microseconds. */
  readonly micros: number;
  readonly rssBytes: number;
  readonly heapUsedBytes: number;
  /** The event loop's delay since the last stats, ms. */
  readonly loopDelayMs: { readonly p50: number; readonly p99: number; readonly max: number };
}

/** Starts `bench/<script>` with the arguments and waits for its `{type:'ready', url}`. */
export function startChild(
  script: string,
  args: readonly string[],
  execArgv: string[] = [],
): Promise<BenchChild> {
  const path = new URL(`./${script}`, import.meta.url).pathname;
  const child: ChildProcess = fork(path, [...args], {
    execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const reply = (type: string) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const onMessage = (message: Record<string, unknown>) => {
        if (message?.type !== type) return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(message);
      };
      const onExit = (code: number | null) => {
        child.off('message', onMessage);
        reject(
          new Error(
            `bench/${script} ${args[0] ?? ''} exited (status ${code}) before answering ${type}`,
          ),
        );
      };
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  return reply('ready').then((ready) => ({
    url: String(ready.url),
    ask(message) {
      const answer = reply(message.type);
      child.send(message);
      return answer;
    },
    async stop() {
      if (child.connected) child.disconnect();
      await exited;
    },
  }));
}

export async function childStats(child: BenchChild): Promise<ChildStats> {
  return (await child.ask({ type: 'stats' })) as unknown as ChildStats;
}

export async function cpuMicros(child: BenchChild): Promise<number> {
  return Number((await child.ask({ type: 'cpu' })).micros);
}
