/**
 * Every registered format, and `auto`, on a ~200 KB output of 200 calls written in that format
 * (by its own `formatToolCall`, prose between the calls): parsed whole and streamed in chunks of
 * 1, 8 and 256 characters; `auto` timed side by side with each format on the same text; one
 * 4 MiB argument against 1 MiB in every format; `qwen3-coder` beside the peer's
 * `qwen3CoderProtocol` when that format is registered. Every run must find every call: a
 * miscount fails the format (and the bench), it is never a silent zero.
 *
 * Standalone: `node bench/formats.ts` (add `--json` for the raw results). `npm run bench` runs it
 * in a child process; `TOOLWIRE_BENCH=formats npm run bench` runs only this part and updates the
 * `formats` key of bench/results.json. `TOOLWIRE_BENCH_FORMATS=qwen3-coder,hermes` keeps only
 * those formats (names or aliases).
 */
import { isDeepStrictEqual } from 'node:util';
import {
  FORMATS,
  formatEntry,
  type ParseEvent,
  protocolByName,
  type ToolCallProtocol,
  type ToolDefinition,
} from '../src/index.ts';
import {
  chunksOf,
  codeText,
  completionTool,
  type FixtureCall,
  largeArgumentOutput,
  type ModelOutput,
  prose,
  seededRandom,
  weatherTool,
  writeFileTool,
} from './fixtures.ts';
import {
  benchInChild,
  collectGarbage,
  collectYoung,
  formatMs,
  formatRate,
  formatRatio,
  formatTable,
  MB,
  mbPerSecond,
  median,
  type SampleOptions,
  sample,
  type Timing,
  utf8Bytes,
} from './measure.ts';
import {
  type BenchTarget,
  failureLines,
  reportSectionFailures,
  runSectionAlone,
  targetLines,
} from './sections.ts';

export const BENCH_CALLS = 200;
export const BENCH_TARGET_CHARS = 200_000;
export const BENCH_SEED = 1414;
const CHUNK_SIZES = [1, 8, 256] as const;
/** `whole` is parseGeneratedText; a number is push() in chunks of that many characters. */
type Mode = 'whole' | (typeof CHUNK_SIZES)[number];
const MODES: readonly Mode[] = ['whole', ...CHUNK_SIZES];
const LARGE_SIZES = [1 * MB, 4 * MB] as const;
const LARGE_CHUNK = 8;
const LARGE_SEED = 77;

export const TARGETS = {
  wholeMbPerSecond: 100,
  autoOverNamed: 1.2,
  qwen3CoderOverPeer: 10,
  largeRatio: 4.5,
} as const;

/**
 * Side-by-side cases: short warm-up, then rounds that time each side once, so drift on this
 * shared machine lands on both sides of a ratio alike.
 */
const SIDE_BY_SIDE: SampleOptions = {
  warmupRuns: 2,
  warmupMs: 400,
  minRuns: 9,
  maxRuns: 41,
  budgetMs: 500,
};
/** A 4 MiB run is long enough to warm up within a run or two. */
const LARGE: SampleOptions = { warmupRuns: 1, minRuns: 7, maxRuns: 11, budgetMs: 1500 };
const TOOLWIRE_VS_PEER: SampleOptions = {
  warmupRuns: 3,
  warmupMs: 300,
  minRuns: 7,
  maxRuns: 15,
  budgetMs: 800,
};
/** The peer takes up to seconds per run at small chunks. */
const PEER: SampleOptions = { warmupRuns: 1, minRuns: 3, maxRuns: 7, budgetMs: 3000 };

// ---------------------------------------------------------------------------------------------
// The tools and the output a model would write with them.

const editFileTool: ToolDefinition = {
  name: 'edit_file',
  description: 'Replace exact text in a file',
  inputSchema: {
    type: 'object',
    properties: {
      path: { type: 'string' },
      edits: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            old_text: { type: 'string' },
            new_text: { type: 'string' },
            replace_all: { type: 'boolean' },
          },
          required: ['old_text', 'new_text'],
          additionalProperties: false,
        },
      },
    },
    required: ['path', 'edits'],
    additionalProperties: false,
  },
};

const createIssueTool: ToolDefinition = {
  name: 'create_issue',
  description: 'Open an issue in the tracker',
  inputSchema: {
    type: 'object',
    properties: {
      title: { type: 'string' },
      body: { type: 'string' },
      priority: { type: 'integer', minimum: 1, maximum: 5 },
      estimate_hours: { type: 'number' },
      labels: { type: 'array', items: { type: 'string' } },
      assignee: {
        type: 'object',
        properties: { name: { type: 'string' }, email: { type: 'string' } },
        required: ['name'],
        additionalProperties: false,
      },
      due: {
        type: 'object',
        properties: {
          date: { type: 'string' },
          reminder: {
            type: 'object',
            properties: { days_before: { type: 'integer' }, channel: { type: 'string' } },
            additionalProperties: false,
          },
        },
        required: ['date'],
        additionalProperties: false,
      },
    },
    required: ['title', 'priority'],
    additionalProperties: false,
  },
};

/** The tools of every format's output: one set, so the formats parse the same calls. */
export const FORMAT_TOOLS: readonly ToolDefinition[] = [
  weatherTool,
  writeFileTool,
  editFileTool,
  {
    name: 'search',
    description: 'Search the code base',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string' },
        max_results: { type: 'integer' },
        allow_tests: { type: 'boolean' },
      },
      required: ['query'],
      additionalProperties: false,
    },
  },
  createIssueTool,
  completionTool,
];

type Random = () => number;

function pick<T>(random: Random, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

function between(random: Random, low: number, high: number): number {
  return low + Math.floor(random() * (high - low + 1));
}

const CITIES = ['Paris', 'Seoul', 'New York', 'São Paulo', 'Zürich', 'Cape Town', 'Oslo', 'Lima'];
const WORDS = ['cache', 'parser', 'stream', 'retry', 'schema', 'token', 'config', 'flaky', 'login'];
const LABELS = ['bug', 'perf', 'docs', 'good first issue', 'needs-triage', 'p1'];
const PEOPLE = [
  { name: 'Ana Lima', email: 'ana@example.com' },
  { name: 'Jörg Weiß', email: 'jorg@example.org' },
  { name: 'Mei Chen' },
];
/** Lines with backslashes, quotes and template syntax, which JSON and Python strings escape. */
const ESCAPED_LINES = [
  String.raw`const pattern = /^\d+(\.\d+)?$/;`,
  String.raw`printf("%s\t%d\n", name, count);`,
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a line of JavaScript a model writes into a file
  'const path = `${root}/src/${name}.ts`;',
  String.raw`text = "She said \"hi\" and left"`,
  String.raw`windows_path = 'C:\\Users\\dev\\project'`,
];

/** Code as agents write it: fixture code lines with escaped strings mixed in. */
function code(random: Random, chars: number): string {
  const lines = codeText(random, chars).split('\n');
  for (let index = 0; index < lines.length; index += between(random, 3, 9))
    lines.splice(index, 0, pick(random, ESCAPED_LINES));
  return lines.join('\n');
}

function markdownBody(random: Random): string {
  return [
    `## Steps\n\n1. ${prose(random, between(random, 30, 80))}\n2. Run \`npm test\``,
    `## Expected\n\n${prose(random, between(random, 40, 120))}`,
    `\`\`\`ts\n${code(random, between(random, 60, 160))}\n\`\`\``,
  ].join('\n\n');
}

function benchCall(random: Random, index: number, contentChars: number): FixtureCall {
  const kind = random();
  if (kind < 0.25) {
    const input: Record<string, unknown> = { city: pick(random, CITIES) };
    if (random() < 0.7) input.days = between(random, 1, 14);
    if (random() < 0.7) input.unit = pick(random, ['celsius', 'fahrenheit']);
    return { toolName: 'get_weather', input };
  }
  if (kind < 0.47) {
    const content = code(random, between(random, contentChars / 2, contentChars * 1.5));
    return {
      toolName: 'write_file',
      input: {
        path: `src/module_${index}/file_${between(random, 1, 99)}.ts`,
        content: random() < 0.5 ? `${content}\n` : content,
      },
    };
  }
  if (kind < 0.62) {
    const edits = Array.from({ length: between(random, 1, 3) }, () => ({
      old_text: code(random, between(random, contentChars / 8, contentChars / 3)),
      new_text: code(random, between(random, contentChars / 8, contentChars / 3)),
      ...(random() < 0.3 ? { replace_all: random() < 0.5 } : {}),
    }));
    return { toolName: 'edit_file', input: { path: `lib/part_${index}.py`, edits } };
  }
  if (kind < 0.77) {
    const input: Record<string, unknown> = {
      query: `${pick(random, WORDS)} ${pick(random, WORDS)} "${pick(random, WORDS)}"`,
    };
    if (random() < 0.5) input.max_results = between(random, 5, 50);
    if (random() < 0.5) input.allow_tests = random() < 0.5;
    return { toolName: 'search', input };
  }
  if (kind < 0.92) {
    const input: Record<string, unknown> = {
      title: `${pick(random, WORDS)} fails when ${pick(random, WORDS)} is empty`,
      body: markdownBody(random),
      priority: between(random, 1, 5),
      estimate_hours: between(random, 1, 40) / 4,
      labels: Array.from({ length: between(random, 0, 3) }, () => pick(random, LABELS)),
      assignee: pick(random, PEOPLE),
    };
    if (random() < 0.5) {
      input.due = {
        date: `2026-0${between(random, 1, 9)}-1${between(random, 0, 9)}`,
        ...(random() < 0.6
          ? { reminder: { days_before: between(random, 1, 7), channel: pick(random, WORDS) } }
          : {}),
      };
    }
    return { toolName: 'create_issue', input };
  }
  return {
    toolName: 'attempt_completion',
    input: { result: prose(random, between(random, 40, 240)) },
  };
}

/**
 * `calls` tool calls between prose, about `targetChars` long, rendered by the format's own
 * `formatToolCall`, now and then two or three in one batch. The calls depend only on the seed,
 * so every format carries the same calls; prose fills the rest of the length.
 */
export function formatBenchInput(
  protocol: ToolCallProtocol,
  options: { calls: number; targetChars: number; seed: number } = {
    calls: BENCH_CALLS,
    targetChars: BENCH_TARGET_CHARS,
    seed: BENCH_SEED,
  },
): ModelOutput {
  const random = seededRandom(options.seed);
  // About 45% of the output is code in write_file and edit_file arguments.
  const contentChars = Math.round((options.targetChars * 0.45) / (options.calls * 0.32));
  const calls: FixtureCall[] = [];
  for (let index = 0; index < options.calls; index++)
    calls.push(benchCall(random, index, contentChars));
  const batches: FixtureCall[][] = [];
  for (let start = 0; start < calls.length; ) {
    const roll = random();
    const size = Math.min(roll < 0.75 ? 1 : roll < 0.92 ? 2 : 3, calls.length - start);
    batches.push(calls.slice(start, start + size));
    start += size;
  }
  const rendered = batches.map((batch) =>
    protocol.formatToolCall(batch.length === 1 ? batch[0]! : batch),
  );
  const callChars = rendered.reduce((sum, text) => sum + text.length, 0);
  const gap = Math.max(20, (options.targetChars - callChars) / (rendered.length + 1));
  const proseRandom = seededRandom(options.seed + 1);
  const parts: string[] = [];
  for (const text of rendered) {
    parts.push(prose(proseRandom, between(proseRandom, gap * 0.5, gap * 1.5)), '\n\n', text, '\n');
  }
  parts.push(prose(proseRandom, gap));
  return { text: parts.join(''), calls };
}

// ---------------------------------------------------------------------------------------------
// Parsing, with the call count checked on every run.

/** A run that found a different number of calls than the text holds: the bench stops that format. */
export class CallCountError extends Error {
  readonly found: number;
  readonly expected: number;
  constructor(where: string, found: number, expected: number) {
    super(`${where}: parsed ${found} tool calls, expected ${expected}`);
    this.name = 'CallCountError';
    this.found = found;
    this.expected = expected;
  }
}

export function expectCallCount(where: string, found: number, expected: number): void {
  if (found !== expected) throw new CallCountError(where, found, expected);
}

type Call = { toolName: string; input: string };

/** Every tool call of one parse: whole text, or pushed in chunks (then ended). */
export function parseCalls(
  protocol: ToolCallProtocol,
  text: string,
  mode: Mode,
  tools: readonly ToolDefinition[] = FORMAT_TOOLS,
): Call[] {
  const calls: Call[] = [];
  if (mode === 'whole') {
    for (const part of protocol.parseGeneratedText(text, { tools }))
      if (part.type === 'tool-call') calls.push({ toolName: part.toolName, input: part.input });
    return calls;
  }
  const parser = protocol.createStreamParser({ tools });
  const take = (events: readonly ParseEvent[]): void => {
    for (const event of events)
      if (event.type === 'tool-call') calls.push({ toolName: event.toolName, input: event.input });
  };
  for (const chunk of chunksOf(text, mode)) take(parser.push(chunk));
  take(parser.end());
  return calls;
}

function countWhole(protocol: ToolCallProtocol, text: string): number {
  let count = 0;
  for (const part of protocol.parseGeneratedText(text, { tools: FORMAT_TOOLS }))
    if (part.type === 'tool-call') count++;
  return count;
}

function countPushed(protocol: ToolCallProtocol, chunks: readonly string[]): number {
  const parser = protocol.createStreamParser({ tools: FORMAT_TOOLS });
  let count = 0;
  for (const chunk of chunks) {
    for (const event of parser.push(chunk)) if (event.type === 'tool-call') count++;
  }
  for (const event of parser.end()) if (event.type === 'tool-call') count++;
  return count;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export interface CallCheck {
  readonly found: number;
  readonly expected: number;
  /** Calls whose name and input equal what was rendered, in order. */
  readonly exact: number;
  readonly firstDifference?: string;
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 50 ? `${text.slice(0, 50)}…` : text;
}

/** Both values from where they first differ, so two long strings show what tells them apart. */
function describeValues(got: unknown, want: unknown): string {
  if (typeof got !== 'string' || typeof want !== 'string')
    return `${preview(got)}, rendered ${preview(want)}`;
  let index = 0;
  while (index < got.length && got[index] === want[index]) index++;
  const from = Math.max(0, index - 10);
  const lead = from > 0 ? `[${from}]…` : '';
  return `${lead}${preview(got.slice(from))}, rendered ${lead}${preview(want.slice(from))}`;
}

export function checkCalls(calls: readonly Call[], expected: readonly FixtureCall[]): CallCheck {
  let exact = 0;
  let firstDifference: string | undefined;
  calls.forEach((call, index) => {
    const want = expected[index];
    const got = parseJson(call.input);
    if (want?.toolName === call.toolName && isDeepStrictEqual(got, want.input)) {
      exact++;
      return;
    }
    if (!want || firstDifference !== undefined) return;
    if (want.toolName !== call.toolName) {
      firstDifference = `call ${index}: ${call.toolName}, expected ${want.toolName}`;
      return;
    }
    const record = (got ?? {}) as Record<string, unknown>;
    const name = [...new Set([...Object.keys(record), ...Object.keys(want.input)])].find(
      (key) => !isDeepStrictEqual(record[key], want.input[key]),
    );
    firstDifference =
      name === undefined
        ? `call ${index} (${call.toolName}): input ${preview(call.input)}`
        : `call ${index} ${call.toolName}.${name} = ${describeValues(record[name], want.input[name])}`;
  });
  return {
    found: calls.length,
    expected: expected.length,
    exact,
    ...(firstDifference === undefined ? {} : { firstDifference }),
  };
}

// ---------------------------------------------------------------------------------------------
// Timing.

/** Milliseconds of wall time. */
export function wallClock(): number {
  return performance.now();
}

/**
 * Milliseconds of this process's CPU time (user and system, every thread: the collector's helper
 * threads are the parser's cost too). On a machine shared with other busy processes a run's wall
 * time counts the time it waited for a core; its CPU time does not.
 */
export function cpuClock(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

/**
 * Times each run once per round (order alternating each round) after a warm-up of all of them,
 * young-generation gc before each run, as `sample` does for one; `clock` reads the time (wall
 * time unless told).
 */
export function sampleSideBySide(
  runs: readonly (() => void)[],
  options: SampleOptions,
  clock: () => number = wallClock,
): Timing[] {
  collectGarbage();
  const warming = performance.now();
  for (let index = 0; ; index++) {
    if (index >= options.warmupRuns && performance.now() - warming >= (options.warmupMs ?? 0))
      break;
    for (const run of runs) run();
  }
  const samples = runs.map((): number[] => []);
  const measuring = performance.now();
  for (let round = 0; round < options.maxRuns; round++) {
    if (round >= options.minRuns && performance.now() - measuring > options.budgetMs) break;
    for (let step = 0; step < runs.length; step++) {
      const index = round % 2 === 0 ? step : runs.length - 1 - step;
      collectYoung();
      const start = clock();
      runs[index]!();
      samples[index]!.push(clock() - start);
    }
  }
  return samples.map((list) => ({
    samples: list,
    medianMs: median(list),
    minMs: Math.min(...list),
  }));
}

/**
 * Median over the rounds of `over`'s time / `under`'s time in the same round: a load spike on
 * this shared machine lands on both runs of a round, so it moves this less than a ratio of
 * medians.
 */
export function roundRatio(over: Pick<Timing, 'samples'>, under: Pick<Timing, 'samples'>): number {
  return median(over.samples.map((ms, round) => ms / under.samples[round]!));
}

export interface Figure {
  readonly medianMs: number;
  readonly mbPerSecond: number;
  readonly samplesMs: readonly number[];
}

function figure(bytes: number, timing: Timing): Figure {
  return {
    medianMs: timing.medianMs,
    mbPerSecond: mbPerSecond(bytes, timing.medianMs),
    samplesMs: timing.samples.map((ms) => Math.round(ms * 100) / 100),
  };
}

function modeLabel(mode: Mode): string {
  return mode === 'whole' ? 'whole' : `chunk ${mode}`;
}

function progress(started: number, message: string): void {
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  process.stderr.write(`[formats ${seconds.padStart(3)}s] ${message}\n`);
}

// ---------------------------------------------------------------------------------------------
// The bench.

export interface FormatRow {
  readonly format: string;
  readonly bytes: number;
  /** Found and exact calls through the named protocol and through `auto` (parseGeneratedText). */
  readonly named?: CallCheck;
  readonly auto?: CallCheck;
  /** Keyed by `whole`, `1`, `8`, `256`; `autoOverNamed` is a time ratio (see roundRatio). */
  readonly timings: Record<string, { named: Figure; auto: Figure; autoOverNamed: number }>;
  /** `ratio`: 4 MiB time / 1 MiB time (see roundRatio). */
  readonly large?: { oneMiB: Figure; fourMiB: Figure; ratio: number };
  /** Why the format was not (fully) measured: a miscount or an exception. */
  readonly failure?: string;
}

export interface PeerComparison {
  readonly mode: string;
  readonly bytes: number;
  readonly toolwire: Figure & { readonly driver: string };
  readonly toolwireStream?: Figure;
  readonly peer: Figure & { readonly driver: string };
  readonly peerCalls: CallCheck;
  /** Peer median / toolwire median (push() against the peer's TransformStream when streamed). */
  readonly ratio: number;
  /** Peer median / toolwire TransformStream median (same web-stream plumbing on both sides). */
  readonly ratioSameDriver?: number;
}

export type FormatTarget = BenchTarget;

export interface FormatsBenchResult {
  readonly calls: number;
  readonly targetChars: number;
  readonly chunkSizes: readonly number[];
  readonly largeChunk: number;
  readonly formats: readonly string[];
  readonly rows: readonly FormatRow[];
  readonly qwen3CoderVsPeer:
    | { readonly peer: string; readonly cases: readonly PeerComparison[] }
    | { readonly skipped: string };
  readonly targets: readonly FormatTarget[];
  readonly failures: readonly string[];
  readonly notes: readonly string[];
  readonly seconds: number;
}

/** The formats to bench: every registered one, or those `TOOLWIRE_BENCH_FORMATS` names. */
export function selectedFormats(filter = process.env.TOOLWIRE_BENCH_FORMATS): string[] {
  const all = FORMATS.map((entry) => entry.name);
  if (!filter?.trim()) return all;
  return filter.split(',').map((name) => {
    const entry = formatEntry(name.trim());
    if (!entry) {
      throw new TypeError(
        `TOOLWIRE_BENCH_FORMATS: no format "${name.trim()}" is registered; registered: ${all.join(', ')}`,
      );
    }
    return entry.name;
  });
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

interface Prepared {
  readonly format: string;
  readonly protocol: ToolCallProtocol;
  readonly input: ModelOutput;
  readonly bytes: number;
  readonly named: CallCheck;
  readonly auto: CallCheck;
}

/**
 * Renders the format's output and parses it every way, named and `auto`, before anything is
 * timed: every call must be found each way (exact inputs are reported, not required). Doing
 * this for every format first also leaves every format's code loaded and warm before the
 * first timing, so no format is timed in a fresher engine than another.
 */
function prepare(format: string, auto: ToolCallProtocol, notes: string[]): Prepared {
  const protocol = protocolByName(format);
  const input = formatBenchInput(protocol);
  const expected = input.calls.length;
  const checks: { named?: CallCheck; auto?: CallCheck } = {};
  for (const [side, reader] of [
    ['named', protocol],
    ['auto', auto],
  ] as const) {
    for (const mode of MODES) {
      const check = checkCalls(parseCalls(reader, input.text, mode), input.calls);
      const where = `${side === 'named' ? format : `auto on ${format} text`} (${modeLabel(mode)})`;
      expectCallCount(where, check.found, expected);
      // Chunking must not change the calls: a difference is a bug to see, though not a miscount.
      const first = checks[side];
      if (first && first.exact !== check.exact)
        notes.push(
          `WARNING ${where}: ${check.exact} exact calls, ${first.exact} through parseGeneratedText`,
        );
      checks[side] ??= check;
    }
  }
  return {
    format,
    protocol,
    input,
    bytes: utf8Bytes(input.text),
    named: checks.named!,
    auto: checks.auto!,
  };
}

function timeFormat(prepared: Prepared, auto: ToolCallProtocol): FormatRow['timings'] {
  const { format, protocol, input, bytes } = prepared;
  const expected = input.calls.length;
  const timings: FormatRow['timings'] = {};
  for (const mode of MODES) {
    const runOf = (reader: ToolCallProtocol, side: string) => {
      const where = `${side} (${modeLabel(mode)}, timed run)`;
      if (mode === 'whole')
        return () => expectCallCount(where, countWhole(reader, input.text), expected);
      const chunks = chunksOf(input.text, mode);
      return () => expectCallCount(where, countPushed(reader, chunks), expected);
    };
    const [named, automatic] = sampleSideBySide(
      [runOf(protocol, format), runOf(auto, `auto on ${format} text`)],
      SIDE_BY_SIDE,
    );
    timings[String(mode)] = {
      named: figure(bytes, named!),
      auto: figure(bytes, automatic!),
      autoOverNamed: roundRatio(automatic!, named!),
    };
  }
  return timings;
}

function timeLarge(
  format: string,
  protocol: ToolCallProtocol,
  notes: string[],
): FormatRow['large'] {
  const inputs = LARGE_SIZES.map((chars) => largeArgumentOutput(protocol, chars, LARGE_SEED));
  const runs = inputs.map((input, index) => {
    const chunks = chunksOf(input.text, LARGE_CHUNK);
    const where = `${format} ${LARGE_SIZES[index]! / MB} MiB argument`;
    const check = checkCalls(parseCalls(protocol, input.text, LARGE_CHUNK), input.calls);
    expectCallCount(where, check.found, 1);
    if (check.exact !== 1) notes.push(`${where}: the input differs, ${check.firstDifference}`);
    return () => expectCallCount(`${where} (timed run)`, countPushed(protocol, chunks), 1);
  });
  const [one, four] = sampleSideBySide(runs, LARGE);
  return {
    oneMiB: figure(utf8Bytes(inputs[0]!.text), one!),
    fourMiB: figure(utf8Bytes(inputs[1]!.text), four!),
    ratio: roundRatio(four!, one!),
  };
}

/** toolwire's `qwen3-coder` and the peer's `qwen3CoderProtocol` on the same text. */
async function compareQwen3Coder(
  prepared: Prepared,
  notes: string[],
  log: (message: string) => void,
): Promise<{ peer: string; cases: PeerComparison[] }> {
  // Loaded here, so a test that imports this module for its generator does not load the peer.
  const { qwen3CoderProtocol } = await import('@ai-sdk-tool/parser');
  const { driveTransform, peerParse, peerStream, peerTools, toolwireTransform } = await import(
    './peer.ts'
  );
  const tools = peerTools(FORMAT_TOOLS);
  const { protocol, input, bytes } = prepared;
  const expected = input.calls.length;
  const cases: PeerComparison[] = [];
  for (const mode of MODES) {
    const where = `qwen3-coder vs peer (${modeLabel(mode)})`;
    log(where);
    const chunks = mode === 'whole' ? [] : chunksOf(input.text, mode);
    let peerCalls: Call[] = [];
    const peerRun =
      mode === 'whole'
        ? async () => {
            peerCalls = peerParse(qwen3CoderProtocol(), tools, input.text);
          }
        : async () => {
            peerCalls = (await peerStream(qwen3CoderProtocol(), tools, chunks)).calls;
          };
    if (mode === 'whole') {
      const toolwire = await sample(
        () => expectCallCount(where, countWhole(protocol, input.text), expected),
        TOOLWIRE_VS_PEER,
      );
      const peer = await sample(peerRun, PEER);
      cases.push({
        mode: modeLabel(mode),
        bytes,
        toolwire: { ...figure(bytes, toolwire), driver: 'parseGeneratedText' },
        peer: { ...figure(bytes, peer), driver: 'parseGeneratedText' },
        peerCalls: checkCalls(peerCalls, input.calls),
        ratio: peer.medianMs / toolwire.medianMs,
      });
      continue;
    }
    const push = await sample(
      () => expectCallCount(where, countPushed(protocol, chunks), expected),
      TOOLWIRE_VS_PEER,
    );
    const stream = await sample(async () => {
      const outcome = await driveTransform(toolwireTransform(protocol, FORMAT_TOOLS), chunks);
      expectCallCount(`${where}, TransformStream`, outcome.calls.length, expected);
    }, TOOLWIRE_VS_PEER);
    const peer = await sample(peerRun, PEER);
    cases.push({
      mode: modeLabel(mode),
      bytes,
      toolwire: { ...figure(bytes, push), driver: 'push()' },
      toolwireStream: figure(bytes, stream),
      peer: { ...figure(bytes, peer), driver: 'TransformStream' },
      peerCalls: checkCalls(peerCalls, input.calls),
      ratio: peer.medianMs / push.medianMs,
      ratioSameDriver: peer.medianMs / stream.medianMs,
    });
  }
  // One note per distinct finding, naming the modes that showed it.
  const findings = new Map<string, string[]>();
  for (const entry of cases) {
    const check = entry.peerCalls;
    const finding =
      check.found !== check.expected
        ? `found ${check.found} of ${check.expected} calls`
        : check.exact !== check.expected
          ? `${check.expected - check.exact} inputs differ, e.g. ${check.firstDifference}`
          : undefined;
    if (finding) findings.set(finding, [...(findings.get(finding) ?? []), entry.mode]);
  }
  for (const [finding, modes] of findings)
    notes.push(`peer qwen3CoderProtocol (${modes.join(', ')}): ${finding}`);
  return { peer: '@ai-sdk-tool/parser qwen3CoderProtocol', cases };
}

function targetsOf(
  rows: readonly FormatRow[],
  qwen: FormatsBenchResult['qwen3CoderVsPeer'],
): FormatTarget[] {
  const list: FormatTarget[] = [];
  for (const row of rows) {
    const whole = row.timings.whole;
    if (whole) {
      list.push({
        target: `${row.format}: parseGeneratedText ≥ ${TARGETS.wholeMbPerSecond} MB/s`,
        value: `${formatRate(whole.named.mbPerSecond)} MB/s`,
        pass: whole.named.mbPerSecond >= TARGETS.wholeMbPerSecond,
      });
    }
    const ratios = MODES.map((mode) => row.timings[String(mode)]?.autoOverNamed ?? Number.NaN);
    if (ratios.some(Number.isFinite)) {
      const worst = Math.max(...ratios.filter(Number.isFinite));
      list.push({
        target: `auto on ${row.format} text ≤ ${TARGETS.autoOverNamed}x the time of ${row.format} (worst of whole, 1, 8, 256)`,
        value: formatRatio(worst),
        pass: worst <= TARGETS.autoOverNamed,
      });
    }
    if (row.large) {
      list.push({
        target: `${row.format}: 4 MiB / 1 MiB argument time < ${TARGETS.largeRatio} (8-char chunks)`,
        value: row.large.ratio.toFixed(2),
        pass: row.large.ratio < TARGETS.largeRatio,
      });
    }
  }
  if ('cases' in qwen) {
    for (const entry of qwen.cases) {
      list.push({
        target: `qwen3-coder ≥ ${TARGETS.qwen3CoderOverPeer}x the peer (${entry.mode}, ${entry.toolwire.driver})`,
        value: formatRatio(entry.ratio),
        pass: entry.ratio >= TARGETS.qwen3CoderOverPeer,
      });
      if (entry.ratioSameDriver !== undefined) {
        list.push({
          target: `qwen3-coder ≥ ${TARGETS.qwen3CoderOverPeer}x the peer (${entry.mode}, both TransformStream)`,
          value: formatRatio(entry.ratioSameDriver),
          pass: entry.ratioSameDriver >= TARGETS.qwen3CoderOverPeer,
        });
      }
    }
  }
  return list;
}

export async function benchFormats(): Promise<FormatsBenchResult> {
  const started = performance.now();
  const log = (message: string): void => progress(started, message);
  const formats = selectedFormats();
  const auto = protocolByName('auto');
  const failures: string[] = [];
  const notes: string[] = [];
  const rows: FormatRow[] = [];
  const prepared = new Map<string, Prepared>();

  log(`checking ${formats.length} formats and auto on their outputs: ${formats.join(', ')}`);
  for (const format of formats) {
    try {
      const ready = prepare(format, auto, notes);
      prepared.set(format, ready);
      for (const [side, check] of [
        [format, ready.named],
        [`auto on ${format} text`, ready.auto],
      ] as const) {
        if (check.exact !== check.expected)
          notes.push(
            `${side}: ${check.expected - check.exact} of ${check.expected} inputs differ from what was rendered, e.g. ${check.firstDifference}`,
          );
      }
    } catch (error) {
      failures.push(`${format}: ${errorText(error)}`);
      rows.push({ format, bytes: 0, timings: {}, failure: errorText(error) });
    }
  }

  for (const format of formats) {
    const ready = prepared.get(format);
    if (!ready) continue;
    log(`${format}: whole and chunks 1, 8, 256, side by side with auto`);
    let timings: FormatRow['timings'] = {};
    let large: FormatRow['large'];
    let failure: string | undefined;
    try {
      timings = timeFormat(ready, auto);
      log(`${format}: 1 MiB and 4 MiB argument, ${LARGE_CHUNK}-char chunks`);
      large = timeLarge(format, ready.protocol, notes);
    } catch (error) {
      failure = errorText(error);
      failures.push(`${format}: ${failure}`);
    }
    rows.push({
      format,
      bytes: ready.bytes,
      named: ready.named,
      auto: ready.auto,
      timings,
      ...(large ? { large } : {}),
      ...(failure ? { failure } : {}),
    });
  }
  rows.sort((a, b) => formats.indexOf(a.format) - formats.indexOf(b.format));

  let qwen3CoderVsPeer: FormatsBenchResult['qwen3CoderVsPeer'];
  const qwen = prepared.get('qwen3-coder');
  if (!formatEntry('qwen3-coder') || formatEntry('qwen3-coder')!.name !== 'qwen3-coder') {
    qwen3CoderVsPeer = { skipped: "'qwen3-coder' is not registered: no comparison with the peer" };
  } else if (!formats.includes('qwen3-coder')) {
    qwen3CoderVsPeer = { skipped: "'qwen3-coder' is not among TOOLWIRE_BENCH_FORMATS" };
  } else if (!qwen) {
    qwen3CoderVsPeer = { skipped: "'qwen3-coder' failed its call check (see failures)" };
  } else {
    try {
      qwen3CoderVsPeer = await compareQwen3Coder(qwen, notes, log);
    } catch (error) {
      failures.push(`qwen3-coder vs peer: ${errorText(error)}`);
      qwen3CoderVsPeer = { skipped: `failed: ${errorText(error)}` };
    }
  }

  return {
    calls: BENCH_CALLS,
    targetChars: BENCH_TARGET_CHARS,
    chunkSizes: [...CHUNK_SIZES],
    largeChunk: LARGE_CHUNK,
    formats,
    rows,
    qwen3CoderVsPeer,
    targets: targetsOf(rows, qwen3CoderVsPeer),
    failures,
    notes,
    seconds: (performance.now() - started) / 1000,
  };
}

// ---------------------------------------------------------------------------------------------
// Printing.

function passMiss(pass: boolean): string {
  return pass ? 'PASS' : 'MISS';
}

function rateCell(value: Figure | undefined): string {
  return value ? formatRate(value.mbPerSecond) : '-';
}

function callsCell(check: CallCheck | undefined): string {
  return check ? `${check.found}/${check.expected}` : '-';
}

function exactCell(check: CallCheck | undefined): string {
  return check ? `${check.exact}` : '-';
}

function ratioCell(ratio: number | undefined, pass: (ratio: number) => boolean): string {
  if (ratio === undefined || !Number.isFinite(ratio)) return '-';
  return `${formatRatio(ratio)}${pass(ratio) ? '' : ' MISS'}`;
}

export function formatsTables(result: FormatsBenchResult): string {
  const named = formatTable(
    [
      'format',
      'KB',
      'calls',
      'exact',
      'whole MB/s',
      `≥ ${TARGETS.wholeMbPerSecond}`,
      'chunk 1',
      'chunk 8',
      'chunk 256',
      '1 MiB ms',
      '4 MiB ms',
      '4/1',
      `< ${TARGETS.largeRatio}`,
    ],
    result.rows.map((row) => {
      const whole = row.timings.whole?.named;
      return [
        row.format,
        row.bytes ? (row.bytes / 1000).toFixed(0) : '-',
        callsCell(row.named),
        exactCell(row.named),
        rateCell(whole),
        whole ? passMiss(whole.mbPerSecond >= TARGETS.wholeMbPerSecond) : 'FAIL',
        ...CHUNK_SIZES.map((size) => rateCell(row.timings[String(size)]?.named)),
        row.large ? formatMs(row.large.oneMiB.medianMs) : '-',
        row.large ? formatMs(row.large.fourMiB.medianMs) : '-',
        row.large ? row.large.ratio.toFixed(2) : '-',
        row.large ? passMiss(row.large.ratio < TARGETS.largeRatio) : 'FAIL',
      ];
    }),
  );
  const autoTable = formatTable(
    [
      'auto on',
      'calls',
      'exact',
      'whole MB/s',
      'auto/named',
      'chunk 1',
      'chunk 8',
      'chunk 256',
      `≤ ${TARGETS.autoOverNamed}x`,
    ],
    result.rows.map((row) => {
      const ratios = MODES.map((mode) => row.timings[String(mode)]?.autoOverNamed);
      const finite = ratios.filter((ratio): ratio is number => Number.isFinite(ratio));
      return [
        row.format,
        callsCell(row.auto),
        exactCell(row.auto),
        rateCell(row.timings.whole?.auto),
        ...ratios.map((ratio) => ratioCell(ratio, (value) => value <= TARGETS.autoOverNamed)),
        finite.length === MODES.length
          ? passMiss(finite.every((ratio) => ratio <= TARGETS.autoOverNamed))
          : 'FAIL',
      ];
    }),
  );
  const qwen = result.qwen3CoderVsPeer;
  const qwenText =
    'cases' in qwen
      ? formatTable(
          [
            'qwen3-coder',
            'toolwire',
            'ms',
            'MB/s',
            'TransformStream ms',
            'peer',
            'peer ms',
            'peer calls',
            'tw/peer',
            'same driver',
            `≥ ${TARGETS.qwen3CoderOverPeer}x`,
          ],
          qwen.cases.map((entry) => {
            const ratios = [entry.ratio, entry.ratioSameDriver].filter(
              (ratio): ratio is number => ratio !== undefined,
            );
            return [
              entry.mode,
              entry.toolwire.driver,
              formatMs(entry.toolwire.medianMs),
              formatRate(entry.toolwire.mbPerSecond),
              entry.toolwireStream ? formatMs(entry.toolwireStream.medianMs) : '-',
              entry.peer.driver,
              formatMs(entry.peer.medianMs),
              callsCell(entry.peerCalls),
              formatRatio(entry.ratio),
              entry.ratioSameDriver === undefined ? '-' : formatRatio(entry.ratioSameDriver),
              passMiss(ratios.every((ratio) => ratio >= TARGETS.qwen3CoderOverPeer)),
            ];
          }),
        )
      : `   not run: ${qwen.skipped}`;
  return [
    `Formats: each registered format on a ~${result.targetChars / 1000} KB output of ${result.calls} calls in it, ` +
      'rendered by its formatToolCall (prose between calls, some batches of 2-3)',
    '   whole = parseGeneratedText; chunk N = createStreamParser push() in N-char chunks, then end();',
    `   ${result.largeChunk}-char chunks for the 1 MiB / 4 MiB write_file argument; MB/s of UTF-8 input, median`,
    '   of side-by-side rounds (named and auto alternate; 1 MiB and 4 MiB alternate); the ratios',
    '   auto/named and 4/1 are medians of the ratio within each round. Every run must find every',
    '   call. Every format is parsed every way before the first timing.',
    named,
    '',
    `   auto (protocolByName('auto')) on the same text, timed beside the named format: time ratio`,
    autoTable,
    '',
    "   qwen3-coder beside the peer's qwen3CoderProtocol on the qwen3-coder text (tw/peer = peer time /",
    '   toolwire time; same driver = toolwire push() wrapped in a TransformStream driven like the peer)',
    qwenText,
    '',
    ...targetLines(result.targets),
    ...(result.notes.length > 0
      ? ['   notes:', ...result.notes.map((note) => `     ${note}`)]
      : []),
    ...failureLines(
      result.failures,
      'FAILED (a format whose calls were not all found is not measured):',
    ),
    `   (${result.seconds.toFixed(0)} s, in a process of its own)`,
  ].join('\n');
}

/**
 * This bench in a fresh process, so the other sections' JIT state does not touch its figures,
 * and loading every format does not touch theirs.
 */
export function benchFormatsInChild(): Promise<FormatsBenchResult> {
  return benchInChild<FormatsBenchResult>('formats.ts');
}

/** A format whose calls were not all found fails the bench (after everything is written). */
export function reportFormatFailures(result: FormatsBenchResult): void {
  reportSectionFailures('formats', result.failures);
}

/** `TOOLWIRE_BENCH=formats`: this part alone, its key of the results file replaced. */
export function benchFormatsOnly(resultsFile: URL): Promise<void> {
  return runSectionAlone(resultsFile, 'formats', benchFormatsInChild, formatsTables);
}

if (import.meta.main) {
  const result = await benchFormats();
  console.log(
    process.argv.includes('--json') ? JSON.stringify(result, null, 2) : formatsTables(result),
  );
  // With --json the caller (bench/run.ts) reports the failures after writing the results.
  if (!process.argv.includes('--json')) reportFormatFailures(result);
}
