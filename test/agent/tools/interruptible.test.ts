import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runTool } from '../../../src/agent/executor.ts';
import { type CodeTool, type CodeTools, createCodeTools } from '../../../src/agent/tools/index.ts';
import { threadCpuMs } from '../../support/growth.ts';

/** Every file and folder the tools open, counted (the tools open nothing any other way). */
const opened = vi.hoisted(() => ({ count: 0 }));

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...real,
    open: (...args: Parameters<typeof real.open>) => {
      opened.count += 1;
      return real.open(...args);
    },
    opendir: (...args: Parameters<typeof real.opendir>) => {
      opened.count += 1;
      return real.opendir(...args);
    },
  };
});

/** Longest a tool may hold the event loop. */
const MAX_STALL_MS = 100;

let base: string;
let tools: CodeTools;

/** Where each heavy call finds its work. */
async function buildLargeTree(root: string): Promise<void> {
  // 2 000 files whose every line matches "needle".
  for (let folder = 0; folder < 20; folder += 1) {
    const dir = join(root, 'many', `pkg${folder}`, 'src');
    await mkdir(dir, { recursive: true });
    const text = Array.from({ length: 40 }, (_, line) => `export const needle${line} = 1;`);
    await Promise.all(
      Array.from({ length: 100 }, (_, file) =>
        writeFile(join(dir, `f${file}.ts`), text.join('\n')),
      ),
    );
  }
  // One folder of 6 000 entries.
  await mkdir(join(root, 'flat'));
  for (let start = 0; start < 6_000; start += 500) {
    await Promise.all(
      Array.from({ length: 500 }, (_, index) =>
        writeFile(join(root, 'flat', `e${String(start + index).padStart(5, '0')}.txt`), ''),
      ),
    );
  }
  // A 1 MB TypeScript file of small functions, and a 1 MB file on one line.
  await mkdir(join(root, 'big'));
  const functions: string[] = [];
  let size = 0;
  for (let index = 0; size < 990_000; index += 1) {
    const text = `export function fn${index}(a: number) {\n  console.log(a, ${index});\n  return a;\n}\n`;
    functions.push(text);
    size += text.length;
  }
  await writeFile(join(root, 'big', 'huge.ts'), functions.join(''));
  await writeFile(join(root, 'big', 'one-line.min.js'), 'var x=1;'.repeat(125_000));
  const tiny = Array.from({ length: 50_000 }, (_, index) => `function t${index}(){}\n`);
  await writeFile(join(root, 'big', 'tiny-definitions.js'), tiny.join(''));
  // A .gitignore of 20 000 rules over a few files.
  await mkdir(join(root, 'ignored', 'src'), { recursive: true });
  const rules = Array.from({ length: 20_000 }, (_, index) => `generated-${index}-*.l?g`);
  await writeFile(join(root, 'ignored', '.gitignore'), `${rules.join('\n')}\n*.log\n!keep.log\n`);
  await Promise.all(
    Array.from({ length: 100 }, (_, index) =>
      writeFile(join(root, 'ignored', 'src', `f${index}.ts`), 'x\n'),
    ),
  );
  await writeFile(join(root, 'ignored', 'src', 'drop.log'), 'x\n');
  await writeFile(join(root, 'ignored', 'src', 'keep.log'), 'x\n');
}

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'toolwire-interruptible-'));
  await buildLargeTree(base);
  tools = createCodeTools({ root: base });
}, 120_000);

afterAll(() => rm(base, { recursive: true, force: true }));

interface Stalls {
  /**
   * Most main-thread CPU time spent between two ticks of a 1 ms timer (one stretch of work),
   * less the garbage collector's pauses within it: a collection of a heap the test file's
   * earlier work left is the engine's, not the tool's holding of the loop.
   */
  readonly cpuMs: number;
  /** The same on the wall clock (monitorEventLoopDelay); includes time other processes took. */
  readonly wallMs: number;
}

/**
 * Runs `work` while measuring how long the event loop was held. The measure asserted is the
 * main thread's own CPU time between two timer ticks: on a machine shared with other processes
 * the wall clock also counts the time the process waited for a core, which no code can avoid.
 */
async function measureStalls<T>(work: () => Promise<T>): Promise<{ result: T } & Stalls> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  // Each stretch between two ticks: when it began and ended (wall clock) and its CPU time.
  const stretches: { start: number; end: number; cpu: number }[] = [];
  const pauses: { start: number; end: number }[] = [];
  const collections = new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      pauses.push({ start: entry.startTime, end: entry.startTime + entry.duration });
  });
  collections.observe({ entryTypes: ['gc'] });
  let last = threadCpuMs();
  let lastAt = performance.now();
  const ticker = setInterval(() => {
    const now = threadCpuMs();
    const at = performance.now();
    stretches.push({ start: lastAt, end: at, cpu: now - last });
    last = now;
    lastAt = at;
  }, 1);
  try {
    const result = await work();
    // One more turn of the timers: work done just before `work` settled shows only then.
    await new Promise((resolve) => setTimeout(resolve, 5));
    // The observer reports collections after the fact.
    await new Promise((resolve) => setImmediate(resolve));
    let cpuMs = 0;
    for (const stretch of stretches) {
      let collecting = 0;
      for (const pause of pauses)
        collecting += Math.max(
          0,
          Math.min(stretch.end, pause.end) - Math.max(stretch.start, pause.start),
        );
      cpuMs = Math.max(cpuMs, stretch.cpu - collecting);
    }
    return { result, cpuMs, wallMs: histogram.max / 1e6 };
  } finally {
    clearInterval(ticker);
    collections.disconnect();
    histogram.disable();
  }
}

/** A 34-character glob that a backtracking regular expression takes minutes on. */
const PATHOLOGICAL_GLOB = `${'**?'.repeat(10)}**/x`;

describe('no tool call holds the event loop for more than 100 ms', () => {
  const heavy: [string, () => Promise<string>, (text: string) => void][] = [
    [
      'list_files with a pathological glob over the whole tree',
      () => tools.list_files.execute({ glob: PATHOLOGICAL_GLOB }),
      (text) => expect(text).toContain(`No files matching ${JSON.stringify(PATHOLOGICAL_GLOB)}`),
    ],
    [
      'list_files of a folder of 6 000 entries',
      () => tools.list_files.execute({ path: 'flat' }),
      (text) => expect(text).toContain('6000 files under flat'),
    ],
    [
      'search with a match on every line of 2 000 files',
      () => tools.search.execute({ query: 'needle', path: 'many' }),
      (text) => expect(text).toContain('Found 80000 matching lines in 2000 files'),
    ],
    [
      'search for 1 000 phrases in a 1 MB line',
      () =>
        tools.search.execute({
          query: Array.from({ length: 1_000 }, (_, index) => `"var x=1;var y${index}"`).join(' '),
          path: 'big/one-line.min.js',
        }),
      (text) => expect(text).toContain('No matches under big/one-line.min.js'),
    ],
    [
      'query $A over a 1 MB file',
      () => tools.query.execute({ pattern: '$A', path: 'big/huge.ts' }),
      (text) => expect(text).toMatch(/Found \d{6} matches in 1 of 1 /),
    ],
    [
      'extract of a symbol in a 1 MB file',
      () => tools.extract.execute({ file_path: 'big/huge.ts#fn7000' }),
      (text) => expect(text).toContain('(function fn7000)'),
    ],
    [
      'extract of a symbol among 50 000 definitions',
      () => tools.extract.execute({ file_path: 'big/tiny-definitions.js#t49999' }),
      (text) => expect(text).toContain('50000 | function t49999(){}'),
    ],
    [
      'list_files under a .gitignore of 20 000 rules',
      () => tools.list_files.execute({ path: 'ignored' }),
      (text) => {
        expect(text).toContain('ignored/src/keep.log');
        expect(text).not.toContain('drop.log');
      },
    ],
  ];
  for (const [name, call, check] of heavy) {
    it(name, async () => {
      const { result, cpuMs, wallMs } = await measureStalls(call);
      check(result);
      console.info(
        `${name}: longest stall ${cpuMs.toFixed(1)} ms CPU, ${wallMs.toFixed(1)} ms wall`,
      );
      expect(cpuMs).toBeLessThan(MAX_STALL_MS);
    });
  }
});

/**
 * A call's promise, and when it settled: by the wall clock, and by this thread's CPU clock (how
 * much work the event loop did, which a busy machine does not stretch).
 */
function track(promise: Promise<string>) {
  const state = {
    settledAt: undefined as number | undefined,
    settledAtCpu: undefined as number | undefined,
    error: undefined as unknown,
  };
  const settle = () => {
    state.settledAt = performance.now();
    state.settledAtCpu = threadCpuMs();
  };
  const done = promise.then(settle, (error: unknown) => {
    settle();
    state.error = error;
  });
  return { state, done };
}

/** CPU time the tool may go on working after its abort: a slice of paced work, and some. */
const MAX_CPU_AFTER_ABORT_MS = 150;
/** Wall time from the abort to the rejection, for a machine as busy as it may be. */
const MAX_WALL_AFTER_ABORT_MS = 10_000;

/** Waits long enough for any work still going on to open another file. */
const quiet = () => new Promise((resolve) => setTimeout(resolve, 300));

describe('an abort or a timeout stops the work', () => {
  const calls: [string, (tool: CodeTools) => [CodeTool, unknown]][] = [
    ['list_files with a pathological glob', (all) => [all.list_files, { glob: PATHOLOGICAL_GLOB }]],
    ['search over 2 000 files', (all) => [all.search, { query: 'needle', path: 'many' }]],
    ['query $A over a 1 MB file', (all) => [all.query, { pattern: '$A', path: 'big' }]],
    [
      'extract of a symbol in a 1 MB file',
      (all) => [all.extract, { file_path: 'big/huge.ts#fn1' }],
    ],
  ];

  for (const [name, pick] of calls) {
    it(`${name}: rejects soon after the abort, and opens no file after`, async () => {
      const [tool, input] = pick(tools);
      const controller = new AbortController();
      const reason = new Error('stop now');
      let abortedAt = 0;
      let abortedAtCpu = 0;
      const timer = setTimeout(() => {
        abortedAt = performance.now();
        abortedAtCpu = threadCpuMs();
        controller.abort(reason);
      }, 30);
      const { state, done } = track(tool.execute(input, { signal: controller.signal }));
      await done;
      clearTimeout(timer);
      expect(abortedAt, 'the abort timer fired while the tool was working').toBeGreaterThan(0);
      expect(state.error).toBe(reason);
      const late = state.settledAt! - abortedAt;
      const lateCpu = state.settledAtCpu! - abortedAtCpu;
      console.info(
        `${name}: settled ${late.toFixed(1)} ms (${lateCpu.toFixed(1)} ms CPU) after the abort`,
      );
      expect(lateCpu).toBeLessThan(MAX_CPU_AFTER_ABORT_MS);
      expect(late).toBeLessThan(MAX_WALL_AFTER_ABORT_MS);
      const openedWhenSettled = opened.count;
      await quiet();
      expect(opened.count).toBe(openedWhenSettled);
    });
  }

  it('the agent executor timeout (toolTimeoutMs) ends the call itself, not only the wait', async () => {
    let call: ReturnType<typeof track> | undefined;
    const tool = {
      ...tools.query,
      execute: (input: unknown, options?: { signal?: AbortSignal }) => {
        call = track(tools.query.execute(input, options));
        return call.done.then(() => '');
      },
    };
    const started = performance.now();
    const startedCpu = threadCpuMs();
    const input = { pattern: '$A', path: 'big/huge.ts' };
    const outcome = await runTool(
      { toolCallId: 'call-1', toolName: 'query', input, tool },
      40,
      new AbortController().signal,
    );
    expect(outcome).toEqual({ ok: false, kind: 'timeout', error: 'timed out after 40 ms' });
    await call!.done;
    expect(call!.state.error).toBeInstanceOf(Error);
    expect((call!.state.error as Error).message).toBe('timed out after 40 ms');
    expect(call!.state.settledAtCpu! - startedCpu).toBeLessThan(40 + MAX_CPU_AFTER_ABORT_MS);
    expect(call!.state.settledAt! - started).toBeLessThan(40 + MAX_WALL_AFTER_ABORT_MS);
    const openedWhenSettled = opened.count;
    await quiet();
    expect(opened.count).toBe(openedWhenSettled);
  });
});
