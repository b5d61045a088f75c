import { describe, expect, it } from 'vitest';
import { describeError } from '../../src/agent/executor.ts';
import { describeThrown, toJsonSafe } from '../../src/agent/json-safe.ts';

const copy = (value: unknown, maxChars = 10_000) => toJsonSafe(value, { maxChars });

/** A Proxy every one of whose traps throws. */
function hostileProxy(target: object = {}): object {
  const fail = () => {
    throw new Error('trap says no');
  };
  return new Proxy(target, {
    get: fail,
    getPrototypeOf: fail,
    ownKeys: fail,
    getOwnPropertyDescriptor: fail,
    has: fail,
  });
}

describe('toJsonSafe', () => {
  it('copies plain JSON data unchanged', () => {
    const value = { a: 1, b: [true, null, 'x'], c: { d: -2.5 } };
    expect(copy(value)).toEqual({ value, complete: true });
    expect(copy('text').value).toBe('text');
  });

  it('follows JSON.stringify: toJSON, non-finite numbers, undefined, boxed primitives', () => {
    const date = new Date('2024-01-02T03:04:05.000Z');
    expect(
      copy({
        date,
        nan: Number.NaN,
        inf: Number.POSITIVE_INFINITY,
        gone: undefined,
        list: [undefined, 1],
        boxed: [new Number(3), new String('s'), new Boolean(false)],
      }).value,
    ).toEqual({
      date: '2024-01-02T03:04:05.000Z',
      nan: null,
      inf: null,
      list: [null, 1],
      boxed: [3, 's', false],
    });
    expect(copy(undefined).value).toBeNull();
  });

  it('describes what JSON cannot write: BigInt, symbols, functions, errors, cycles', () => {
    const circular: Record<string, unknown> = { name: 'loop' };
    circular.self = circular;
    circular.list = [circular];
    function namedTool() {}
    expect(
      copy({
        big: 12345678901234567890n,
        symbol: Symbol('tag'),
        fn: namedTool,
        arrow: () => {},
        error: new TypeError('bad input'),
        circular,
      }).value,
    ).toEqual({
      big: '12345678901234567890',
      symbol: '[Symbol(tag)]',
      fn: '[function namedTool]',
      arrow: '[function arrow]',
      error: 'TypeError: bad input',
      circular: { name: 'loop', self: '[circular]', list: ['[circular]'] },
    });
    expect(copy(10n).value).toBe('10');
    expect(copy(Symbol()).value).toBe('[Symbol()]');
    // A shared (not circular) reference is copied twice, as JSON does.
    const shared = { x: 1 };
    expect(copy([shared, shared]).value).toEqual([{ x: 1 }, { x: 1 }]);
  });

  it('a Proxy whose traps throw, throwing getters and toJSON: described, never thrown', () => {
    const getter = {
      ok: 1,
      get broken() {
        throw new Error('getter failed');
      },
    };
    const badToJSON = {
      toJSON() {
        throw new Error('no JSON for you');
      },
    };
    const badToString = {
      toString() {
        throw new Error('no string');
      },
      v: 2,
    };
    expect(copy(hostileProxy()).value).toBe('[unreadable: Error: trap says no]');
    expect(copy({ inner: hostileProxy([]) }).value).toEqual({
      inner: '[unreadable: Error: trap says no]',
    });
    expect(copy(getter).value).toEqual({ ok: 1, broken: '[unreadable: Error: getter failed]' });
    expect(copy(badToJSON).value).toBe('[unreadable: Error: no JSON for you]');
    expect(copy(badToString).value).toMatchObject({ v: 2 });
    // A revoked Proxy throws on every operation, Array.isArray included.
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(copy(proxy).value).toMatch(/^\[unreadable: TypeError: /);
  });

  it('a "__proto__" key is data, not the prototype of the copy', () => {
    const value = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}');
    const result = copy(value).value as Record<string, unknown>;
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(Object.keys(result)).toEqual(['__proto__', 'a']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('stops at the size budget, even for a value that builds itself as it is read', () => {
    // Every property read returns a new object of a thousand keys: endless if walked whole.
    // The work is counted, not timed: how many values the copy read before it stopped.
    let reads = 0;
    const endless = (): object =>
      new Proxy(
        {},
        {
          ownKeys: () => Array.from({ length: 1000 }, (_, index) => `k${index}`),
          getOwnPropertyDescriptor: () => ({ enumerable: true, configurable: true, value: 0 }),
          get: () => {
            reads++;
            return endless();
          },
        },
      );
    const result = copy(endless(), 5_000);
    expect(reads).toBeGreaterThan(0);
    expect(reads).toBeLessThan(10_000);
    expect(result.complete).toBe(false);
    expect(JSON.stringify(result.value).length).toBeLessThan(20_000);

    const big = copy(
      Array.from({ length: 100_000 }, (_, index) => ({ index })),
      1_000,
    );
    expect(big.complete).toBe(false);
    expect((big.value as unknown[]).length).toBeLessThan(200);
    expect(copy([1, 2, 3], 1_000).complete).toBe(true);
  });

  it('bounds nesting depth instead of overflowing the stack', () => {
    let deep: unknown = 'bottom';
    for (let level = 0; level < 100_000; level++) deep = { next: deep };
    const result = toJsonSafe(deep, { maxChars: 1_000_000, maxDepth: 50 });
    const text = JSON.stringify(result.value);
    expect(text).toContain('[nested too deep]');
    expect(text.match(/"next"/g)).toHaveLength(50);
  });
});

describe('describeError (what a tool threw, for the model)', () => {
  it('an Error by its message, a string as it is, anything else as JSON', () => {
    expect(describeError(new Error('disk full'))).toBe('disk full');
    expect(describeError(new RangeError(''))).toBe('RangeError');
    expect(describeError('plain text')).toBe('plain text');
    expect(describeError({ code: 42 })).toBe('{"code":42}');
    expect(describeError(null)).toBe('null');
    expect(describeError(undefined)).toBe('null');
    expect(describeError(7n)).toBe('7');
  });

  it('never throws, whatever was thrown', () => {
    const getter = {
      get boom() {
        throw new Error('getter failed');
      },
    };
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(describeError(getter)).toBe('{"boom":"[unreadable: Error: getter failed]"}');
    expect(describeError(circular)).toBe('{"self":"[circular]"}');
    expect(describeError(hostileProxy())).toBe('[unreadable: Error: trap says no]');
    expect(describeError(Object.create(null))).toBe('{}');
    expect(describeError(Symbol('s'))).toBe('[Symbol(s)]');
    const errorWithThrowingMessage = new Error('x');
    Object.defineProperty(errorWithThrowingMessage, 'message', {
      get() {
        throw new Error('no message');
      },
    });
    expect(() => describeError(errorWithThrowingMessage)).not.toThrow();
  });

  it('describeThrown: a value even String() cannot convert', () => {
    expect(describeThrown(Object.create(null))).toBe('an unreadable object');
    expect(describeThrown(new Error('m'))).toBe('Error: m');
  });
});
