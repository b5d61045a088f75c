import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RawText } from '../../src/scan/raw-text.ts';

type Operation =
  | { readonly kind: 'append'; readonly text: string }
  | { readonly kind: 'truncate'; readonly at: number }
  | { readonly kind: 'slice'; readonly start: number; readonly end: number }
  | { readonly kind: 'join' };

/** Operations whose appends reach `maxAppend` characters. */
function operations(maxAppend: number): fc.Arbitrary<Operation[]> {
  const operation: fc.Arbitrary<Operation> = fc.oneof(
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant('append' as const),
        text: fc.string({ maxLength: maxAppend }),
      }),
    },
    fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
    fc.record({ kind: fc.constant('slice' as const), start: fc.nat(), end: fc.nat() }),
    fc.record({ kind: fc.constant('join' as const) }),
  );
  return fc.array(operation, { maxLength: 60 });
}

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

  // Short appends make many pieces; long ones cross the length kept as one concatenated string.
  it.each([
    { growsSmallText: false, maxAppend: 6 },
    { growsSmallText: true, maxAppend: 6 },
    { growsSmallText: true, maxAppend: 120 },
  ])(
    'agrees with a plain string through appends, truncations, slices and joins (%o)',
    ({ growsSmallText, maxAppend }) => {
      fc.assert(
        fc.property(operations(maxAppend), (steps) => {
          const raw = new RawText({ growsSmallText });
          let model = '';
          for (const step of steps) {
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
          expect(raw.slice(0)).toBe(model);
          expect(raw.toString()).toBe(model);
        }),
      );
    },
  );

  it('cuts a range out of the middle of a piece that a truncation shortened', () => {
    const raw = new RawText();
    raw.append('abc');
    raw.append('defgh');
    expect(raw.slice(2, 5)).toBe('cde');
    raw.truncate(6);
    raw.append('XY');
    expect(raw.slice(4)).toBe('efXY');
    expect(raw.slice(3, 7)).toBe('defX');
  });
});

describe('RawText joins small pieces into blocks as it grows', () => {
  it('reads the same across block boundaries, after truncating into a block, and after toString', () => {
    const raw = new RawText();
    let expected = '';
    for (let index = 0; index < 1000; index++) {
      const piece = String.fromCharCode(97 + (index % 26)).repeat((index % 3) + 1);
      raw.append(piece);
      expected += piece;
    }
    expect(raw.length).toBe(expected.length);
    for (const [start, end] of [
      [0, 5],
      [250, 800],
      [511, 513],
      [1500, expected.length],
    ] as const) {
      expect(raw.slice(start, end)).toBe(expected.slice(start, end));
    }
    raw.truncate(700);
    expected = expected.slice(0, 700);
    expect(raw.toString()).toBe(expected);
    raw.append('tail');
    expected += 'tail';
    expect(raw.toString()).toBe(expected);
    expect(raw.slice(690, 704)).toBe(expected.slice(690, 704));
  });
});
