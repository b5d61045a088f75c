import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_MARKDOWN_CHARS, renderMarkdown } from '../../web/src/markdown.ts';
import { bestCpuMsOf, expectLinearGrowth } from '../support/growth.ts';
import { HOSTILE_MARKDOWN, KIB, ORDINARY_MARKDOWN } from './markdown-inputs.ts';

/**
 * Bounds in CPU time, which other processes on a shared machine do not stretch, and generous:
 * they catch a renderer that is many times too slow, or whose time grows with the square of the
 * text (test/support/growth.ts), not one that is a little slower.
 */
const MAX_CPU_MS_PER_100_KIB = 500;

describe('renderMarkdown time', () => {
  for (const input of [...HOSTILE_MARKDOWN, ORDINARY_MARKDOWN]) {
    it(`${input.name}: 100 KiB within the bound, and time linear in the length`, () => {
      const large = input.build(100 * KIB);
      expect(large).toHaveLength(100 * KIB);
      const ms = bestCpuMsOf(() => renderMarkdown(large));
      expect(ms, `${ms.toFixed(1)} ms`).toBeLessThan(MAX_CPU_MS_PER_100_KIB);
      // Within the part rendered as Markdown: past it the rest is plain text.
      expectLinearGrowth(input.build, (text) => renderMarkdown(text), 4 * KIB, {
        largest: DEFAULT_MAX_MARKDOWN_CHARS,
      });
    });
  }

  it('keeps a frame bounded however long the answer grows (past the cap it is plain text)', () => {
    for (const input of HOSTILE_MARKDOWN) {
      const text = input.build(2 * 1024 * KIB);
      let html = '';
      const ms = bestCpuMsOf(() => {
        html = renderMarkdown(text);
      }, 1);
      expect(ms, `${input.name}: ${ms.toFixed(1)} ms`).toBeLessThan(4 * MAX_CPU_MS_PER_100_KIB);
      expect(html).toContain('The rest is shown as plain text');
    }
  });
});
