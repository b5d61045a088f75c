import { describe, expect, it } from 'vitest';
import { parseJson, parseLenientJson } from '../../src/scan/lenient-json.ts';

describe('parseJson / parseLenientJson', () => {
  it('parse JSON as written, with __proto__ an own property', () => {
    const value = parseJson('{"__proto__": {"x": 1}, "a": [1]}') as object;
    expect(Object.hasOwn(value, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(parseLenientJson('null')).toBeNull();
  });

  it('say undefined for text that is not JSON; the lenient one repairs what it can first', () => {
    expect(parseJson("{a: 'b',}")).toBeUndefined();
    expect(parseLenientJson("{a: 'b',}")).toEqual({ a: 'b' });
    expect(parseLenientJson('{"city": "Oslo"')).toEqual({ city: 'Oslo' });
    expect(parseLenientJson('{"city" "Paris" :: }')).toBeUndefined();
  });
});
