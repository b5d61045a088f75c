/**
 * The run store: events per second appended and read, and the latency an event takes from its
 * append to a live reader, on the memory store and on Redis, side by side in one process.
 * Writers append on one store handle (instance A), readers read on another (instance B), as a
 * run read through another instance is; the latency rows also read on A (a reader of a run its
 * own instance writes). Each figure is the median of several rounds, memory and Redis taking
 * turns; every reader must receive every event in order, or the section fails.
 *
 * Redis is a `redis-server` this bench starts on a free loopback port (nothing written to disk)
 * and kills on every path; without /usr/bin/redis-server the Redis columns say so.
 *
 * Standalone: `node bench/store.ts` (add `--json` for the raw results).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { MemoryRunStoreBacking } from '../src/store/memory/index.ts';
import { createRedisRunStore } from '../src/store/redis/index.ts';
import type { NewRun, RunLease, RunStore } from '../src/store/run-store.ts';
import { freePort, REDIS_SERVER_PATH, redisServerArgs } from '../test/support/redis-process.ts';
import { benchInChild, collectGarbage, formatRatio, formatTable, median } from './measure.ts';
import { percentile } from './proxy-figures.ts';
import { failureLines, reportSectionFailures, runSectionAlone } from './sections.ts';

const ROUNDS = 5;
/** Events each latency round sends, one at a time (the next after the reader has the last). */
const LATENCY_EVENTS = 400;
/** Events at the start of each latency round that are not counted (connections, JIT). */
const LATENCY_WARMUP = 50;
/** A throughput case is repeated within a round until it has run this long. */
const MIN_CASE_MS = 300;

/** A content-block delta as the server writes it (an SSE message without its `id:` line). */
function frame(index: number): string {
  return `event: content_block_delta\ndata: {"type":"text_delta","index":0,"delta":{"text":"event ${index} of the run, a few words as a model streams them"}}\n\n`;
}

/** How the throughput cases append: concurrent runs, events per run, frames per append. */
export interface ThroughputCase {
  readonly name: string;
  readonly runs: number;
  readonly events: number;
  readonly batch: number;
}

export const THROUGHPUT_CASES: readonly ThroughputCase[] = [
  { name: '1 run, 1 event per append', runs: 1, events: 2000, batch: 1 },
  { name: '50 runs, 1 event per append', runs: 50, events: 100, batch: 1 },
  { name: '50 runs, 10 events per append', runs: 50, events: 200, batch: 10 },
];

/** Two handles on one store: A writes, B reads (another instance). */
export interface StorePair {
  readonly a: RunStore;
  readonly b: RunStore;
  close(): Promise<void>;
}

let runCount = 0;

function newRun(): NewRun {
  return {
    runId: `bench-${process.pid}-${++runCount}`,
    wire: 'blocks',
    protocol: 'xml',
    customProtocol: false,
    prompt: 'bench',
    tail: [],
  };
}

/** Reads a log to its end; resolves with the frames read, calling `onEntry` as each comes. */
async function readAll(
  store: RunStore,
  log: string,
  onEntry: (frame: string) => void = () => {},
): Promise<string[]> {
  const frames: string[] = [];
  for await (const item of store.read(log, undefined, new AbortController().signal)) {
    if ('end' in item) break;
    frames.push(item.frame);
    onEntry(item.frame);
  }
  return frames;
}

function checkFrames(frames: readonly string[], count: number, what: string): string[] {
  if (frames.length !== count) return [`${what}: read ${frames.length} of ${count} events`];
  const wrong = frames.findIndex((text, index) => text !== frame(index));
  return wrong === -1 ? [] : [`${what}: event ${wrong} differs from what was appended`];
}

async function writeRun(store: RunStore, lease: RunLease, events: number, batch: number) {
  for (let start = 0; start < events; start += batch) {
    const frames: string[] = [];
    for (let index = start; index < Math.min(events, start + batch); index++)
      frames.push(frame(index));
    await store.append(lease, frames, []);
  }
  await store.finish(lease, [], 'completed', Date.now());
}

/** One pass of a case: its events appended on A and read on B; resolves with the ms it took. */
async function throughputPass(
  pair: StorePair,
  entry: ThroughputCase,
  failures: string[],
): Promise<number> {
  const leases = await Promise.all(
    Array.from({ length: entry.runs }, () => pair.a.createRun(newRun(), Date.now())),
  );
  const started = performance.now();
  const reads = leases.map((lease) => readAll(pair.b, lease.log));
  await Promise.all(leases.map((lease) => writeRun(pair.a, lease, entry.events, entry.batch)));
  const read = await Promise.all(reads);
  const took = performance.now() - started;
  for (const frames of read) failures.push(...checkFrames(frames, entry.events, entry.name));
  return took;
}

/**
 * Events per second appended on A and read on B, from the first append to the last read; the
 * case is run again until `MIN_CASE_MS` have passed (a memory pass takes a few ms, where a
 * collection or a timer tick would be most of the figure).
 */
async function throughput(
  pair: StorePair,
  entry: ThroughputCase,
  failures: string[],
): Promise<number> {
  collectGarbage();
  let passes = 0;
  let ms = 0;
  while (passes === 0 || ms < MIN_CASE_MS) {
    ms += await throughputPass(pair, entry, failures);
    passes++;
  }
  return (passes * entry.runs * entry.events) / (ms / 1000);
}

export interface Latency {
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/**
 * One event at a time on A, each sent once the reader (on `reader`) has the one before: the
 * time from the append's call to the reader's receipt, p50 and p99.
 */
async function latency(pair: StorePair, reader: RunStore, failures: string[]): Promise<Latency> {
  const lease = await pair.a.createRun(newRun(), Date.now());
  const sentAt: number[] = [];
  const took: number[] = [];
  let received: () => void = () => {};
  const reading = readAll(reader, lease.log, () => {
    took.push(performance.now() - sentAt[took.length]!);
    received();
  });
  for (let index = 0; index < LATENCY_EVENTS; index++) {
    const arrived = new Promise<void>((resolve) => {
      received = resolve;
    });
    sentAt.push(performance.now());
    await pair.a.append(lease, [frame(index)], []);
    await arrived;
  }
  await pair.a.finish(lease, [], 'completed', Date.now());
  failures.push(
    ...checkFrames(await reading, LATENCY_EVENTS, `latency (${reader === pair.a ? 'A' : 'B'})`),
  );
  const counted = took.slice(LATENCY_WARMUP);
  return { p50Ms: percentile(counted, 50), p99Ms: percentile(counted, 99) };
}

interface RoundFigures {
  readonly eventsPerSecond: number[];
  readonly latencyOther: Latency;
  readonly latencySame: Latency;
}

async function round(pair: StorePair, failures: string[]): Promise<RoundFigures> {
  const eventsPerSecond: number[] = [];
  for (const entry of THROUGHPUT_CASES)
    eventsPerSecond.push(await throughput(pair, entry, failures));
  return {
    eventsPerSecond,
    latencyOther: await latency(pair, pair.b, failures),
    latencySame: await latency(pair, pair.a, failures),
  };
}

function memoryPair(): StorePair {
  const backing = new MemoryRunStoreBacking();
  const a = backing.open('A');
  const b = backing.open('B');
  return {
    a,
    b,
    close: async () => {
      await a.close();
      await b.close();
    },
  };
}

async function redisPair(url: string, prefix: string): Promise<StorePair> {
  const a = await createRedisRunStore(url, { prefix, instanceId: 'A' });
  const b = await createRedisRunStore(url, { prefix, instanceId: 'B' }).catch(async (error) => {
    await a.close();
    throw error;
  });
  return {
    a,
    b,
    close: async () => {
      await a.close();
      await b.close();
    },
  };
}

/** A redis-server for this bench: resolves once it accepts connections; `stop` kills it. */
async function startRedisServer(): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const child: ChildProcess = spawn(REDIS_SERVER_PATH, redisServerArgs(port), {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  // However this process ends (an exit, a throw, Ctrl-C, a kill), the server goes with it.
  const onSignal = (signal: NodeJS.Signals) => {
    kill();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('exit', kill);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const stop = async () => {
    kill();
    await exited;
    process.off('exit', kill);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  let output = '';
  try {
    await new Promise<void>((resolve, reject) => {
      const onData = (data: Buffer) => {
        output += data.toString();
        if (output.includes('Ready to accept connections')) resolve();
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.once('error', reject);
      child.once('exit', (code) =>
        reject(new Error(`redis-server exited (status ${code}) before it was ready: ${output}`)),
      );
    });
  } catch (error) {
    await stop();
    throw error;
  }
  child.stdout!.removeAllListeners('data');
  child.stderr!.removeAllListeners('data');
  child.stdout!.resume();
  child.stderr!.resume();
  return { url: `redis://127.0.0.1:${port}`, stop };
}

export interface ThroughputRow {
  readonly name: string;
  readonly runs: number;
  readonly eventsPerRun: number;
  readonly eventsPerAppend: number;
  /** Median events per second, appended on A and read on B. */
  readonly memory: number;
  readonly redis: number | null;
  /** redis / memory. */
  readonly ratio: number | null;
}

export interface LatencyRow {
  readonly name: string;
  readonly memory: Latency;
  readonly redis: Latency | null;
  /** What Redis adds per event (redis - memory), ms. */
  readonly addedP50Ms: number | null;
  readonly addedP99Ms: number | null;
}

export interface StoreBenchResult {
  readonly rounds: number;
  readonly latencyEvents: number;
  readonly throughput: readonly ThroughputRow[];
  readonly latency: readonly LatencyRow[];
  /** Why Redis was not measured, when it was not. */
  readonly redisSkipped?: string;
  readonly note: string;
  /** The machine's 1-minute load average before and after (2 cores: above 2, others were busy too). */
  readonly loadAverage: { readonly before: number; readonly after: number };
  readonly failures: readonly string[];
  readonly seconds: number;
}

const medianLatency = (latencies: readonly Latency[]): Latency => ({
  p50Ms: median(latencies.map((entry) => entry.p50Ms)),
  p99Ms: median(latencies.map((entry) => entry.p99Ms)),
});

/** The figures of both stores as rows (Redis null when it was not measured). */
export function storeRows(
  memory: readonly RoundFigures[],
  redis: readonly RoundFigures[],
): { throughput: ThroughputRow[]; latency: LatencyRow[] } {
  const measured = redis.length > 0;
  const throughput = THROUGHPUT_CASES.map((entry, index) => {
    const onMemory = median(memory.map((figures) => figures.eventsPerSecond[index]!));
    const onRedis = measured
      ? median(redis.map((figures) => figures.eventsPerSecond[index]!))
      : null;
    return {
      name: entry.name,
      runs: entry.runs,
      eventsPerRun: entry.events,
      eventsPerAppend: entry.batch,
      memory: onMemory,
      redis: onRedis,
      ratio: onRedis === null ? null : onRedis / onMemory,
    };
  });
  const latencyRow = (name: string, pick: (figures: RoundFigures) => Latency): LatencyRow => {
    const onMemory = medianLatency(memory.map(pick));
    const onRedis = measured ? medianLatency(redis.map(pick)) : null;
    return {
      name,
      memory: onMemory,
      redis: onRedis,
      addedP50Ms: onRedis === null ? null : onRedis.p50Ms - onMemory.p50Ms,
      addedP99Ms: onRedis === null ? null : onRedis.p99Ms - onMemory.p99Ms,
    };
  };
  return {
    throughput,
    latency: [
      latencyRow('reader on another instance', (figures) => figures.latencyOther),
      latencyRow('reader on the writing instance', (figures) => figures.latencySame),
    ],
  };
}

async function benchStore(rounds = ROUNDS): Promise<StoreBenchResult> {
  const started = performance.now();
  const loadBefore = loadavg()[0]!;
  const failures: string[] = [];
  const memory: RoundFigures[] = [];
  const redis: RoundFigures[] = [];
  const redisSkipped = existsSync(REDIS_SERVER_PATH)
    ? undefined
    : `${REDIS_SERVER_PATH} is not installed`;
  const server = redisSkipped === undefined ? await startRedisServer() : undefined;
  try {
    for (let index = 0; index < rounds; index++) {
      const onMemory = memoryPair();
      try {
        memory.push(await round(onMemory, failures));
      } finally {
        await onMemory.close();
      }
      if (server === undefined) continue;
      const onRedis = await redisPair(server.url, `bench${index}:`);
      try {
        redis.push(await round(onRedis, failures));
      } finally {
        await onRedis.close();
      }
    }
  } finally {
    await server?.stop();
  }
  return {
    rounds,
    latencyEvents: LATENCY_EVENTS - LATENCY_WARMUP,
    ...storeRows(memory, redis),
    ...(redisSkipped === undefined ? {} : { redisSkipped }),
    note: 'one process, the bench and redis-server sharing the machine with whatever else runs on it',
    loadAverage: { before: loadBefore, after: loadavg()[0]! },
    failures: [...new Set(failures)],
    seconds: (performance.now() - started) / 1000,
  };
}

const rate = (value: number | null) => (value === null ? '-' : Math.round(value).toString());
/** Milliseconds shown in microseconds: memory's latencies are a few µs. */
const micros = (value: number | null | undefined) =>
  value === null || value === undefined ? '-' : Math.round(value * 1000).toString();

export function storeTables(result: StoreBenchResult): string {
  return [
    'The run store: memory against Redis (a local redis-server on loopback), one process; A appends,',
    `   B (another instance) reads live; medians of ${result.rounds} rounds, memory and Redis in turn.`,
    ...(result.redisSkipped === undefined
      ? []
      : [`   Redis not measured: ${result.redisSkipped}.`]),
    '   Events per second, appended and read:',
    formatTable(
      ['case', 'memory ev/s', 'redis ev/s', 'redis/memory'],
      result.throughput.map((row) => [
        row.name,
        rate(row.memory),
        rate(row.redis),
        row.ratio === null ? '-' : formatRatio(row.ratio),
      ]),
    ),
    `   Latency from append to a live reader, µs (${result.latencyEvents} events one at a time):`,
    formatTable(
      ['reader', 'memory p50 µs', 'p99', 'redis p50 µs', 'p99', 'added p50 µs', 'added p99'],
      result.latency.map((row) => [
        row.name,
        micros(row.memory.p50Ms),
        micros(row.memory.p99Ms),
        micros(row.redis?.p50Ms),
        micros(row.redis?.p99Ms),
        micros(row.addedP50Ms),
        micros(row.addedP99Ms),
      ]),
    ),
    ...failureLines(result.failures),
    `   (${result.seconds.toFixed(0)} s; ${result.note}; load average ${result.loadAverage.before.toFixed(1)} before, ${result.loadAverage.after.toFixed(1)} after)`,
  ].join('\n');
}

/** This section in a child process of its own (its Redis connections and server stay there). */
export function benchStoreInChild(): Promise<StoreBenchResult> {
  return benchInChild<StoreBenchResult>('store.ts');
}

export function reportStoreFailures(result: StoreBenchResult): void {
  reportSectionFailures('store', result.failures);
}

/** `TOOLWIRE_BENCH=store`: this part alone, its key of the results file replaced. */
export function benchStoreOnly(resultsFile: URL): Promise<void> {
  return runSectionAlone(resultsFile, 'store', benchStoreInChild, storeTables);
}

if (import.meta.main) {
  const result = await benchStore();
  console.log(
    process.argv.includes('--json') ? JSON.stringify(result, null, 2) : storeTables(result),
  );
  if (!process.argv.includes('--json')) reportStoreFailures(result);
}
