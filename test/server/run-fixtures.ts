/**
 * Fixtures for the tests of runs and their logs: a run started in a store, a store with some of
 * its methods stood in for, a run's response read up to a point or to its end, and a run left
 * stalled on a test server.
 */
import type { ServerAppOptions } from '../../src/server/index.ts';
import { serverTools } from '../../src/server/index.ts';
import type { NewRun, RunLease, RunStore } from '../../src/store/run-store.ts';
import { scriptedModel } from '../agent/scripted-model.ts';
import { postJson, repository, startTestServer, type TestServer } from './helpers.ts';

/** Starts a run on the blocks wire (run `r1`, prompt `Q` unless `run` says otherwise). */
export function createBlocksRun(
  store: RunStore,
  run: Partial<NewRun> = {},
  now = Date.now(),
): Promise<RunLease> {
  return store.createRun(
    {
      runId: 'r1',
      wire: 'blocks',
      protocol: 'xml',
      customProtocol: false,
      prompt: 'Q',
      tail: [],
      ...run,
    },
    now,
  );
}

/**
 * `store` with some methods stood in for: `standIn` returns the replacement of a method (given
 * the store itself), or undefined to keep the store's own.
 */
export function storeWith(
  store: RunStore,
  standIn: (key: string | symbol, target: RunStore) => unknown,
): RunStore {
  return new Proxy(store, {
    get(target, key) {
      const replacement = standIn(key, target);
      if (replacement !== undefined) return replacement;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** Reads on, adding to `text`, until `enough` holds of what was read; throws if the stream ends first. */
export async function readUntil(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  enough: (text: string) => boolean,
  text = '',
): Promise<string> {
  const decoder = new TextDecoder();
  while (!enough(text)) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the stream ended first: ${text}`);
    text += decoder.decode(value, { stream: true });
  }
  return text;
}

/** Reads the rest of a stream, adding it to `text`. */
export async function readRest(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  text = '',
): Promise<string> {
  const decoder = new TextDecoder();
  while (true) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    text += decoder.decode(value, { stream: true });
  }
}

/** Closes the servers a test started (its runs first, then the HTTP server). */
export async function closeServers(servers: TestServer[]): Promise<void> {
  for (const server of servers.splice(0)) {
    server.server.close();
    await server.close();
  }
}

/**
 * A server (kept in `servers` to be closed) whose one run stalls inside a thinking block, and
 * that run's response read until the block's first text (`marks` times `CDATA[` seen).
 */
export async function startStalledRun(
  servers: TestServer[],
  options: Partial<ServerAppOptions> = {},
  marks = 1,
): Promise<{
  server: TestServer;
  runId: string;
  reader: ReadableStreamDefaultReader<Uint8Array>;
  text: string;
}> {
  const server = await startTestServer({
    model: scriptedModel([{ text: '<thinking>Working', stall: true }]).model,
    tools: serverTools(repository()),
    ...options,
  });
  servers.push(server);
  const response = await postJson(`${server.url}/api/runs`, { prompt: 'Hi' });
  const runId = response.headers.get('x-run-id')!;
  const reader = response.body!.getReader();
  const text = await readUntil(reader, (read) => read.split('CDATA[').length > marks);
  return { server, runId, reader, text };
}
