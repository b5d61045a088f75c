/**
 * Content-block decode benchmark: a recorded-style SSE stream (thinking, text, streamed and whole
 * tool calls with JSON arguments, results, citations) of 1 MB and 8 MB, made with the encoder,
 * decoded from UTF-8 bytes in 64-byte chunks. Targets: at least 50 MB/s, and 8 MB in under 9x the
 * time of 1 MB (linear).
 *
 *   node_modules/.bin/node bench/decode.ts
 *
 * `runDecodeBench()` returns the figures, so bench/run.ts can include them.
 */
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import {
  BlockEncoder,
  type BlockEvent,
  createBlockDecoder,
  type DecodedEvent,
} from '../src/stream/index.ts';
import { codeText, prose, seededRandom } from './fixtures.ts';
import {
  collectGarbage,
  collectYoung,
  formatMs,
  formatRate,
  formatRatio,
  formatTable,
  MB,
  mbPerSecond,
  median,
} from './measure.ts';

export const DECODE_CHUNK_BYTES = 64;
export const DECODE_TARGET_MBPS = 50;
export const DECODE_TARGET_RATIO = 9;

type Random = () => number;

export interface DecodeCase {
  readonly label: string;
  readonly bytes: number;
  readonly chunks: number;
  readonly messages: number;
  readonly events: number;
  readonly runs: number;
  /** Wall-clock time per run: median and best. */
  readonly medianMs: number;
  readonly minMs: number;
  /** CPU time of this process per run (less disturbed by other processes on a shared machine). */
  readonly cpuMedianMs: number;
  readonly mbPerSecond: number;
  readonly cpuMbPerSecond: number;
}

export interface DecodeBenchResult {
  readonly chunkBytes: number;
  readonly cases: readonly DecodeCase[];
  /** 8 MB time over 1 MB time, per byte and times 8 (so 8 means exactly linear): wall, CPU. */
  readonly ratio: number;
  readonly cpuRatio: number;
  /** The same from the fastest runs, which a busy machine disturbs least. */
  readonly bestRatio: number;
  readonly targetMbPerSecond: number;
  readonly targetRatio: number;
  /** Both targets met by the wall-clock medians. */
  readonly meetsTargets: boolean;
  /** Both targets met by the CPU-time medians. */
  readonly meetsTargetsCpu: boolean;
  /** 1-minute load average when the runs ended, to read the wall-clock figures by. */
  readonly loadAverage: number;
}

function between(random: Random, low: number, high: number): number {
  return low + Math.floor(random() * (high - low + 1));
}

/** Splits text into model-sized deltas (a few words, sometimes a single character). */
function deltas(random: Random, text: string, low: number, high: number): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; ) {
    const size = random() < 0.05 ? 1 : between(random, low, high);
    out.push(text.slice(at, at + size));
    at += size;
  }
  return out;
}

/** One agent step: thinking, text, a few tool calls (some streamed), their results. */
function step(random: Random, index: number): BlockEvent[] {
  const events: BlockEvent[] = [{ type: 'thinking-start' }];
  for (const delta of deltas(random, prose(random, between(random, 300, 1500)), 4, 30))
    events.push({ type: 'thinking-delta', delta });
  events.push({ type: 'thinking-end' }, { type: 'text-start' });
  for (const delta of deltas(random, prose(random, between(random, 200, 1200)), 4, 30))
    events.push({ type: 'text-delta', delta });
  events.push({ type: 'text-end' });
  const calls = between(random, 1, 3);
  for (let call = 0; call < calls; call++) {
    const id = `toolu_${index}_${call}`;
    if (random() < 0.5) {
      const args = JSON.stringify({
        path: `src/module_${index}_${call}.ts`,
        content: codeText(random, between(random, 500, 6000)),
      });
      events.push({ type: 'tool-call-start', kind: 'client', id, name: 'write_file' });
      for (const delta of deltas(random, args, 10, 60))
        events.push({ type: 'tool-call-delta', id, delta });
      events.push({ type: 'tool-call-end', id });
      events.push({ type: 'tool-result', kind: 'client', id, name: 'write_file', content: 'ok' });
    } else {
      const query = prose(random, between(random, 20, 60));
      events.push({
        type: 'tool-call',
        kind: random() < 0.3 ? 'server' : 'client',
        id,
        name: 'search',
        arguments: JSON.stringify({ query, limit: between(random, 1, 10) }),
      });
      const results = Array.from({ length: between(random, 2, 8) }, (_, n) => ({
        title: prose(random, 40),
        url: `https://example.com/${index}/${n}?q=a&b=<c>`,
        snippet: prose(random, between(random, 100, 600)),
      }));
      events.push({
        type: 'tool-result',
        kind: 'client',
        id,
        name: 'search',
        content: JSON.stringify({ results }),
      });
    }
  }
  if (random() < 0.2)
    events.push({
      type: 'citations',
      citations: [
        {
          type: 'web_search_result_location',
          url: `https://example.com/${index}`,
          title: prose(random, 30),
          citedText: prose(random, 120),
        },
      ],
    });
  return events;
}

export interface RecordedStream {
  readonly text: string;
  readonly bytes: Uint8Array;
  readonly messages: number;
}

/** A stream of about `targetBytes` UTF-8 bytes, the same for the same seed. */
export function recordedStream(targetBytes: number, seed = 2): RecordedStream {
  const random = seededRandom(seed);
  const encoder = new BlockEncoder();
  const pieces: string[] = [];
  let size = 0;
  let messages = 0;
  const write = (event: BlockEvent) => {
    const text = encoder.encode(event);
    if (text.length === 0) return;
    pieces.push(text);
    size += text.length;
    messages++;
  };
  write({
    type: 'meta-init',
    data: { format: 'xml', user_query: 'Refactor the project', agent_uuid: 'bench', model: 'm' },
  });
  for (let index = 0; size < targetBytes; index++)
    for (const event of step(random, index)) write(event);
  write({
    type: 'meta-final',
    data: {
      conversation_history: null,
      stop_reason: 'stop',
      total_steps: messages,
      generated_files: null,
      cost: null,
      cumulative_usage: { input_tokens: 1, output_tokens: 1 },
    },
  });
  const text = pieces.join('');
  return { text, bytes: new TextEncoder().encode(text), messages };
}

function sliceBytes(bytes: Uint8Array, size: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size));
  return chunks;
}

function decodeAll(chunks: readonly Uint8Array[]): number {
  const decoder = createBlockDecoder();
  let events = 0;
  let problems = 0;
  const count = (batch: DecodedEvent[]) => {
    events += batch.length;
    for (const event of batch) if (event.type === 'decode-error') problems++;
  };
  for (const chunk of chunks) count(decoder.push(chunk));
  count(decoder.end());
  if (problems > 0) throw new Error(`the recorded stream decoded with ${problems} problems`);
  return events;
}

interface Samples {
  readonly wall: number[];
  readonly cpu: number[];
}

const WARMUP_RUNS = 3;
const MIN_RUNS = 7;
const MAX_RUNS = 15;
const BUDGET_MS = 5000;

/** Runs `run` several times after warm-ups, young-generation gc before each (bench/measure.ts). */
function measure(run: () => unknown): Samples {
  collectGarbage();
  for (let index = 0; index < WARMUP_RUNS; index++) run();
  const samples: Samples = { wall: [], cpu: [] };
  const started = performance.now();
  while (samples.wall.length < MAX_RUNS) {
    if (samples.wall.length >= MIN_RUNS && performance.now() - started > BUDGET_MS) break;
    collectYoung();
    const cpuBefore = process.cpuUsage();
    const wallBefore = performance.now();
    run();
    samples.wall.push(performance.now() - wallBefore);
    const cpu = process.cpuUsage(cpuBefore);
    samples.cpu.push((cpu.user + cpu.system) / 1000);
  }
  return samples;
}

export async function runDecodeBench(
  sizes: readonly number[] = [1 * MB, 8 * MB],
): Promise<DecodeBenchResult> {
  const cases: DecodeCase[] = [];
  for (const size of sizes) {
    const stream = recordedStream(size);
    const chunks = sliceBytes(stream.bytes, DECODE_CHUNK_BYTES);
    const events = decodeAll(chunks);
    const samples = measure(() => decodeAll(chunks));
    const medianMs = median(samples.wall);
    const cpuMedianMs = median(samples.cpu);
    cases.push({
      label: `${Math.round(stream.bytes.length / MB)} MB`,
      bytes: stream.bytes.length,
      chunks: chunks.length,
      messages: stream.messages,
      events,
      runs: samples.wall.length,
      medianMs,
      minMs: Math.min(...samples.wall),
      cpuMedianMs,
      mbPerSecond: mbPerSecond(stream.bytes.length, medianMs),
      cpuMbPerSecond: mbPerSecond(stream.bytes.length, cpuMedianMs),
    });
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  const first = cases[0]!;
  const last = cases[cases.length - 1]!;
  // Per byte, so streams that are not exactly 1 MB and 8 MB still compare fairly.
  const scale = (8 * first.bytes) / last.bytes;
  const ratio = (last.medianMs / first.medianMs) * scale;
  const cpuRatio = (last.cpuMedianMs / first.cpuMedianMs) * scale;
  const bestRatio = (last.minMs / first.minMs) * scale;
  return {
    chunkBytes: DECODE_CHUNK_BYTES,
    cases,
    ratio,
    cpuRatio,
    bestRatio,
    targetMbPerSecond: DECODE_TARGET_MBPS,
    targetRatio: DECODE_TARGET_RATIO,
    meetsTargets:
      cases.every((item) => item.mbPerSecond >= DECODE_TARGET_MBPS) && ratio < DECODE_TARGET_RATIO,
    meetsTargetsCpu:
      cases.every((item) => item.cpuMbPerSecond >= DECODE_TARGET_MBPS) &&
      cpuRatio < DECODE_TARGET_RATIO,
    loadAverage: loadavg()[0] ?? Number.NaN,
  };
}

export function formatDecodeBench(result: DecodeBenchResult): string {
  const rows = result.cases.map((item) => [
    item.label,
    String(item.bytes),
    String(item.messages),
    String(item.events),
    String(item.runs),
    formatMs(item.medianMs),
    formatMs(item.minMs),
    formatRate(item.mbPerSecond),
    formatMs(item.cpuMedianMs),
    formatRate(item.cpuMbPerSecond),
  ]);
  const verdict = (met: boolean) => (met ? 'met' : 'MISSED');
  return [
    `content-block decode: SSE bytes in ${result.chunkBytes}-byte chunks, createBlockDecoder() push + end`,
    formatTable(
      [
        'stream',
        'bytes',
        'messages',
        'events',
        'runs',
        'wall med ms',
        'wall min ms',
        'MB/s',
        'cpu med ms',
        'cpu MB/s',
      ],
      rows,
    ),
    `8 MB vs 1 MB (per byte, x8; linear = 8): wall ${formatRatio(result.ratio)}, cpu ${formatRatio(result.cpuRatio)}, fastest runs ${formatRatio(result.bestRatio)} (target < ${result.targetRatio}x)`,
    `targets (>= ${result.targetMbPerSecond} MB/s, ratio < ${result.targetRatio}x): wall ${verdict(result.meetsTargets)}, cpu ${verdict(result.meetsTargetsCpu)}; load average ${result.loadAverage.toFixed(2)}`,
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(formatDecodeBench(await runDecodeBench()));
}
