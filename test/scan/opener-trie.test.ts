import { describe, expect, it } from 'vitest';
import { compileOpeners } from '../../src/scan/opener-trie.ts';

const trie = compileOpeners([
  { literal: '<think>', delimited: false, data: 'reasoning' },
  { literal: '<search', delimited: true, data: 'search' },
  { literal: '<searchFiles', delimited: true, data: 'searchFiles' },
  { literal: '<say_hello', delimited: true, data: 'say_hello' },
  { literal: '<say_hello_world', delimited: true, data: 'say_hello_world' },
]);

describe('compileOpeners', () => {
  it('matches an exact literal', () => {
    expect(trie.match('x<think>y', 1)).toMatchObject({ kind: 'match', length: 7 });
  });

  it('matches a delimited name only when the name ends', () => {
    expect(trie.match('<search>', 0)).toMatchObject({ kind: 'match', length: 7 });
    expect(trie.match('<search attr="1">', 0)).toMatchObject({ kind: 'match', length: 7 });
    expect(trie.match('<search/>', 0)).toMatchObject({ kind: 'match', length: 7 });
    expect(trie.match('<searchFiles>', 0)).toMatchObject({
      kind: 'match',
      opener: { data: 'searchFiles' },
    });
    expect(trie.match('<searchX>', 0)).toEqual({ kind: 'none' });
  });

  it('prefers the longer tool name when the shorter one is its prefix', () => {
    expect(trie.match('<say_hello_world>', 0)).toMatchObject({
      opener: { data: 'say_hello_world' },
    });
    expect(trie.match('<say_hello>', 0)).toMatchObject({ opener: { data: 'say_hello' } });
  });

  it('reports partial when the text ends inside a possible opener', () => {
    expect(trie.match('<thi', 0)).toEqual({ kind: 'partial' });
    expect(trie.match('<search', 0)).toEqual({ kind: 'partial' });
    expect(trie.match('<say_hello', 0)).toEqual({ kind: 'partial' });
  });

  it('reports none as soon as no opener can match', () => {
    expect(trie.match('<b>', 0)).toEqual({ kind: 'none' });
    expect(trie.match('a', 0)).toEqual({ kind: 'none' });
  });

  it('lists the first characters to jump between', () => {
    expect(trie.firstCharacters).toEqual(['<'.charCodeAt(0)]);
  });
});
