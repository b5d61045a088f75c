/**
 * One large-argument case in a process of its own: its memory is then the case's alone, and a
 * case that is too slow can be stopped (killed) without losing the runs it did finish.
 *
 * Child:  node --expose-gc bench/memory-probe.ts '<ProbeConfig JSON>'
 * It prints one JSON line per run; the first run samples memory every SAMPLE_EVERY chunks (and
 * collects garbage once, near the end of the call, to see the live heap), so its time is rough.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { hermesProtocol, type ToolCallProtocol, xmlProtocol } from '../src/index.ts';
import { largeArgumentOutput, type ModelOutput, TOOLS } from './fixtures.ts';
import { collectGarbage, collectYoung } from './measure.ts';
import { peerProtocol, peerStream, peerTools } from './peer.ts';

export interface ProbeConfig {
  readonly side: 'toolwire' | 'peer';
  /** Which syntax renders the call; the peer reads xml with morphXml, hermes with hermes. */
  readonly protocol: 'xml' | 'hermes';
  readonly contentChars: number;
  readonly chunkSize: number;
  readonly seed: number;
  /** Timed runs after the memory-sampled one. */
  readonly runs: number;
}

export interface ProbeMemory {
  readonly baselineRss: number;
  readonly baselineHeapUsed: number;
  readonly peakRss: number;
  /** Sampled heapUsed: includes garbage not yet collected. */
  readonly peakHeapUsed: number;
  /** heapUsed after a full gc near the end of the call (95% of the input): live memory. */
  readonly liveHeapUsed: number;
  /** process.resourceUsage().maxRSS in bytes: the high-water mark of the whole child. */
  readonly maxRss: number;
}

export interface ProbeRun {
  readonly ms: number;
  readonly calls: number;
  readonly inputChars: number;
  /** One call whose parsed input equals the one rendered. */
  readonly exact: boolean;
}

export interface ProbeResult {
  readonly runs: ProbeRun[];
  readonly memory?: ProbeMemory;
  readonly timedOut: boolean;
  readonly error?: string;
}

const SAMPLE_EVERY = 1024;
/** Where the live heap is measured: inside the call, just before its closing tag. */
const LIVE_AT = 0.95;

interface Peak {
  rss: number;
  heapUsed: number;
  /** heapUsed after a full gc at LIVE_AT of the input: what the parser really keeps. */
  liveHeapUsed: number;
}

/** Slices on the fly (no chunk array inflating the baseline) and samples memory as it goes. */
function* chunksSampled(text: string, size: number, peak: Peak | undefined): Generator<string> {
  let count = 0;
  const liveAt = Math.floor(text.length * LIVE_AT);
  let liveTaken = false;
  for (let start = 0; start < text.length; start += size) {
    if (peak && count++ % SAMPLE_EVERY === 0) recordPeak(peak);
    if (peak && !liveTaken && start >= liveAt) {
      liveTaken = true;
      recordPeak(peak);
      collectGarbage();
      peak.liveHeapUsed = process.memoryUsage().heapUsed;
    }
    yield text.slice(start, start + size);
  }
  if (peak) recordPeak(peak);
}

function recordPeak(peak: Peak): void {
  const usage = process.memoryUsage();
  if (usage.rss > peak.rss) peak.rss = usage.rss;
  if (usage.heapUsed > peak.heapUsed) peak.heapUsed = usage.heapUsed;
}

/** Parses `text` once; returns the time and the calls' inputs (checked after the clock stops). */
async function parseOnce(
  config: ProbeConfig,
  protocol: ToolCallProtocol,
  text: string,
  peak: Peak | undefined,
): Promise<{ ms: number; inputs: string[] }> {
  const chunks = chunksSampled(text, config.chunkSize, peak);
  const start = performance.now();
  if (config.side === 'peer') {
    const peer = peerProtocol(config.protocol === 'xml' ? 'morphXml' : 'hermes');
    const outcome = await peerStream(peer, peerTools(TOOLS), chunks);
    return { ms: performance.now() - start, inputs: outcome.calls.map((call) => call.input) };
  }
  const parser = protocol.createStreamParser({ tools: TOOLS });
  const inputs: string[] = [];
  const consume = (events: ReturnType<typeof parser.push>): void => {
    for (const event of events) if (event.type === 'tool-call') inputs.push(event.input);
  };
  for (const chunk of chunks) consume(parser.push(chunk));
  consume(parser.end());
  return { ms: performance.now() - start, inputs };
}

async function runOnce(
  config: ProbeConfig,
  protocol: ToolCallProtocol,
  output: ModelOutput,
  peak: Peak | undefined,
): Promise<ProbeRun> {
  const { ms, inputs } = await parseOnce(config, protocol, output.text, peak);
  const expected = output.calls[0]?.input;
  return {
    ms,
    calls: inputs.length,
    inputChars: inputs.reduce((sum, input) => sum + input.length, 0),
    exact: inputs.length === 1 && isDeepStrictEqual(JSON.parse(inputs[0]!), expected),
  };
}

async function childMain(config: ProbeConfig): Promise<void> {
  const protocol = config.protocol === 'xml' ? xmlProtocol() : hermesProtocol();
  const output = largeArgumentOutput(protocol, config.contentChars, config.seed);
  collectGarbage();
  const baseline = process.memoryUsage();
  const peak: Peak = { rss: baseline.rss, heapUsed: baseline.heapUsed, liveHeapUsed: Number.NaN };
  const first = await runOnce(config, protocol, output, peak);
  const memory: ProbeMemory = {
    baselineRss: baseline.rss,
    baselineHeapUsed: baseline.heapUsed,
    peakRss: peak.rss,
    peakHeapUsed: peak.heapUsed,
    liveHeapUsed: peak.liveHeapUsed,
    maxRss: process.resourceUsage().maxRSS * 1024,
  };
  console.log(JSON.stringify({ kind: 'run', run: first, memory }));
  for (let index = 0; index < config.runs; index++) {
    collectYoung();
    console.log(
      JSON.stringify({ kind: 'run', run: await runOnce(config, protocol, output, undefined) }),
    );
  }
}

/**
 * Runs a case in a child (`node --expose-gc`), keeping what it reported; past `timeLimitMs` the
 * child is killed and the result says so.
 */
export function runProbe(config: ProbeConfig, timeLimitMs: number): Promise<ProbeResult> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--expose-gc', fileURLToPath(import.meta.url), JSON.stringify(config)],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const runs: ProbeRun[] = [];
    let memory: ProbeMemory | undefined;
    let timedOut = false;
    let pending = '';
    let errors = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (data: string) => {
      pending += data;
      let newline = pending.indexOf('\n');
      while (newline >= 0) {
        const line = pending.slice(0, newline);
        pending = pending.slice(newline + 1);
        const message = JSON.parse(line) as { run: ProbeRun; memory?: ProbeMemory };
        runs.push(message.run);
        memory ??= message.memory;
        newline = pending.indexOf('\n');
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (data: string) => {
      errors += data;
    });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeLimitMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      const failed = !timedOut && code !== 0;
      resolve({
        runs,
        ...(memory ? { memory } : {}),
        timedOut,
        ...(failed ? { error: errors.trim() || `exit code ${code}` } : {}),
      });
    });
  });
}

if (import.meta.main) {
  await childMain(JSON.parse(process.argv[2] ?? '{}') as ProbeConfig);
}
