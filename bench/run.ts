/**
 * toolwire vs @ai-sdk-tool/parser, side by side in one process on the same inputs.
 * `npm run bench` prints the tables and writes bench/results.json.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { isDeepStrictEqual } from 'node:util';
import {
  executeProtocol,
  hermesProtocol,
  type ParseEvent,
  type ToolCallProtocol,
  xmlProtocol,
} from '../src/index.ts';
import { formatDecodeBench, runDecodeBench } from './decode.ts';
import {
  benchDeriveInChild,
  benchDeriveOnly,
  deriveTables,
  reportDeriveFailures,
} from './derive.ts';
import {
  benchFamiliesInChild,
  benchFamiliesOnly,
  familiesTables,
  reportFamilyFailures,
} from './families.ts';
import {
  chunksOf,
  type FixtureCall,
  largeArgumentOutput,
  type ModelOutput,
  modelOutput,
  TOOLS,
} from './fixtures.ts';
import { benchFloorInChild, benchFloorOnly, floorTables, reportFloorFailures } from './floor.ts';
import {
  benchFormatsInChild,
  benchFormatsOnly,
  formatsTables,
  reportFormatFailures,
} from './formats.ts';
import {
  benchGrammarInChild,
  benchGrammarOnly,
  grammarTables,
  reportGrammarFailures,
} from './grammar.ts';
import {
  benchInChild,
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
import { type ProbeResult, runProbe } from './memory-probe.ts';
import { type MiddlewareBenchResult, middlewareTables } from './middleware.ts';
import {
  driveTransform,
  identityTransform,
  type PeerProtocolName,
  peerParse,
  peerProtocol,
  peerStream,
  peerTools,
  type StreamOutcome,
  toolwireTransform,
} from './peer.ts';
import { benchProxyInChild, benchProxyOnly, proxyTables, reportProxyFailures } from './proxy.ts';
import { benchSelection } from './sections.ts';
import { benchStoreInChild, benchStoreOnly, reportStoreFailures, storeTables } from './store.ts';

const benchStarted = performance.now();
const PEER_TOOLS = peerTools(TOOLS);
const KiB = 1024;

// Small cases get warm-ups and many runs; slow ones fewer, within a time budget per case.
const FAST: SampleOptions = {
  warmupRuns: 3,
  warmupMs: 1000,
  minRuns: 5,
  maxRuns: 15,
  budgetMs: 1500,
};
const SLOW: SampleOptions = { warmupRuns: 1, minRuns: 3, maxRuns: 7, budgetMs: 3000 };

const STREAM_CALLS = 200;
const STREAM_TARGET_CHARS = 200_000;
const CHUNK_SIZES = [1, 8, 256] as const;
const LARGE_SIZES = [1 * MB, 4 * MB] as const;
const LARGE_CHUNK = 8;
const PEER_LARGE_SIZES = [16 * KiB, 64 * KiB, 256 * KiB] as const;
const PEER_LARGE_LIMIT_MS = 20_000;
const WHOLE_CALLS = 1000;
const WHOLE_TARGET_CHARS = 1 * MB;

const TARGET_LARGE_1MB_MS = 100;
const TARGET_LARGE_RATIO = 4.5;
const TARGET_WHOLE_MBPS = 50;

const DRIVING = {
  toolwirePush: 'toolwire push(): each chunk passed to parser.push(), events counted; then end()',
  toolwireStream:
    'toolwire TransformStream: the same push parser wrapped in a web TransformStream of AI SDK ' +
    'parts, driven exactly like the peer',
  peerStream:
    'peer TransformStream: createStreamParser({ tools }) fed {type:"text-delta"} parts; each ' +
    'writer.write() awaited while one reader drains all output parts',
  baseline: 'baseline: a pass-through TransformStream driven the same way (plumbing cost alone)',
  whole: 'parseGeneratedText(text, { tools }) on both sides; outputs collected',
  defaults: 'both sides at default options (toolwire validates inputs with Ajv; ids random)',
};

interface Pairing {
  readonly name: 'xml' | 'hermes' | 'execute';
  readonly protocol: ToolCallProtocol;
  readonly peer?: PeerProtocolName;
}

const PAIRINGS: readonly Pairing[] = [
  { name: 'xml', protocol: xmlProtocol(), peer: 'morphXml' },
  { name: 'hermes', protocol: hermesProtocol(), peer: 'hermes' },
  { name: 'execute', protocol: executeProtocol() },
];

type Call = { toolName: string; input: string };

/** toolwire's own streaming API: synchronous push, events returned per chunk. */
function toolwirePush(protocol: ToolCallProtocol, chunks: readonly string[]): StreamOutcome {
  const parser = protocol.createStreamParser({ tools: TOOLS });
  const outcome: StreamOutcome = { parts: 0, calls: [] };
  const take = (events: readonly ParseEvent[]): void => {
    outcome.parts += events.length;
    for (const event of events)
      if (event.type === 'tool-call')
        outcome.calls.push({ toolName: event.toolName, input: event.input });
  };
  for (const chunk of chunks) take(parser.push(chunk));
  take(parser.end());
  return outcome;
}

function toolwireWhole(protocol: ToolCallProtocol, text: string): Call[] {
  const calls: Call[] = [];
  for (const part of protocol.parseGeneratedText(text, { tools: TOOLS }))
    if (part.type === 'tool-call') calls.push({ toolName: part.toolName, input: part.input });
  return calls;
}

interface CallCheck {
  readonly found: number;
  readonly expected: number;
  /** Calls whose name and parsed input equal what was rendered, in order. */
  readonly exact: number;
  /** The first difference, so a note can say what differs. */
  readonly firstDifference?: string;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/** Which member differs first, with both values' beginnings. */
function describeDifference(call: Call, want: FixtureCall): string {
  if (call.toolName !== want.toolName) return `tool ${call.toolName}, expected ${want.toolName}`;
  const got = parseJson(call.input);
  if (got === null || typeof got !== 'object') return `input ${preview(call.input)}`;
  const record = got as Record<string, unknown>;
  const names = new Set([...Object.keys(record), ...Object.keys(want.input)]);
  for (const name of names) {
    if (!isDeepStrictEqual(record[name], want.input[name]))
      return `${call.toolName}.${name} = ${preview(record[name])}, rendered ${preview(want.input[name])}`;
  }
  return 'input differs';
}

function checkCalls(calls: readonly Call[], expected: readonly FixtureCall[]): CallCheck {
  let exact = 0;
  let firstDifference: string | undefined;
  calls.forEach((call, index) => {
    const want = expected[index];
    if (want?.toolName === call.toolName && isDeepStrictEqual(parseJson(call.input), want.input))
      exact++;
    else if (want && firstDifference === undefined)
      firstDifference = describeDifference(call, want);
  });
  return {
    found: calls.length,
    expected: expected.length,
    exact,
    ...(firstDifference === undefined ? {} : { firstDifference }),
  };
}

function progress(message: string): void {
  const seconds = ((performance.now() - benchStarted) / 1000).toFixed(0);
  process.stderr.write(`[${seconds.padStart(3)}s] ${message}\n`);
}

interface CaseResult {
  readonly label: string;
  readonly side: 'toolwire' | 'peer' | 'baseline';
  readonly driver: string;
  readonly bytes: number;
  readonly medianMs: number;
  readonly mbPerSecond: number;
  readonly samplesMs: readonly number[];
  readonly check?: CallCheck;
  /** toolwire throughput / peer throughput (peer median / toolwire median). */
  ratioVsPeer?: number;
}

function caseResult(
  label: string,
  side: CaseResult['side'],
  driver: string,
  bytes: number,
  timing: Timing,
  check?: CallCheck,
): CaseResult {
  return {
    label,
    side,
    driver,
    bytes,
    medianMs: timing.medianMs,
    mbPerSecond: mbPerSecond(bytes, timing.medianMs),
    samplesMs: timing.samples.map((ms) => Math.round(ms * 100) / 100),
    ...(check ? { check } : {}),
  };
}

/** A row under a case whose parser found a different number of calls. */
function warningRow(entry: CaseResult, width: number): string[][] {
  const check = entry.check;
  if (!check || check.found === check.expected) return [];
  const row = [`  ! WARNING ${entry.label}: ${check.found} calls, expected ${check.expected}`];
  while (row.length < width) row.push('');
  return [row];
}

function checkCell(check: CallCheck | undefined): string {
  return check ? `${check.found}/${check.expected}` : '-';
}

function exactCell(check: CallCheck | undefined): string {
  return check ? `${check.exact}/${check.expected}` : '-';
}

function warnIfMiscounted(label: string, check: CallCheck, warnings: string[]): void {
  if (check.found !== check.expected)
    warnings.push(`WARNING ${label}: found ${check.found} calls, expected ${check.expected}`);
  else if (check.exact !== check.expected)
    warnings.push(
      `note ${label}: ${check.expected - check.exact} of ${check.expected} call inputs differ ` +
        `from what was rendered, e.g. ${check.firstDifference ?? '?'}`,
    );
}

// ---------------------------------------------------------------------------------------------
// 1. Streaming a ~200 KB output with 200 calls in chunks of 1, 8 and 256 characters.

interface StreamingCase extends CaseResult {
  readonly protocol: Pairing['name'];
  readonly chunkSize: number;
}

async function benchStreaming(warnings: string[]): Promise<StreamingCase[]> {
  const cases: StreamingCase[] = [];
  for (const pairing of PAIRINGS) {
    const fixture = modelOutput(pairing.protocol, {
      calls: STREAM_CALLS,
      targetChars: STREAM_TARGET_CHARS,
      seed: 2024,
    });
    const bytes = utf8Bytes(fixture.text);
    // Before timing: each parser must find every call (a peer miscount is a warning, not a stop).
    const toolwireCheck = checkCalls(
      toolwirePush(pairing.protocol, chunksOf(fixture.text, 256)).calls,
      fixture.calls,
    );
    warnIfMiscounted(`toolwire ${pairing.name} (stream)`, toolwireCheck, warnings);
    if (pairing.peer) {
      const outcome = await peerStream(
        peerProtocol(pairing.peer),
        PEER_TOOLS,
        chunksOf(fixture.text, 256),
      );
      warnIfMiscounted(
        `peer ${pairing.peer} (stream)`,
        checkCalls(outcome.calls, fixture.calls),
        warnings,
      );
    }
    for (const chunkSize of CHUNK_SIZES) {
      const chunks = chunksOf(fixture.text, chunkSize);
      const add = (result: CaseResult): StreamingCase => {
        const entry = { ...result, protocol: pairing.name, chunkSize };
        cases.push(entry);
        return entry;
      };
      const group = `${pairing.name} chunk ${chunkSize}`;
      let last: StreamOutcome | undefined;
      progress(`streaming ${group}: toolwire push()`);
      const push = add(
        caseResult(
          `toolwire ${pairing.name}`,
          'toolwire',
          'push()',
          bytes,
          await sample(() => {
            last = toolwirePush(pairing.protocol, chunks);
          }, FAST),
          checkCalls(last!.calls, fixture.calls),
        ),
      );
      if (!pairing.peer) continue;
      progress(`streaming ${group}: toolwire TransformStream`);
      const wrapped = add(
        caseResult(
          `toolwire ${pairing.name}`,
          'toolwire',
          'TransformStream',
          bytes,
          await sample(async () => {
            last = await driveTransform(toolwireTransform(pairing.protocol, TOOLS), chunks);
          }, FAST),
          checkCalls(last!.calls, fixture.calls),
        ),
      );
      progress(`streaming ${group}: peer ${pairing.peer} TransformStream`);
      const peerName = pairing.peer;
      const peer = add(
        caseResult(
          `peer ${peerName}`,
          'peer',
          'TransformStream',
          bytes,
          await sample(async () => {
            last = await peerStream(peerProtocol(peerName), PEER_TOOLS, chunks);
          }, SLOW),
          checkCalls(last!.calls, fixture.calls),
        ),
      );
      push.ratioVsPeer = peer.medianMs / push.medianMs;
      wrapped.ratioVsPeer = peer.medianMs / wrapped.medianMs;
      if (peer.check && peer.check.found !== peer.check.expected)
        warnings.push(
          `WARNING peer ${peerName} chunk ${chunkSize}: found ${peer.check.found} calls`,
        );
      if (pairing.name === 'xml') {
        progress(`streaming ${group}: pass-through TransformStream baseline`);
        add(
          caseResult(
            'baseline pass-through',
            'baseline',
            'TransformStream',
            bytes,
            await sample(() => driveTransform(identityTransform(), chunks), FAST),
          ),
        );
      }
    }
  }
  return cases;
}

function streamingTable(cases: readonly StreamingCase[]): string {
  const rows = cases.flatMap((entry) => [
    [
      entry.label,
      String(entry.chunkSize),
      entry.driver,
      (entry.bytes / 1000).toFixed(0),
      checkCell(entry.check),
      exactCell(entry.check),
      String(entry.samplesMs.length),
      formatMs(entry.medianMs),
      formatRate(entry.mbPerSecond),
      entry.ratioVsPeer === undefined ? '' : formatRatio(entry.ratioVsPeer),
    ],
    ...warningRow(entry, 10),
  ]);
  return formatTable(
    [
      'parser',
      'chunk',
      'driven by',
      'KB',
      'calls',
      'exact',
      'runs',
      'median ms',
      'MB/s',
      'tw/peer',
    ],
    rows,
  );
}

// ---------------------------------------------------------------------------------------------
// 2. One call with a very large string argument, 8-character chunks.

interface LargeCase extends CaseResult {
  readonly protocol: 'xml' | 'hermes';
  readonly contentChars: number;
  readonly timedOut?: boolean;
  readonly note?: string;
}

interface MemoryCase {
  readonly label: string;
  readonly contentChars: number;
  readonly probe: ProbeResult;
}

function largeFixture(protocol: ToolCallProtocol, contentChars: number): ModelOutput {
  // Same seed as the child probes, so every process parses the same text.
  return largeArgumentOutput(protocol, contentChars, 77);
}

async function benchLarge(
  warnings: string[],
): Promise<{ cases: LargeCase[]; memory: MemoryCase[] }> {
  const cases: LargeCase[] = [];
  const memory: MemoryCase[] = [];
  for (const pairing of PAIRINGS) {
    if (pairing.name === 'execute' || !pairing.peer) continue;
    const name = pairing.name;
    for (const contentChars of LARGE_SIZES) {
      const fixture = largeFixture(pairing.protocol, contentChars);
      const chunks = chunksOf(fixture.text, LARGE_CHUNK);
      progress(`large argument: toolwire ${name} ${contentChars / MB} MiB`);
      let last: StreamOutcome | undefined;
      const timing = await sample(
        () => {
          last = toolwirePush(pairing.protocol, chunks);
        },
        // Long warm-up: these runs kept getting faster for ~1 s of warm-up in trials.
        { warmupRuns: 2, warmupMs: 1500, minRuns: 7, maxRuns: 11, budgetMs: 3000 },
      );
      const check = checkCalls(last!.calls, fixture.calls);
      warnIfMiscounted(`toolwire ${name} ${contentChars / MB} MiB argument`, check, warnings);
      cases.push({
        ...caseResult(
          `toolwire ${name}`,
          'toolwire',
          'push()',
          utf8Bytes(fixture.text),
          timing,
          check,
        ),
        protocol: name,
        contentChars,
      });
    }
    progress(`large argument: toolwire ${name} 4 MiB memory (child process)`);
    const probe = await runProbe(
      {
        side: 'toolwire',
        protocol: name,
        contentChars: 4 * MB,
        chunkSize: LARGE_CHUNK,
        seed: 77,
        runs: 0,
      },
      60_000,
    );
    if (probe.error) warnings.push(`WARNING memory probe toolwire ${name}: ${probe.error}`);
    memory.push({ label: `toolwire ${name}`, contentChars: 4 * MB, probe });

    // The peer re-reads its buffer as it grows, so it only gets small sizes, each in a child
    // that is stopped at the time limit.
    let previousMs = 0;
    let previousChars = 0;
    for (const contentChars of PEER_LARGE_SIZES) {
      const label = `peer ${pairing.peer}`;
      const bytes = utf8Bytes(largeFixture(pairing.protocol, contentChars).text);
      const linearMs = previousChars > 0 ? previousMs * (contentChars / previousChars) : 0;
      if (linearMs > PEER_LARGE_LIMIT_MS) {
        // Even linear growth from the previous size would pass the limit: do not spend it.
        cases.push({
          label,
          side: 'peer',
          driver: 'TransformStream',
          bytes,
          medianMs: Number.NaN,
          mbPerSecond: Number.NaN,
          samplesMs: [],
          protocol: name,
          contentChars,
          timedOut: true,
          note:
            `not run: ${sizeLabel(previousChars)} took ${formatMs(previousMs)} ms, so ` +
            `≥ ${formatMs(linearMs)} ms even if linear (limit ${PEER_LARGE_LIMIT_MS} ms)`,
        });
        continue;
      }
      progress(
        `large argument: ${label} ${contentChars / KiB} KiB (child, limit ${PEER_LARGE_LIMIT_MS / 1000}s)`,
      );
      const peerProbe = await runProbe(
        { side: 'peer', protocol: name, contentChars, chunkSize: LARGE_CHUNK, seed: 77, runs: 4 },
        PEER_LARGE_LIMIT_MS,
      );
      if (peerProbe.error)
        warnings.push(`WARNING ${label} ${contentChars / KiB} KiB: ${peerProbe.error}`);
      // The first run in the child also warms the JIT and samples memory: count it only alone.
      const runs = peerProbe.runs.length > 1 ? peerProbe.runs.slice(1) : peerProbe.runs;
      const samples = runs.map((run) => run.ms);
      const medianMs = runs.length > 0 ? median(samples) : Number.NaN;
      const found = peerProbe.runs[0]?.calls ?? 0;
      if (peerProbe.runs[0] && found === 1 && !peerProbe.runs[0].exact)
        warnings.push(`note ${label} ${contentChars / KiB} KiB: the call's input differs`);
      if (peerProbe.runs.length > 0 && found !== 1)
        warnings.push(
          `WARNING ${label} ${contentChars / KiB} KiB: found ${found} calls, expected 1`,
        );
      cases.push({
        label,
        side: 'peer',
        driver: 'TransformStream',
        bytes,
        medianMs,
        mbPerSecond: mbPerSecond(bytes, medianMs),
        samplesMs: samples.map((ms) => Math.round(ms)),
        ...(peerProbe.runs[0]
          ? { check: { found, expected: 1, exact: peerProbe.runs[0].exact ? 1 : 0 } }
          : {}),
        protocol: name,
        contentChars,
        timedOut: peerProbe.timedOut,
        ...(peerProbe.timedOut && runs.length === 0
          ? { note: `stopped at the ${PEER_LARGE_LIMIT_MS / 1000} s limit before one run ended` }
          : {}),
      });
      if (peerProbe.memory && contentChars === 64 * KiB)
        memory.push({ label, contentChars, probe: peerProbe });
      previousMs = runs.length > 0 ? medianMs : PEER_LARGE_LIMIT_MS;
      previousChars = contentChars;
    }
  }
  return { cases, memory };
}

function largeRatio(cases: readonly LargeCase[], protocol: string, side: string): number {
  const bySize = cases.filter((entry) => entry.protocol === protocol && entry.side === side);
  const sizes = bySize.filter((entry) => Number.isFinite(entry.medianMs));
  if (sizes.length < 2) return Number.NaN;
  const small = sizes[sizes.length - 2]!;
  const big = sizes[sizes.length - 1]!;
  return big.medianMs / small.medianMs;
}

function sizeLabel(chars: number): string {
  return chars >= MB ? `${chars / MB} MiB` : `${chars / KiB} KiB`;
}

function largeTable(cases: readonly LargeCase[]): string {
  const rows = cases.map((entry, index) => {
    const previous = cases[index - 1];
    const growth =
      previous &&
      previous.label === entry.label &&
      Number.isFinite(previous.medianMs) &&
      Number.isFinite(entry.medianMs)
        ? formatRatio(entry.medianMs / previous.medianMs) +
          ` (${entry.contentChars / previous.contentChars}x size)`
        : '';
    let time = formatMs(entry.medianMs);
    if (entry.timedOut && !Number.isFinite(entry.medianMs))
      time = `> ${PEER_LARGE_LIMIT_MS / 1000} s`;
    return [
      entry.label,
      sizeLabel(entry.contentChars),
      checkCell(entry.check),
      exactCell(entry.check),
      String(entry.samplesMs.length),
      time,
      formatRate(entry.mbPerSecond),
      growth,
      entry.note ?? '',
    ];
  });
  return formatTable(
    ['parser', 'argument', 'calls', 'exact', 'runs', 'median ms', 'MB/s', 'time growth', 'note'],
    rows,
  );
}

function mib(bytes: number): string {
  return `${(bytes / MB).toFixed(1)} MiB`;
}

function memoryTable(memory: readonly MemoryCase[]): string {
  const rows = memory.map(({ label, contentChars, probe }) => {
    const m = probe.memory;
    if (!m) return [label, sizeLabel(contentChars), 'no data', '', '', '', '', '', '', ''];
    return [
      label,
      sizeLabel(contentChars),
      formatMs(probe.runs[0]?.ms ?? Number.NaN),
      mib(m.baselineRss),
      mib(m.peakRss),
      mib(m.baselineHeapUsed),
      mib(m.peakHeapUsed),
      mib(m.liveHeapUsed),
      mib(m.liveHeapUsed - m.baselineHeapUsed),
      mib(m.maxRss),
    ];
  });
  return formatTable(
    [
      'parser',
      'argument',
      'cold run ms',
      'rss before',
      'rss peak',
      'heap before',
      'heap peak',
      'live heap @95%',
      'live - before',
      'maxRSS',
    ],
    rows,
  );
}

// ---------------------------------------------------------------------------------------------
// 3. parseGeneratedText on a ~1 MB output with many calls.

interface WholeCase extends CaseResult {
  readonly protocol: Pairing['name'];
}

async function benchWhole(warnings: string[]): Promise<WholeCase[]> {
  const cases: WholeCase[] = [];
  for (const pairing of PAIRINGS) {
    const fixture = modelOutput(pairing.protocol, {
      calls: WHOLE_CALLS,
      targetChars: WHOLE_TARGET_CHARS,
      seed: 4242,
    });
    const bytes = utf8Bytes(fixture.text);
    const toolwireCheck = checkCalls(toolwireWhole(pairing.protocol, fixture.text), fixture.calls);
    warnIfMiscounted(`toolwire ${pairing.name} parseGeneratedText`, toolwireCheck, warnings);
    progress(`parseGeneratedText ${pairing.name}: toolwire`);
    const toolwire: WholeCase = {
      ...caseResult(
        `toolwire ${pairing.name}`,
        'toolwire',
        'parseGeneratedText',
        bytes,
        await sample(() => toolwireWhole(pairing.protocol, fixture.text), {
          ...FAST,
          maxRuns: 21,
        }),
        toolwireCheck,
      ),
      protocol: pairing.name,
    };
    cases.push(toolwire);
    const peerName = pairing.peer;
    if (!peerName) continue;
    const peerCheck = checkCalls(
      peerParse(peerProtocol(peerName), PEER_TOOLS, fixture.text),
      fixture.calls,
    );
    warnIfMiscounted(`peer ${peerName} parseGeneratedText`, peerCheck, warnings);
    progress(`parseGeneratedText ${pairing.name}: peer ${peerName}`);
    const peer: WholeCase = {
      ...caseResult(
        `peer ${peerName}`,
        'peer',
        'parseGeneratedText',
        bytes,
        await sample(() => peerParse(peerProtocol(peerName), PEER_TOOLS, fixture.text), SLOW),
        peerCheck,
      ),
      protocol: pairing.name,
    };
    toolwire.ratioVsPeer = peer.medianMs / toolwire.medianMs;
    cases.push(peer);
  }
  return cases;
}

function wholeTable(cases: readonly WholeCase[]): string {
  const rows = cases.flatMap((entry) => [
    [
      entry.label,
      (entry.bytes / 1000).toFixed(0),
      checkCell(entry.check),
      exactCell(entry.check),
      String(entry.samplesMs.length),
      formatMs(entry.medianMs),
      formatRate(entry.mbPerSecond),
      entry.ratioVsPeer === undefined ? '' : formatRatio(entry.ratioVsPeer),
      entry.side === 'toolwire'
        ? `${passMiss(entry.mbPerSecond >= TARGET_WHOLE_MBPS)} (≥ ${TARGET_WHOLE_MBPS})`
        : '',
    ],
    ...warningRow(entry, 9),
  ]);
  return formatTable(
    ['parser', 'KB', 'calls', 'exact', 'runs', 'median ms', 'MB/s', 'tw/peer', 'target'],
    rows,
  );
}

// ---------------------------------------------------------------------------------------------

function passMiss(pass: boolean): string {
  return pass ? 'PASS' : 'MISS';
}

interface Target {
  readonly target: string;
  readonly value: string;
  readonly pass: boolean;
}

function targets(large: readonly LargeCase[], whole: readonly WholeCase[]): Target[] {
  const list: Target[] = [];
  for (const protocol of ['xml', 'hermes'] as const) {
    const oneMb = large.find(
      (entry) =>
        entry.protocol === protocol && entry.side === 'toolwire' && entry.contentChars === MB,
    );
    const ms = oneMb?.medianMs ?? Number.NaN;
    list.push({
      target: `toolwire ${protocol}: 1 MiB argument, 8-char chunks < ${TARGET_LARGE_1MB_MS} ms`,
      value: `${formatMs(ms)} ms`,
      pass: ms < TARGET_LARGE_1MB_MS,
    });
    const ratio = largeRatio(large, protocol, 'toolwire');
    list.push({
      target: `toolwire ${protocol}: 4 MiB / 1 MiB time < ${TARGET_LARGE_RATIO} (linear)`,
      value: ratio.toFixed(2),
      pass: ratio < TARGET_LARGE_RATIO,
    });
  }
  for (const entry of whole) {
    if (entry.side !== 'toolwire') continue;
    list.push({
      target: `${entry.label}: parseGeneratedText ≥ ${TARGET_WHOLE_MBPS} MB/s`,
      value: `${formatRate(entry.mbPerSecond)} MB/s`,
      pass: entry.mbPerSecond >= TARGET_WHOLE_MBPS,
    });
  }
  return list;
}

function peerVersion(): string {
  const url = new URL('../node_modules/@ai-sdk-tool/parser/package.json', import.meta.url);
  return (JSON.parse(readFileSync(url, 'utf8')) as { version: string }).version;
}

/**
 * The middleware section in a fresh process (`bench/middleware.ts --json`), toolwire and its
 * floors side by side in it as before. Run after the other sections in this process it measured
 * the JIT state they leave behind (one-character streams, megabyte arguments) as much as the
 * middleware: at 256-character chunks about 1.4x slower for xml and 2x for hermes (one run of
 * each: 1.76x and 3.08x the stage in-process, 1.27x and 1.53x in a process of its own).
 */
function benchMiddlewareInChild(): Promise<MiddlewareBenchResult> {
  return benchInChild<MiddlewareBenchResult>('middleware.ts');
}

async function main(): Promise<void> {
  const resultsFile = new URL('./results.json', import.meta.url);
  const selection = benchSelection();
  if (selection === 'formats') return benchFormatsOnly(resultsFile);
  if (selection === 'floor') return benchFloorOnly(resultsFile);
  if (selection === 'proxy') return benchProxyOnly(resultsFile);
  if (selection === 'families') return benchFamiliesOnly(resultsFile);
  if (selection === 'derive') return benchDeriveOnly(resultsFile);
  if (selection === 'grammar') return benchGrammarOnly(resultsFile);
  if (selection === 'store') return benchStoreOnly(resultsFile);
  const warnings: string[] = [];
  const streaming = await benchStreaming(warnings);
  const large = await benchLarge(warnings);
  const whole = await benchWhole(warnings);
  const middleware = await benchMiddlewareInChild();
  const decode = await runDecodeBench();
  const formats = await benchFormatsInChild();
  progress('parsers vs floor (child process)');
  const floor = await benchFloorInChild();
  progress('proxy against a plain node http pipe (child process)');
  const proxy = await benchProxyInChild();
  progress('the 2026 families (child process)');
  const families = await benchFamiliesInChild();
  progress('deriving formats from chat templates (child processes)');
  const derive = await benchDeriveInChild();
  progress('grammars from the spec, compiled by xgrammar (child process)');
  const grammar = await benchGrammarInChild();
  progress('the run store, memory against Redis (child process)');
  const store = await benchStoreInChild();
  const targetList = [
    ...targets(large.cases, whole),
    ...floor.targets,
    ...proxy.targets,
    ...families.targets,
    ...derive.targets,
    ...grammar.targets,
  ];
  const totalSeconds = (performance.now() - benchStarted) / 1000;

  const cpu = cpus()[0]?.model ?? 'unknown cpu';
  const out: string[] = [];
  out.push(
    `toolwire bench — node ${process.version}, ${cpu} x${cpus().length}, peer @ai-sdk-tool/parser ${peerVersion()}`,
    'MB = 2^20 bytes of UTF-8 input; times are medians of the runs shown (full gc before each case,',
    'young-generation gc before each run);',
    'tw/peer = toolwire throughput / peer throughput on the same text.',
    ...Object.values(DRIVING).map((line) => `  - ${line}`),
    '',
    `1. Streaming a ~${STREAM_TARGET_CHARS / 1000} KB output with ${STREAM_CALLS} calls ` +
      '(tw/peer on toolwire rows compares with the peer row of the same chunk size)',
    streamingTable(streaming),
    '',
    `2. One write_file call with a large content argument, ${LARGE_CHUNK}-char chunks ` +
      '(peer in a child process, stopped at the time limit)',
    largeTable(large.cases),
    '',
    '   Memory (child process, node --expose-gc; before = after building the input and gc;',
    '   peaks sampled every 1024 chunks, heap peak includes uncollected garbage;',
    '   live heap = heapUsed after a full gc at 95% of the input, inside the call)',
    memoryTable(large.memory),
    '',
    `3. parseGeneratedText on a ~1 MB output with ${WHOLE_CALLS} calls`,
    wholeTable(whole),
    '',
    `4. ${middlewareTables(middleware)}`,
    '   (run in a process of its own: see benchMiddlewareInChild)',
    '',
    `5. ${formatDecodeBench(decode)}`,
    '',
    `6. ${formatsTables(formats)}`,
    '',
    `7. ${floorTables(floor)}`,
    '',
    `8. ${proxyTables(proxy)}`,
    '',
    `9. ${familiesTables(families)}`,
    '',
    `10. ${deriveTables(derive)}`,
    '',
    `11. ${grammarTables(grammar)}`,
    '',
    `12. ${storeTables(store)}`,
    '',
    'Targets',
    formatTable(
      ['target', 'value', 'result'],
      targetList.map((entry) => [entry.target, entry.value, passMiss(entry.pass)]),
    ),
    '',
    ...(warnings.length > 0 ? ['Warnings and notes', ...warnings.map((w) => `  ${w}`), ''] : []),
    `total ${totalSeconds.toFixed(0)} s`,
  );
  console.log(out.join('\n'));

  const results = {
    generatedAt: new Date().toISOString(),
    node: process.version,
    cpu,
    cores: cpus().length,
    peer: `@ai-sdk-tool/parser@${peerVersion()}`,
    units: { mb: MB, time: 'ms (median)' },
    driving: DRIVING,
    streaming,
    largeArgument: {
      chunkSize: LARGE_CHUNK,
      cases: large.cases,
      ratio4to1: {
        xml: largeRatio(large.cases, 'xml', 'toolwire'),
        hermes: largeRatio(large.cases, 'hermes', 'toolwire'),
      },
      memory: large.memory,
    },
    parseGeneratedText: whole,
    middleware,
    decode,
    formats,
    floor,
    proxy,
    families,
    derive,
    grammar,
    store,
    targets: targetList,
    warnings,
    totalSeconds,
  };
  writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
  reportFormatFailures(formats);
  reportFloorFailures(floor);
  reportProxyFailures(proxy);
  reportFamilyFailures(families);
  reportDeriveFailures(derive);
  reportGrammarFailures(grammar);
  reportStoreFailures(store);
}

await main();
