/**
 * docs/errors.md lists every error kind (`TOOLWIRE_ERROR_KINDS`) under "Kinds", and every parse
 * fault code (`ProtocolFaultCode`) under "Parse faults", each once, as the start of a list item.
 */
import { readFileSync } from 'node:fs';
import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { TOOLWIRE_ERROR_KINDS } from '../../src/core/errors.ts';

const ROOT = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, ROOT), 'utf8');

/**
 * The members of `ProtocolFaultCode`, read from its source: the union has no runtime list, and
 * a code added there must reach the doc too.
 */
function faultCodes(): string[] {
  const source = read('src/core/problems.ts');
  const start = source.indexOf('export type ProtocolFaultCode =');
  expect(start, 'ProtocolFaultCode in src/core/problems.ts').toBeGreaterThan(-1);
  // Comments first: they may hold a semicolon.
  const rest = source.slice(start).replace(/\/\*[\s\S]*?\*\//g, '');
  const union = rest.slice(0, rest.indexOf(';'));
  return [...union.matchAll(/'([a-z-]+)'/g)].map((match) => match[1]!);
}

/** The code span that opens each list item of a section (from its `##` heading to the next). */
function listedNames(text: string, heading: string): string[] {
  const tokens = new MarkdownIt().parse(text, {});
  const names: string[] = [];
  let inside = false;
  tokens.forEach((token, index) => {
    if (token.type === 'heading_open' && token.tag === 'h2')
      inside = (tokens[index + 1]?.content ?? '').startsWith(heading);
    if (!inside || token.type !== 'list_item_open') return;
    const first = tokens.slice(index).find((next) => next.type === 'inline')?.children?.[0];
    if (first?.type === 'code_inline') names.push(first.content);
  });
  return names;
}

const doc = read('docs/errors.md');

describe('docs/errors.md', () => {
  it('lists every error kind once, under "Kinds"', () => {
    const listed = listedNames(doc, 'Kinds');
    expect([...listed].sort()).toEqual([...TOOLWIRE_ERROR_KINDS].sort());
  });

  it('lists every parse fault code once, under "Parse faults", apart from the kinds', () => {
    const codes = faultCodes();
    expect(codes).toContain('malformed-call');
    expect(codes.length).toBeGreaterThanOrEqual(5);
    const listed = listedNames(doc, 'Parse faults');
    expect([...listed].sort()).toEqual([...codes].sort());
    for (const code of codes) expect(listedNames(doc, 'Kinds')).not.toContain(code);
  });

  it('says that parse faults are events, not thrown, and what every error has', () => {
    expect(doc).toMatch(/reported as events/);
    expect(doc).toMatch(/never thrown/);
    for (const word of ['`kind`', '`cause`', 'isInstance']) expect(doc).toContain(word);
  });

  it('is linked from the README', () => {
    expect(read('README.md')).toContain('](docs/errors.md)');
  });
});
