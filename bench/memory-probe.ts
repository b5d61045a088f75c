/**
 * One large-argument case in a process of its own: its memory is then the case's alone, and a
 * case that is too slow can be stopped (killed) without losing the runs it did finish.
 *
 * Child:  node --expose-gc bench/memory-probe.ts '<ProbeConfig JSON>'
 * It prints one JSON line per run; the first run samples memory every SAMPLE_EVERY chunks.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { hermesProtocol, type ToolCallProtocol, xmlProtocol } from '../src/index.ts';
import { largeArgumentOutput, TOOLS } from './fixtures.ts';
import { collectGarbage } from './measure.ts';
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
  readonly peakHeapUsed: number;
  /** process.resourceUsage().maxRSS in bytes: the high-water mark of the whole child. */
  readonly maxRss: number;
}

export interface ProbeRun {
  readonly ms: number;
  readonly calls: number;
  readonly inputChars: number;
}

export interface ProbeResult {
  readonly runs: ProbeRun[];
  readonly memory?: ProbeMemory;
  readonly timedOut: boolean;
  readonly error?: string;
}

const SAMPLE_EVERY = 1024;

/** Slices on the fly (no chunk array inflating the baseline) and samples memory as it goes. */
function* chunksSampled(
  text: string,
  size: number,
  peak: { rss: number; heapUsed: number } | undefined,
): Generator<string> {
  let count = 0;
  for (let start = 0; start < text.length; start += size) {
    if (peak && count++ % SAMPLE_EVERY === 0) recordPeak(peak);
    yield text.slice(start, start + size);
  }
  if (peak) recordPeak(peak);
}

function recordPeak(peak: { rss: number; heapUsed: number }): void {
  const usage = process.memoryUsage();
  if (usage.rss > peak.rss) peak.rss = usage.rss;
  if (usage.heapUsed > peak.heapUsed) peak.heapUsed = usage.heapUsed;
}

async function runOnce(
  config: ProbeConfig,
  protocol: ToolCallProtocol,
  text: string,
  peak: { rss: number; heapUsed: number } | undefined,
): Promise<ProbeRun> {
  const chunks = chunksSampled(text, config.chunkSize, peak);
  const start = performance.now();
  if (config.side === 'peer') {
    const peer = peerProtocol(config.protocol === 'xml' ? 'morphXml' : 'hermes');
    const outcome = await peerStream(peer, peerTools(TOOLS), chunks);
    const ms = performance.now() - start;
    const inputChars = outcome.calls.reduce((sum, call) => sum + call.input.length, 0);
    return { ms, calls: outcome.calls.length, inputChars };
  }
  const parser = protocol.createStreamParser({ tools: TOOLS });
  let calls = 0;
  let inputChars = 0;
  const consume = (events: ReturnType<typeof parser.push>): void => {
    for (const event of events) {
      if (event.type !== 'tool-call') continue;
      calls++;
      inputChars += event.input.length;
    }
  };
  for (const chunk of chunks) consume(parser.push(chunk));
  consume(parser.end());
  return { ms: performance.now() - start, calls, inputChars };
}

async function childMain(config: ProbeConfig): Promise<void> {
  const protocol = config.protocol === 'xml' ? xmlProtocol() : hermesProtocol();
  const { text } = largeArgumentOutput(protocol, config.contentChars, config.seed);
  collectGarbage();
  const baseline = process.memoryUsage();
  const peak = { rss: baseline.rss, heapUsed: baseline.heapUsed };
  const first = await runOnce(config, protocol, text, peak);
  const memory: ProbeMemory = {
    baselineRss: baseline.rss,
    baselineHeapUsed: baseline.heapUsed,
    peakRss: peak.rss,
    peakHeapUsed: peak.heapUsed,
    maxRss: process.resourceUsage().maxRSS * 1024,
  };
  console.log(JSON.stringify({ kind: 'run', run: first, memory }));
  for (let index = 0; index < config.runs; index++) {
    collectGarbage();
    console.log(
      JSON.stringify({ kind: 'run', run: await runOnce(config, protocol, text, undefined) }),
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
