/**
 * toolwire's proxy against a plain node `http` pipe (bench/pipe.ts: bytes forwarded unread over
 * a kept-alive agent), both in front of one scripted model server that streams ~1,480 SSE events
 * per reply (a model explaining, then calling a tool), measured from outside:
 *
 * - for chat completions, Anthropic Messages and the Responses API, streamed and not: the
 *   proxy's CPU per request against the pipe's (the pipe is asked the equivalent chat
 *   completions request, and the model server sends both the same reply);
 * - not streamed, at 50 concurrent requests: requests per second against the pipe's;
 * - paced (the model server waits between tokens, as a model writes), 50 streams: what each adds
 *   to the first byte of a new request over the model server asked directly;
 * - the proxy's RSS once it has served 10,000 requests (and the pipe's, for reference).
 *
 * Each measurement is taken in 3 process sets (fresh proxy, pipe and pass-through processes,
 * bench/proxy-set.ts), the sides interleaved within each, and the figures are the medians over
 * the sets: on a shared 2-core machine one set is often noisy. The Hono pass-through
 * (bench/pass-through.ts, toolwire's own stack) is a second reference, on chat completions.
 * Every reply is checked: a wrong or cut-off reply fails the bench.
 *
 * Standalone: `node bench/proxy.ts` (`--json` for the raw results). `npm run bench` runs it in a
 * process of its own; `TOOLWIRE_BENCH=proxy npm run bench` runs only this and updates the `proxy`
 * key of bench/results.json. `TOOLWIRE_BENCH_PROXY_PROFILE=<folder>` runs toolwire's proxy under
 * `node --cpu-prof`, writes its profiles there and prints where the last one's time went (the
 * figures of such a run are marked as profiled: the profiler slows it).
 */
import { mkdirSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import {
  newestProfile,
  type ProfileSummary,
  readProfile,
  summariseProfile,
} from './cpu-profile.ts';
import { benchInChild, median } from './measure.ts';
import { exchangeProblem } from './proxy-check.ts';
import { benchAgent, exchange } from './proxy-load.ts';
import { type BenchChild, startChild } from './proxy-processes.ts';
import {
  API_PATHS,
  apiRequestBody,
  BENCH_APIS,
  type BenchApi,
  benchReplySet,
  REPLY_FORMATS,
} from './proxy-replies.ts';
import { proxyTables } from './proxy-report.ts';
import { runProcessSet, type SetResult, type SetSettings } from './proxy-set.ts';
import { writeSection } from './sections.ts';

export { proxyTables } from './proxy-report.ts';

export const PROXY_TARGETS = {
  /** toolwire's CPU per request over the pipe's, streamed and not. */
  cpuRatio: 1.3,
  /** toolwire's requests per second over the pipe's, not streamed. */
  throughputRatio: 0.7,
  /** What the proxy adds to the first byte, at the median, where the pipe adds less. */
  addedFirstByteP50Ms: 2,
  /** What the proxy adds to the first byte at p99, over what the pipe adds. */
  addedFirstByteP99Ratio: 2,
  /** Below this an added p99 is measurement noise: a pipe adding less is counted as this. */
  addedFirstByteFloorMs: 1,
  /** The proxy's RSS after `rssAfterRequests` requests. */
  rssMb: 150,
} as const;

export interface ProxyBenchSettings extends SetSettings {
  readonly replies: number;
  readonly seed: number;
  /** How long each long reply is: ~this many tokens, one SSE event each. */
  readonly tokensPerReply: number;
  /** Short replies the first-byte probes ask for. */
  readonly probeReplies: number;
  /** Fresh sets of processes the measurements are repeated in; figures are their medians. */
  readonly processSets: number;
  /** A folder: run toolwire's proxy under --cpu-prof and write its profiles there. */
  readonly profileDir?: string;
}

/** Sized to keep this section near 2-3 minutes on a two-core machine. */
export const PROXY_BENCH_SETTINGS: ProxyBenchSettings = {
  replies: 20,
  seed: 3100,
  tokensPerReply: 1480,
  probeReplies: 10,
  processSets: 3,
  warmupRequests: 24,
  warmupConcurrency: 8,
  cpuStreams: 5,
  cpuRequests: 20,
  throughputConcurrency: 50,
  throughputRequests: 400,
  throughputRounds: 3,
  // 200 tokens a second per stream, 50 streams: a busy model server.
  paceMs: 5,
  pacedStreams: 50,
  probeWorkers: 2,
  probeGapMs: 20,
  rampMs: 1000,
  rssAfterRequests: 10_000,
  passThrough: true,
};

export interface Percentiles {
  readonly p50: number;
  readonly p99: number;
}

/** A figure of each process set, and their median. */
export interface OverSets {
  readonly median: number;
  readonly sets: readonly number[];
}

export interface CpuRow {
  readonly api: BenchApi;
  readonly stream: boolean;
  /** `not served`: the proxy refused the request (Responses streamed, before it was). */
  readonly served: boolean;
  readonly proxyMs?: OverSets;
  readonly pipeMs?: OverSets;
  readonly passThroughMs?: OverSets;
  /** Proxy over pipe, per set (same batch or round), and their median. */
  readonly ratio?: OverSets;
}

export interface ThroughputRow {
  readonly api: BenchApi;
  readonly proxyPerSecond: OverSets;
  readonly pipePerSecond: OverSets;
  /** Proxy over pipe: per set the median of the rounds' ratios. */
  readonly ratio: OverSets;
}

export interface FirstByteRow {
  /** `pipe`, or the proxy on an API. */
  readonly side: 'pipe' | BenchApi;
  readonly served: boolean;
  readonly probes?: OverSets;
  readonly firstByteMs?: { readonly p50: OverSets; readonly p99: OverSets };
  /** The direct twins' first bytes (all of the batch's, whatever API the probe was). */
  readonly directMs?: { readonly p50: OverSets; readonly p99: OverSets };
  /** Percentiles of what each probe took beyond its direct twin. */
  readonly addedMs?: { readonly p50: OverSets; readonly p99: OverSets };
}

export interface PacedSideRow {
  readonly side: 'pipe' | 'proxy';
  readonly cpuMsPerRequest: OverSets;
  readonly loopDelayP99Ms: OverSets;
  readonly loopDelayMaxMs: OverSets;
  /** First byte of the long streams themselves (they start together over the ramp). */
  readonly streamFirstByteMs: { readonly p50: OverSets; readonly p99: OverSets };
}

export interface MemoryRow {
  readonly side: 'pipe' | 'proxy';
  readonly requests: OverSets;
  readonly rssMbAfterWarmup: OverSets;
  readonly rssMb: OverSets;
  readonly heapUsedMb: OverSets;
}

export interface ProxyTarget {
  readonly target: string;
  readonly value: string;
  readonly pass: boolean;
}

export interface ProxyBenchResult {
  readonly settings: ProxyBenchSettings;
  readonly formats: readonly string[];
  readonly replyChars: { readonly min: number; readonly median: number; readonly max: number };
  /** SSE events per long reply as the model server streams it (tokens, role, finish, [DONE]). */
  readonly replyEvents: { readonly min: number; readonly median: number; readonly max: number };
  readonly responsesStreamed: 'served' | 'not served';
  readonly cpu: readonly CpuRow[];
  readonly throughput: readonly ThroughputRow[];
  readonly passThroughPerSecond?: OverSets;
  readonly firstByte: readonly FirstByteRow[];
  readonly paced: readonly PacedSideRow[];
  readonly memory: readonly MemoryRow[];
  readonly targets: readonly ProxyTarget[];
  /** Replies that were wrong, cut off or refused; any fails the bench. */
  readonly failures: readonly string[];
  readonly sets: readonly SetResult[];
  readonly profile?: ProfileSummary & { readonly file: string };
  readonly seconds: number;
}

// ---------------------------------------------------------------------------------------------
// Statistics.

/** Nearest-rank percentile (p in 0..100) of the finite values; NaN when there are none. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(rank, 1)) - 1]!;
}

export function percentiles(values: readonly number[]): Percentiles {
  return { p50: percentile(values, 50), p99: percentile(values, 99) };
}

/** The median of the finite values of each set (NaN where none is). */
export function overSets(sets: readonly number[]): OverSets {
  return { median: median(sets.filter(Number.isFinite)), sets };
}

/** Proxy over pipe of each pair of values, and the median of those ratios. */
export function ratios(proxy: readonly number[], pipe: readonly number[]): number[] {
  return proxy.map((value, at) => value / pipe[at]!);
}

// ---------------------------------------------------------------------------------------------
// From the sets' figures to the rows.

export function cpuRows(
  sets: readonly SetResult[],
  apis: readonly BenchApi[],
  streamedApis: readonly BenchApi[],
): CpuRow[] {
  const rows: CpuRow[] = [];
  for (const stream of [true, false])
    for (const api of apis) {
      if (stream && !streamedApis.includes(api)) {
        rows.push({ api, stream, served: false });
        continue;
      }
      let proxy: number[];
      let pipe: number[];
      let passThrough: number[] | undefined;
      let perSet: number[];
      if (stream) {
        const cases = sets.map((set) => set.cpuStreamed.find((entry) => entry.api === api));
        proxy = cases.map((entry) => entry?.ms.proxy ?? Number.NaN);
        pipe = cases.map((entry) => entry?.ms.pipe ?? Number.NaN);
        if (api === 'chat')
          passThrough = cases.map((entry) => entry?.ms['pass-through'] ?? Number.NaN);
        perSet = ratios(proxy, pipe);
      } else {
        const proxyRounds = sets.map((set) => set.throughput[`proxy ${api}`]?.cpuMs ?? []);
        const pipeRounds = sets.map((set) => set.throughput.pipe?.cpuMs ?? []);
        proxy = proxyRounds.map((rounds) => median(rounds));
        pipe = pipeRounds.map((rounds) => median(rounds));
        if (api === 'chat')
          passThrough = sets.map((set) => median(set.throughput['pass-through']?.cpuMs ?? []));
        perSet = proxyRounds.map((rounds, at) => median(ratios(rounds, pipeRounds[at]!)));
      }
      rows.push({
        api,
        stream,
        served: true,
        proxyMs: overSets(proxy),
        pipeMs: overSets(pipe),
        ...(passThrough?.some(Number.isFinite) ? { passThroughMs: overSets(passThrough) } : {}),
        ratio: overSets(perSet),
      });
    }
  return rows;
}

export function throughputRows(
  sets: readonly SetResult[],
  apis: readonly BenchApi[],
): ThroughputRow[] {
  return apis.map((api) => {
    const proxyRounds = sets.map((set) => set.throughput[`proxy ${api}`]?.perSecond ?? []);
    const pipeRounds = sets.map((set) => set.throughput.pipe?.perSecond ?? []);
    return {
      api,
      proxyPerSecond: overSets(proxyRounds.map((rounds) => median(rounds))),
      pipePerSecond: overSets(pipeRounds.map((rounds) => median(rounds))),
      ratio: overSets(proxyRounds.map((rounds, at) => median(ratios(rounds, pipeRounds[at]!)))),
    };
  });
}

function percentilesOverSets(perSet: readonly Percentiles[]) {
  return {
    p50: overSets(perSet.map((entry) => entry.p50)),
    p99: overSets(perSet.map((entry) => entry.p99)),
  };
}

export function firstByteRows(
  sets: readonly SetResult[],
  apis: readonly BenchApi[],
  streamedApis: readonly BenchApi[],
): FirstByteRow[] {
  const row = (side: 'pipe' | BenchApi): FirstByteRow => {
    if (side !== 'pipe' && !streamedApis.includes(side)) return { side, served: false };
    const api: BenchApi = side === 'pipe' ? 'chat' : side;
    const batches = sets.map((set) =>
      set.paced.find((batch) => batch.side === (side === 'pipe' ? 'pipe' : 'proxy')),
    );
    return {
      side,
      served: true,
      probes: overSets(batches.map((batch) => batch?.addedFirstByteMs[api]?.length ?? 0)),
      firstByteMs: percentilesOverSets(
        batches.map((batch) => percentiles(batch?.probeFirstByteMs[api] ?? [])),
      ),
      directMs: percentilesOverSets(
        batches.map((batch) => percentiles(batch?.directFirstByteMs ?? [])),
      ),
      addedMs: percentilesOverSets(
        batches.map((batch) => percentiles(batch?.addedFirstByteMs[api] ?? [])),
      ),
    };
  };
  return [row('pipe'), ...apis.map(row)];
}

export function pacedRows(sets: readonly SetResult[]): PacedSideRow[] {
  return (['pipe', 'proxy'] as const).map((side) => {
    const batches = sets.map((set) => set.paced.find((batch) => batch.side === side));
    return {
      side,
      cpuMsPerRequest: overSets(batches.map((batch) => batch?.cpuMsPerRequest ?? Number.NaN)),
      loopDelayP99Ms: overSets(batches.map((batch) => batch?.loopDelayMs.p99 ?? Number.NaN)),
      loopDelayMaxMs: overSets(batches.map((batch) => batch?.loopDelayMs.max ?? Number.NaN)),
      streamFirstByteMs: percentilesOverSets(
        batches.map((batch) => percentiles(batch?.streamFirstByteMs ?? [])),
      ),
    };
  });
}

export function memoryRows(sets: readonly SetResult[]): MemoryRow[] {
  return (['proxy', 'pipe'] as const).map((side) => {
    const figures = sets.map((set) => set.memory[side]);
    const of = (pick: (entry: NonNullable<(typeof figures)[number]>) => number) =>
      overSets(figures.map((entry) => (entry ? pick(entry) : Number.NaN)));
    return {
      side,
      requests: of((entry) => entry.requests),
      rssMbAfterWarmup: of((entry) => entry.rssMbAfterWarmup),
      rssMb: of((entry) => entry.rssMb),
      heapUsedMb: of((entry) => entry.heapUsedMb),
    };
  });
}

function ms(value: number): string {
  if (!Number.isFinite(value)) return '-';
  const text = Math.abs(value) >= 10 ? value.toFixed(1) : value.toFixed(2);
  return `${value >= 0 ? '+' : ''}${text} ms`;
}

function times(value: number): string {
  return Number.isFinite(value) ? `${value.toFixed(2)}x` : '-';
}

/** Every target judged on the medians: one line each, with its value and whether it passed. */
export function proxyTargets(
  cpu: readonly CpuRow[],
  throughput: readonly ThroughputRow[],
  firstByte: readonly FirstByteRow[],
  memory: readonly MemoryRow[],
  streams: number,
  rssAfterRequests: number,
): ProxyTarget[] {
  const list: ProxyTarget[] = [];
  for (const row of cpu) {
    const what = `proxy ${row.api}${row.stream ? ' streamed' : ''}: CPU/request ≤ ${PROXY_TARGETS.cpuRatio}x the pipe's`;
    if (!row.served) {
      list.push({ target: what, value: 'not served', pass: false });
      continue;
    }
    const ratio = row.ratio!.median;
    list.push({ target: what, value: times(ratio), pass: ratio <= PROXY_TARGETS.cpuRatio });
  }
  for (const row of throughput) {
    const ratio = row.ratio.median;
    list.push({
      target: `proxy ${row.api}: requests/s not streamed ≥ ${PROXY_TARGETS.throughputRatio}x the pipe's`,
      value: times(ratio),
      pass: ratio >= PROXY_TARGETS.throughputRatio,
    });
  }
  const pipe = firstByte.find((row) => row.side === 'pipe');
  const pipeP50 = pipe?.addedMs?.p50.median ?? Number.NaN;
  const pipeP99 = pipe?.addedMs?.p99.median ?? Number.NaN;
  for (const row of firstByte) {
    if (row.side === 'pipe') continue;
    const where = `proxy ${row.side} streamed, ${streams} streams`;
    if (!row.served || !row.addedMs) {
      list.push({ target: `${where}: added first byte`, value: 'not served', pass: false });
      continue;
    }
    // Where the pipe itself adds 2 ms or more (a machine too busy), the target cannot be shown
    // met: a miss, saying why.
    const p50 = row.addedMs.p50.median;
    const judged = pipeP50 < PROXY_TARGETS.addedFirstByteP50Ms;
    list.push({
      target: `${where}: added first byte p50 < ${PROXY_TARGETS.addedFirstByteP50Ms} ms (where the pipe's is)`,
      value: judged ? ms(p50) : `${ms(p50)}; not judged: the pipe's is ${ms(pipeP50)}`,
      pass: judged && p50 < PROXY_TARGETS.addedFirstByteP50Ms,
    });
    const p99 = row.addedMs.p99.median;
    const limit =
      PROXY_TARGETS.addedFirstByteP99Ratio * Math.max(pipeP99, PROXY_TARGETS.addedFirstByteFloorMs);
    list.push({
      target: `${where}: added first byte p99 ≤ ${PROXY_TARGETS.addedFirstByteP99Ratio}x the pipe's`,
      value: `${ms(p99)} vs pipe ${ms(pipeP99)}`,
      pass: p99 <= limit,
    });
  }
  // The last set served the requests before its RSS was read; the others served fewer.
  const proxyMemory = memory.find((row) => row.side === 'proxy');
  if (proxyMemory) {
    const rss = proxyMemory.rssMb.sets.at(-1) ?? Number.NaN;
    const served = proxyMemory.requests.sets.at(-1) ?? 0;
    list.push({
      target: `proxy RSS after ${rssAfterRequests} requests < ${PROXY_TARGETS.rssMb} MB`,
      value: `${rss.toFixed(0)} MB after ${served}`,
      pass: rss < PROXY_TARGETS.rssMb && served >= rssAfterRequests,
    });
  }
  return list;
}

// ---------------------------------------------------------------------------------------------
// The run.

function progress(message: string): void {
  process.stderr.write(`[proxy] ${message}\n`);
}

/** The most failures listed; the count says how many more there were. */
const LISTED_FAILURES = 10;

/**
 * Whether the proxy serves streamed requests of the API: Responses answered 400 to
 * `stream: true` before streamed responses were added, and is then measured not streamed only.
 */
async function servesStreamed(
  proxyUrl: string,
  api: BenchApi,
  world: { replies: ReturnType<typeof benchReplySet> },
): Promise<{ served: boolean; problem?: string }> {
  const agent = benchAgent();
  try {
    const reply = world.replies[0]!;
    const result = await exchange(
      agent,
      { side: 'proxy', url: proxyUrl, reply: reply.index, path: API_PATHS[api], tag: api },
      Buffer.from(apiRequestBody(api, reply, true)),
    );
    if (result.status === 400) return { served: false };
    const problem = exchangeProblem(result, world.replies, api);
    return problem === undefined ? { served: true } : { served: true, problem };
  } finally {
    agent.destroy();
  }
}

function stats(values: readonly number[]) {
  return { min: Math.min(...values), median: median(values), max: Math.max(...values) };
}

export async function benchProxy(
  settings: ProxyBenchSettings = PROXY_BENCH_SETTINGS,
  log: (message: string) => void = progress,
): Promise<ProxyBenchResult> {
  const started = performance.now();
  const replies = benchReplySet(
    settings.replies,
    settings.seed,
    settings.tokensPerReply,
    settings.probeReplies,
  );
  const profileDir =
    settings.profileDir === undefined ? undefined : resolvePath(settings.profileDir);
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  const failures: string[] = [];
  let failureCount = 0;
  const fail = (message: string) => {
    failureCount++;
    if (failures.length < LISTED_FAILURES) failures.push(message);
  };

  const upstream = await startChild('proxy-upstream.ts', [
    String(settings.replies),
    String(settings.seed),
    String(settings.tokensPerReply),
    String(settings.probeReplies),
  ]);
  const agent = benchAgent();
  try {
    // Which APIs the proxy streams, asked of a proxy of its own before the sets begin.
    const apis = [...BENCH_APIS];
    const streamedApis: BenchApi[] = [];
    const probe: BenchChild = await startChild('proxy-child.ts', ['proxy', upstream.url]);
    try {
      for (const api of apis) {
        const { served, problem } = await servesStreamed(probe.url, api, { replies });
        if (problem) fail(`first ${api} streamed request: ${problem}`);
        if (served) streamedApis.push(api);
        else log(`${api} streamed: not served (400); measured not streamed only`);
      }
    } finally {
      await probe.stop();
    }

    const world = {
      upstream,
      agent,
      replies,
      longReplies: settings.replies,
      probeReplies: settings.probeReplies,
      streamedApis,
      apis,
      log,
      fail,
      proxyExecArgv: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
    };
    const sets: SetResult[] = [];
    for (let order = 0; order < settings.processSets; order++)
      sets.push(await runProcessSet(world, settings, order, order === settings.processSets - 1));

    if (failureCount > failures.length)
      failures.push(`… and ${failureCount - failures.length} more failed replies`);
    const cpu = cpuRows(sets, apis, streamedApis);
    const throughput = throughputRows(sets, apis);
    const firstByte = firstByteRows(sets, apis, streamedApis);
    const memory = memoryRows(sets);
    const passThrough = sets.map((set) => median(set.throughput['pass-through']?.perSecond ?? []));
    const profileFile = profileDir ? newestProfile(profileDir) : undefined;
    const long = replies.slice(0, settings.replies);
    return {
      settings,
      formats: Object.keys(REPLY_FORMATS),
      replyChars: stats(long.map((reply) => reply.text.length)),
      replyEvents: stats(long.map((reply) => reply.tokens.length + 3)),
      responsesStreamed: streamedApis.includes('responses') ? 'served' : 'not served',
      cpu,
      throughput,
      ...(passThrough.some(Number.isFinite) ? { passThroughPerSecond: overSets(passThrough) } : {}),
      firstByte,
      paced: pacedRows(sets),
      memory,
      targets: proxyTargets(
        cpu,
        throughput,
        firstByte,
        memory,
        settings.pacedStreams,
        settings.rssAfterRequests,
      ),
      failures,
      sets,
      ...(profileFile
        ? { profile: { file: profileFile, ...summariseProfile(readProfile(profileFile)) } }
        : {}),
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    agent.destroy();
    await upstream.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// What bench/run.ts calls.

/** This section in a fresh process, away from the other sections' JIT state and garbage. */
export function benchProxyInChild(): Promise<ProxyBenchResult> {
  return benchInChild<ProxyBenchResult>('proxy.ts');
}

/** `TOOLWIRE_BENCH=proxy`: this section alone, its key of the results file replaced. */
export async function benchProxyOnly(resultsFile: URL): Promise<void> {
  const result = await benchProxyInChild();
  console.log(proxyTables(result));
  writeSection(resultsFile, 'proxy', result);
  reportProxyFailures(result);
}

/** A wrong reply fails the bench (after everything is written). */
export function reportProxyFailures(result: ProxyBenchResult): void {
  if (result.failures.length === 0) return;
  console.error(`bench FAILED: the proxy section had wrong replies:`);
  for (const failure of result.failures) console.error(`  ${failure}`);
  process.exitCode = 1;
}

/** The settings, with a profile folder when TOOLWIRE_BENCH_PROXY_PROFILE names one. */
export function settingsFromEnvironment(
  profileDir = process.env.TOOLWIRE_BENCH_PROXY_PROFILE,
): ProxyBenchSettings {
  const folder = profileDir?.trim();
  return folder ? { ...PROXY_BENCH_SETTINGS, profileDir: folder } : PROXY_BENCH_SETTINGS;
}

if (import.meta.main) {
  const result = await benchProxy(settingsFromEnvironment());
  console.log(
    process.argv.includes('--json') ? JSON.stringify(result, null, 2) : proxyTables(result),
  );
  // With --json the caller (bench/run.ts) reports the failures after writing the results.
  if (!process.argv.includes('--json')) reportProxyFailures(result);
}
