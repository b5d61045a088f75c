import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonExtent } from '../../src/scan/json-extent.ts';
import { splitAt } from '../support/chunks.ts';

/** Where the extent says the JSON at the start of `text` ends, feeding it `chunks` of it. */
function endOf(chunks: readonly string[]): number {
  const extent = new JsonExtent();
  let offset = 0;
  for (const chunk of chunks) {
    const stop = extent.write(chunk, 0, chunk.length);
    if (stop !== -1) return offset + stop;
    offset += chunk.length;
  }
  return -1;
}

describe('JsonExtent', () => {
  it('ends an object or array at its closing bracket, however it is cut', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.dictionary(fc.string(), fc.jsonValue()), fc.array(fc.jsonValue())),
        fc.string(),
        fc.array(fc.nat(), { maxLength: 4 }),
        (value, after, cuts) => {
          const json = JSON.stringify(value);
          expect(endOf(splitAt(json + after, cuts))).toBe(json.length);
        },
      ),
    );
  });

  it('skips brackets and escaped quotes inside strings', () => {
    const json = '{"a": "} ] \\" {", "b": ["\\\\", {}]}';
    expect(endOf([`${json} tail }`])).toBe(json.length);
  });

  it('says the JSON has not ended while a bracket or string is open', () => {
    expect(endOf(['{"a": [1, 2', '}'])).toBe(-1);
    expect(endOf(['{"a": "}'])).toBe(-1);
  });
});
