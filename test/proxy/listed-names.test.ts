import { describe, expect, it } from 'vitest';
import { listedNamesLine, MAX_LISTED_NAMES, plainNames } from '../../src/proxy/listed-names.ts';

describe('names a client sent, as the proxy repeats them', () => {
  it('lists distinct plain names and counts the others', () => {
    expect(plainNames(['web_search', 'web_search', 'mcp', 'a\nb', 'x'.repeat(65)])).toEqual({
      listed: ['web_search', 'mcp'],
      others: 2,
    });
    expect(listedNamesLine(['web_search', 'mcp'])).toBe('web_search, mcp');
    expect(listedNamesLine(['web_search', 'a b'])).toBe('web_search (and 1 other)');
    expect(listedNamesLine(['a\r\nb', 'c:d'])).toBe('2 others');
    expect(listedNamesLine([])).toBe('');
  });

  it('lists at most MAX_LISTED_NAMES', () => {
    const names = Array.from({ length: MAX_LISTED_NAMES + 5 }, (_, i) => `n${i}`);
    const { listed, others } = plainNames(names);
    expect(listed).toHaveLength(MAX_LISTED_NAMES);
    expect(others).toBe(5);
  });
});
