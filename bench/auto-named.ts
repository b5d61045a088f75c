/**
 * `auto` beside the named format on the same text: the formats bench's ~200 KB output of 200
 * calls, whole and in chunks of 1, 8, 64 and 256 characters, for every JSON format (as the
 * floor bench's "auto / named" table, without the floor reader, so it runs in a fraction of the
 * time). The two alternate in rounds in one process, timed in CPU time; the figure is the median
 * of the per-round ratios (target: at most 1.2).
 *
 * `node bench/auto-named.ts` (`TOOLWIRE_BENCH_FORMATS=hermes,jamba` keeps only those formats;
 * `--modes whole,8` only those modes).
 */
import { protocolByName } from '../src/index.ts';
import { chunksOf } from './fixtures.ts';
import { FLOOR_CHUNK_SIZES, FLOOR_TARGETS, type FloorMode, jsonFormats } from './floor.ts';
import {
  cpuClock,
  FORMAT_TOOLS,
  formatBenchInput,
  roundRatio,
  sampleSideBySide,
  selectedFormats,
} from './formats.ts';
import { formatTable } from './measure.ts';

const SAMPLING = { warmupRuns: 3, warmupMs: 300, minRuns: 9, maxRuns: 21, budgetMs: 600 };

function modesOf(argv: readonly string[]): FloorMode[] {
  const at = argv.indexOf('--modes');
  const list = at === -1 ? undefined : argv[at + 1];
  if (!list) return ['whole', ...FLOOR_CHUNK_SIZES];
  return list.split(',').map((mode) => (mode === 'whole' ? 'whole' : Number(mode)));
}

function autoOverNamed(format: string, mode: FloorMode): number {
  const named = protocolByName(format);
  const auto = protocolByName('auto');
  const text = formatBenchInput(named).text;
  const chunks = mode === 'whole' ? [] : chunksOf(text, mode);
  const run = (protocol: typeof named) =>
    mode === 'whole'
      ? () => protocol.parseGeneratedText(text, { tools: FORMAT_TOOLS })
      : () => {
          const parser = protocol.createStreamParser({ tools: FORMAT_TOOLS });
          for (const chunk of chunks) parser.push(chunk);
          parser.end();
        };
  const [namedTiming, autoTiming] = sampleSideBySide([run(named), run(auto)], SAMPLING, cpuClock);
  return roundRatio(autoTiming!, namedTiming!);
}

if (import.meta.main) {
  const modes = modesOf(process.argv);
  const rows: string[][] = [];
  for (const format of jsonFormats(selectedFormats())) {
    const ratios = modes.map((mode) => autoOverNamed(format, mode));
    rows.push([
      format,
      ...ratios.map(
        (ratio) => `${ratio.toFixed(2)}${ratio <= FLOOR_TARGETS.autoOverNamed ? '' : ' MISS'}`,
      ),
    ]);
    process.stderr.write(`${format}: ${rows.at(-1)!.slice(1).join(' ')}\n`);
  }
  console.log(
    formatTable(
      ['auto / named', ...modes.map((mode) => (mode === 'whole' ? 'whole' : `chunk ${mode}`))],
      rows,
    ),
  );
}
