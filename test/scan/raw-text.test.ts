import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RawText } from '../../src/scan/raw-text.ts';

describe('RawText', () => {
  it('slices across pieces like the joined string', () => {
    fc.assert(
      fc.property(fc.array(fc.string()), fc.nat(), fc.nat(), (pieces, a, b) => {
        const raw = new RawText();
        for (const piece of pieces) raw.append(piece);
        const whole = pieces.join('');
        const start = a % (whole.length + 1);
        const end = b % (whole.length + 1);
        expect(raw.length).toBe(whole.length);
        expect(raw.slice(start, end)).toBe(whole.slice(start, Math.max(start, end)));
        expect(raw.toString()).toBe(whole);
      }),
    );
  });
});
