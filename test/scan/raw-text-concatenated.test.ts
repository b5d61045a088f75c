import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RawText } from '../../src/scan/raw-text.ts';

type Operation =
  | { readonly kind: 'append'; readonly text: string }
  | { readonly kind: 'truncate'; readonly at: number }
  | { readonly kind: 'slice'; readonly start: number; readonly end: number }
  | { readonly kind: 'join' };

// Pieces long enough that a run crosses the 512 characters kept as one concatenated string.
const operation: fc.Arbitrary<Operation> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('append' as const),
      text: fc.string({ maxLength: 120 }),
    }),
  },
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('slice' as const), start: fc.nat(), end: fc.nat() }),
  fc.record({ kind: fc.constant('join' as const) }),
);

describe('RawText growing a short text by concatenation (growsSmallText)', () => {
  it('agrees with a plain string through appends, truncations, slices and joins', () => {
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 60 }), (operations) => {
        const raw = new RawText({ growsSmallText: true });
        let model = '';
        for (const step of operations) {
          if (step.kind === 'append') {
            raw.append(step.text);
            model += step.text;
          } else if (step.kind === 'truncate') {
            const at = step.at % (model.length + 2);
            raw.truncate(at);
            model = model.slice(0, at);
          } else if (step.kind === 'slice') {
            const start = step.start % (model.length + 1);
            const end = step.end % (model.length + 1);
            expect(raw.slice(start, end)).toBe(model.slice(start, Math.max(start, end)));
          } else {
            expect(raw.toString()).toBe(model);
          }
          expect(raw.length).toBe(model.length);
        }
        expect(raw.toString()).toBe(model);
      }),
    );
  });

  it('keeps going in pieces once the text is past the short length', () => {
    const raw = new RawText({ growsSmallText: true });
    const piece = 'x'.repeat(100);
    for (let index = 0; index < 20; index++) raw.append(piece);
    expect(raw.length).toBe(2000);
    expect(raw.slice(450, 560)).toBe('x'.repeat(110));
    expect(raw.toString()).toBe(piece.repeat(20));
  });
});
