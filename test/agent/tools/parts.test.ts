import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidToolInputError } from '../../../src/agent/tools/errors.ts';
import { compileGlob } from '../../../src/agent/tools/files/glob.ts';
import { scanLines } from '../../../src/agent/tools/files/read.ts';
import { splitLines } from '../../../src/agent/tools/files/split-lines.ts';
import { isTestFile } from '../../../src/agent/tools/files/test-files.ts';
import { CappedOutput } from '../../../src/agent/tools/output/capped-output.ts';
import { renderCodeBlock } from '../../../src/agent/tools/output/code-block.ts';
import { Pacer } from '../../../src/agent/tools/pacer.ts';
import { parseQuery } from '../../../src/agent/tools/search/terms.ts';
import { DEFAULTS, resolveSettings } from '../../../src/agent/tools/settings.ts';

describe('search query terms', () => {
  it('splits words, keeps quoted phrases, reads + and -, drops AND/OR, lower-cases', () => {
    expect(parseQuery('Login "Session Token" +JWT -mock AND or OR')).toEqual({
      positive: ['login', 'session token', 'jwt', 'or'],
      required: ['jwt'],
      excluded: ['mock'],
    });
    expect(parseQuery('-"test double" auth')).toEqual({
      positive: ['auth'],
      required: [],
      excluded: ['test double'],
    });
    expect(parseQuery('a a A')).toEqual({ positive: ['a'], required: [], excluded: [] });
    expect(parseQuery('- +')).toEqual({ positive: ['-', '+'], required: [], excluded: [] });
  });

  it('refuses a query with nothing to look for', () => {
    for (const query of ['-x', '""', 'AND OR', '-"a b"']) {
      expect(() => parseQuery(query), query).toThrow(InvalidToolInputError);
    }
  });
});

describe('test-file rule', () => {
  it('recognises test folders and test-file names of common languages', () => {
    for (const path of [
      'test/a.ts',
      'src/tests/a.py',
      'src/__tests__/a.js',
      'src/__mocks__/fs.js',
      'spec/models/user_spec.rb',
      'src/login.test.ts',
      'src/login.spec.tsx',
      'src/types.test.d.ts',
      'pkg/server_test.go',
      'app/test_models.py',
      'app/conftest.py',
      'src/main/java/LoginTest.java',
      'Tests/LoginTests.cs',
      'x/testdata/input.txt',
    ]) {
      expect(isTestFile(path), path).toBe(true);
    }
    for (const path of [
      'src/login.ts',
      'src/testing.ts',
      'src/attest.py',
      'src/contest.py',
      'src/latest/x.ts',
      'src/Test.java',
      'docs/testimonials.md',
      'test.ts',
    ]) {
      expect(isTestFile(path), path).toBe(false);
    }
  });
});

describe('globs', () => {
  it('compile to name or path tests', () => {
    const cases: [string, string, boolean][] = [
      ['*.ts', 'a/b/c.ts', true],
      ['*.ts', 'a/b/c.tsx', false],
      ['a/*.ts', 'a/b/c.ts', false],
      ['a/**/*.ts', 'a/c.ts', true],
      ['a/**/*.ts', 'a/b/c/d.ts', true],
      ['a/**', 'a/b/c', true],
      ['**/b/*', 'a/b/c', true],
      ['**/b/*', 'b/c', true],
      ['a?c.js', 'abc.js', true],
      ['a?c.js', 'a/c.js', false],
      ['*.{ts,js}', 'x.js', true],
      ['*.{ts,js}', 'x.py', false],
      ['[a-c]*.py', 'b.py', true],
      ['[!a-c]*.py', 'b.py', false],
      ['a.b', 'axb', false],
      ['(x)+.md', '(x)+.md', true],
      ['\\*.md', '*.md', true],
      ['\\*.md', 'a.md', false],
    ];
    for (const [glob, path, expected] of cases) {
      const limits = { maxChars: DEFAULTS.maxGlobChars, maxBraceDepth: DEFAULTS.maxGlobBraceDepth };
      expect(compileGlob(glob, 'glob', limits)(path), `${glob} ${path}`).toBe(expected);
    }
  });
});

describe('capped output', () => {
  it('never exceeds its limit and says it was cut', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1_000, max: 3_000 }),
        fc.array(fc.string({ maxLength: 900 }), { maxLength: 30 }),
        fc.string({ maxLength: 1_000 }),
        (limit, blocks, notice) => {
          const output = new CappedOutput(limit);
          let added = 0;
          for (const block of blocks) if (output.add(block)) added += 1;
          const text = output.finish(notice);
          expect(text.length).toBeLessThanOrEqual(limit);
          expect(output.cut).toBe(added < blocks.length);
          if (output.cut) expect(text).toContain(`[Output cut at ${limit} characters.`);
        },
      ),
    );
  });

  it('renders numbered lines that fit in the room, closing the fence', () => {
    const lines = [1, 2, 3, 10].map((number) => ({
      number,
      text: `code ${number}`,
      marked: number === 2,
    }));
    expect(renderCodeBlock('ts', lines, 1_000, true).text).toBe(
      '```ts\n   1 | code 1\n>  2 | code 2\n   3 | code 3\n  10 | code 10\n```',
    );
    const partial = renderCodeBlock('ts', lines, 40, false);
    expect(partial.shown).toBe(2);
    expect(partial.text).toBe('```ts\n 1 | code 1\n 2 | code 2\n```');
    expect(renderCodeBlock('ts', lines, 5, false)).toEqual({ text: '', shown: 0 });
  });
});

describe('reading files', () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'toolwire-read-'));
  });
  afterAll(() => rm(folder, { recursive: true, force: true }));

  async function scan(content: string | Uint8Array, maxBytes = 1_000_000) {
    const path = join(folder, 'file');
    await writeFile(path, content);
    const lines: string[] = [];
    const settings = resolveSettings({ root: folder, maxFileBytes: maxBytes });
    const onLine = (text: string) => {
      lines.push(text);
      return true;
    };
    const result = await scanLines(settings, { real: path, rel: 'file' }, onLine, new Pacer());
    return { lines, result };
  }

  it('numbers lines across CRLF, a BOM, a missing final newline and chunk boundaries', async () => {
    const long = 'é'.repeat(70_000); // crosses the 64 KiB chunk boundary inside a character
    const { lines, result } = await scan(`\uFEFFone\r\ntwo\n\n${long}\nlast`);
    expect(lines).toEqual(['one', 'two', '', long, 'last']);
    expect(result).toEqual({ binary: false, lines: 5, truncated: false, stopped: false });
    expect(splitLines(`one\r\ntwo\n\n${long}\nlast\n`)).toEqual(lines);
    expect(splitLines('')).toEqual([]);
  });

  it('treats a NUL byte in the first 8000 bytes as binary, and one later as text', async () => {
    expect((await scan(new Uint8Array([104, 105, 0, 10]))).result).toEqual({ binary: true });
    const late = `${'a'.repeat(9_000)}\u0000\n`;
    expect((await scan(late)).result.binary).toBe(false);
  });

  it('reads no more than maxBytes and says the file goes on', async () => {
    const { lines, result } = await scan('0123456789\n'.repeat(100), 25);
    expect(lines).toEqual(['0123456789', '0123456789', '012']);
    expect(result).toEqual({ binary: false, lines: 3, truncated: true, stopped: false });
    const exact = await scan('0123456789\n', 11);
    expect(exact.result).toEqual({ binary: false, lines: 1, truncated: false, stopped: false });
  });
});
