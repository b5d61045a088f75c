/**
 * The families added in 2026 (issue 23, section 3), each on a ~200 KB output of 200 calls
 * written by its own `formatToolCall` (prose between the calls, code strings in the arguments):
 * parsed whole and pushed in chunks of 1, 8 and 256 characters, and one call with a 1 MiB and a
 * 4 MiB string argument pushed in 8-character chunks. Targets (issue 23, section 4): ≥ 100 MB/s
 * whole, and the 4 MiB argument under 4.5x the time of the 1 MiB one (linear).
 *
 * Every run is timed in CPU time (`process.cpuUsage`, all threads), not wall time: the machine
 * this runs on is shared, and a run's wall time counts the time it waited for a core. The modes
 * of one family are interleaved in rounds, and each figure is the median of its rounds. Every
 * run must find every call: a miscount fails the family, never a silent zero.
 *
 * Standalone: `node bench/families.ts` (add `--json` for the raw results). `npm run bench` runs it
 * in a child process; `TOOLWIRE_BENCH=families npm run bench` runs only this part and replaces
 * the `families` key of bench/results.json.
 */
import {
  type ParsedContent,
  type ParseEvent,
  protocolByName,
  type ToolCallProtocol,
  type ToolDefinition,
} from '../src/index.ts';
import { chunksOf, largeArgumentOutput, type ModelOutput } from './fixtures.ts';
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
} from './formats.ts';
import {
  benchInChild,
  formatMs,
  formatRate,
  formatRatio,
  formatTable,
  MB,
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

/** The formats of the families released in 2026, in the order of issue 23's list. */
export const FAMILY_FORMATS = [
  'gemma4',
  'minicpm',
  'minimax-m3',
  'gigachat',
  'gigachat-gcml',
  'longcat',
  'internlm',
  'kimi-k3',
  'hunyuan-a13b',
  'hunyuan-hy',
  'jamba',
  'minimax-m1',
  'step3',
  'apriel',
  'solar-open',
  'muse-glimmer',
  'arrow-calls',
] as const;

export const FAMILY_TARGETS = {
  /** Whole text (parseGeneratedText), MB per CPU second. */
  wholeMbPerSecond: 100,
  /** 4 MiB argument time / 1 MiB argument time. */
  largeRatio: 4.5,
} as const;

/** `whole` is parseGeneratedText; a number is push() in chunks of that many characters. */
export type FamilyMode = 'whole' | number;

export interface FamiliesSettings {
  readonly formats: readonly string[];
  readonly calls: number;
  readonly targetChars: number;
  readonly seed: number;
  readonly modes: readonly FamilyMode[];
  /**
   * Whole parses per timed run: one parse of 200 KB at the target takes 2 ms, too short for a
   * CPU clock on a busy machine; the figure is per parse.
   */
  readonly wholeRepeats: number;
  /** The two argument sizes of the linearity pair (characters), smaller first. */
  readonly largeSizes: readonly [number, number];
  readonly largeChunk: number;
  readonly sampling: SampleOptions;
  readonly largeSampling: SampleOptions;
}

export const FAMILIES_BENCH_SETTINGS: FamiliesSettings = {
  formats: FAMILY_FORMATS,
  calls: BENCH_CALLS,
  targetChars: BENCH_TARGET_CHARS,
  seed: BENCH_SEED,
  modes: ['whole', 1, 8, 256],
  wholeRepeats: 5,
  largeSizes: [1 * MB, 4 * MB],
  largeChunk: 8,
  sampling: { warmupRuns: 2, warmupMs: 300, minRuns: 7, maxRuns: 15, budgetMs: 1500 },
  largeSampling: { warmupRuns: 1, minRuns: 5, maxRuns: 9, budgetMs: 2500 },
};

const LARGE_SEED = 77;

export interface FamilyFigure {
  /** CPU milliseconds per parse, median of the rounds. */
  readonly medianMs: number;
  /** MB (2^20 bytes of UTF-8) per CPU second. */
  readonly mbPerSecond: number;
  readonly samplesMs: readonly number[];
}

export interface FamilyRow {
  readonly format: string;
  readonly bytes: number;
  /** Calls found and exact (parseGeneratedText); every mode must find them all. */
  readonly check?: CallCheck;
  /** Keyed by `whole`, `1`, `8`, `256`. */
  readonly modes: Record<string, FamilyFigure>;
  /** `ratio`: the median over rounds of the larger argument's time / the smaller's. */
  readonly large?: {
    readonly sizes: readonly [number, number];
    readonly small: FamilyFigure;
    readonly big: FamilyFigure;
    readonly ratio: number;
  };
  /** Why the family was not (fully) measured: a miscount or an exception. */
  readonly failure?: string;
}

export type FamilyTarget = BenchTarget;

export interface FamiliesBenchResult {
  readonly clock: 'cpu';
  readonly calls: number;
  readonly targetChars: number;
  readonly modes: readonly string[];
  readonly largeChunk: number;
  readonly largeSizes: readonly number[];
  readonly rows: readonly FamilyRow[];
  readonly targets: readonly FamilyTarget[];
  readonly failures: readonly string[];
  readonly notes: readonly string[];
  readonly seconds: number;
}

function modeKey(mode: FamilyMode): string {
  return String(mode);
}

function modeLabel(mode: FamilyMode): string {
  return mode === 'whole' ? 'whole' : `chunk ${mode}`;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function familyFigure(bytes: number, timing: Timing, repeats = 1): FamilyFigure {
  const perParse = timing.medianMs / repeats;
  return {
    medianMs: perParse,
    mbPerSecond: mbPerSecond(bytes, perParse),
    samplesMs: timing.samples.map((ms) => Math.round((ms / repeats) * 100) / 100),
  };
}

function countWhole(
  protocol: ToolCallProtocol,
  text: string,
  tools: readonly ToolDefinition[],
): number {
  let count = 0;
  for (const part of protocol.parseGeneratedText(text, { tools }))
    if (part.type === 'tool-call') count++;
  return count;
}

function countPushed(
  protocol: ToolCallProtocol,
  chunks: readonly string[],
  tools: readonly ToolDefinition[],
): number {
  const parser = protocol.createStreamParser({ tools });
  let count = 0;
  const take = (events: readonly ParseEvent[]): void => {
    for (const event of events) if (event.type === 'tool-call') count++;
  };
  for (const chunk of chunks) take(parser.push(chunk));
  take(parser.end());
  return count;
}

/** Every call of one parse (whole, or pushed in chunks of `mode` characters), for the checks. */
function parseCalls(
  protocol: ToolCallProtocol,
  text: string,
  mode: FamilyMode,
): { toolName: string; input: string }[] {
  const calls: { toolName: string; input: string }[] = [];
  const take = (events: readonly (ParseEvent | ParsedContent)[]): void => {
    for (const event of events)
      if (event.type === 'tool-call') calls.push({ toolName: event.toolName, input: event.input });
  };
  if (mode === 'whole') {
    take(protocol.parseGeneratedText(text, { tools: FORMAT_TOOLS }));
    return calls;
  }
  const parser = protocol.createStreamParser({ tools: FORMAT_TOOLS });
  for (const chunk of chunksOf(text, mode)) take(parser.push(chunk));
  take(parser.end());
  return calls;
}

/** One timed run of a mode: it parses and checks the count, so a broken parser cannot look fast. */
function runOf(
  format: string,
  protocol: ToolCallProtocol,
  input: ModelOutput,
  mode: FamilyMode,
  wholeRepeats: number,
): () => void {
  const expected = input.calls.length;
  const where = `${format} (${modeLabel(mode)}, timed run)`;
  if (mode === 'whole') {
    return () => {
      for (let index = 0; index < wholeRepeats; index++)
        expectCallCount(where, countWhole(protocol, input.text, FORMAT_TOOLS), expected);
    };
  }
  const chunks = chunksOf(input.text, mode);
  return () => expectCallCount(where, countPushed(protocol, chunks, FORMAT_TOOLS), expected);
}

/** Every mode must find every call before anything is timed; chunking must not change them. */
function checkFamily(
  format: string,
  protocol: ToolCallProtocol,
  input: ModelOutput,
  modes: readonly FamilyMode[],
  notes: string[],
): CallCheck {
  let first: CallCheck | undefined;
  for (const mode of modes) {
    const check = checkCalls(parseCalls(protocol, input.text, mode), input.calls);
    const where = `${format} (${modeLabel(mode)})`;
    expectCallCount(where, check.found, input.calls.length);
    if (first && first.exact !== check.exact)
      notes.push(`WARNING ${where}: ${check.exact} exact calls, ${first.exact} whole`);
    if (check.exact !== check.expected && !first)
      notes.push(
        `note ${where}: ${check.expected - check.exact} of ${check.expected} inputs differ from ` +
          `what was written, e.g. ${check.firstDifference ?? '?'}`,
      );
    first ??= check;
  }
  return first!;
}

function timeLarge(
  format: string,
  protocol: ToolCallProtocol,
  settings: FamiliesSettings,
  notes: string[],
): NonNullable<FamilyRow['large']> {
  const inputs = settings.largeSizes.map((chars) =>
    largeArgumentOutput(protocol, chars, LARGE_SEED),
  );
  const runs = inputs.map((input, index) => {
    const where = `${format} ${sizeLabel(settings.largeSizes[index]!)} argument`;
    const check = checkCalls(parseCalls(protocol, input.text, settings.largeChunk), input.calls);
    expectCallCount(where, check.found, 1);
    if (check.exact !== 1) notes.push(`${where}: the input differs, ${check.firstDifference}`);
    const chunks = chunksOf(input.text, settings.largeChunk);
    return () =>
      expectCallCount(`${where} (timed run)`, countPushed(protocol, chunks, FORMAT_TOOLS), 1);
  });
  const [small, big] = sampleSideBySide(runs, settings.largeSampling, cpuClock);
  return {
    sizes: settings.largeSizes,
    small: familyFigure(utf8Bytes(inputs[0]!.text), small!),
    big: familyFigure(utf8Bytes(inputs[1]!.text), big!),
    ratio: roundRatio(big!, small!),
  };
}

function targetsOf(rows: readonly FamilyRow[]): FamilyTarget[] {
  const list: FamilyTarget[] = [];
  for (const row of rows) {
    const whole = row.modes.whole;
    if (whole)
      list.push({
        target: `${row.format}: whole ≥ ${FAMILY_TARGETS.wholeMbPerSecond} MB/s (CPU)`,
        value: `${formatRate(whole.mbPerSecond)} MB/s`,
        pass: whole.mbPerSecond >= FAMILY_TARGETS.wholeMbPerSecond,
      });
    if (row.large)
      list.push({
        target: `${row.format}: ${sizeLabel(row.large.sizes[1])} / ${sizeLabel(row.large.sizes[0])} argument time < ${FAMILY_TARGETS.largeRatio}`,
        value: formatRatio(row.large.ratio),
        pass: row.large.ratio < FAMILY_TARGETS.largeRatio,
      });
  }
  return list;
}

function progress(started: number, message: string): void {
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  process.stderr.write(`[families ${seconds.padStart(3)}s] ${message}\n`);
}

export function benchFamilies(
  settings: FamiliesSettings = FAMILIES_BENCH_SETTINGS,
  log: (message: string) => void = () => {},
): FamiliesBenchResult {
  const started = performance.now();
  const rows: FamilyRow[] = [];
  const failures: string[] = [];
  const notes: string[] = [];
  for (const format of settings.formats) {
    let bytes = 0;
    let check: CallCheck | undefined;
    const modes: FamilyRow['modes'] = {};
    let large: FamilyRow['large'];
    let failure: string | undefined;
    try {
      const protocol = protocolByName(format);
      const input = formatBenchInput(protocol, {
        calls: settings.calls,
        targetChars: settings.targetChars,
        seed: settings.seed,
      });
      bytes = utf8Bytes(input.text);
      check = checkFamily(format, protocol, input, settings.modes, notes);
      log(`${format}: ${settings.modes.map(modeLabel).join(', ')}`);
      const timings = sampleSideBySide(
        settings.modes.map((mode) => runOf(format, protocol, input, mode, settings.wholeRepeats)),
        settings.sampling,
        cpuClock,
      );
      settings.modes.forEach((mode, index) => {
        modes[modeKey(mode)] = familyFigure(
          bytes,
          timings[index]!,
          mode === 'whole' ? settings.wholeRepeats : 1,
        );
      });
      log(`${format}: large arguments`);
      large = timeLarge(format, protocol, settings, notes);
    } catch (error) {
      failure = errorText(error);
      failures.push(`${format}: ${failure}`);
    }
    rows.push({
      format,
      bytes,
      ...(check ? { check } : {}),
      modes,
      ...(large ? { large } : {}),
      ...(failure === undefined ? {} : { failure }),
    });
  }
  return {
    clock: 'cpu',
    calls: settings.calls,
    targetChars: settings.targetChars,
    modes: settings.modes.map(modeKey),
    largeChunk: settings.largeChunk,
    largeSizes: [...settings.largeSizes],
    rows,
    targets: targetsOf(rows),
    failures,
    notes,
    seconds: (performance.now() - started) / 1000,
  };
}

function sizeLabel(chars: number): string {
  return chars >= MB ? `${chars / MB} MiB` : `${chars / 1024} KiB`;
}

function passMiss(pass: boolean): string {
  return pass ? 'PASS' : 'MISS';
}

/** The section's table: MB per CPU second per mode, the large-argument ratio, each flagged. */
export function familiesTables(result: FamiliesBenchResult): string {
  const [small, big] = result.largeSizes;
  const header = [
    'format',
    'KB',
    'calls',
    'exact',
    ...result.modes.map((mode) => (mode === 'whole' ? 'whole MB/s' : `${mode}-char MB/s`)),
    'whole target',
    `${sizeLabel(small!)} ms`,
    `${sizeLabel(big!)} ms`,
    'ratio',
    'ratio target',
  ];
  const rows = result.rows.map((row) => {
    if (row.failure) {
      const cells = [row.format, `FAILED: ${row.failure}`];
      while (cells.length < header.length) cells.push('');
      return cells;
    }
    const whole = row.modes.whole;
    return [
      row.format,
      (row.bytes / 1000).toFixed(0),
      row.check ? `${row.check.found}/${row.check.expected}` : '-',
      row.check ? `${row.check.exact}/${row.check.expected}` : '-',
      ...result.modes.map((mode) => formatRate(row.modes[mode]?.mbPerSecond ?? Number.NaN)),
      whole ? passMiss(whole.mbPerSecond >= FAMILY_TARGETS.wholeMbPerSecond) : '-',
      formatMs(row.large?.small.medianMs ?? Number.NaN),
      formatMs(row.large?.big.medianMs ?? Number.NaN),
      formatRatio(row.large?.ratio ?? Number.NaN),
      row.large ? passMiss(row.large.ratio < FAMILY_TARGETS.largeRatio) : '-',
    ];
  });
  return [
    `The 2026 families: each on a ~${result.targetChars / 1000} KB output of ${result.calls} calls written by its own formatToolCall,`,
    '   parsed whole (parseGeneratedText) and pushed in chunks; one call with a large string argument',
    `   pushed in ${result.largeChunk}-char chunks. Times are CPU time (process.cpuUsage), not wall time: the`,
    '   machine is shared, and wall time would count waiting for a core. Each figure is the median of',
    '   rounds that run every mode of a family once, interleaved. MB = 2^20 bytes per CPU second.',
    `   Targets: whole ≥ ${FAMILY_TARGETS.wholeMbPerSecond} MB/s; ${sizeLabel(big!)} argument < ${FAMILY_TARGETS.largeRatio}x the time of ${sizeLabel(small!)}; chunked figures have no target.`,
    formatTable(header, rows),
    ...targetLines(result.targets),
    ...result.notes.map((note) => `   ${note}`),
    ...failureLines(result.failures),
    `   (${result.seconds.toFixed(0)} s, in a process of its own)`,
  ].join('\n');
}

export function benchFamiliesInChild(): Promise<FamiliesBenchResult> {
  return benchInChild<FamiliesBenchResult>('families.ts');
}

export function reportFamilyFailures(result: FamiliesBenchResult): void {
  reportSectionFailures('families', result.failures);
}

/** `TOOLWIRE_BENCH=families`: this part alone, its key of the results file replaced. */
export function benchFamiliesOnly(resultsFile: URL): Promise<void> {
  return runSectionAlone(resultsFile, 'families', benchFamiliesInChild, familiesTables);
}

if (import.meta.main) {
  const started = performance.now();
  const result = benchFamilies(FAMILIES_BENCH_SETTINGS, (message) => progress(started, message));
  console.log(
    process.argv.includes('--json') ? JSON.stringify(result, null, 2) : familiesTables(result),
  );
  if (!process.argv.includes('--json')) reportFamilyFailures(result);
}
