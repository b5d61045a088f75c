import { describe, expect, it } from 'vitest';
import { isWhiteSpace, isWordOrHyphen } from '../../src/scan/characters.ts';

/** Every UTF-16 code unit where `test` and `pattern` disagree. */
function disagreements(test: (code: number) => boolean, pattern: RegExp): number[] {
  const found: number[] = [];
  for (let code = 0; code <= 0xffff; code++) {
    if (test(code) !== pattern.test(String.fromCharCode(code))) found.push(code);
  }
  return found;
}

describe('character classes', () => {
  it('isWhiteSpace matches /\\s/ on every code unit', () => {
    expect(disagreements(isWhiteSpace, /\s/)).toEqual([]);
  });

  it('isWordOrHyphen matches /[\\w-]/ on every code unit', () => {
    expect(disagreements(isWordOrHyphen, /[\w-]/)).toEqual([]);
  });
});
