import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { byCodeUnits, sortPaced } from '../../../src/agent/tools/paced-sort.ts';
import { Pacer, SLICE_MS } from '../../../src/agent/tools/pacer.ts';

describe('Pacer', () => {
  it('is due once its slice of time is used, and a pause gives timers their turn', async () => {
    const pacer = new Pacer();
    let timerRan = false;
    setTimeout(() => {
      timerRan = true;
    }, 0);
    const until = performance.now() + SLICE_MS + 2;
    while (performance.now() < until) {
      // busy: the timer cannot run
    }
    expect(pacer.due()).toBe(true);
    expect(timerRan).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 1)); // let the 0 ms timer become due
    await pacer.pause();
    expect(timerRan).toBe(true);
    expect(pacer.due()).toBe(false);
  });

  it('throws the signal reason at the next pause after an abort', async () => {
    const controller = new AbortController();
    const pacer = new Pacer(controller.signal);
    await pacer.pause();
    controller.abort(new Error('enough'));
    await expect(pacer.pause()).rejects.toThrow('enough');
    await expect(pacer.step()).rejects.toThrow('enough');
    expect(() => pacer.check()).toThrow('enough');
  });
});

describe('sortPaced', () => {
  it('sorts like a stable native sort, across runs and merges', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 50 }), fc.nat()), { maxLength: 20_000 }),
        async (items) => {
          const byKey = (a: [number, number], b: [number, number]) => a[0] - b[0];
          const expected = [...items].sort(byKey);
          expect(await sortPaced(items, byKey, new Pacer())).toEqual(expected);
        },
      ),
      { numRuns: 20 },
    );
    expect(await sortPaced(['b', 'a', 'B', 'a/b', 'a-b'], byCodeUnits, new Pacer())).toEqual([
      'B',
      'a',
      'a-b',
      'a/b',
      'b',
    ]);
  });

  it('stops with the abort reason while sorting', async () => {
    const controller = new AbortController();
    const pacer = new Pacer(controller.signal);
    controller.abort(new Error('no more'));
    const items = Array.from({ length: 300_000 }, (_, index) => (index * 7919) % 300_007);
    await expect(sortPaced(items, (a, b) => a - b, pacer)).rejects.toThrow('no more');
  });
});
