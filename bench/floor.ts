/**
 * Parsers vs floor: every JSON format's parser, and `auto`, timed beside the floor reader
 * (bench/floor-reader.ts: `indexOf` + `JSON.parse` on the hermes text) on the formats bench's
 * ~200 KB output of 200 calls with code strings, whole and in chunks of 1, 8, 64 and 256
 * characters; and whole texts of N and 10N calls, to show that calls per text cost linear time.
 *
 * A format's output is its own rendering of the same calls, a little longer or shorter than the
 * hermes text, so its ratio to the floor is per byte: (format ms / format bytes) / (floor ms /
 * hermes bytes), taken within each round and the median of the rounds. The floor, the format and
 * `auto` alternate in rounds in one process, and each run is timed in CPU time (this process's,
 * every thread), not wall time: on a shared machine a run's wall time counts the time it waited
 * for a core, which swamped the ratios (18x one run, 3.5x the next). Only ratios are findings;
 * the MB/s shown are CPU-time rates.
 *
 * Standalone: `node bench/floor.ts` (`--json` for the raw results). `npm run bench` runs it in a
 * child process; `TOOLWIRE_BENCH=floor npm run bench` runs only this part and updates the `floor`
 * key of bench/results.json. `TOOLWIRE_BENCH_FORMATS=hermes,mistral` keeps only those formats.
 */
import {
  FORMATS,
  type ParseEvent,
  protocolByName,
  type ToolCallProtocol,
  type ToolDefinition,
} from '../src/index.ts';
import { chunksOf, type FixtureCall, seededRandom } from './fixtures.ts';
import { FloorStreamReader, floorParse, floorStream } from './floor-reader.ts';
import {
  BENCH_CALLS,
  BENCH_SEED,
  BENCH_TARGET_CHARS,
  type CallCheck,
  checkCalls,
  cpuClock,
  expectCallCount,
  FORMAT_TOOLS,
  formatBenchInput,
  roundRatio,
  sampleSideBySide,
  selectedFormats,
} from './formats.ts';
import {
  benchInChild,
  formatRate,
  formatRatio,
  formatTable,
  mbPerSecond,
  type SampleOptions,
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

export const FLOOR_CHUNK_SIZES = [1, 8, 64, 256] as const;
/** `whole` is parseGeneratedText (floorParse for the floor); a number is push() in such chunks. */
export type FloorMode = 'whole' | number;

export const FLOOR_TARGETS = {
  /** A JSON format's time per byte over the floor's, at every chunk size and whole. */
  formatOverFloor: 2,
  autoOverNamed: 1.2,
  /** 10x the calls in one whole text: at most this many times the time. */
  tenfoldCalls: 11,
} as const;

export interface FloorSettings {
  readonly calls: number;
  readonly targetChars: number;
  readonly seed: number;
  readonly modes: readonly FloorMode[];
  /** Formats to measure (JSON formats only are kept); every registered one when undefined. */
  readonly formats?: readonly string[];
  /** Calls in the smaller whole text of the linearity pair; the larger holds ten times as many. */
  readonly linearCalls: number;
  readonly sampling: SampleOptions;
  readonly linearSampling: SampleOptions;
}

export const FLOOR_BENCH_SETTINGS: FloorSettings = {
  calls: BENCH_CALLS,
  targetChars: BENCH_TARGET_CHARS,
  seed: BENCH_SEED,
  modes: ['whole', ...FLOOR_CHUNK_SIZES],
  linearCalls: 10_000,
  sampling: { warmupRuns: 3, warmupMs: 400, minRuns: 9, maxRuns: 31, budgetMs: 800 },
  linearSampling: { warmupRuns: 1, minRuns: 5, maxRuns: 9, budgetMs: 4000 },
};

/** The probe call that tells a JSON format: its rendering holds the arguments as JSON text. */
const PROBE_INPUT = { path: 'a.ts', content: 'x "q"\n' };

/**
 * Whether the format writes a call's arguments as a JSON object (every format whose argument
 * codec is JSON, whatever its markers), so a format added later is measured without a list here.
 */
export function writesJsonArguments(protocol: ToolCallProtocol): boolean {
  const text = protocol.formatToolCall({ toolName: 'write_file', input: PROBE_INPUT });
  return text.includes(JSON.stringify(PROBE_INPUT));
}

/** The registered formats that write JSON arguments, hermes first (it is the reference). */
export function jsonFormats(
  names: readonly string[] = FORMATS.map((entry) => entry.name),
): string[] {
  const json = names.filter((name) => writesJsonArguments(protocolByName(name)));
  return [...json.filter((name) => name === 'hermes'), ...json.filter((name) => name !== 'hermes')];
}

function modeKey(mode: FloorMode): string {
  return mode === 'whole' ? 'whole' : String(mode);
}

function modeLabel(mode: FloorMode): string {
  return mode === 'whole' ? 'whole' : `chunk ${mode}`;
}

function countCalls(protocol: ToolCallProtocol, text: string, mode: FloorMode): number {
  let count = 0;
  if (mode === 'whole') {
    for (const part of protocol.parseGeneratedText(text, { tools: FORMAT_TOOLS }))
      if (part.type === 'tool-call') count++;
    return count;
  }
  const parser = protocol.createStreamParser({ tools: FORMAT_TOOLS });
  const take = (events: readonly ParseEvent[]): void => {
    for (const event of events) if (event.type === 'tool-call') count++;
  };
  for (const chunk of chunksOf(text, mode)) take(parser.push(chunk));
  take(parser.end());
  return count;
}

function floorCalls(text: string, mode: FloorMode): { toolName: string; input: string }[] {
  const events = mode === 'whole' ? floorParse(text) : floorStream(chunksOf(text, mode));
  const calls: { toolName: string; input: string }[] = [];
  for (const event of events)
    if (event.type === 'tool-call') calls.push({ toolName: event.toolName, input: event.input });
  return calls;
}

export interface FloorFigure {
  readonly medianMs: number;
  readonly mbPerSecond: number;
}

function figure(bytes: number, timing: Timing): FloorFigure {
  return { medianMs: timing.medianMs, mbPerSecond: mbPerSecond(bytes, timing.medianMs) };
}

/** Within each round, `over`'s time per byte / `under`'s; the median of the rounds. */
function perByteRatio(over: Timing, overBytes: number, under: Timing, underBytes: number): number {
  return roundRatio(over, under) * (underBytes / overBytes);
}

export interface FloorModeFigures {
  readonly floor: FloorFigure;
  readonly named: FloorFigure;
  readonly auto: FloorFigure;
  /** (named ms / its bytes) / (floor ms / hermes bytes), median of the rounds. */
  readonly namedOverFloor: number;
  /**
   * The same per byte, of the fastest run of each side: on a machine other processes keep busy
   * a run can only be slowed by them (caches, memory bandwidth), so the minimums move less than
   * the medians (one side's 1-char ratio read 2.4x in one run and 4.3x in the next).
   */
  readonly namedOverFloorOfMinimums: number;
  readonly autoOverFloor: number;
  /** auto ms / named ms on the same text, median of the rounds. */
  readonly autoOverNamed: number;
}

export interface FloorRow {
  readonly format: string;
  readonly bytes: number;
  readonly named?: CallCheck;
  readonly auto?: CallCheck;
  readonly modes: Record<string, FloorModeFigures>;
  readonly failure?: string;
}

export interface LinearFigures {
  readonly format: string;
  readonly calls: readonly [number, number];
  readonly bytes: readonly [number, number];
  /** Time of the text with 10x the calls / time of the smaller one, median of the rounds. */
  readonly parserRatio: number;
  readonly floorRatio: number;
  /** The same of the fastest runs (see namedOverFloorOfMinimums). */
  readonly parserRatioOfMinimums: number;
  readonly floorRatioOfMinimums: number;
  readonly parser: readonly [FloorFigure, FloorFigure];
  readonly floor: readonly [FloorFigure, FloorFigure];
  /**
   * The same texts streamed in LINEAR_PIECE pieces with every event dropped as it comes: the
   * parser's own work, without the cost of keeping 10x the parts alive. A whole text's parts
   * (and, in parseGeneratedText, every stream event) stay alive to the end, and the garbage
   * collector's cost grows faster than the live heap does (the floor reader's own ratio grows
   * from ~12x to ~22x when each of its parts holds two more small objects).
   */
  readonly streamedRatio: number;
  /**
   * Total time of all the larger runs / all the smaller ones, for the parser, the floor and the
   * streamed pair: a major collection comes in lumps fewer than one per small run, so the
   * smaller run's median leaves out the collections it causes and the larger run's does not.
   */
  readonly ratiosOfTotals: {
    readonly parser: number;
    readonly floor: number;
    readonly streamed: number;
  };
}

function totalsRatio(over: Timing, under: Timing): number {
  const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);
  return sum(over.samples) / sum(under.samples);
}

/** Piece size of the streamed linearity figure (see LinearFigures.streamedRatio). */
const LINEAR_PIECE = 64 * 1024;

function streamDroppingEvents(protocol: ToolCallProtocol, text: string): void {
  const parser = protocol.createStreamParser({ tools: FORMAT_TOOLS });
  for (let start = 0; start < text.length; start += LINEAR_PIECE)
    parser.push(text.slice(start, start + LINEAR_PIECE));
  parser.end();
}

export type FloorTarget = BenchTarget;

export interface FloorBenchResult {
  readonly reference: 'hermes';
  readonly calls: number;
  readonly targetChars: number;
  readonly hermesBytes: number;
  readonly floorCheck: CallCheck;
  readonly modes: readonly string[];
  readonly rows: readonly FloorRow[];
  readonly linear?: LinearFigures;
  readonly targets: readonly FloorTarget[];
  readonly failures: readonly string[];
  readonly seconds: number;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

interface Prepared {
  readonly format: string;
  readonly protocol: ToolCallProtocol;
  readonly text: string;
  readonly bytes: number;
  readonly calls: readonly FixtureCall[];
}

function prepare(format: string, settings: FloorSettings): Prepared {
  const protocol = protocolByName(format);
  const input = formatBenchInput(protocol, settings);
  return {
    format,
    protocol,
    text: input.text,
    bytes: utf8Bytes(input.text),
    calls: input.calls,
  };
}

function wholeCalls(
  protocol: ToolCallProtocol,
  text: string,
): { toolName: string; input: string }[] {
  const calls: { toolName: string; input: string }[] = [];
  for (const part of protocol.parseGeneratedText(text, { tools: FORMAT_TOOLS }))
    if (part.type === 'tool-call') calls.push({ toolName: part.toolName, input: part.input });
  return calls;
}

function timeRow(
  ready: Prepared,
  hermes: Prepared,
  auto: ToolCallProtocol,
  settings: FloorSettings,
): FloorRow {
  const expected = ready.calls.length;
  const named = checkCalls(wholeCalls(ready.protocol, ready.text), ready.calls);
  expectCallCount(`${ready.format} parseGeneratedText`, named.found, expected);
  const autoCheck = checkCalls(wholeCalls(auto, ready.text), ready.calls);
  expectCallCount(`auto on ${ready.format} text`, autoCheck.found, expected);
  const modes: Record<string, FloorModeFigures> = {};
  for (const mode of settings.modes) {
    const where = `${ready.format} ${modeLabel(mode)}`;
    for (const [side, protocol] of [
      [ready.format, ready.protocol],
      ['auto', auto],
    ] as const)
      expectCallCount(`${where} (${side})`, countCalls(protocol, ready.text, mode), expected);
    // Chunks are cut before timing on every side alike, so no side pays for slicing.
    const floorChunks = mode === 'whole' ? [] : chunksOf(hermes.text, mode);
    const chunks = mode === 'whole' ? [] : chunksOf(ready.text, mode);
    // Like the parser runs, the floor's events are made and dropped chunk by chunk.
    const floorRun =
      mode === 'whole'
        ? () => floorParse(hermes.text)
        : () => {
            const reader = new FloorStreamReader();
            for (const chunk of floorChunks) reader.push(chunk);
            reader.end();
          };
    const parserRun = (protocol: ToolCallProtocol) =>
      mode === 'whole'
        ? () => protocol.parseGeneratedText(ready.text, { tools: FORMAT_TOOLS })
        : () => {
            const parser = protocol.createStreamParser({ tools: FORMAT_TOOLS });
            for (const chunk of chunks) parser.push(chunk);
            parser.end();
          };
    const [floor, namedTiming, autoTiming] = sampleSideBySide(
      [floorRun, parserRun(ready.protocol), parserRun(auto)],
      settings.sampling,
      cpuClock,
    );
    modes[modeKey(mode)] = {
      floor: figure(hermes.bytes, floor!),
      named: figure(ready.bytes, namedTiming!),
      auto: figure(ready.bytes, autoTiming!),
      namedOverFloor: perByteRatio(namedTiming!, ready.bytes, floor!, hermes.bytes),
      namedOverFloorOfMinimums: (namedTiming!.minMs / floor!.minMs) * (hermes.bytes / ready.bytes),
      autoOverFloor: perByteRatio(autoTiming!, ready.bytes, floor!, hermes.bytes),
      autoOverNamed: roundRatio(autoTiming!, namedTiming!),
    };
  }
  return { format: ready.format, bytes: ready.bytes, named, auto: autoCheck, modes };
}

/** Small calls (weather, search), prose between: `calls` of them in one hermes text. */
export function manyCallsText(protocol: ToolCallProtocol, calls: number, seed: number): string {
  const random = seededRandom(seed);
  const cities = ['Paris', 'Seoul', 'Lima', 'Oslo'];
  const parts: string[] = [];
  for (let index = 0; index < calls; index++) {
    const roll = random();
    const call =
      roll < 0.5
        ? {
            toolName: 'get_weather',
            input: { city: cities[index % cities.length]!, days: 1 + (index % 14) },
          }
        : {
            toolName: 'search',
            input: { query: `cache ${index} "retry"`, allow_tests: roll < 0.75 },
          };
    parts.push(`Step ${index}: checking.\n`, protocol.formatToolCall(call), '\n');
  }
  return parts.join('');
}

function timeLinear(hermes: ToolCallProtocol, settings: FloorSettings): LinearFigures {
  const counts = [settings.linearCalls, settings.linearCalls * 10] as const;
  const texts = counts.map((count) => manyCallsText(hermes, count, 9)) as [string, string];
  const tools: readonly ToolDefinition[] = FORMAT_TOOLS;
  texts.forEach((text, index) => {
    const expected = counts[index]!;
    expectCallCount('linear hermes', countCalls(hermes, text, 'whole'), expected);
    expectCallCount('linear floor', floorCalls(text, 'whole').length, expected);
  });
  const [small, large, floorSmall, floorLarge] = sampleSideBySide(
    [
      () => hermes.parseGeneratedText(texts[0], { tools }),
      () => hermes.parseGeneratedText(texts[1], { tools }),
      () => floorParse(texts[0]),
      () => floorParse(texts[1]),
    ],
    settings.linearSampling,
    cpuClock,
  );
  // Sampled apart: beside the whole-text runs, it would pay for collecting their garbage.
  const [streamedSmall, streamedLarge] = sampleSideBySide(
    [() => streamDroppingEvents(hermes, texts[0]), () => streamDroppingEvents(hermes, texts[1])],
    settings.linearSampling,
    cpuClock,
  );
  const bytes = texts.map(utf8Bytes) as [number, number];
  return {
    format: 'hermes',
    calls: counts,
    bytes,
    parserRatio: roundRatio(large!, small!),
    floorRatio: roundRatio(floorLarge!, floorSmall!),
    parserRatioOfMinimums: large!.minMs / small!.minMs,
    floorRatioOfMinimums: floorLarge!.minMs / floorSmall!.minMs,
    parser: [figure(bytes[0], small!), figure(bytes[1], large!)],
    floor: [figure(bytes[0], floorSmall!), figure(bytes[1], floorLarge!)],
    streamedRatio: roundRatio(streamedLarge!, streamedSmall!),
    ratiosOfTotals: {
      parser: totalsRatio(large!, small!),
      floor: totalsRatio(floorLarge!, floorSmall!),
      streamed: totalsRatio(streamedLarge!, streamedSmall!),
    },
  };
}

function targetsOf(rows: readonly FloorRow[], linear: LinearFigures | undefined): FloorTarget[] {
  const list: FloorTarget[] = [];
  for (const row of rows) {
    const figures = Object.values(row.modes);
    if (figures.length === 0) continue;
    const worstFloor = Math.max(...figures.map((entry) => entry.namedOverFloor));
    list.push({
      target: `${row.format}: ≤ ${FLOOR_TARGETS.formatOverFloor}x the floor per byte (worst of whole and every chunk size)`,
      value: formatRatio(worstFloor),
      pass: worstFloor <= FLOOR_TARGETS.formatOverFloor,
    });
    const worstAuto = Math.max(...figures.map((entry) => entry.autoOverNamed));
    list.push({
      target: `auto on ${row.format} text ≤ ${FLOOR_TARGETS.autoOverNamed}x ${row.format} (worst mode)`,
      value: formatRatio(worstAuto),
      pass: worstAuto <= FLOOR_TARGETS.autoOverNamed,
    });
  }
  if (linear) {
    list.push({
      target: `hermes whole: ${linear.calls[1]} calls ≤ ${FLOOR_TARGETS.tenfoldCalls}x the time of ${linear.calls[0]}`,
      value: `${linear.parserRatio.toFixed(2)}x (floor ${linear.floorRatio.toFixed(2)}x)`,
      pass: linear.parserRatio <= FLOOR_TARGETS.tenfoldCalls,
    });
  }
  return list;
}

function progress(started: number, message: string): void {
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  process.stderr.write(`[floor ${seconds.padStart(3)}s] ${message}\n`);
}

export function benchFloor(settings: FloorSettings = FLOOR_BENCH_SETTINGS): FloorBenchResult {
  const started = performance.now();
  const log = (message: string): void => progress(started, message);
  const formats = jsonFormats(settings.formats ?? selectedFormats());
  const auto = protocolByName('auto');
  const hermes = prepare('hermes', settings);
  const floorCheck = checkCalls(floorCalls(hermes.text, 'whole'), hermes.calls);
  expectCallCount('floor reader on the hermes text', floorCheck.found, hermes.calls.length);
  for (const mode of settings.modes)
    expectCallCount(
      `floor ${modeLabel(mode)}`,
      floorCalls(hermes.text, mode).length,
      hermes.calls.length,
    );
  const rows: FloorRow[] = [];
  const failures: string[] = [];
  for (const format of formats) {
    log(`${format} beside the floor and auto: ${settings.modes.map(modeLabel).join(', ')}`);
    try {
      const ready = format === 'hermes' ? hermes : prepare(format, settings);
      rows.push(timeRow(ready, hermes, auto, settings));
    } catch (error) {
      failures.push(`${format}: ${errorText(error)}`);
      rows.push({ format, bytes: 0, modes: {}, failure: errorText(error) });
    }
  }
  let linear: LinearFigures | undefined;
  if (settings.linearCalls > 0) {
    log(`hermes whole: ${settings.linearCalls} calls against ${settings.linearCalls * 10}`);
    try {
      linear = timeLinear(protocolByName('hermes'), settings);
    } catch (error) {
      failures.push(`linear: ${errorText(error)}`);
    }
  }
  return {
    reference: 'hermes',
    calls: settings.calls,
    targetChars: settings.targetChars,
    hermesBytes: hermes.bytes,
    floorCheck,
    modes: settings.modes.map(modeKey),
    rows,
    ...(linear ? { linear } : {}),
    targets: targetsOf(rows, linear),
    failures,
    seconds: (performance.now() - started) / 1000,
  };
}

// ---------------------------------------------------------------------------------------------
// Printing.

function ratioCell(value: number | undefined, limit: number): string {
  if (value === undefined || !Number.isFinite(value)) return '-';
  return `${formatRatio(value)}${value <= limit ? '' : ' MISS'}`;
}

export function floorTables(result: FloorBenchResult): string {
  const modes = result.modes;
  const label = (key: string): string => (key === 'whole' ? 'whole' : `chunk ${key}`);
  const vsFloor = formatTable(
    ['format / floor (per byte)', 'KB', 'calls', ...modes.map(label), 'floor MB/s whole'],
    result.rows.map((row) => [
      row.format,
      row.bytes ? (row.bytes / 1000).toFixed(0) : '-',
      row.named ? `${row.named.found}/${row.named.expected}` : 'FAIL',
      ...modes.map((key) =>
        ratioCell(row.modes[key]?.namedOverFloor, FLOOR_TARGETS.formatOverFloor),
      ),
      formatRate(row.modes.whole?.floor.mbPerSecond ?? Number.NaN),
    ]),
  );
  const autoTable = formatTable(
    ['auto / named', ...modes.map(label), 'auto / floor (worst)'],
    result.rows.map((row) => [
      row.format,
      ...modes.map((key) => ratioCell(row.modes[key]?.autoOverNamed, FLOOR_TARGETS.autoOverNamed)),
      formatRatio(Math.max(...Object.values(row.modes).map((entry) => entry.autoOverFloor))),
    ]),
  );
  const minimums = formatTable(
    ['of minimums (per byte)', ...modes.map(label)],
    result.rows.map((row) => [
      row.format,
      ...modes.map((key) =>
        ratioCell(row.modes[key]?.namedOverFloorOfMinimums, FLOOR_TARGETS.formatOverFloor),
      ),
    ]),
  );
  const rates = formatTable(
    ['MB/s (median)', ...modes.map(label)],
    result.rows.map((row) => [
      row.format,
      ...modes.map((key) => formatRate(row.modes[key]?.named.mbPerSecond ?? Number.NaN)),
    ]),
  );
  const linear = result.linear;
  return [
    `Parsers vs floor: each JSON format's parser on the ~${result.targetChars / 1000} KB output of ${result.calls} calls in it`,
    `   (code strings), beside the floor reader (indexOf + JSON.parse) on the hermes text (${(result.hermesBytes / 1000).toFixed(0)} KB)`,
    '   and auto on the format text, interleaved in rounds in one process, each run timed in CPU time;',
    '   ratios are medians of the per-round ratios (per byte against the floor); MB/s per CPU second.',
    vsFloor,
    '',
    '   the same, fastest run of each side (moves less with the load of other processes):',
    minimums,
    '',
    autoTable,
    '',
    rates,
    ...(linear
      ? [
          '',
          `   hermes whole: ${linear.calls[1]} calls in one text / ${linear.calls[0]} calls: ` +
            `${linear.parserRatio.toFixed(2)}x the time (floor ${linear.floorRatio.toFixed(2)}x; ` +
            `${(linear.bytes[1] / linear.bytes[0]).toFixed(2)}x the bytes); fastest runs ` +
            `${linear.parserRatioOfMinimums.toFixed(2)}x (floor ${linear.floorRatioOfMinimums.toFixed(2)}x)`,
          `   the same texts streamed in ${LINEAR_PIECE / 1024} KiB pieces, events dropped (the parser's own work, ` +
            `no parts kept alive): ${linear.streamedRatio.toFixed(2)}x`,
          `   ratios of total times (collections counted where they fall): parser ` +
            `${linear.ratiosOfTotals.parser.toFixed(2)}x, floor ${linear.ratiosOfTotals.floor.toFixed(2)}x, ` +
            `streamed ${linear.ratiosOfTotals.streamed.toFixed(2)}x`,
        ]
      : []),
    ...targetLines(result.targets),
    ...failureLines(result.failures),
    `   (${result.seconds.toFixed(0)} s, in a process of its own)`,
  ].join('\n');
}

export function benchFloorInChild(): Promise<FloorBenchResult> {
  return benchInChild<FloorBenchResult>('floor.ts');
}

export function reportFloorFailures(result: FloorBenchResult): void {
  reportSectionFailures('floor', result.failures);
}

/** `TOOLWIRE_BENCH=floor`: this part alone, its key of the results file replaced. */
export function benchFloorOnly(resultsFile: URL): Promise<void> {
  return runSectionAlone(resultsFile, 'floor', benchFloorInChild, floorTables);
}

if (import.meta.main) {
  const result = benchFloor();
  console.log(
    process.argv.includes('--json') ? JSON.stringify(result, null, 2) : floorTables(result),
  );
  if (!process.argv.includes('--json')) reportFloorFailures(result);
}
