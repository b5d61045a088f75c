import { describe, expect, it } from 'vitest';
import { jsonBytes, ResponseStore, utf8Length } from '../../../src/proxy/responses/store.ts';

const byLength = (value: string) => value.length;

describe('the response store', () => {
  it('gives back what was kept, and undefined for an id never kept', () => {
    const store = new ResponseStore<string>({ maxResponses: 3, maxBytes: 100 }, byLength);
    expect(store.put('resp_1', 'one')).toBe(true);
    expect(store.get('resp_1')).toBe('one');
    expect(store.get('resp_unknown')).toBeUndefined();
  });

  it('forgets the oldest past the count cap', () => {
    const store = new ResponseStore<string>({ maxResponses: 2, maxBytes: 100 }, byLength);
    store.put('a', 'x');
    store.put('b', 'x');
    store.put('c', 'x');
    expect(store.get('a')).toBeUndefined();
    expect(store.get('b')).toBe('x');
    expect(store.get('c')).toBe('x');
    expect(store.size).toBe(2);
  });

  it('forgets the oldest until the byte cap holds', () => {
    const store = new ResponseStore<string>({ maxResponses: 10, maxBytes: 9 }, byLength);
    store.put('a', 'aaaa');
    store.put('b', 'bbbb');
    store.put('c', 'cccccc');
    expect(store.get('a')).toBeUndefined();
    expect(store.get('b')).toBeUndefined();
    expect(store.get('c')).toBe('cccccc');
    expect(store.bytes).toBe(6);
  });

  it('does not keep a response larger than the byte cap alone, and keeps the others', () => {
    const store = new ResponseStore<string>({ maxResponses: 10, maxBytes: 5 }, byLength);
    store.put('a', 'aa');
    expect(store.put('big', 'bbbbbbbbb')).toBe(false);
    expect(store.get('big')).toBeUndefined();
    expect(store.get('a')).toBe('aa');
  });

  it('replaces a response put again under its id, counting its bytes once', () => {
    const store = new ResponseStore<string>({ maxResponses: 2, maxBytes: 100 }, byLength);
    store.put('a', 'one');
    store.put('a', 'three');
    expect(store.get('a')).toBe('three');
    expect(store.size).toBe(1);
    expect(store.bytes).toBe(5);
  });

  it('keeps nothing with a count cap of 0', () => {
    const store = new ResponseStore<string>({ maxResponses: 0, maxBytes: 100 }, byLength);
    expect(store.put('a', 'x')).toBe(false);
    expect(store.get('a')).toBeUndefined();
  });

  it('forgets a deleted response', () => {
    const store = new ResponseStore<string>({ maxResponses: 2, maxBytes: 100 }, byLength);
    store.put('a', 'x');
    expect(store.delete('a')).toBe(true);
    expect(store.delete('a')).toBe(false);
    expect(store.get('a')).toBeUndefined();
    expect(store.bytes).toBe(0);
  });

  it('refuses limits that are not whole numbers of at least 0', () => {
    expect(() => new ResponseStore({ maxResponses: -1, maxBytes: 1 })).toThrow(RangeError);
    expect(() => new ResponseStore({ maxResponses: 1, maxBytes: 0.5 })).toThrow(RangeError);
  });

  it('counts values by their JSON text in UTF-8 by default', () => {
    expect(utf8Length('aé€😀')).toBe(1 + 2 + 3 + 4);
    expect(utf8Length('\ud800')).toBe(3);
    expect(jsonBytes({ a: 'é' })).toBe(new TextEncoder().encode('{"a":"é"}').length);
    const store = new ResponseStore<object>({ maxResponses: 5, maxBytes: 20 });
    store.put('a', { text: 'x'.repeat(8) });
    expect(store.bytes).toBe(jsonBytes({ text: 'x'.repeat(8) }));
  });
});
