/**
 * One process set of the proxy bench: a fresh plain `http` pipe, a fresh toolwire proxy (and the
 * Hono pass-through, as a second reference) in processes of their own, in front of the bench's
 * model server, and every measurement taken on them once:
 *
 * - warm-up: every case through every side, untimed, so the JIT has tiered up;
 * - first byte, alone: short streamed requests (probes) go through each side at a fixed
 *   interval, each with a twin sent to the model server directly at the same moment; what the
 *   side adds is a probe's first byte minus its twin's: with nothing else running, its own cost;
 * - CPU, streamed: for each API, its streamed requests through the proxy and the same replies
 *   asked of the pipe as streamed chat completions, their jobs interleaved in one batch (so a
 *   noisy neighbour slows both alike); each process's CPU time over the batch per request;
 * - throughput, not streamed: each side alone, in turn, at a fixed concurrency, several rounds;
 *   requests per second and CPU per request;
 * - first byte, paced: the same probes while a number of long streams run through the side,
 *   the model server sending their tokens at a model's pace; the side's CPU per request and
 *   event loop delay over the batch;
 * - memory: in one set, requests (not streamed) until each side has served a number of them;
 *   then its RSS.
 *
 * Every reply is checked after its batch (outside its timing): a wrong or cut-off one is a
 * failure of the bench.
 */
import type { Agent } from 'node:http';
import { median } from './measure.ts';
import { exchangeProblem, type ReplyKind } from './proxy-check.ts';
import { dropIdleConnections, type Exchange, exchange, type Job, runJobs } from './proxy-load.ts';
import {
  type BenchChild,
  type ChildStats,
  childStats,
  cpuMicros,
  startChild,
} from './proxy-processes.ts';
import {
  API_PATHS,
  apiRequestBody,
  type BenchApi,
  type ReplyRange,
  type ReplyRanges,
  type ScriptedReply,
} from './proxy-replies.ts';

/** The processes measured: the pipe (the floor), toolwire's proxy, the Hono pass-through. */
export type MeasuredSide = 'pipe' | 'proxy' | 'pass-through';
/** Who a request goes to: a measured side, or the model server itself. */
export type Target = MeasuredSide | 'direct';

export interface SetSettings {
  readonly warmupRequests: number;
  readonly warmupConcurrency: number;
  /** Streamed CPU: concurrent streams per side, and requests per side, per API. */
  readonly cpuStreams: number;
  readonly cpuRequests: number;
  /** Not streamed: concurrent requests, requests per batch, rounds. */
  readonly throughputConcurrency: number;
  readonly throughputRequests: number;
  readonly throughputRounds: number;
  /**
   * Paced first byte: ms between tokens of the long replies, long streams through the side, and
   * ms between one probe and the next (the probes' own replies come unpaced).
   */
  readonly paceMs: number;
  readonly pacedStreams: number;
  readonly probeIntervalMs: number;
  /** Probes sent through each side with no long stream running (at the same interval). */
  readonly probesAlone: number;
  /** The long streams start spread over this long, so their tokens do not come in step. */
  readonly rampMs: number;
  /** RSS is read once each side has served this many requests (in the last set only). */
  readonly rssAfterRequests: number;
  readonly passThrough: boolean;
}

export interface BenchWorld {
  readonly upstream: BenchChild;
  readonly agent: Agent;
  /** Long replies (index 0..n-1), then the probes' short ones, each at its own index. */
  readonly replies: readonly ScriptedReply[];
  /** Where the long, paced and probe replies are in `replies`. */
  readonly ranges: ReplyRanges;
  /** The APIs whose streamed requests the proxy serves (Responses may not be, yet). */
  readonly streamedApis: readonly BenchApi[];
  readonly apis: readonly BenchApi[];
  readonly log: (message: string) => void;
  /** Records a wrong reply; the bench lists the first few and counts the rest. */
  readonly fail: (message: string) => void;
  /** Extra node options for the proxy's process (a profiler). */
  readonly proxyExecArgv: readonly string[];
}

export interface CpuCase {
  readonly api: BenchApi;
  /** CPU ms per request of each side in the batch. */
  readonly ms: Partial<Record<MeasuredSide, number>>;
}

/** A side of the throughput rounds: the pipe, the pass-through, or the proxy on an API. */
export type ThroughputEntry = 'pipe' | 'pass-through' | `proxy ${BenchApi}`;

export interface ThroughputFigures {
  /** Requests per second, one per round. */
  readonly perSecond: number[];
  /** CPU ms per request, one per round. */
  readonly cpuMs: number[];
}

/** One side's paced batch. */
export interface PacedBatch {
  readonly side: 'pipe' | 'proxy';
  /** Long streams running through the side (0: the probes alone). */
  readonly streams: number;
  /** First bytes of the probes through the side, by API (the pipe's are all chat), ms. */
  readonly probeFirstByteMs: Partial<Record<BenchApi, number[]>>;
  /**
   * What each probe through the side took to its first byte beyond its twin, sent to the model
   * server directly at the same moment, by API, ms.
   */
  readonly addedFirstByteMs: Partial<Record<BenchApi, number[]>>;
  /** First bytes of the direct twins, ms. */
  readonly directFirstByteMs: number[];
  /** First bytes of the long streams through the side. */
  readonly streamFirstByteMs: number[];
  readonly cpuMsPerRequest: number;
  readonly loopDelayMs: ChildStats['loopDelayMs'];
  /** How many probes went through the side while the long streams ran. */
  readonly probes: number;
}

export interface MemoryFigures {
  readonly requests: number;
  readonly rssMbAfterWarmup: number;
  readonly rssMb: number;
  readonly heapUsedMb: number;
}

export interface SetResult {
  readonly cpuStreamed: CpuCase[];
  readonly throughput: Partial<Record<ThroughputEntry, ThroughputFigures>>;
  readonly paced: PacedBatch[];
  readonly memory: Partial<Record<'pipe' | 'proxy', MemoryFigures>>;
  readonly seconds: number;
}

const MB = 1024 * 1024;

/** How a side's reply to a request of `api` is checked. */
function replyKind(side: Target, api: BenchApi, stream: boolean): ReplyKind {
  if (side !== 'proxy') return stream ? 'forwarded' : 'forwarded-whole';
  return stream ? api : `${api}-whole`;
}

/**
 * Runs one process set: `order` (0, 1, 2…) turns the order sides go in, so no side always goes
 * first; with `topUp`, each side then serves requests up to `rssAfterRequests` before its RSS
 * is read (one set does: the others' RSS is read after what they served).
 */
export async function runProcessSet(
  world: BenchWorld,
  settings: SetSettings,
  order: number,
  topUp: boolean,
): Promise<SetResult> {
  const started = performance.now();
  const { agent, replies, log } = world;
  const children: BenchChild[] = [];
  const start = async (side: MeasuredSide, execArgv: readonly string[] = []) => {
    const child =
      side === 'pipe'
        ? await startChild('pipe.ts', [world.upstream.url])
        : await startChild('proxy-child.ts', [side, world.upstream.url], [...execArgv]);
    children.push(child);
    return child;
  };
  try {
    const processes: Partial<Record<MeasuredSide, BenchChild>> = {};
    const [pipe, proxy, passThrough] = await Promise.all([
      start('pipe'),
      start('proxy', world.proxyExecArgv),
      settings.passThrough ? start('pass-through') : undefined,
    ]);
    processes.pipe = pipe;
    processes.proxy = proxy;
    if (passThrough) processes['pass-through'] = passThrough;
    const urls: Record<Target, string> = {
      direct: world.upstream.url,
      pipe: pipe.url,
      proxy: proxy.url,
      'pass-through': passThrough?.url ?? '',
    };
    const served: Record<MeasuredSide, number> = { pipe: 0, proxy: 0, 'pass-through': 0 };

    const bodies = new Map<string, Buffer>();
    const job = (side: Target, api: BenchApi, stream: boolean, reply: number) => {
      const asked: BenchApi = side === 'proxy' ? api : 'chat';
      const key = `${asked} ${stream} ${reply}`;
      let body = bodies.get(key);
      if (!body) {
        body = Buffer.from(apiRequestBody(asked, replies[reply]!, stream));
        bodies.set(key, body);
      }
      if (side !== 'direct') served[side]++;
      return {
        side,
        url: urls[side],
        reply,
        path: API_PATHS[asked],
        body,
        tag: replyKind(side, api, stream),
      } satisfies Job;
    };
    const { long, paced: pacedRange, probes: probeRange } = world.ranges;
    const pick = (range: ReplyRange, at: number) => range.from + ((at + order * 7) % range.count);
    const longReply = (at: number) => pick(long, at);
    // The paced streams end together: the few replies whose calls make them much longer than
    // the rest (a whole file written) would hold the batch up for twice as long.
    const pacedChoices = evenLengths(replies, pacedRange.count > 0 ? pacedRange : long);
    const pacedReply = (at: number) => pacedChoices[(at + order * 7) % pacedChoices.length]!;
    const probeReply = (at: number) => pick(probeRange, at);

    /** The exchanges whose replies were right; the others are recorded as failures. */
    const checked = (label: string, exchanges: readonly Exchange[]): Exchange[] => {
      const right: Exchange[] = [];
      for (const result of exchanges) {
        const problem = exchangeProblem(result, replies, result.tag as ReplyKind);
        if (problem === undefined) right.push(result);
        else
          world.fail(
            `${label}, ${result.side} (${result.tag}), reply ${result.reply} (${replies[result.reply]?.format}): ${problem}`,
          );
      }
      return right;
    };

    /** Runs the jobs, each side's CPU read around them; CPU ms per request by side. */
    const timed = async (label: string, jobs: Job[], concurrency: number) => {
      const sides = (Object.keys(processes) as MeasuredSide[]).filter((side) =>
        jobs.some((entry) => entry.side === side),
      );
      dropIdleConnections(agent);
      const before = await Promise.all(sides.map((side) => cpuMicros(processes[side]!)));
      const begun = performance.now();
      const exchanges = await runJobs(agent, jobs, concurrency, []);
      const wallMs = performance.now() - begun;
      const after = await Promise.all(sides.map((side) => cpuMicros(processes[side]!)));
      const cpuMs: Partial<Record<MeasuredSide, number>> = {};
      sides.forEach((side, at) => {
        const count = jobs.filter((entry) => entry.side === side).length;
        cpuMs[side] = (after[at]! - before[at]!) / 1000 / count;
      });
      checked(label, exchanges);
      return { cpuMs, wallMs };
    };

    const referenceSides: MeasuredSide[] = passThrough ? ['pipe', 'pass-through'] : ['pipe'];

    // Warm-up: every case through the proxy, the pipe (and pass-through) beside it.
    log(`set ${order + 1}: warm-up`);
    for (const stream of [true, false])
      for (const api of world.apis) {
        if (stream && !world.streamedApis.includes(api)) continue;
        const jobs: Job[] = [];
        for (let at = 0; at < settings.warmupRequests; at++) {
          jobs.push(job('proxy', api, stream, longReply(at)));
          if (at % world.apis.length === 0)
            for (const side of referenceSides) jobs.push(job(side, 'chat', stream, longReply(at)));
        }
        await timed('warm-up', jobs, settings.warmupConcurrency);
      }
    const afterWarmup = {
      pipe: await childStats(pipe),
      proxy: await childStats(proxy),
    };

    // First byte: probes through one side, each with a twin sent directly; long streams beside.
    const paced: PacedBatch[] = [];
    const pacedSides =
      order % 2 === 0 ? (['pipe', 'proxy'] as const) : (['proxy', 'pipe'] as const);
    const firstByteBatch = async (side: 'pipe' | 'proxy', streamCount: number) => {
      log(
        streamCount === 0
          ? `set ${order + 1}: first byte, ${side}, probes alone`
          : `set ${order + 1}: first byte, ${side}, ${streamCount} streams paced at ${settings.paceMs} ms a token`,
      );
      const apis: readonly BenchApi[] = side === 'proxy' ? world.streamedApis : ['chat'];
      const child = processes[side]!;
      dropIdleConnections(agent);
      await childStats(child); // resets its event loop delay
      const before = await cpuMicros(child);
      const servedBefore = served[side];
      const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
      const longReplies = Array.from({ length: streamCount }, (_, at) => pacedReply(at));
      const streams = longReplies.map(async (reply, at) => {
        await sleep((at * settings.rampMs) / streamCount);
        const [result] = await runJobs(
          agent,
          [job(side, apis[at % apis.length]!, true, reply)],
          1,
          [],
        );
        return result!;
      });
      // Probes from the end of the ramp until the shortest long stream could end (every one of
      // them runs all that time), one pair every interval whether the last has answered or not:
      // the same count through either side, and a slow answer does not put the next one off.
      // Alone, a fixed number of them.
      const shortest = Math.min(...longReplies.map((reply) => replies[reply]!.tokens.length));
      const rampMs = streamCount === 0 ? 0 : settings.rampMs;
      const windowMs = shortest * settings.paceMs - rampMs;
      const probes =
        streamCount === 0
          ? settings.probesAlone
          : Math.max(1, Math.floor(windowMs / settings.probeIntervalMs));
      const pairs = await Promise.all(
        Array.from({ length: probes }, async (_, n) => {
          await sleep(rampMs + n * settings.probeIntervalMs);
          const reply = probeReply(n);
          const api = apis[n % apis.length]!;
          const twins = [job(side, api, true, reply), job('direct', 'chat', true, reply)];
          // Each probe through the side has a twin sent to the model server at the same moment.
          const [through, direct] = await Promise.all(
            twins.map((twin) => exchange(agent, twin, twin.body)),
          );
          return { through: through!, direct: direct! };
        }),
      );
      const long = await Promise.all(streams);
      const after = await cpuMicros(child);
      const stats = await childStats(child);
      const label = `first byte ${side}`;
      const probeFirstByteMs: Partial<Record<BenchApi, number[]>> = {};
      const addedFirstByteMs: Partial<Record<BenchApi, number[]>> = {};
      const directFirstByteMs: number[] = [];
      const add = (lists: Partial<Record<BenchApi, number[]>>, api: BenchApi, value: number) => {
        const list = lists[api] ?? [];
        list.push(value);
        lists[api] = list;
      };
      const through = checked(
        label,
        pairs.map((pair) => pair.through),
      );
      const direct = new Set(
        checked(
          `${label} (direct)`,
          pairs.map((pair) => pair.direct),
        ),
      );
      const right = new Set(through);
      for (const pair of pairs) {
        if (!right.has(pair.through) || !direct.has(pair.direct)) continue;
        const api = apiOfKind(pair.through.tag as ReplyKind);
        add(probeFirstByteMs, api, pair.through.firstByteMs);
        add(addedFirstByteMs, api, pair.through.firstByteMs - pair.direct.firstByteMs);
        directFirstByteMs.push(pair.direct.firstByteMs);
      }
      paced.push({
        side,
        streams: streamCount,
        probeFirstByteMs,
        addedFirstByteMs,
        directFirstByteMs,
        streamFirstByteMs: checked(label, long).map((result) => result.firstByteMs),
        cpuMsPerRequest: (after - before) / 1000 / (served[side] - servedBefore),
        loopDelayMs: stats.loopDelayMs,
        probes: pairs.length,
      });
    };

    // The probes alone first, on processes not yet holding the later phases' garbage.
    for (const side of pacedSides) await firstByteBatch(side, 0);

    // CPU per streamed request, the sides interleaved in each batch.
    const cpuStreamed: CpuCase[] = [];
    for (const api of world.streamedApis) {
      log(`set ${order + 1}: CPU, streamed ${api}, ${settings.cpuStreams} streams a side`);
      const sides: MeasuredSide[] =
        api === 'chat' ? ['proxy', ...referenceSides] : ['proxy', 'pipe'];
      const jobs: Job[] = [];
      for (let at = 0; at < settings.cpuRequests; at++)
        for (let turn = 0; turn < sides.length; turn++) {
          const side = sides[(turn + at + order) % sides.length]!;
          jobs.push(job(side, api, true, longReply(at)));
        }
      const { cpuMs } = await timed(
        `CPU streamed ${api}`,
        jobs,
        settings.cpuStreams * sides.length,
      );
      cpuStreamed.push({ api, ms: cpuMs });
    }

    // Throughput, not streamed: each side alone, in turn.
    const entries: ThroughputEntry[] = [
      'pipe',
      ...world.apis.map((api): ThroughputEntry => `proxy ${api}`),
      ...(passThrough ? (['pass-through'] as const) : []),
    ];
    const throughput: Partial<Record<ThroughputEntry, ThroughputFigures>> = {};
    for (let round = 0; round < settings.throughputRounds; round++) {
      log(
        `set ${order + 1}: throughput, round ${round + 1}/${settings.throughputRounds}, ${settings.throughputConcurrency} at once`,
      );
      for (let at = 0; at < entries.length; at++) {
        const entry = entries[(at + round + order) % entries.length]!;
        const [side, api] = entry.startsWith('proxy ')
          ? (['proxy', entry.slice(6) as BenchApi] as const)
          : ([entry as MeasuredSide, 'chat' as BenchApi] as const);
        const jobs = Array.from({ length: settings.throughputRequests }, (_, n) =>
          job(side, api, false, longReply(n)),
        );
        const { cpuMs, wallMs } = await timed(
          `throughput ${entry}`,
          jobs,
          settings.throughputConcurrency,
        );
        const figures = throughput[entry] ?? { perSecond: [], cpuMs: [] };
        throughput[entry] = figures;
        figures.perSecond.push(jobs.length / (wallMs / 1000));
        figures.cpuMs.push(cpuMs[side] ?? Number.NaN);
      }
    }

    // First byte again, with the long streams running through the side, paced.
    await world.upstream.ask({ type: 'pace', ms: settings.paceMs });
    for (const side of pacedSides) await firstByteBatch(side, settings.pacedStreams);
    await world.upstream.ask({ type: 'pace', ms: 0 });

    // Memory: each side serves requests (not streamed) up to the count, then its RSS is read.
    if (topUp) log(`set ${order + 1}: memory, up to ${settings.rssAfterRequests} requests a side`);
    const memory: Partial<Record<'pipe' | 'proxy', MemoryFigures>> = {};
    for (const side of ['proxy', 'pipe'] as const) {
      const missing = topUp ? Math.max(0, settings.rssAfterRequests - served[side]) : 0;
      const jobs = Array.from({ length: missing }, (_, n) =>
        job(side, world.apis[n % world.apis.length]!, false, longReply(n)),
      );
      if (jobs.length > 0) await timed(`memory ${side}`, jobs, settings.throughputConcurrency);
      const stats = await childStats(processes[side]!);
      memory[side] = {
        requests: served[side],
        rssMbAfterWarmup: afterWarmup[side].rssBytes / MB,
        rssMb: stats.rssBytes / MB,
        heapUsedMb: stats.heapUsedBytes / MB,
      };
    }
    return {
      cpuStreamed,
      throughput,
      paced,
      memory,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await world.upstream.ask({ type: 'pace', ms: 0 }).catch(() => {});
    for (const child of children) await child.stop();
  }
}

/** The replies of the range no more than a tenth longer than its median, by index. */
export function evenLengths(replies: readonly ScriptedReply[], range: ReplyRange): number[] {
  const indices = Array.from({ length: range.count }, (_, at) => range.from + at);
  const lengths = indices.map((index) => replies[index]!.tokens.length);
  const limit = median(lengths) * 1.1;
  return indices.filter((_, at) => lengths[at]! <= limit);
}

/** The API a reply kind belongs to (the forwarded ones are chat completions). */
function apiOfKind(kind: ReplyKind): BenchApi {
  if (kind.startsWith('messages')) return 'messages';
  if (kind.startsWith('responses')) return 'responses';
  return 'chat';
}
