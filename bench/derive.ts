/**
 * Deriving a format from a chat template (`protocolFromChatTemplate`), for every visible template
 * in test/fixtures/chat-templates: cold, the first derivation in a fresh process (each cold run is
 * a child process of its own; the figure is the median of several), and warm, in this process
 * after every template has been derived once, the templates interleaved in rounds. Target (issue
 * 23, section 4): under 50 ms per template, cold and warm.
 *
 * Times are CPU time (`process.cpuUsage`), not wall time: the machine is shared. A cold run's
 * figure is the derivation alone; loading the library before it (its import) is shown beside it
 * and has no target. A template the library refuses (it renders no call) is timed up to its error.
 *
 * Standalone: `node bench/derive.ts` (add `--json` for the raw results). `npm run bench` runs it
 * in a child process; `TOOLWIRE_BENCH=derive npm run bench` runs only this part and replaces the
 * `derive` key of bench/results.json.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  benchInChild,
  collectGarbage,
  collectYoung,
  formatMs,
  formatTable,
  median,
  type SampleOptions,
} from './measure.ts';
import {
  type BenchTarget,
  failureLines,
  reportSectionFailures,
  runSectionAlone,
  targetLines,
} from './sections.ts';

export const DERIVE_TARGET_MS = 50;

const TEMPLATE_FOLDER = new URL('../test/fixtures/chat-templates/', import.meta.url);
/** Loaded only when a derivation is timed, so a cold child can time loading it. */
const LIBRARY = new URL('../src/protocols/derive/chat-template.ts', import.meta.url).href;
const COLD_FLAG = '--cold';

/** Every visible chat template (`*.jinja`), by path. */
export function visibleTemplates(): string[] {
  return readdirSync(TEMPLATE_FOLDER)
    .filter((name) => name.endsWith('.jinja'))
    .sort()
    .map((name) => fileURLToPath(new URL(name, TEMPLATE_FOLDER)));
}

export interface DeriveSettings {
  /** Paths of the templates to derive. */
  readonly templates: readonly string[];
  /** Fresh processes per template for the cold figure. */
  readonly coldRuns: number;
  readonly warm: SampleOptions;
}

export const DERIVE_BENCH_SETTINGS: DeriveSettings = {
  templates: visibleTemplates(),
  coldRuns: 3,
  warm: { warmupRuns: 2, minRuns: 5, maxRuns: 11, budgetMs: 4000 },
};

/** What a cold child reports. */
export interface ColdRun {
  /** CPU ms of loading the library (its modules) before the derivation. */
  readonly importMs: number;
  /** CPU ms of the first derivation. */
  readonly deriveMs: number;
  readonly wallMs: number;
  /** The format derived, or `refused`. */
  readonly outcome: string;
  readonly refused: boolean;
  /** Why the template was refused (the error's message). */
  readonly why?: string;
}

export interface DeriveRow {
  readonly template: string;
  /** The format derived (`family` or the built spec's name), or `refused`. */
  readonly outcome: string;
  /** Why it was refused. */
  readonly refusal?: string;
  readonly cold?: {
    readonly medianMs: number;
    readonly importMedianMs: number;
    readonly runs: readonly ColdRun[];
  };
  readonly warm?: { readonly medianMs: number; readonly samplesMs: readonly number[] };
  readonly failure?: string;
}

export type DeriveTarget = BenchTarget;

export interface DeriveBenchResult {
  readonly clock: 'cpu';
  readonly targetMs: number;
  readonly coldRuns: number;
  readonly rows: readonly DeriveRow[];
  readonly targets: readonly DeriveTarget[];
  readonly failures: readonly string[];
  readonly seconds: number;
}

type Derive = (template: string) => unknown;

async function loadDerive(): Promise<Derive> {
  const module = (await import(LIBRARY)) as { protocolFromChatTemplate: Derive };
  return module.protocolFromChatTemplate;
}

function cpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Derives once; the outcome names the format, or is `refused` with the error's message. */
function deriveOnce(
  derive: Derive,
  template: string,
): { outcome: string; refused: boolean; why?: string } {
  try {
    const protocol = derive(template) as { name: string };
    return { outcome: protocol.name, refused: false };
  } catch (error) {
    return { outcome: 'refused', refused: true, why: errorText(error) };
  }
}

/** In a fresh process: load the library, derive `path` once, report both times. */
async function coldChild(path: string): Promise<ColdRun> {
  const template = readFileSync(path, 'utf8');
  const importStart = cpuMs();
  const derive = await loadDerive();
  const importMs = cpuMs() - importStart;
  const wallStart = performance.now();
  const start = cpuMs();
  const { outcome, refused, why } = deriveOnce(derive, template);
  const deriveMs = cpuMs() - start;
  return {
    importMs,
    deriveMs,
    wallMs: performance.now() - wallStart,
    outcome,
    refused,
    ...(why === undefined ? {} : { why }),
  };
}

function coldRunInChild(path: string): Promise<ColdRun> {
  return new Promise((resolve, reject) => {
    const script = fileURLToPath(import.meta.url);
    const child = spawn(process.execPath, [script, COLD_FLAG, path], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (data: string) => {
      output += data;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(JSON.parse(output) as ColdRun);
      else reject(new Error(`cold derivation of ${basename(path)} exited with status ${code}`));
    });
  });
}

/**
 * Every template derived once per round, interleaved (the order reversed every other round),
 * after a warm-up of all of them; CPU ms per derivation.
 */
function timeWarm(derive: Derive, templates: readonly string[], options: SampleOptions) {
  collectGarbage();
  for (let round = 0; round < options.warmupRuns; round++)
    for (const template of templates) deriveOnce(derive, template);
  const samples = templates.map((): number[] => []);
  const measuring = performance.now();
  for (let round = 0; round < options.maxRuns; round++) {
    if (round >= options.minRuns && performance.now() - measuring > options.budgetMs) break;
    for (let step = 0; step < templates.length; step++) {
      const index = round % 2 === 0 ? step : templates.length - 1 - step;
      collectYoung();
      const start = cpuMs();
      deriveOnce(derive, templates[index]!);
      samples[index]!.push(cpuMs() - start);
    }
  }
  return samples;
}

function targetsOf(rows: readonly DeriveRow[]): DeriveTarget[] {
  const list: DeriveTarget[] = [];
  for (const row of rows) {
    for (const [phase, ms] of [
      ['cold', row.cold?.medianMs],
      ['warm', row.warm?.medianMs],
    ] as const) {
      if (ms === undefined) continue;
      list.push({
        target: `${row.template}: derive ${phase} < ${DERIVE_TARGET_MS} ms (CPU)`,
        value: `${formatMs(ms)} ms`,
        pass: ms < DERIVE_TARGET_MS,
      });
    }
  }
  return list;
}

export async function benchDerive(
  settings: DeriveSettings = DERIVE_BENCH_SETTINGS,
  log: (message: string) => void = () => {},
): Promise<DeriveBenchResult> {
  const started = performance.now();
  const failures: string[] = [];
  const cold = new Map<string, ColdRun[]>();
  for (const path of settings.templates) {
    log(`cold: ${basename(path)} (${settings.coldRuns} processes)`);
    const runs: ColdRun[] = [];
    try {
      for (let run = 0; run < settings.coldRuns; run++) runs.push(await coldRunInChild(path));
    } catch (error) {
      failures.push(`${basename(path)} cold: ${errorText(error)}`);
    }
    cold.set(path, runs);
  }
  log('warm: every template, interleaved');
  const derive = await loadDerive();
  const texts = settings.templates.map((path) => readFileSync(path, 'utf8'));
  const warm = timeWarm(derive, texts, settings.warm);
  const rows = settings.templates.map((path, index): DeriveRow => {
    const runs = cold.get(path) ?? [];
    const samples = warm[index]!;
    const derived = deriveOnce(derive, texts[index]!);
    return {
      template: basename(path),
      outcome: derived.outcome,
      ...(derived.why === undefined ? {} : { refusal: derived.why }),
      ...(runs.length > 0
        ? {
            cold: {
              medianMs: median(runs.map((run) => run.deriveMs)),
              importMedianMs: median(runs.map((run) => run.importMs)),
              runs: runs.map((run) => ({
                ...run,
                importMs: Math.round(run.importMs * 10) / 10,
                deriveMs: Math.round(run.deriveMs * 10) / 10,
                wallMs: Math.round(run.wallMs * 10) / 10,
              })),
            },
          }
        : {}),
      warm: {
        medianMs: median(samples),
        samplesMs: samples.map((ms) => Math.round(ms * 100) / 100),
      },
    };
  });
  return {
    clock: 'cpu',
    targetMs: DERIVE_TARGET_MS,
    coldRuns: settings.coldRuns,
    rows,
    targets: targetsOf(rows),
    failures,
    seconds: (performance.now() - started) / 1000,
  };
}

function passMiss(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '-';
  return ms < DERIVE_TARGET_MS ? 'PASS' : 'MISS';
}

export function deriveTables(result: DeriveBenchResult): string {
  const rows = result.rows.map((row) => [
    row.template,
    row.outcome,
    formatMs(row.cold?.importMedianMs ?? Number.NaN),
    formatMs(row.cold?.medianMs ?? Number.NaN),
    passMiss(row.cold?.medianMs),
    formatMs(row.warm?.medianMs ?? Number.NaN),
    passMiss(row.warm?.medianMs),
  ]);
  const colds = result.rows.flatMap((row) => (row.cold ? [row.cold.medianMs] : []));
  const warms = result.rows.flatMap((row) => (row.warm ? [row.warm.medianMs] : []));
  return [
    'Deriving a format from each visible chat template (protocolFromChatTemplate), in CPU ms',
    '   (process.cpuUsage, not wall time: the machine is shared). cold = the first derivation in a',
    `   fresh process, median of ${result.coldRuns} processes (import = loading the library before it, no`,
    '   target); warm = in one process after a warm-up, templates interleaved in rounds, median.',
    `   Target: under ${result.targetMs} ms per template, cold and warm.`,
    formatTable(['template', 'derived', 'import ms', 'cold ms', 'cold', 'warm ms', 'warm'], rows),
    `   slowest: cold ${formatMs(Math.max(...colds))} ms, warm ${formatMs(Math.max(...warms))} ms;` +
      ` median of templates: cold ${formatMs(median(colds))} ms, warm ${formatMs(median(warms))} ms`,
    ...result.rows.flatMap((row) =>
      row.refusal === undefined ? [] : [`   ${row.template} refused: ${row.refusal.slice(0, 120)}`],
    ),
    ...targetLines(result.targets),
    ...failureLines(result.failures),
    `   (${result.seconds.toFixed(0)} s)`,
  ].join('\n');
}

export function benchDeriveInChild(): Promise<DeriveBenchResult> {
  return benchInChild<DeriveBenchResult>('derive.ts');
}

export function reportDeriveFailures(result: DeriveBenchResult): void {
  reportSectionFailures('derive', result.failures);
}

/** `TOOLWIRE_BENCH=derive`: this part alone, its key of the results file replaced. */
export function benchDeriveOnly(resultsFile: URL): Promise<void> {
  return runSectionAlone(resultsFile, 'derive', benchDeriveInChild, deriveTables);
}

if (import.meta.main) {
  const coldAt = process.argv.indexOf(COLD_FLAG);
  if (coldAt >= 0) {
    console.log(JSON.stringify(await coldChild(process.argv[coldAt + 1]!)));
  } else {
    const started = performance.now();
    const result = await benchDerive(DERIVE_BENCH_SETTINGS, (message) =>
      process.stderr.write(
        `[derive ${((performance.now() - started) / 1000).toFixed(0).padStart(3)}s] ${message}\n`,
      ),
    );
    console.log(
      process.argv.includes('--json') ? JSON.stringify(result, null, 2) : deriveTables(result),
    );
    if (!process.argv.includes('--json')) reportDeriveFailures(result);
  }
}
