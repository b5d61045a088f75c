/**
 * toolwire's proxy against a pass-through proxy on the same stack (Hono on @hono/node-server,
 * forwarding bytes without reading them), both in front of one scripted model server that
 * streams the same replies token by token: streamed chat completions requests with tools, 1, 10
 * and 100 at once.
 *
 * - CPU per request: each proxy runs in a process of its own and reports process.cpuUsage()
 *   before and after a batch, so the time is its alone (the model server and this load generator
 *   run in other processes). Median of the rounds.
 * - Time to first byte, as the client sees it, for the model server asked directly, through the
 *   pass-through and through toolwire's proxy; what the proxy adds is the difference of the
 *   percentiles. Pooled over the rounds.
 * - Fast: the server writes each token on its own turn of its event loop without waiting, so
 *   the proxies' own cost is what is timed (at 10 and 100 streams the machine is saturated and
 *   the times include waiting for a core). Paced: the server waits between tokens as a model
 *   does, the three sides' requests interleaved, which is the first byte a client meets.
 * - Every reply is checked (the text through the pass-through, the calls and their arguments
 *   through the proxy) after its batch: a wrong or cut-off reply fails the bench.
 *
 * Standalone: `node bench/proxy.ts` (`--json` for the raw results). `npm run bench` runs it in a
 * process of its own; `TOOLWIRE_BENCH=proxy npm run bench` runs only this and updates the `proxy`
 * key of bench/results.json. `TOOLWIRE_BENCH_PROXY_PROFILE=<folder>` runs toolwire's proxy under
 * `node --cpu-prof`, writes its profile there and prints where its time went (the figures of
 * such a run are marked as profiled: the profiler slows it).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import {
  newestProfile,
  type ProfileEntry,
  type ProfileSummary,
  readProfile,
  summariseProfile,
} from './cpu-profile.ts';
import { benchInChild, formatMs, formatRatio, formatTable, median } from './measure.ts';
import { exchangeProblem } from './proxy-check.ts';
import type { ProxySide } from './proxy-child.ts';
import { benchAgent, type Exchange, type Job, runJobs } from './proxy-load.ts';
import { chatRequestBody, REPLY_FORMATS, scriptedReplies } from './proxy-replies.ts';
import { writeSection } from './sections.ts';

export const SIDES = ['direct', 'pass-through', 'proxy'] as const;
export type Side = (typeof SIDES)[number];
export type Mode = 'fast' | 'paced';

export const PROXY_TARGETS = {
  /** toolwire's CPU per request over the pass-through's. */
  cpuRatio: 1.5,
  /** What the proxy adds to the first byte over the pass-through, at the median. */
  addedFirstByteP50Ms: 2,
} as const;

export interface ProxyBenchSettings {
  readonly replies: number;
  readonly seed: number;
  /** Requests per side at the start, untimed, so every process has tiered up. */
  readonly warmupRequests: number;
  readonly warmupConcurrency: number;
  readonly rounds: number;
  /** Concurrent streams and requests per side per round (fast). */
  readonly levels: readonly { readonly streams: number; readonly requests: number }[];
  /** Milliseconds between tokens in the paced run. */
  readonly paceMs: number;
  /** Concurrent streams and requests per side (paced, the sides interleaved). */
  readonly pacedLevels: readonly { readonly streams: number; readonly requests: number }[];
  /** A folder: run toolwire's proxy under --cpu-prof and write its profile there. */
  readonly profileDir?: string;
}

/** Sized to keep this section near a minute on a two-core machine. */
export const PROXY_BENCH_SETTINGS: ProxyBenchSettings = {
  replies: 20,
  seed: 3100,
  warmupRequests: 200,
  warmupConcurrency: 10,
  rounds: 3,
  levels: [
    { streams: 1, requests: 40 },
    { streams: 10, requests: 100 },
    { streams: 100, requests: 200 },
  ],
  // 100 tokens a second: a fast server, the most events per second a proxy meets from a stream.
  paceMs: 10,
  pacedLevels: [
    { streams: 10, requests: 20 },
    { streams: 100, requests: 100 },
  ],
};

export interface Percentiles {
  readonly p50: number;
  readonly p99: number;
}

export interface SideFigures {
  readonly requests: number;
  readonly failed: number;
  /** CPU (user + system) of the side's process per request; the median of the rounds. */
  readonly cpuMsPerRequest?: number;
  readonly cpuMsPerRequestRounds?: readonly number[];
  readonly firstByteMs: Percentiles;
  readonly firstTokenMs: Percentiles;
  readonly totalMs: Percentiles;
}

export interface LevelResult {
  readonly mode: Mode;
  readonly streams: number;
  readonly sides: Readonly<Record<Side, SideFigures>>;
  /** toolwire's CPU per request / the pass-through's. */
  readonly cpuRatio: number;
  /** Percentile of the proxy minus the same percentile of the other side. */
  readonly addedFirstByteMs: {
    readonly overPassThrough: Percentiles;
    readonly overDirect: Percentiles;
  };
  readonly addedFirstTokenMs: {
    readonly overPassThrough: Percentiles;
    readonly overDirect: Percentiles;
  };
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
  readonly replyTokens: { readonly min: number; readonly median: number; readonly max: number };
  readonly levels: readonly LevelResult[];
  readonly targets: readonly ProxyTarget[];
  /** Replies that were wrong, cut off or refused; any fails the bench. */
  readonly failures: readonly string[];
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

function percentiles(values: readonly number[]): Percentiles {
  return { p50: percentile(values, 50), p99: percentile(values, 99) };
}

function difference(a: Percentiles, b: Percentiles): Percentiles {
  return { p50: a.p50 - b.p50, p99: a.p99 - b.p99 };
}

/** One side's figures from its checked exchanges and the CPU each round of them took. */
export function sideFigures(
  exchanges: readonly Exchange[],
  failed: number,
  cpuMsPerRequestRounds: readonly number[],
): SideFigures {
  return {
    requests: exchanges.length + failed,
    failed,
    ...(cpuMsPerRequestRounds.length > 0
      ? { cpuMsPerRequest: median(cpuMsPerRequestRounds), cpuMsPerRequestRounds }
      : {}),
    firstByteMs: percentiles(exchanges.map((result) => result.firstByteMs)),
    firstTokenMs: percentiles(exchanges.map((result) => result.firstTokenMs)),
    totalMs: percentiles(exchanges.map((result) => result.totalMs)),
  };
}

/** The comparisons of one level: CPU ratio and what the proxy adds to the first byte and token. */
export function levelResult(
  mode: Mode,
  streams: number,
  sides: Readonly<Record<Side, SideFigures>>,
): LevelResult {
  const proxy = sides.proxy;
  return {
    mode,
    streams,
    sides,
    cpuRatio:
      (proxy.cpuMsPerRequest ?? Number.NaN) / (sides['pass-through'].cpuMsPerRequest ?? Number.NaN),
    addedFirstByteMs: {
      overPassThrough: difference(proxy.firstByteMs, sides['pass-through'].firstByteMs),
      overDirect: difference(proxy.firstByteMs, sides.direct.firstByteMs),
    },
    addedFirstTokenMs: {
      overPassThrough: difference(proxy.firstTokenMs, sides['pass-through'].firstTokenMs),
      overDirect: difference(proxy.firstTokenMs, sides.direct.firstTokenMs),
    },
  };
}

export function proxyTargets(levels: readonly LevelResult[]): ProxyTarget[] {
  const list: ProxyTarget[] = [];
  for (const level of levels) {
    const where = `${level.mode}, ${level.streams} stream${level.streams === 1 ? '' : 's'}`;
    list.push({
      target: `${where}: proxy CPU/request ≤ ${PROXY_TARGETS.cpuRatio}x pass-through`,
      value: formatRatio(level.cpuRatio),
      pass: level.cpuRatio <= PROXY_TARGETS.cpuRatio,
    });
    const added = level.addedFirstByteMs.overPassThrough.p50;
    list.push({
      target: `${where}: added first byte p50 < ${PROXY_TARGETS.addedFirstByteP50Ms} ms`,
      value: `${formatMs(added)} ms`,
      pass: added < PROXY_TARGETS.addedFirstByteP50Ms,
    });
  }
  return list;
}

// ---------------------------------------------------------------------------------------------
// The processes.

interface BenchChild {
  /** Base URL clients use, `http://127.0.0.1:PORT/v1`. */
  readonly url: string;
  /** Asks the child something over IPC and waits for its answer of the same type. */
  ask(message: { type: string; [field: string]: unknown }): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

function startChild(
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

async function cpuMicros(child: BenchChild): Promise<number> {
  return Number((await child.ask({ type: 'cpu' })).micros);
}

// ---------------------------------------------------------------------------------------------
// The run.

function progress(message: string): void {
  process.stderr.write(`[proxy] ${message}\n`);
}

interface Batch {
  /** The exchanges whose replies were right. */
  readonly exchanges: Exchange[];
  readonly failed: Partial<Record<Side, number>>;
  /** CPU ms per request of each proxy process over the batch, by side. */
  readonly cpuMsPerRequest: Partial<Record<Side, number>>;
}

/** The most failures listed; the count says how many more there were. */
const LISTED_FAILURES = 10;

export async function benchProxy(
  settings: ProxyBenchSettings = PROXY_BENCH_SETTINGS,
  log: (message: string) => void = progress,
): Promise<ProxyBenchResult> {
  const started = performance.now();
  const replies = scriptedReplies(settings.replies, settings.seed);
  const bodies = replies.map((reply) => Buffer.from(chatRequestBody(reply)));
  const profileDir =
    settings.profileDir === undefined ? undefined : resolvePath(settings.profileDir);
  if (profileDir) mkdirSync(profileDir, { recursive: true });

  const upstream = await startChild('proxy-upstream.ts', [
    String(settings.replies),
    String(settings.seed),
  ]);
  const children: BenchChild[] = [upstream];
  const failures: string[] = [];
  let failureCount = 0;
  const agent = benchAgent();
  try {
    const startSide = async (side: ProxySide, execArgv: string[] = []) => {
      const child = await startChild('proxy-child.ts', [side, upstream.url], execArgv);
      children.push(child);
      return child;
    };
    const passThrough = await startSide('pass-through');
    const proxy = await startSide(
      'proxy',
      profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
    );
    const processes: Partial<Record<Side, BenchChild>> = { 'pass-through': passThrough, proxy };
    const urls: Record<Side, string> = {
      direct: upstream.url,
      'pass-through': passThrough.url,
      proxy: proxy.url,
    };
    const jobsFor = (side: Side, count: number): Job[] =>
      Array.from({ length: count }, (_, at) => ({
        side,
        url: urls[side],
        reply: at % replies.length,
      }));

    /** Runs the jobs, CPU read around them, then checks every reply. */
    const run = async (label: string, jobs: Job[], streams: number): Promise<Batch> => {
      const measured = SIDES.filter(
        (side) => processes[side] && jobs.some((job) => job.side === side),
      );
      const before = await Promise.all(measured.map((side) => cpuMicros(processes[side]!)));
      const exchanges = await runJobs(agent, jobs, streams, bodies);
      const after = await Promise.all(measured.map((side) => cpuMicros(processes[side]!)));
      const cpuMsPerRequest: Partial<Record<Side, number>> = {};
      measured.forEach((side, at) => {
        const requests = jobs.filter((job) => job.side === side).length;
        cpuMsPerRequest[side] = (after[at]! - before[at]!) / 1000 / requests;
      });
      const ok: Exchange[] = [];
      const failed: Partial<Record<Side, number>> = {};
      for (const result of exchanges) {
        const problem = exchangeProblem(result, replies, result.side === 'proxy');
        if (problem === undefined) {
          ok.push(result);
          continue;
        }
        const side = result.side as Side;
        failed[side] = (failed[side] ?? 0) + 1;
        failureCount++;
        if (failures.length < LISTED_FAILURES)
          failures.push(
            `${label}, ${result.side}, reply ${result.reply} (${replies[result.reply]?.format}): ${problem}`,
          );
      }
      return { exchanges: ok, failed, cpuMsPerRequest };
    };

    log(`warm-up: ${settings.warmupRequests} requests per side`);
    for (const side of SIDES)
      await run('warm-up', jobsFor(side, settings.warmupRequests), settings.warmupConcurrency);

    const levels: LevelResult[] = [];
    const collect = (mode: Mode, streams: number, batches: Batch[]) => {
      const figures = {} as Record<Side, SideFigures>;
      for (const side of SIDES) {
        const exchanges = batches.flatMap((batch) =>
          batch.exchanges.filter((result) => result.side === side),
        );
        const rounds = batches.flatMap((batch) => batch.cpuMsPerRequest[side] ?? []);
        const failed = batches.reduce((sum, batch) => sum + (batch.failed[side] ?? 0), 0);
        figures[side] = sideFigures(exchanges, failed, rounds);
      }
      levels.push(levelResult(mode, streams, figures));
    };

    for (const level of settings.levels) {
      const batches: Batch[] = [];
      for (let round = 0; round < settings.rounds; round++) {
        // Each round starts with another side, so drift does not land on one side alone.
        for (let at = 0; at < SIDES.length; at++) {
          const side = SIDES[(at + round) % SIDES.length]!;
          log(`fast, ${level.streams} streams, round ${round + 1}/${settings.rounds}: ${side}`);
          batches.push(
            await run(
              `fast ${level.streams} streams`,
              jobsFor(side, level.requests),
              level.streams,
            ),
          );
        }
      }
      collect('fast', level.streams, batches);
    }

    await upstream.ask({ type: 'pace', ms: settings.paceMs });
    for (const level of settings.pacedLevels) {
      log(`paced (${settings.paceMs} ms a token), ${level.streams} streams, sides interleaved`);
      const jobs: Job[] = [];
      for (let at = 0; at < level.requests; at++)
        for (const side of SIDES) jobs.push({ side, url: urls[side], reply: at % replies.length });
      collect('paced', level.streams, [
        await run(`paced ${level.streams} streams`, jobs, level.streams),
      ]);
    }
    await upstream.ask({ type: 'pace', ms: 0 });

    if (failureCount > failures.length)
      failures.push(`… and ${failureCount - failures.length} more failed replies`);
    for (const child of children.splice(0)) await child.stop();
    const profileFile = profileDir ? newestProfile(profileDir) : undefined;
    const stats = (values: number[]) => ({
      min: Math.min(...values),
      median: median(values),
      max: Math.max(...values),
    });
    return {
      settings,
      formats: Object.keys(REPLY_FORMATS),
      replyChars: stats(replies.map((reply) => reply.text.length)),
      replyTokens: stats(replies.map((reply) => reply.tokens.length)),
      levels,
      targets: proxyTargets(levels),
      failures,
      ...(profileFile
        ? { profile: { file: profileFile, ...summariseProfile(readProfile(profileFile)) } }
        : {}),
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    agent.destroy();
    for (const child of children) await child.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// Report.

function passMiss(pass: boolean): string {
  return pass ? 'PASS' : 'MISS';
}

function pair(values: Percentiles): string {
  return `${formatMs(values.p50)} / ${formatMs(values.p99)}`;
}

function signed(ms: number): string {
  return ms >= 0 ? `+${formatMs(ms)}` : `-${formatMs(-ms)}`;
}

function signedPair(values: Percentiles): string {
  return `${signed(values.p50)} / ${signed(values.p99)}`;
}

function cpuCell(figures: SideFigures): string {
  return figures.cpuMsPerRequest === undefined ? '-' : formatMs(figures.cpuMsPerRequest);
}

function profileTable(title: string, entries: readonly ProfileEntry[]): string {
  return formatTable(
    [title, 'ms', '% busy'],
    entries.map((entry) => [entry.label, formatMs(entry.ms), entry.percent.toFixed(1)]),
  );
}

/** The tables `npm run bench` prints for this section. */
export function proxyTables(result: ProxyBenchResult): string {
  const { settings } = result;
  const label = (level: LevelResult) => `${level.mode} ${level.streams}`;
  const cpuRows = result.levels.map((level) => [
    label(level),
    String(level.sides.proxy.requests),
    cpuCell(level.sides.proxy),
    cpuCell(level.sides['pass-through']),
    formatRatio(level.cpuRatio),
    passMiss(level.cpuRatio <= PROXY_TARGETS.cpuRatio),
  ]);
  const firstByteRows = result.levels.map((level) => [
    label(level),
    pair(level.sides.direct.firstByteMs),
    pair(level.sides['pass-through'].firstByteMs),
    pair(level.sides.proxy.firstByteMs),
    signedPair(level.addedFirstByteMs.overPassThrough),
    signedPair(level.addedFirstByteMs.overDirect),
    passMiss(level.addedFirstByteMs.overPassThrough.p50 < PROXY_TARGETS.addedFirstByteP50Ms),
  ]);
  const firstTokenRows = result.levels.map((level) => [
    label(level),
    pair(level.sides.direct.firstTokenMs),
    pair(level.sides['pass-through'].firstTokenMs),
    pair(level.sides.proxy.firstTokenMs),
    signedPair(level.addedFirstTokenMs.overPassThrough),
    pair(level.sides['pass-through'].totalMs),
    pair(level.sides.proxy.totalMs),
  ]);
  const lines = [
    `Proxy: toolwire's proxy vs a pass-through proxy (same Hono + @hono/node-server stack, bytes ` +
      'forwarded unread), streamed chat completions with tools',
    `   ${settings.replies} scripted replies (${result.formats.join(', ')}), ` +
      `${result.replyChars.min}-${result.replyChars.max} characters (median ${result.replyChars.median}), ` +
      `${result.replyTokens.min}-${result.replyTokens.max} tokens of 1-6 characters; prose, then 1-2 calls`,
    `   fast: ${settings.rounds} rounds per level, each side in turn, no wait between tokens; ` +
      `paced: ${settings.paceMs} ms a token, the three sides' requests interleaved`,
    `   warm-up ${settings.warmupRequests} requests per side; every reply checked` +
      (result.profile ? '; PROFILED RUN (--cpu-prof on the proxy): figures inflated' : ''),
    '',
    '   CPU per request (each proxy in its own process, user + system; median of the rounds)',
    formatTable(
      [
        'mode streams',
        'requests',
        'proxy ms',
        'pass-through ms',
        'ratio',
        `target ≤ ${PROXY_TARGETS.cpuRatio}x`,
      ],
      cpuRows,
    ),
    '',
    '   Time to first byte of the response body, ms p50 / p99 (pooled over the rounds);',
    '   added = the proxy percentile minus the same percentile of the pass-through / the server asked directly',
    formatTable(
      [
        'mode streams',
        'direct',
        'pass-through',
        'proxy',
        'added over pass',
        'added over direct',
        `p50 < ${PROXY_TARGETS.addedFirstByteP50Ms} ms`,
      ],
      firstByteRows,
    ),
    '',
    '   Time to the first token (first event with text or a call) and to the end, ms p50 / p99',
    formatTable(
      [
        'mode streams',
        'direct',
        'pass-through',
        'proxy',
        'added over pass',
        'end pass',
        'end proxy',
      ],
      firstTokenRows,
    ),
  ];
  if (result.profile) {
    const profile = result.profile;
    lines.push(
      '',
      `   Where toolwire's proxy spent its CPU (${profile.file}; ` +
        `${formatMs(profile.totalMs - profile.idleMs)} ms busy of ${formatMs(profile.totalMs)} ms sampled)`,
      profileTable('function (self time)', profile.functions),
      '',
      profileTable('file (self time)', profile.files),
      '',
      profileTable('project function (total time, with what it calls)', profile.projectTotals),
    );
  }
  if (result.failures.length > 0)
    lines.push('', '   FAILED replies:', ...result.failures.map((failure) => `     ${failure}`));
  lines.push(`   (${result.seconds.toFixed(0)} s, in a process of its own)`);
  return lines.join('\n');
}

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
