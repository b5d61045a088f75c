import { rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CodeToolError,
  createCodeTools,
  InvalidToolInputError,
  PathNotFoundError,
  PathOutsideRootError,
  WrongPathKindError,
} from '../../../src/agent/tools/index.ts';
import { OUTSIDE_SECRET, useWorkspace } from './workspace.ts';

const ws = useWorkspace();

/** Each tool called with `path` in its path parameter. */
const CALLS: readonly [string, (path: string) => Promise<string>][] = [
  ['search', (path) => ws.tools.search.execute({ query: 'secret', path })],
  ['extract', (path) => ws.tools.extract.execute({ file_path: path })],
  ['query', (path) => ws.tools.query.execute({ pattern: 'loginUser()', path })],
  ['list_files', (path) => ws.tools.list_files.execute({ path })],
];

async function failure(run: () => Promise<string>): Promise<unknown> {
  try {
    const text = await run();
    return new Error(`expected a failure, got: ${text.slice(0, 200)}`);
  } catch (error) {
    return error;
  }
}

describe('paths are confined to the root', () => {
  const escapes = (): string[] => [
    '..',
    '../',
    '../outside/secret.txt',
    'src/../../outside/secret.txt',
    'src/auth/../../../outside',
    '..\\outside\\secret.txt',
    'src\\..\\..\\outside',
    ' ../outside/secret.txt ',
    join(ws.workspace.outside, 'secret.txt'),
    ws.workspace.outside,
    '/etc/passwd',
    '/',
    `${ws.workspace.rootLink}/../outside/secret.txt`,
  ];

  for (const [tool, call] of CALLS) {
    it(`${tool} refuses .., backslash .. and absolute paths outside, naming the path`, async () => {
      for (const path of escapes()) {
        const error = await failure(() => call(path));
        expect(error, path).toBeInstanceOf(PathOutsideRootError);
        expect((error as PathOutsideRootError).path).toBe(path);
        expect((error as Error).message).toContain(JSON.stringify(path));
      }
    });

    it(`${tool} refuses symlinks that lead out: file, folder, and a link in the middle`, async () => {
      for (const path of [
        'src/leak.txt',
        'src/leakdir',
        'src/leakdir/',
        'src/leakdir/secret.txt',
        'src/leakdir/nested/inner.ts',
        'src/leakdir/nested/../secret.txt',
        'src/leakdir/not-there.txt',
        join(ws.workspace.root, 'src/leakdir/secret.txt'),
      ]) {
        const error = await failure(() => call(path));
        expect(error, path).toBeInstanceOf(PathOutsideRootError);
        expect((error as Error).message).toMatch(/outside the root folder/);
      }
    });

    it(`${tool} reads encoded and look-alike tricks as plain names that do not exist`, async () => {
      for (const path of [
        '%2e%2e/%2e%2e/outside/secret.txt',
        '%2e%2e%2foutside%2fsecret.txt',
        '..%2f..%2foutside',
        '....//....//outside/secret.txt',
        '\u2024\u2024/outside/secret.txt',
        '\uff0e\uff0e/outside/secret.txt',
        'file:///etc/passwd',
        '~/.ssh/id_rsa',
      ]) {
        const error = await failure(() => call(path));
        expect(error, path).toBeInstanceOf(PathNotFoundError);
        expect((error as Error).message).toContain(JSON.stringify(path));
      }
    });

    it(`${tool} refuses a path with a NUL byte`, async () => {
      const error = await failure(() => call('src/auth/login.ts\0.png'));
      expect(error).toBeInstanceOf(InvalidToolInputError);
    });
  }

  it('reports a symlink loop as such', async () => {
    await symlink('loop-b', join(ws.workspace.root, 'loop-a'));
    await symlink('loop-a', join(ws.workspace.root, 'loop-b'));
    try {
      await expect(ws.tools.extract.execute({ file_path: 'loop-a' })).rejects.toThrow(
        new WrongPathKindError('loop-a', 'Path "loop-a" is a symlink loop.'),
      );
      // Walks skip it like any symlink that leads nowhere.
      expect(await ws.tools.list_files.execute({})).not.toContain('loop-');
    } finally {
      await rm(join(ws.workspace.root, 'loop-a'));
      await rm(join(ws.workspace.root, 'loop-b'));
    }
  });

  it('treats a dangling symlink as missing, not as readable', async () => {
    await expect(ws.tools.extract.execute({ file_path: 'dangling.txt' })).rejects.toBeInstanceOf(
      PathNotFoundError,
    );
  });

  it('allows paths that stay inside: ./, inner .., absolute under the root, inside symlinks', async () => {
    for (const path of [
      './src/auth/login.ts',
      'src/util/../auth/login.ts',
      'src\\auth\\login.ts',
      join(ws.workspace.root, 'src/auth/login.ts'),
    ]) {
      const text = await ws.tools.extract.execute({ file_path: path });
      expect(text, path).toContain('File: src/auth/login.ts');
    }
    // A symlink to a file inside the root is read, and named by where it really is.
    const linked = await ws.tools.extract.execute({ file_path: 'src/models-link.py#find_user' });
    expect(linked).toContain('File: app/models.py');
  });

  it('works when the root itself is given through a symlink, under either spelling', async () => {
    const linked = createCodeTools({ root: ws.workspace.rootLink });
    const expected = await ws.tools.extract.execute({ file_path: 'src/auth/login.ts#loginUser' });
    for (const path of [
      'src/auth/login.ts#loginUser',
      `${ws.workspace.rootLink}/src/auth/login.ts#loginUser`,
      `${ws.workspace.root}/src/auth/login.ts#loginUser`,
    ]) {
      expect(await linked.extract.execute({ file_path: path }), path).toBe(expected);
    }
    await expect(
      linked.extract.execute({ file_path: '../outside/secret.txt' }),
    ).rejects.toBeInstanceOf(PathOutsideRootError);
  });

  it('refuses an absolute path through some other symlink, even one that leads back in', async () => {
    // Only the root's own spellings are accepted; other absolute paths are outside by name.
    const path = `${ws.workspace.rootLink}/src/auth/login.ts`;
    await expect(ws.tools.extract.execute({ file_path: path })).rejects.toBeInstanceOf(
      PathOutsideRootError,
    );
  });

  it('walks skip symlinks that lead out, and do not enter linked folders', async () => {
    const listed = await ws.tools.list_files.execute({});
    const files = listed.split('\n').filter((line) => !line.includes(' '));
    expect(files.length).toBe(17);
    expect(files.join('\n')).not.toMatch(/leak|dangling|outside|secret\.txt/);
    expect(listed).toContain('src/models-link.py');
    expect(listed).not.toContain('app-link/');
    expect(listed).toMatch(/Note: 3 symlinks leading outside the root skipped/);

    const searched = await ws.tools.search.execute({ query: '"TOP SECRET"' });
    expect(searched).not.toContain(OUTSIDE_SECRET);
    expect(searched).toMatch(/No matches/);

    const queried = await ws.tools.query.execute({ pattern: 'function loginUser() {}' });
    expect(queried).not.toContain('inner.ts');
  });

  it('never returns text from outside the root, whatever path is asked for', async () => {
    const segment = fc.constantFrom(
      '..',
      '.',
      '',
      'src',
      'auth',
      'leakdir',
      'leak.txt',
      'nested',
      'secret.txt',
      'outside',
      '%2e%2e',
      '..\\..',
      'app-link',
      'login.ts',
    );
    const path = fc.tuple(
      fc.constantFrom('', '/', `${ws.workspace.root}/`, `${ws.workspace.base}/`),
      fc.array(segment, { minLength: 1, maxLength: 6 }),
    );
    await fc.assert(
      fc.asyncProperty(path, fc.constantFrom(...CALLS), async ([prefix, parts], [, call]) => {
        try {
          const text = await call(prefix + parts.join('/'));
          expect(text).not.toContain('TOP SECRET');
          expect(text).not.toContain('inner.ts');
        } catch (error) {
          expect(error).toBeInstanceOf(CodeToolError);
        }
      }),
      { numRuns: 300 },
    );
  });
});
