import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LiteralFinder } from '../../src/scan/literal-finder.ts';
import { splitAt } from '../support/chunks.ts';

function findInChunks(literal: string, chunks: string[]): number {
  const finder = new LiteralFinder(literal);
  let offset = 0;
  for (const chunk of chunks) {
    const found = finder.find(chunk, 0, chunk.length);
    if (found !== -1) return offset + found;
    offset += chunk.length;
  }
  return -1;
}

describe('LiteralFinder', () => {
  it('finds a literal inside one chunk', () => {
    expect(findInChunks('</tool_call>', ['abc</tool_call>x'])).toBe(15);
  });

  it('finds a literal cut by chunk boundaries', () => {
    expect(findInChunks('</tool_call>', ['abc</to', 'ol_c', 'all>x'])).toBe(15);
  });

  it('handles self-overlapping literals', () => {
    expect(findInChunks('```', ['a``', '`'])).toBe(4);
    expect(findInChunks('aab', ['aa', 'aab'])).toBe(5);
  });

  it('keeps the progress of each finder apart when finders share a literal', () => {
    const first = new LiteralFinder('abab');
    const second = new LiteralFinder('abab');
    expect(first.find('xaba', 0, 4)).toBe(-1);
    expect(second.find('ab', 0, 2)).toBe(-1);
    expect(first.partial).toBe(3);
    expect(second.partial).toBe(2);
    expect(second.find('ab', 0, 2)).toBe(2);
    // "xaba" + "abab": the pending "aba" cannot go on with "a", and the match ends the chunk.
    expect(first.find('abab', 0, 4)).toBe(4);
  });

  it('respects the end bound', () => {
    const finder = new LiteralFinder('ab');
    expect(finder.find('xxab', 0, 3)).toBe(-1);
    expect(finder.find('b', 0, 1)).toBe(1);
  });

  it('agrees with indexOf for any text and any split', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('a', 'b', '<', '/', '>') }),
        fc.constantFrom('ab', 'aab', '</a>', 'aba'),
        fc.array(fc.nat(), { maxLength: 5 }),
        (text, literal, cuts) => {
          const chunks = splitAt(text, cuts);
          const expected = text.indexOf(literal);
          expect(findInChunks(literal, chunks)).toBe(
            expected === -1 ? -1 : expected + literal.length,
          );
        },
      ),
    );
  });
});
