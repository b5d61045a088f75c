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
import { newestProfile, readProfile, summariseProfile } from './cpu-profile.ts';
import { benchInChild, median } from './measure.ts';
import { exchangeProblem } from './proxy-check.ts';
import {
  cpuRows,
  firstByteRows,
  memoryRows,
  overSets,
  type ProxyBenchResult,
  type ProxyBenchSettings,
  pacedRows,
  proxyTargets,
  throughputRows,
} from './proxy-figures.ts';
import { benchAgent, exchange } from './proxy-load.ts';
import { type BenchChild, startChild } from './proxy-processes.ts';
import {
  API_PATHS,
  apiRequestBody,
  BENCH_APIS,
  type BenchApi,
  benchReplySet,
  REPLY_FORMATS,
  type ReplySetShape,
  replyRanges,
} from './proxy-replies.ts';
import { proxyTables } from './proxy-report.ts';
import { runProcessSet, type SetResult } from './proxy-set.ts';
import { writeSection } from './sections.ts';

export type { ProxyBenchResult, ProxyBenchSettings, ProxyTarget } from './proxy-figures.ts';
export { proxyTables } from './proxy-report.ts';

/** Sized to keep this section near 2-3 minutes on a two-core machine. */
export const PROXY_BENCH_SETTINGS: ProxyBenchSettings = {
  replies: 20,
  seed: 3100,
  tokensPerReply: 1480,
  // Paced at 10 ms a token (100 tokens a second, as a model writes), replies of half the length
  // (the same calls) keep a batch near 8 s.
  pacedTokensPerReply: 740,
  probeReplies: 10,
  processSets: 3,
  warmupRequests: 16,
  warmupConcurrency: 8,
  cpuStreams: 5,
  cpuRequests: 20,
  throughputConcurrency: 50,
  throughputRequests: 400,
  throughputRounds: 3,
  paceMs: 10,
  pacedStreams: 50,
  // 40 probes a second: ~250 in a batch, a fraction of the long streams' load.
  probeIntervalMs: 25,
  probesAlone: 80,
  rampMs: 1000,
  rssAfterRequests: 10_000,
  passThrough: true,
};

// ---------------------------------------------------------------------------------------------
// The run.

const loaded = performance.now();

function progress(message: string): void {
  process.stderr.write(
    `[proxy ${((performance.now() - loaded) / 1000).toFixed(0)} s] ${message}\n`,
  );
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
  const shape: ReplySetShape = {
    count: settings.replies,
    seed: settings.seed,
    tokensPerReply: settings.tokensPerReply,
    pacedTokensPerReply: settings.pacedTokensPerReply,
    probes: settings.probeReplies,
  };
  const replies = benchReplySet(shape);
  const ranges = replyRanges(shape);
  const profileDir =
    settings.profileDir === undefined ? undefined : resolvePath(settings.profileDir);
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  const failures: string[] = [];
  let failureCount = 0;
  const fail = (message: string) => {
    failureCount++;
    if (failures.length < LISTED_FAILURES) failures.push(message);
  };

  const upstream = await startChild('proxy-upstream.ts', [JSON.stringify(shape)]);
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
      ranges,
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
    const firstByte = [
      ...firstByteRows(sets, apis, streamedApis, 0),
      ...firstByteRows(sets, apis, streamedApis, settings.pacedStreams),
    ];
    const memory = memoryRows(sets);
    const paced = pacedRows(sets);
    const passThrough = sets.map((set) => median(set.throughput['pass-through']?.perSecond ?? []));
    const profileFile = profileDir ? newestProfile(profileDir) : undefined;
    const events = (from: number, count: number) =>
      stats(replies.slice(from, from + count).map((reply) => reply.tokens.length + 3));
    return {
      settings,
      formats: Object.keys(REPLY_FORMATS),
      replyChars: stats(replies.slice(0, settings.replies).map((reply) => reply.text.length)),
      replyEvents: events(ranges.long.from, ranges.long.count),
      pacedReplyEvents: events(ranges.paced.from, ranges.paced.count),
      responsesStreamed: streamedApis.includes('responses') ? 'served' : 'not served',
      cpu,
      throughput,
      ...(passThrough.some(Number.isFinite) ? { passThroughPerSecond: overSets(passThrough) } : {}),
      firstByte,
      paced,
      memory,
      targets: proxyTargets(
        { cpu, throughput, firstByte, paced, memory },
        settings.pacedStreams,
        settings.rssAfterRequests,
      ),
      failures,
      setSeconds: sets.map((set) => set.seconds),
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
