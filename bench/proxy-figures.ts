/**
 * The proxy bench's figures: what each process set measured (bench/proxy-set.ts) made into rows
 * (medians over the sets, each set's figure kept), and the targets judged on them.
 */

import type { ProfileSummary } from './cpu-profile.ts';
import { median } from './measure.ts';
import type { BenchApi } from './proxy-replies.ts';
import type { SetResult, SetSettings } from './proxy-set.ts';
import type { BenchTarget } from './sections.ts';

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
  /**
   * How long the paced streams' replies are (the same calls, shorter prose), so a paced batch
   * lasts this many tokens times the pace.
   */
  readonly pacedTokensPerReply: number;
  /** Short replies the first-byte probes ask for. */
  readonly probeReplies: number;
  /** Fresh sets of processes the measurements are repeated in; figures are their medians. */
  readonly processSets: number;
  /** A folder: run toolwire's proxy under --cpu-prof and write its profiles there. */
  readonly profileDir?: string;
}

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
  /** Long streams running through the side while probed (0: the probes alone). */
  readonly streams: number;
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

export type ProxyTarget = BenchTarget;

export interface ProxyBenchResult {
  readonly settings: ProxyBenchSettings;
  readonly formats: readonly string[];
  readonly replyChars: { readonly min: number; readonly median: number; readonly max: number };
  /** SSE events per long reply as the model server streams it (tokens, role, finish, [DONE]). */
  readonly replyEvents: { readonly min: number; readonly median: number; readonly max: number };
  /** The same for the paced streams' replies. */
  readonly pacedReplyEvents: {
    readonly min: number;
    readonly median: number;
    readonly max: number;
  };
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
  /** How long each process set took, s (its raw samples are summed up in the rows). */
  readonly setSeconds: readonly number[];
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

/** The first-byte rows of one level: the pipe's, then the proxy's on each API. */
export function firstByteRows(
  sets: readonly SetResult[],
  apis: readonly BenchApi[],
  streamedApis: readonly BenchApi[],
  streams: number,
): FirstByteRow[] {
  const row = (side: 'pipe' | BenchApi): FirstByteRow => {
    if (side !== 'pipe' && !streamedApis.includes(side)) return { streams, side, served: false };
    const api: BenchApi = side === 'pipe' ? 'chat' : side;
    const batches = sets.map((set) =>
      set.paced.find(
        (batch) => batch.streams === streams && batch.side === (side === 'pipe' ? 'pipe' : 'proxy'),
      ),
    );
    return {
      streams,
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
    const batches = sets.map((set) =>
      set.paced.find((batch) => batch.streams > 0 && batch.side === side),
    );
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
/**
 * The proxy's CPU per request over the pipe's in each set's paced batches, and their median;
 * undefined where no set measured both.
 */
export function pacedCpuRatio(paced: readonly PacedSideRow[]): OverSets | undefined {
  const proxy = paced.find((row) => row.side === 'proxy');
  const pipe = paced.find((row) => row.side === 'pipe');
  if (!proxy || !pipe) return undefined;
  const perSet = ratios(proxy.cpuMsPerRequest.sets, pipe.cpuMsPerRequest.sets);
  return perSet.some(Number.isFinite) ? overSets(perSet) : undefined;
}

export interface ProxyRows {
  readonly cpu: readonly CpuRow[];
  readonly throughput: readonly ThroughputRow[];
  readonly firstByte: readonly FirstByteRow[];
  readonly paced: readonly PacedSideRow[];
  readonly memory: readonly MemoryRow[];
}

export function proxyTargets(
  { cpu, throughput, firstByte, paced, memory }: ProxyRows,
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
  // Paced, each upstream read holds one event: the per-read costs weigh most there.
  const pacedRatio = pacedCpuRatio(paced)?.median;
  if (pacedRatio !== undefined)
    list.push({
      target: `proxy streamed, ${streams} paced streams: CPU/request ≤ ${PROXY_TARGETS.cpuRatio}x the pipe's`,
      value: times(pacedRatio),
      pass: pacedRatio <= PROXY_TARGETS.cpuRatio,
    });
  for (const row of throughput) {
    const ratio = row.ratio.median;
    list.push({
      target: `proxy ${row.api}: requests/s not streamed ≥ ${PROXY_TARGETS.throughputRatio}x the pipe's`,
      value: times(ratio),
      pass: ratio >= PROXY_TARGETS.throughputRatio,
    });
  }
  // p50 at every level where the pipe adds less than the limit; p99 at the paced streams.
  for (const level of new Set(firstByte.map((row) => row.streams))) {
    const rows = firstByte.filter((row) => row.streams === level);
    const pipe = rows.find((row) => row.side === 'pipe');
    const pipeP50 = pipe?.addedMs?.p50.median ?? Number.NaN;
    const pipeP99 = pipe?.addedMs?.p99.median ?? Number.NaN;
    for (const row of rows) {
      if (row.side === 'pipe') continue;
      const where = `proxy ${row.side} streamed, ${level === 0 ? 'probes alone' : `${level} streams`}`;
      if (!row.served || !row.addedMs) {
        list.push({ target: `${where}: added first byte`, value: 'not served', pass: false });
        continue;
      }
      // Where the pipe itself adds 2 ms or more (a machine too busy), the target cannot be
      // shown met: a miss, saying why.
      const p50 = row.addedMs.p50.median;
      const judged = pipeP50 < PROXY_TARGETS.addedFirstByteP50Ms;
      list.push({
        target: `${where}: added first byte p50 < ${PROXY_TARGETS.addedFirstByteP50Ms} ms (where the pipe's is)`,
        value: judged ? ms(p50) : `${ms(p50)}; not judged: the pipe's is ${ms(pipeP50)}`,
        pass: judged && p50 < PROXY_TARGETS.addedFirstByteP50Ms,
      });
      if (level !== streams) continue;
      const p99 = row.addedMs.p99.median;
      const limit =
        PROXY_TARGETS.addedFirstByteP99Ratio *
        Math.max(pipeP99, PROXY_TARGETS.addedFirstByteFloorMs);
      list.push({
        target: `${where}: added first byte p99 ≤ ${PROXY_TARGETS.addedFirstByteP99Ratio}x the pipe's`,
        value: `${ms(p99)} vs pipe ${ms(pipeP99)}`,
        pass: p99 <= limit,
      });
    }
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
