import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../web/src/markdown.ts';
import { HOSTILE_MARKDOWN, KIB, ORDINARY_MARKDOWN } from './markdown-inputs.ts';

/**
 * Time bounds are generous (the machine is shared): they catch a renderer that is many times too
 * slow, or whose time grows with the square of the text, not one that is a little slower.
 */
const MAX_MS_PER_100_KIB = 500;
/** A linear renderer takes about 4x as long on 4x the text; a quadratic one about 16x. */
const MAX_GROWTH_FOR_4X_TEXT = 8;
/** Below a few milliseconds, timer and scheduler noise outweighs the work. */
const NOISE_MS = 5;
/** Other processes share the machine: a bound missed by one busy measurement is measured again. */
const ATTEMPTS = 3;

function timeOnce(text: string): number {
  const start = performance.now();
  renderMarkdown(text);
  return performance.now() - start;
}

/**
 * The fastest of several runs of the small and the large text, timed in turn: the least disturbed
 * run is the best estimate of the work itself.
 */
function timePair(small: string, large: string): { smallMs: number; largeMs: number } {
  timeOnce(small);
  let smallMs = Number.POSITIVE_INFINITY;
  let largeMs = Number.POSITIVE_INFINITY;
  for (let run = 0; run < 5; run++) {
    smallMs = Math.min(smallMs, timeOnce(small));
    largeMs = Math.min(largeMs, timeOnce(large));
    // Far past the bound: more runs would only make a failing test slow.
    if (largeMs > 2 * MAX_MS_PER_100_KIB) break;
  }
  return { smallMs, largeMs };
}

function withinBounds({ smallMs, largeMs }: { smallMs: number; largeMs: number }): boolean {
  return largeMs < MAX_MS_PER_100_KIB && largeMs < MAX_GROWTH_FOR_4X_TEXT * smallMs + NOISE_MS;
}

describe('renderMarkdown time', () => {
  for (const input of [...HOSTILE_MARKDOWN, ORDINARY_MARKDOWN]) {
    it(`${input.name}: 100 KiB within the bound, growing linearly from 25 KiB`, () => {
      const large = input.build(100 * KIB);
      expect(large).toHaveLength(100 * KIB);
      const small = input.build(25 * KIB);
      let timing = timePair(small, large);
      for (let attempt = 1; attempt < ATTEMPTS && !withinBounds(timing); attempt++) {
        timing = timePair(small, large);
      }
      const { smallMs, largeMs } = timing;
      expect(largeMs, `${largeMs.toFixed(1)} ms`).toBeLessThan(MAX_MS_PER_100_KIB);
      expect(
        largeMs,
        `25 KiB: ${smallMs.toFixed(1)} ms, 100 KiB: ${largeMs.toFixed(1)} ms`,
      ).toBeLessThan(MAX_GROWTH_FOR_4X_TEXT * smallMs + NOISE_MS);
    });
  }

  it('keeps a frame bounded however long the answer grows (past the cap it is plain text)', () => {
    for (const input of HOSTILE_MARKDOWN) {
      const text = input.build(2 * 1024 * KIB);
      const start = performance.now();
      const html = renderMarkdown(text);
      const ms = performance.now() - start;
      expect(ms, `${input.name}: ${ms.toFixed(1)} ms`).toBeLessThan(4 * MAX_MS_PER_100_KIB);
      expect(html).toContain('The rest is shown as plain text');
    }
  });
});
