import { describe, expect, it } from 'vitest';
import { InvalidToolInputError, PathNotFoundError } from '../../../src/agent/tools/index.ts';
import { useWorkspace } from './workspace.ts';

const ws = useWorkspace(async (workspace) => {
  await workspace.write(
    'scratch/ranking/few.txt',
    'alpha once\nalpha twice\nalpha thrice\nalpha four\nalpha five\n',
  );
  await workspace.write('scratch/ranking/both.txt', 'nothing\nalpha and beta together\n');
  const numbered = (marks: readonly number[]) =>
    Array.from({ length: 30 }, (_, index) =>
      marks.includes(index + 1) ? `needle on ${index + 1}` : `line ${index + 1}`,
    ).join('\n');
  await workspace.write('scratch/merge/close.txt', numbered([10, 14]));
  await workspace.write('scratch/merge/apart.txt', numbered([10, 16]));
});

/** The `File:` names in output order. */
function filesOf(text: string): string[] {
  return [...text.matchAll(/^File: (\S+)/gm)].map((match) => match[1]!);
}

/** The `Lines:` ranges in output order. */
function rangesOf(text: string): string[] {
  return [...text.matchAll(/^Lines: (\d+-\d+)/gm)].map((match) => match[1]!);
}

/** Line numbers marked as matches. */
function markedOf(text: string): number[] {
  return [...text.matchAll(/^> +(\d+) \|/gm)].map((match) => Number(match[1]));
}

describe('search', () => {
  it('finds a term with file, line ranges, context and marked matching lines', async () => {
    const text = await ws.tools.search.execute({ query: 'loginUser', path: 'src/auth' });
    expect(filesOf(text)).toEqual(['src/auth/login.ts']);
    expect(rangesOf(text)).toEqual(['7-11', '29-33']);
    expect(markedOf(text)).toEqual([9, 31]);
    expect(text).toContain('>  9 | export function loginUser(credentials: Credentials): string {');
    expect(text).toContain('  10 |   const email = normalizeEmail(credentials.email);');
    expect(text).toContain('```typescript\n');
    expect(text).toMatch(/Found 2 matching lines in 1 file under src\/auth/);
  });

  it('honours .gitignore files, nested ones and their negations, and skips binary files', async () => {
    const text = await ws.tools.search.execute({ query: 'loginUser' });
    // build/ and *.secret are ignored at the root; src/.gitignore ignores generated/ and
    // re-includes keep.secret; assets/logo.bin holds the word but is binary.
    expect(filesOf(text).sort()).toEqual(['src/auth/login.ts', 'src/keep.secret']);
    expect(text).toMatch(/Note: 1 binary file skipped/);
    expect(text).not.toMatch(/bundle|top\.secret|generated|logo\.bin/);
  });

  it('skips test files unless allow_tests, and says how many it skipped', async () => {
    const skipped = await ws.tools.search.execute({ query: 'find_user' });
    // billing.py has two matching lines; models-link.py is a symlink to models.py, inside the root.
    expect(filesOf(skipped)).toEqual([
      'app/services/billing.py',
      'app/models.py',
      'src/models-link.py',
    ]);
    expect(skipped).toMatch(/Note: 2 test files skipped; set allow_tests to true/);

    const allowed = await ws.tools.search.execute({ query: 'find_user', allow_tests: true });
    expect(filesOf(allowed)).toContain('tests/test_models.py');
    expect(allowed).not.toMatch(/test files? skipped/);

    // Parameters written as XML text arrive as strings.
    const asText = await ws.tools.search.execute({ query: 'loginUser', allow_tests: 'true' });
    expect(filesOf(asText)).toContain('src/auth/login.spec.ts');
  });

  it('searches a file named explicitly even when it is a test file', async () => {
    const text = await ws.tools.search.execute({
      query: 'loginUser',
      path: 'src/auth/login.spec.ts',
    });
    expect(filesOf(text)).toEqual(['src/auth/login.spec.ts']);
  });

  it('says a binary file given as path was skipped', async () => {
    const text = await ws.tools.search.execute({ query: 'loginUser', path: 'assets/logo.bin' });
    expect(text).toMatch(/No matches/);
    expect(text).toMatch(/1 binary file skipped/);
  });

  it('matches case-insensitively and inside words', async () => {
    const upper = await ws.tools.search.execute({ query: 'LOGINUSER', path: 'src/auth' });
    expect(markedOf(upper)).toEqual([9, 31]);
    const inside = await ws.tools.search.execute({ query: 'sessionstore' });
    expect(filesOf(inside)).toEqual(['README.md', 'src/auth/session.js']);
  });

  it('ranks files containing more of the terms first, then by matching lines', async () => {
    const text = await ws.tools.search.execute({ query: 'alpha beta', path: 'scratch/ranking' });
    expect(filesOf(text)).toEqual(['scratch/ranking/both.txt', 'scratch/ranking/few.txt']);
    const single = await ws.tools.search.execute({ query: 'alpha', path: 'scratch/ranking' });
    expect(filesOf(single)).toEqual(['scratch/ranking/few.txt', 'scratch/ranking/both.txt']);
  });

  it('requires +terms, excludes files with -terms, and keeps quoted phrases whole', async () => {
    const required = await ws.tools.search.execute({
      query: '+verifyToken loginUser',
      path: 'src',
    });
    expect(filesOf(required)).toEqual(['src/auth/login.ts']);
    expect(required).toContain('all of "verifytoken"');

    const excluded = await ws.tools.search.execute({
      query: 'loginUser -credentials',
      path: 'src',
    });
    expect(filesOf(excluded)).toEqual(['src/keep.secret']);

    const phrase = await ws.tools.search.execute({ query: '"session token"' });
    expect(filesOf(phrase)).toEqual(['src/auth/login.ts']);
    expect(markedOf(phrase)).toEqual([8]);

    const operators = await ws.tools.search.execute({
      query: 'loginUser AND verifyToken',
      path: 'src/auth',
    });
    expect(operators).toContain('any of "loginuser", "verifytoken"');
  });

  it('merges ranges whose context lines touch, and keeps distant ones apart', async () => {
    const close = await ws.tools.search.execute({
      query: 'needle',
      path: 'scratch/merge/close.txt',
    });
    expect(rangesOf(close)).toEqual(['8-16']);
    const apart = await ws.tools.search.execute({
      query: 'needle',
      path: 'scratch/merge/apart.txt',
    });
    expect(rangesOf(apart)).toEqual(['8-12', '14-18']);
    const wide = await ws.workspace
      .tools({ contextLines: 0 })
      .search.execute({ query: 'needle', path: 'scratch/merge/close.txt' });
    expect(rangesOf(wide)).toEqual(['10-10', '14-14']);
  });

  it('reports no match as text, not as an error', async () => {
    const text = await ws.tools.search.execute({ query: 'zzqxv_nothing' });
    expect(text).toMatch(/No matches under the root \(\d+ files searched\)/);
    expect(text).toMatch(/Try fewer or shorter terms/);
  });

  it('notes a folder excluded by .gitignore instead of searching it', async () => {
    const text = await ws.tools.search.execute({ query: 'loginUser', path: 'build' });
    expect(text).toMatch(/Note: build is excluded by a \.gitignore file/);
    expect(filesOf(text)).toEqual([]);
  });

  it('rejects bad input with errors naming the parameter', async () => {
    const cases: [unknown, string][] = [
      [{}, 'query'],
      [{ query: '   ' }, 'query'],
      [{ query: 42 }, 'query'],
      [{ query: '-onlyexcluded' }, 'query'],
      [{ query: 'x', allow_tests: 'maybe' }, 'allow_tests'],
      [{ query: 'x', path: 7 }, 'path'],
      [{ query: 'x', paths: 'src' }, 'paths'],
      ['x', ''],
    ];
    for (const [input, parameter] of cases) {
      const error = await ws.tools.search.execute(input).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error, JSON.stringify(input)).toBeInstanceOf(InvalidToolInputError);
      expect((error as InvalidToolInputError).parameter).toBe(parameter);
    }
    await expect(ws.tools.search.execute({ query: 'x', path: 'nope' })).rejects.toBeInstanceOf(
      PathNotFoundError,
    );
  });
});

describe('search limits', () => {
  it('reads no further than maxFileBytes in a large file, and says so', async () => {
    const big = `needle_start\n${'filler line of text\n'.repeat(100_000)}needle_end\n`;
    await ws.workspace.write('scratch/big/big.txt', big);
    const small = ws.workspace.tools({ maxFileBytes: 100_000 });
    const end = await small.search.execute({ query: 'needle_end', path: 'scratch/big' });
    expect(end).toMatch(/No matches/);
    expect(end).toMatch(
      /only the first 100000 bytes of 1 large file were searched \(scratch\/big\/big\.txt\)/,
    );
    const start = await small.search.execute({ query: 'needle_start', path: 'scratch/big' });
    expect(markedOf(start)).toEqual([1]);
    // The default limit (1 MB) also applies: the 2 MB file is read in part.
    const byDefault = await ws.tools.search.execute({ query: 'needle_end', path: 'scratch/big' });
    expect(byDefault).toMatch(/only the first 1000000 bytes/);
    const whole = await ws.workspace
      .tools({ maxFileBytes: 5_000_000 })
      .search.execute({ query: 'needle_end', path: 'scratch/big' });
    expect(markedOf(whole)).toEqual([100_002]);
  });

  it('caps the output, says it was cut and how to narrow, and never exceeds the limit', async () => {
    for (let index = 0; index < 40; index += 1) {
      await ws.workspace.write(
        `scratch/many/file${String(index).padStart(2, '0')}.txt`,
        `intro\nthe widget is here ${index}\noutro\n`,
      );
    }
    const capped = ws.workspace.tools({ maxOutputChars: 1_500 });
    const text = await capped.search.execute({ query: 'widget', path: 'scratch/many' });
    expect(text.length).toBeLessThanOrEqual(1_500);
    expect(text).toMatch(/Found 40 matching lines in 40 files/);
    const shownFiles = filesOf(text).length;
    expect(shownFiles).toBeGreaterThan(0);
    expect(shownFiles).toBeLessThan(40);
    expect(text).toMatch(
      new RegExp(
        `\\[Output cut at 1500 characters\\. Showing ${shownFiles} of 40 files with matches\\. Narrow the search: give a path`,
      ),
    );
    const full = await ws.tools.search.execute({ query: 'widget', path: 'scratch/many' });
    expect(filesOf(full)).toHaveLength(40);
    expect(full).not.toMatch(/Output cut/);
  });

  it('shows the first lines of one huge file when even it does not fit', async () => {
    const lines = Array.from({ length: 400 }, (_, index) => `match number ${index + 1}`);
    await ws.workspace.write('scratch/huge/one.txt', lines.join('\n'));
    const capped = ws.workspace.tools({ maxOutputChars: 1_200, maxRangesPerFile: 1 });
    const text = await capped.search.execute({ query: 'match', path: 'scratch/huge' });
    expect(text.length).toBeLessThanOrEqual(1_200);
    expect(text).toContain('>   1 | match number 1');
    expect(text).toMatch(/```\n\n\[Output cut at 1200 characters/);
  });

  it('shows at most maxRangesPerFile ranges per file and says where the rest start', async () => {
    const text = await ws.workspace
      .tools({ maxRangesPerFile: 1 })
      .search.execute({ query: 'needle', path: 'scratch/merge/apart.txt' });
    expect(rangesOf(text)).toEqual(['8-12']);
    expect(text).toContain('… 1 more matching range in this file (from line 14)');
  });

  it('cuts very long lines (minified code) and says how much is left', async () => {
    await ws.workspace.write('scratch/min/app.min.js', `var a=1;${'x'.repeat(5_000)};findme();`);
    const text = await ws.tools.search.execute({ query: 'findme', path: 'scratch/min' });
    expect(text).toMatch(/… \[4\d{3} more characters\]/);
    expect(text.length).toBeLessThan(2_000);
  });

  it('matches a long line against many terms the same way (term by term, with pauses)', async () => {
    const long = `${'x'.repeat(300_000)} Needle ${'y'.repeat(1_000)}`;
    await ws.workspace.write('scratch/heavy/long.txt', `${long}\nplain line\n`);
    const absent = Array.from({ length: 20 }, (_, index) => `absent${index}`).join(' ');
    const found = await ws.tools.search.execute({
      query: `${absent} needle`,
      path: 'scratch/heavy',
    });
    expect(found).toContain('Found 1 matching line in 1 file');
    expect(markedOf(found)).toEqual([1]);
    const excluded = await ws.tools.search.execute({
      query: `${absent} plain -needle`,
      path: 'scratch/heavy',
    });
    expect(excluded).toContain('No matches under scratch/heavy');
    const required = await ws.tools.search.execute({
      query: `${absent} plain +needle`,
      path: 'scratch/heavy',
    });
    expect(markedOf(required)).toEqual([1, 2]);
  });

  it('says when the walk stopped at maxFilesWalked', async () => {
    const text = await ws.workspace.tools({ maxFilesWalked: 3 }).search.execute({ query: 'x' });
    expect(text).toContain('Note: the search stopped after 3 files; give a narrower path');
  });

  it('stops when the signal is aborted, before or during the walk', async () => {
    for (let index = 0; index < 300; index += 1) {
      await ws.workspace.write(`scratch/abort/f${index}.txt`, `abort target ${index}\n`);
    }
    const before = new AbortController();
    before.abort(new Error('stopped by the user'));
    await expect(
      ws.tools.search.execute({ query: 'target' }, { signal: before.signal }),
    ).rejects.toThrow('stopped by the user');

    const during = new AbortController();
    const running = ws.tools.search.execute({ query: 'target' }, { signal: during.signal });
    setImmediate(() => during.abort(new Error('aborted mid-walk')));
    await expect(running).rejects.toThrow('aborted mid-walk');
  });
});
