import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compareEventIds,
  formatEventId,
  isEventIdBefore,
  nextEventId,
  parseEventId,
} from '../../src/store/event-id.ts';

describe('event ids (MS-SEQ, as Redis Streams write them)', () => {
  it('reads two whole numbers joined by a dash', () => {
    expect(parseEventId('1700000000000-0')).toEqual({ ms: 1_700_000_000_000, seq: 0 });
    expect(parseEventId('0-0')).toEqual({ ms: 0, seq: 0 });
    expect(parseEventId('12-345')).toEqual({ ms: 12, seq: 345 });
    // Leading zeros are digits: the same number.
    expect(parseEventId('007-01')).toEqual({ ms: 7, seq: 1 });
  });

  it('refuses anything else, as a client header can hold anything', () => {
    for (const text of [
      '',
      '-',
      '1',
      '1-',
      '-1',
      '1-2-3',
      '+1-2',
      '1-+2',
      ' 1-2',
      '1-2 ',
      '1.5-2',
      '1e3-0',
      '0x10-0',
      '١-٢',
      'abc-def',
      '1-2\n',
      // More than 16 digits, or beyond the safe integers.
      '12345678901234567-0',
      '0-12345678901234567',
      '9999999999999999-0',
    ])
      expect(parseEventId(text), JSON.stringify(text)).toBeUndefined();
    expect(parseEventId('9007199254740992-0')).toBeUndefined();
    expect(parseEventId('0-9007199254740992')).toBeUndefined();
    expect(parseEventId('9007199254740991-9007199254740991')).toEqual({
      ms: Number.MAX_SAFE_INTEGER,
      seq: Number.MAX_SAFE_INTEGER,
    });
  });

  it('reads a long hostile header in linear time (no backtracking)', () => {
    const text = `${'1'.repeat(200_000)}-${'2'.repeat(200_000)}x`;
    expect(parseEventId(text)).toBeUndefined();
    expect(parseEventId('-'.repeat(200_000))).toBeUndefined();
  });

  it('writes what it reads, and reads what it writes', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 9_999_999_999_999 }),
        fc.integer({ min: 0, max: 9_999_999_999_999 }),
        (ms, seq) => {
          const text = formatEventId({ ms, seq });
          expect(text).toBe(`${ms}-${seq}`);
          expect(parseEventId(text)).toEqual({ ms, seq });
        },
      ),
    );
  });

  it('orders by millisecond, then by sequence, as numbers (not as text)', () => {
    const compare = (a: string, b: string) =>
      Math.sign(compareEventIds(parseEventId(a)!, parseEventId(b)!));
    expect(compare('9-0', '10-0')).toBe(-1);
    expect(compare('10-0', '9-0')).toBe(1);
    expect(compare('5-9', '5-10')).toBe(-1);
    expect(compare('5-10', '5-10')).toBe(0);
    expect(compare('6-0', '5-99')).toBe(1);
  });

  it('compares ids as text the same way (what Redis replies), text that is no id before any other', () => {
    expect(isEventIdBefore('9-0', '10-0')).toBe(true);
    expect(isEventIdBefore('5-10', '5-9')).toBe(false);
    expect(isEventIdBefore('5-10', '5-10')).toBe(false);
    expect(isEventIdBefore('1700000000000-3', '9007199254740991-0')).toBe(true);
    expect(isEventIdBefore('junk', '0-0')).toBe(true);
    expect(isEventIdBefore('junk', 'junk')).toBe(false);
  });

  it('makes each next id after the last: a later millisecond starts at 0, the same or an earlier one counts on', () => {
    expect(nextEventId(undefined, 100)).toEqual({ ms: 100, seq: 0 });
    expect(nextEventId({ ms: 100, seq: 0 }, 101)).toEqual({ ms: 101, seq: 0 });
    expect(nextEventId({ ms: 100, seq: 4 }, 100)).toEqual({ ms: 100, seq: 5 });
    // A clock that steps back never makes an id that goes back.
    expect(nextEventId({ ms: 100, seq: 4 }, 50)).toEqual({ ms: 100, seq: 5 });
  });

  it('any run of clock readings gives strictly increasing ids', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 1000 }), { maxLength: 50 }), (times) => {
        let last: ReturnType<typeof nextEventId> | undefined;
        for (const now of times) {
          const next = nextEventId(last, now);
          if (last !== undefined) expect(compareEventIds(last, next)).toBeLessThan(0);
          last = next;
        }
      }),
    );
  });
});
