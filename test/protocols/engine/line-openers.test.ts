/** LineOpenerFinder: a tool's name alone on a line, found back from a `<` or held at a chunk end. */
import { describe, expect, it } from 'vitest';
import { LineOpenerFinder } from '../../../src/protocols/engine/line-openers.ts';
import { compileOpeners } from '../../../src/scan/opener-trie.ts';

const names = ['list_dir', 'read_file'];
const trie = compileOpeners([
  ...names.map((name) => ({ literal: `<${name}`, delimited: true, data: name })),
  ...names.map((name) => ({ literal: `\n${name}`, delimited: true, data: `line ${name}` })),
]);
const finder = new LineOpenerFinder(trie, '\nread_file'.length);

describe('LineOpenerFinder.before', () => {
  it.each([
    ['Look.\nlist_dir\n<path>', 5, 'line list_dir'],
    ['Look.\nlist_dir  \r\n    <path>', 5, 'line list_dir'],
    ['x\nread_file\n\t<path>', 1, 'line read_file'],
  ])('finds the name line before the tag in %j', (text, at, data) => {
    expect(finder.before(text, text.lastIndexOf('<'), 0)).toBe(at);
    expect(finder.found?.opener.data).toBe(data);
  });

  it.each([
    'Look.\nlist_dir now\n<path>',
    'Look.\nmy list_dir\n<path>',
    'Look.\nlist_dirs\n<path>',
    'Look.\nlist_dir\n\n<path>',
    'Look.\nlist_dir\nx <path>',
    `Look.\nlist_dir\n${' '.repeat(65)}<path>`,
  ])('finds none in %j', (text) => {
    expect(finder.before(text, text.lastIndexOf('<'), 0)).toBe(-1);
  });

  it('looks no further back than start', () => {
    const text = 'a\nlist_dir\n<path>';
    expect(finder.before(text, text.indexOf('<'), 2)).toBe(-1);
  });
});

describe('LineOpenerFinder.heldAtEnd', () => {
  it.each([
    ['Look.\nlis', 4],
    ['Look.\nlist_dir', 9],
    ['Look.\nlist_dir  ', 11],
    ['Look.\nlist_dir\n', 10],
    ['Look.\nlist_dir\n  ', 12],
    ['Look.\n', 1],
  ])('holds the possible start of a line opener in %j', (text, held) => {
    expect(finder.heldAtEnd(text, 0)).toBe(held);
  });

  it.each(['Look.', 'Look.\nlisten', 'Look.\nlist_dir x', 'Look.\nlist_dir\nx'])(
    'holds nothing in %j',
    (text) => {
      expect(finder.heldAtEnd(text, 0)).toBe(0);
    },
  );
});
