import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RunState } from '../../src/agent/index.ts';
import { isErrorOfKind } from '../../src/core/errors.ts';
import { RunLimitError, RunRegistry, type RunRegistryOptions } from '../../src/server/index.ts';

const KIB = 1024;

function registry(options: Partial<RunRegistryOptions> = {}) {
  return new RunRegistry({
    maxConcurrentRuns: 1000,
    pausedRunTtlMs: 60_000,
    finishedRunTtlMs: 60_000,
    maxRememberedRuns: 1000,
    maxRememberedBytes: 64 * 1024 * KIB,
    ...options,
  });
}

/** A paused run's state whose conversation holds `prompt` (as the agent's does). */
function stateFor(id: string, prompt: string): RunState {
  return {
    version: 1,
    runId: id,
    protocol: 'xml',
    conversation: [{ type: 'user', content: prompt }],
    steps: 1,
    usage: { inputTokens: 0, outputTokens: 0 },
    consecutiveFailures: 0,
    batch: [],
    settled: [],
    pending: [{ toolCallId: 'c1', toolName: 'ask_user', input: { question: 'Which?' } }],
  };
}

function start(runs: RunRegistry, id: string, prompt = 'question') {
  return runs.start(id, prompt, 'xml', new AbortController());
}

function paused(runs: RunRegistry, id: string, prompt = 'question') {
  const record = start(runs, id, prompt);
  runs.pause(record, stateFor(id, prompt));
  return record;
}

function finished(runs: RunRegistry, id: string, prompt = 'question') {
  const record = start(runs, id, prompt);
  runs.finish(record, 'completed');
  return record;
}

const held = (runs: RunRegistry, ids: string[]) => ids.filter((id) => runs.get(id) !== undefined);

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe('RunRegistry: the active count', () => {
  it('counts streaming runs through start, pause, resume, finish and abort, never twice', () => {
    const runs = registry();
    const a = start(runs, 'a');
    const b = start(runs, 'b');
    const c = start(runs, 'c');
    expect(runs.active).toBe(3);
    runs.pause(a, stateFor('a', 'question'));
    runs.pause(a, stateFor('a', 'question'));
    expect(runs.active).toBe(2);
    runs.resumed(a, new AbortController());
    runs.resumed(a, new AbortController());
    expect(runs.active).toBe(3);
    runs.finish(b, 'completed');
    runs.finish(b, 'completed');
    runs.pause(b, stateFor('b', 'question'));
    expect(runs.active).toBe(2);
    // Aborting a paused run finishes it; it held no slot.
    runs.pause(c, stateFor('c', 'question'));
    expect(runs.active).toBe(1);
    runs.finish(c, 'aborted');
    expect(runs.active).toBe(1);
    runs.finish(a, 'aborted');
    expect(runs.active).toBe(0);
    expect(runs.stats).toMatchObject({ running: 0, paused: 0, finished: 3 });
  });

  it('ignores records it no longer holds (after closeAll, or forgotten)', () => {
    const runs = registry();
    const a = start(runs, 'a');
    runs.closeAll();
    expect(a.controller?.signal.aborted).toBe(true);
    runs.finish(a, 'aborted');
    runs.pause(a, stateFor('a', 'q'));
    expect(runs.stats).toEqual({ running: 0, paused: 0, finished: 0, rememberedBytes: 0 });
    expect(runs.active).toBe(0);
  });

  it('refuses a run beyond the concurrency limit, and an id in use', () => {
    const runs = registry({ maxConcurrentRuns: 1 });
    const a = start(runs, 'a');
    expect(() => start(runs, 'b')).toThrow('1 runs are streaming');
    let refusal: unknown;
    try {
      runs.ensureCapacity();
    } catch (error) {
      refusal = error;
    }
    // The app answers a run-limit with 429 by its kind.
    expect(isErrorOfKind(refusal, 'run-limit')).toBe(true);
    expect(refusal).toMatchObject({ running: 1, maxConcurrentRuns: 1 });
    expect(RunLimitError.isInstance(refusal)).toBe(true);
    runs.finish(a, 'completed');
    expect(() => start(runs, 'a')).toThrow('the run id "a" is already in use');
  });

  it('keeps counters: the active count and the capacity check walk no collection', () => {
    const runs = registry({ maxRememberedRuns: 20_000 });
    for (let index = 0; index < 10_000; index++) finished(runs, `f${index}`);
    const walks = [
      vi.spyOn(Map.prototype, 'values'),
      vi.spyOn(Map.prototype, 'entries'),
      vi.spyOn(Map.prototype, 'forEach'),
      vi.spyOn(Map.prototype, Symbol.iterator),
    ];
    for (let index = 0; index < 100; index++) {
      expect(runs.active).toBe(0);
      runs.ensureCapacity();
      const record = start(runs, `r${index}`);
      runs.finish(record, 'completed');
    }
    for (const walk of walks) expect(walk).not.toHaveBeenCalled();
  });
});

describe('RunRegistry: what a run keeps', () => {
  it('a finished run keeps only its outcome: no prompt, no state, no controller', () => {
    const runs = registry();
    const prompt = 'p'.repeat(512 * KIB);
    const record = paused(runs, 'a', prompt);
    expect(record.state).toBeDefined();
    expect(runs.stats.rememberedBytes).toBeGreaterThan(2 * 2 * 512 * KIB);
    runs.finish(record, 'aborted');
    expect(record).toMatchObject({ status: 'finished', prompt: '', outcome: 'aborted' });
    expect(record.state).toBeUndefined();
    expect(record.controller).toBeUndefined();
    expect(runs.stats.rememberedBytes).toBeLessThan(KIB);
  });

  it('a paused run keeps its prompt (for the resumed meta_init) and its state', () => {
    const runs = registry();
    const record = paused(runs, 'a', 'How does login work?');
    expect(record.prompt).toBe('How does login work?');
    expect(record.state?.pending).toHaveLength(1);
  });

  it('forgets a finished run after its time is up', () => {
    vi.useFakeTimers();
    const runs = registry({ finishedRunTtlMs: 1000 });
    finished(runs, 'a');
    vi.advanceTimersByTime(999);
    expect(runs.get('a')?.status).toBe('finished');
    vi.advanceTimersByTime(1);
    expect(runs.get('a')).toBeUndefined();
    expect(runs.stats).toEqual({ running: 0, paused: 0, finished: 0, rememberedBytes: 0 });
  });
});

describe('RunRegistry: bounds', () => {
  it('remembers at most maxRememberedRuns paused and finished runs, forgetting the oldest', () => {
    const runs = registry({ maxRememberedRuns: 3 });
    const ids = ['a', 'b', 'c', 'd', 'e'];
    for (const id of ids) finished(runs, id);
    expect(held(runs, ids)).toEqual(['c', 'd', 'e']);
    expect(runs.stats).toMatchObject({ finished: 3, paused: 0 });
    // Running runs are bounded by the concurrency limit, not by this cap.
    for (const id of ['r1', 'r2', 'r3', 'r4']) start(runs, id);
    expect(held(runs, ids)).toEqual(['c', 'd', 'e']);
    expect(runs.active).toBe(4);
  });

  it('forgets finished runs before paused ones, oldest first, then paused ones oldest first', () => {
    const runs = registry({ maxRememberedRuns: 3 });
    paused(runs, 'p1');
    finished(runs, 'f1');
    paused(runs, 'p2');
    finished(runs, 'f2');
    // Four remembered: the oldest finished goes, the older paused stays.
    expect(held(runs, ['p1', 'f1', 'p2', 'f2'])).toEqual(['p1', 'p2', 'f2']);
    paused(runs, 'p3');
    expect(held(runs, ['p1', 'p2', 'f2', 'p3'])).toEqual(['p1', 'p2', 'p3']);
    // No finished run is left: the oldest paused one goes.
    paused(runs, 'p4');
    expect(held(runs, ['p1', 'p2', 'p3', 'p4'])).toEqual(['p2', 'p3', 'p4']);
    // A resumed run leaves the paused order; when it pauses again it is the newest.
    const p2 = runs.get('p2')!;
    runs.resumed(p2, new AbortController());
    runs.pause(p2, stateFor('p2', 'question'));
    paused(runs, 'p5');
    expect(held(runs, ['p2', 'p3', 'p4', 'p5'])).toEqual(['p2', 'p4', 'p5']);
  });

  it('keeps the estimated bytes of paused and finished runs under maxRememberedBytes', () => {
    const cap = 1024 * KIB;
    const runs = registry({ maxRememberedBytes: cap });
    const prompt = 'x'.repeat(100 * KIB);
    const ids: string[] = [];
    for (let index = 0; index < 20; index++) {
      const id = `p${index}`;
      ids.push(id);
      paused(runs, `${id}`, prompt);
      expect(runs.stats.rememberedBytes).toBeLessThanOrEqual(cap);
    }
    // Each holds the prompt twice (its own and the conversation's), two bytes a character.
    const kept = held(runs, ids);
    expect(kept.length).toBeGreaterThanOrEqual(2);
    expect(kept.length).toBeLessThanOrEqual(cap / (4 * 100 * KIB));
    expect(kept).toEqual(ids.slice(-kept.length));
    expect(runs.stats.rememberedBytes).toBeGreaterThan(kept.length * 4 * 100 * KIB);
  });

  it('frees bytes from finished runs first, then from the oldest paused', () => {
    const runs = registry({ maxRememberedBytes: 700 * KIB });
    paused(runs, 'p1', 'a'.repeat(80 * KIB));
    for (let index = 0; index < 10; index++) finished(runs, `f${index}`);
    paused(runs, 'p2', 'b'.repeat(80 * KIB));
    expect(held(runs, ['p1', 'p2'])).toEqual(['p1', 'p2']);
    expect(runs.stats.finished).toBe(10);
    // p3 does not fit beside p1 and p2: every finished run goes first, then p1.
    paused(runs, 'p3', 'c'.repeat(80 * KIB));
    expect(runs.stats.finished).toBe(0);
    expect(held(runs, ['p1', 'p2', 'p3'])).toEqual(['p2', 'p3']);
    expect(runs.stats.rememberedBytes).toBeLessThanOrEqual(700 * KIB);
  });

  it('drops a paused run larger than the byte cap on its own, saying why', () => {
    const runs = registry({ maxRememberedBytes: 256 * KIB });
    finished(runs, 'older');
    const record = paused(runs, 'big', 'x'.repeat(200 * KIB));
    expect(record.status).toBe('finished');
    expect(record.outcome).toMatch(
      /^dropped: its conversation \(\d+(\.\d)? KiB\) is larger than the server keeps for a paused run \(256 KiB\)$/,
    );
    expect(record.state).toBeUndefined();
    expect(runs.get('older')?.status).toBe('finished');
    expect(runs.active).toBe(0);
  });
});
