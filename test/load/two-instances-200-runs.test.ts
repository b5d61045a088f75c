/**
 * Load: 200 runs started at once on two server instances sharing one store (a real Redis, and
 * one memory backing), behind real HTTP listeners on loopback, all 200 running at the same time
 * (checked while each holds in its first turn: 100 owned by each instance). A third only write
 * text, a third call a server tool, a third pause on a front-end tool and are answered on the
 * other instance. Every run is read on the other instance through `GET /api/runs/:id/events`
 * (a quarter of them dropped mid-stream and read again after `Last-Event-ID`), and for every run
 * what was read is byte for byte what the starting response streamed and what the log holds:
 * ids strictly increasing, one end, no event lost.
 */
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4StreamPart,
} from '@ai-sdk/provider';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { serverTools } from '../../src/server/index.ts';
import { compareEventIds, parseEventId } from '../../src/store/event-id.ts';
import { MemoryRunStoreBacking } from '../../src/store/memory/index.ts';
import { createRedisRunStore } from '../../src/store/redis/index.ts';
import type { RunStore } from '../../src/store/run-store.ts';
import { decodeBlocks } from '../../src/stream/index.ts';
import {
  ofType,
  postJson,
  repository,
  startTestServer,
  type TestServer,
} from '../server/helpers.ts';
import { type RedisServer, skipRedisTests, startRedis } from '../support/redis-server.ts';

const RUNS = 200;
/** Characters per model chunk: small, so each run writes many events. */
const CHUNK = 7;
/** A run read again after a drop is dropped after this many events. */
const DROP_AFTER = 6;
/** Text a byte-wise comparison would catch mangled (multi-byte, escapes, markup-like). */
const TRICKY = 'é ü 😀 & "quoted" \\ tab\there';

type Kind = 'text' | 'server-tool' | 'front-end';
const kindOf = (n: number): Kind => (['text', 'server-tool', 'front-end'] as const)[n % 3]!;

function completion(n: number): string {
  return `<attempt_completion><result>Run ${n}: login is handled by \`loginUser\` in login.js. ${TRICKY} ${'more words '.repeat(8 + (n % 5))}</result></attempt_completion>`;
}

/** What run `n` writes at its turn `turn`. */
function turnText(n: number, turn: number): string {
  const thinking = `<thinking>Run ${n} thinks (${TRICKY}) ${'step '.repeat(5 + (n % 7))}</thinking>\n`;
  switch (kindOf(n)) {
    case 'text':
      return thinking + completion(n);
    case 'server-tool':
      return turn === 0
        ? `${thinking}<search>\n<query>loginUser</query>\n</search>`
        : completion(n);
    case 'front-end':
      return turn === 0
        ? `${thinking}<ask_user>\n<question>Run ${n}: which file?</question>\n</ask_user>`
        : completion(n);
  }
}

/**
 * A model serving every run at once: the run's number is in its prompt (`load-N`), its turn is
 * the count of assistant messages so far. Each chunk waits a macrotask, so the runs interleave,
 * and every first turn holds after its first words until all the runs have started (`allStarted`)
 * and the test lets them go on (`release`), so the 200 are running at the same time.
 */
function loadModel(): { model: LanguageModelV4; allStarted: Promise<void>; release: () => void } {
  let firstTurns = 0;
  let started: () => void = () => {};
  const allStarted = new Promise<void>((resolve) => {
    started = resolve;
  });
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const model: LanguageModelV4 = {
    specificationVersion: 'v4',
    provider: 'load',
    modelId: 'load',
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error('the load model only streams')),
    doStream: async (call: LanguageModelV4CallOptions) => {
      const prompt = JSON.stringify(call.prompt);
      const n = Number(/load-([0-9]+)/.exec(prompt)?.[1]);
      const turn = call.prompt.filter((message) => message.role === 'assistant').length;
      if (turn === 0 && ++firstTurns === RUNS) started();
      const text = turnText(n, turn);
      const parts: LanguageModelV4StreamPart[] = [
        { type: 'stream-start', warnings: [] },
        { type: 'text-start', id: 't' },
      ];
      for (let start = 0; start < text.length; start += CHUNK)
        parts.push({ type: 'text-delta', id: 't', delta: text.slice(start, start + CHUNK) });
      parts.push(
        { type: 'text-end', id: 't' },
        {
          type: 'finish',
          finishReason: { unified: 'stop', raw: 'stop' },
          usage: {
            inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
            outputTokens: { total: 1, text: 1, reasoning: 0 },
          },
        },
      );
      let next = 0;
      return {
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          async pull(controller) {
            if (turn === 0 && next === 4) await released;
            await new Promise((resolve) => setImmediate(resolve));
            if (next >= parts.length) controller.close();
            else controller.enqueue(parts[next++]!);
          },
        }),
      };
    },
  };
  return { model, allStarted, release };
}

/** The SSE messages of a text (each ends with a blank line). */
function messages(text: string): string[] {
  return text
    .split('\n\n')
    .filter((message) => message.length > 0)
    .map((message) => `${message}\n\n`);
}

/** The `id:` a message starts with. */
function idText(message: string): string {
  const id = /^id: ([^\n]*)\n/.exec(message)?.[1];
  if (id === undefined || parseEventId(id) === undefined)
    throw new Error(`an event without an id: ${JSON.stringify(message)}`);
  return id;
}

function increasing(text: string): boolean {
  const ids = messages(text).map((message) => parseEventId(idText(message))!);
  return ids.every((id, index) => index === 0 || compareEventIds(ids[index - 1]!, id) < 0);
}

const get = (server: TestServer, runId: string, after?: string) =>
  fetch(`${server.url}/api/runs/${runId}/events`, {
    headers: after === undefined ? {} : { 'last-event-id': after },
  });

/** Reads `count` whole SSE messages of a response, then drops the connection. */
async function readThenDrop(response: Response, count: number): Promise<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (messages(text).length <= count) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  await reader.cancel();
  return messages(text.slice(0, text.lastIndexOf('\n\n') + 2))
    .slice(0, count)
    .join('');
}

/** Reads a run on `reader` from after `after`; with `dropOn`, drops after a few events and goes on there. */
async function readRun(
  reader: TestServer,
  runId: string,
  after: string | undefined,
  dropOn: TestServer | undefined,
): Promise<string> {
  const first = await get(reader, runId, after);
  expect(first.status).toBe(200);
  if (dropOn === undefined) return first.text();
  const head = await readThenDrop(first, DROP_AFTER);
  const last = head === '' ? after : idText(messages(head).at(-1)!);
  const rest = await get(dropOn, runId, last);
  expect(rest.status).toBe(200);
  return head + (await rest.text());
}

/** The log as the store holds it, as the SSE text it is served as. */
async function logText(store: RunStore, runId: string): Promise<string> {
  const run = await store.getRun(runId);
  let text = '';
  for await (const item of store.read(run!.log, undefined, new AbortController().signal)) {
    if ('end' in item) break;
    text += `id: ${item.id}\n${item.frame}`;
  }
  return text;
}

interface RunResult {
  readonly n: number;
  readonly runId: string;
  /** What the instances streamed in their responses (start, then the answer's). */
  readonly direct: string;
  /** What the readers on the other instance read. */
  readonly read: string;
}

/** One run: started on `start`, read (and answered) on `other`. */
async function oneRun(n: number, start: TestServer, other: TestServer): Promise<RunResult> {
  const dropping = n % 4 === 3;
  const started = await postJson(`${start.url}/api/runs`, { prompt: `load-${n}: explain login` });
  expect(started.status).toBe(200);
  const runId = started.headers.get('x-run-id')!;
  const [direct, read] = await Promise.all([
    started.text(),
    readRun(other, runId, undefined, dropping ? start : undefined),
  ]);
  if (kindOf(n) !== 'front-end') return { n, runId, direct, read };
  const pending = ofType(decodeBlocks(direct), 'awaiting-frontend-tools')[0]!.tools[0]!;
  const answered = await postJson(`${other.url}/api/runs/${runId}/tool-results`, {
    results: [{ tool_use_id: pending.tool_use_id, content: 'login.js' }],
  });
  expect(answered.status).toBe(200);
  const lastPaused = idText(messages(direct).at(-1)!);
  const [continued, readOn] = await Promise.all([
    answered.text(),
    readRun(start, runId, lastPaused, dropping ? other : undefined),
  ]);
  return { n, runId, direct: direct + continued, read: read + readOn };
}

interface Instances {
  readonly a: TestServer;
  readonly b: TestServer;
  readonly stores: readonly RunStore[];
  /** Resolves once every run's first turn has begun (each then holds until `release`). */
  readonly allStarted: Promise<void>;
  readonly release: () => void;
}

async function instances(open: (instanceId: string) => Promise<RunStore>): Promise<Instances> {
  const { model, allStarted, release } = loadModel();
  const tools = serverTools(repository());
  const stores: RunStore[] = [];
  const server = async (instanceId: string) => {
    const store = await open(instanceId);
    stores.push(store);
    return startTestServer({
      model,
      modelName: 'load',
      tools,
      store,
      limits: { maxConcurrentRuns: RUNS },
    });
  };
  return { a: await server('A'), b: await server('B'), stores, allStarted, release };
}

let running: Instances | undefined;

afterEach(async () => {
  if (running === undefined) return;
  running.release();
  for (const server of [running.a, running.b]) {
    server.server.close();
    await server.close();
  }
  for (const store of running.stores) await store.close();
  running = undefined;
});

/** Starts every run at once, waits for all, and checks each; returns the counts. */
async function loadRuns(open: (instanceId: string) => Promise<RunStore>) {
  running = await instances(open);
  const { a, b, allStarted, release } = running;
  // Taken while every run holds in its first turn: all of them are running, on both instances.
  const runningAtOnce = allStarted.then(async () => {
    const counts = {
      store: (await a.server.store.stats()).running,
      onA: a.server.live.active,
      onB: b.server.live.active,
    };
    release();
    return counts;
  });
  const results = await Promise.all(
    Array.from({ length: RUNS }, (_, n) => (n % 2 === 0 ? oneRun(n, a, b) : oneRun(n, b, a))),
  );
  expect(await runningAtOnce).toEqual({ store: RUNS, onA: RUNS / 2, onB: RUNS / 2 });
  let events = 0;
  let bytes = 0;
  for (const result of results) {
    const logged = await logText(a.server.store, result.runId);
    const blocks = decodeBlocks(result.read);
    expect({ n: result.n, same: result.read === result.direct }).toEqual({
      n: result.n,
      same: true,
    });
    expect({ n: result.n, logged: logged === result.direct }).toEqual({
      n: result.n,
      logged: true,
    });
    expect(increasing(result.read)).toBe(true);
    expect(ofType(blocks, 'meta-final')).toHaveLength(1);
    expect(blocks.at(-1)?.type).toBe('meta-final');
    expect(ofType(blocks, 'error')).toEqual([]);
    expect(
      blocks.filter((block) => block.type === 'text-delta' || block.type === 'thinking-delta')
        .length,
    ).toBeGreaterThan(0);
    expect((await b.server.store.getRun(result.runId))?.outcome).toBe('completed');
    events += messages(result.read).length;
    bytes += Buffer.byteLength(result.read);
  }
  // Read, streamed and logged are the same bytes for every run: no event was lost.
  return { runs: results.length, instances: 2, events, bytes };
}

describe.skipIf(skipRedisTests())('200 concurrent runs on two instances, one Redis', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('reads every run on the other instance byte for byte, nothing lost', async () => {
    const counts = await loadRuns((instanceId) =>
      createRedisRunStore(redis.url, { prefix: 'load:', instanceId }),
    );
    console.log(`load on Redis: ${JSON.stringify(counts)}`);
    expect(counts).toMatchObject({ runs: RUNS });
  }, 90_000);
});

describe('200 concurrent runs on two instances, one memory backing', () => {
  it('reads every run on the other instance byte for byte, nothing lost', async () => {
    const backing = new MemoryRunStoreBacking();
    const counts = await loadRuns(async (instanceId) => backing.open(instanceId));
    console.log(`load on memory: ${JSON.stringify(counts)}`);
    expect(counts).toMatchObject({ runs: RUNS });
  }, 90_000);
});
