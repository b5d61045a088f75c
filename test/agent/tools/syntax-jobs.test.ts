/**
 * The syntax worker answers the extract tool's questions itself (`symbol`, `enclosing`), so only
 * the answer crosses to the main thread: the same answers as asking the whole outline.
 */
import { describe, expect, it } from 'vitest';
import { Lang } from '../../../src/agent/tools/ast-grep.ts';
import { enclosing, findSymbol } from '../../../src/agent/tools/extract/outline.ts';
import { runSyntaxJob } from '../../../src/agent/tools/syntax/syntax-jobs.ts';

const TEXT = [
  'class Box {',
  '  open() {',
  '    return 1;',
  '  }',
  '}',
  'function wrap(x) {',
  '  return x;',
  '}',
  '',
].join('\n');
const grammar = Lang.JavaScript;

describe('syntax jobs that answer on the worker', () => {
  const outline = runSyntaxJob({ kind: 'outline', grammar, text: TEXT }) as ReturnType<
    typeof findSymbol
  >;

  it('finds a symbol as the outline does, and sends no names when it is found', () => {
    const answer = runSyntaxJob({ kind: 'symbol', grammar, text: TEXT, symbol: 'open' });
    expect(answer).toEqual({ found: findSymbol(outline, 'open'), names: [] });
    expect((answer as { found: unknown[] }).found).toHaveLength(1);
  });

  it('sends the names there are when the symbol is missing', () => {
    const answer = runSyntaxJob({ kind: 'symbol', grammar, text: TEXT, symbol: 'close' }) as {
      found: unknown[];
      names: string[];
    };
    expect(answer.found).toEqual([]);
    expect(answer.names).toEqual(expect.arrayContaining(['Box', 'Box.open', 'wrap']));
  });

  it('finds the enclosing definition of a line as the outline does', () => {
    for (const line of [1, 3, 7, 9])
      expect(runSyntaxJob({ kind: 'enclosing', grammar, text: TEXT, line })).toEqual(
        enclosing(outline, line),
      );
    expect(runSyntaxJob({ kind: 'enclosing', grammar, text: TEXT, line: 3 })).toMatchObject({
      qualified: 'Box.open',
    });
  });
});
