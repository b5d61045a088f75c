import { describe, expect, it } from 'vitest';
import { BoundedCache } from '../../src/core/bounded-cache.ts';

describe('BoundedCache', () => {
  it('keeps what was stored, up to its size', () => {
    const cache = new BoundedCache<string, number>(3);
    cache.set('a', 1).set('b', 2).set('c', 3);
    expect(cache.size).toBe(3);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([1, 2, 3]);
    expect(cache.get('d')).toBeUndefined();
    expect(cache.has('a')).toBe(true);
    expect(cache.has('d')).toBe(false);
  });

  it('when full, a new key evicts only the oldest entry, not the others', () => {
    const cache = new BoundedCache<string, number>(3);
    cache.set('a', 1).set('b', 2).set('c', 3);
    cache.set('d', 4);
    expect(cache.size).toBe(3);
    expect(cache.has('a')).toBe(false);
    expect([cache.get('b'), cache.get('c'), cache.get('d')]).toEqual([2, 3, 4]);
    cache.set('e', 5);
    expect(cache.has('b')).toBe(false);
    expect([cache.get('c'), cache.get('d'), cache.get('e')]).toEqual([3, 4, 5]);
  });

  it('replacing the value of a key it holds evicts nothing and keeps the key in its place', () => {
    const cache = new BoundedCache<string, number>(2);
    cache.set('a', 1).set('b', 2);
    cache.set('a', 10);
    expect([cache.size, cache.get('a'), cache.get('b')]).toEqual([2, 10, 2]);
    // 'a' is still the oldest.
    cache.set('c', 3);
    expect(cache.has('a')).toBe(false);
    expect([cache.get('b'), cache.get('c')]).toEqual([2, 3]);
  });

  it('getOrCreate makes a value once per key and stores it', () => {
    const cache = new BoundedCache<string, string>(4);
    let made = 0;
    const make = (key: string) => {
      made++;
      return key.toUpperCase();
    };
    expect(cache.getOrCreate('x', make)).toBe('X');
    expect(cache.getOrCreate('x', make)).toBe('X');
    expect(made).toBe(1);
    expect(cache.get('x')).toBe('X');
  });

  it('getOrCreate keeps a stored undefined rather than making it again', () => {
    const cache = new BoundedCache<string, undefined>(2);
    let made = 0;
    cache.getOrCreate('x', () => {
      made++;
      return undefined;
    });
    cache.getOrCreate('x', () => {
      made++;
      return undefined;
    });
    expect(made).toBe(1);
  });

  it('getOrCreate evicts the oldest when full', () => {
    const cache = new BoundedCache<number, number>(2);
    for (const key of [1, 2, 3]) cache.getOrCreate(key, (k) => k * 10);
    expect(cache.has(1)).toBe(false);
    expect([cache.get(2), cache.get(3)]).toEqual([20, 30]);
  });

  it('never holds more than its size, whatever is added', () => {
    const cache = new BoundedCache<number, number>(64);
    for (let key = 0; key < 10_000; key++) {
      cache.set(key, key);
      expect(cache.size).toBeLessThanOrEqual(64);
    }
    // The newest 64 are the ones kept.
    expect(cache.has(10_000 - 64)).toBe(true);
    expect(cache.has(10_000 - 65)).toBe(false);
  });

  it('refuses a size under one or not whole', () => {
    expect(() => new BoundedCache(0)).toThrow(RangeError);
    expect(() => new BoundedCache(1.5)).toThrow(RangeError);
    expect(() => new BoundedCache(Number.NaN)).toThrow(RangeError);
    expect(new BoundedCache(1).maxEntries).toBe(1);
  });
});
