import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { InvalidToolInputError, PathNotFoundError } from '../../../src/agent/tools/index.ts';
import { useWorkspace } from './workspace.ts';

const ws = useWorkspace();

/** The listed paths (lines without spaces: the header and notes have them). */
function listed(text: string): string[] {
  return text.split('\n').filter((line) => line !== '' && !line.includes(' '));
}

const ALL_FILES = [
  '.gitignore',
  'README.md',
  'app/models.py',
  'app/services/billing.py',
  'assets/logo.bin',
  'cmd/server/main.go',
  'src/.gitignore',
  'src/auth/login.spec.ts',
  'src/auth/login.ts',
  'src/auth/session.js',
  'src/keep.secret',
  'src/models-link.py',
  'src/util/strings.ts',
  'tests/test_models.py',
  'web/index.html',
  'web/styles.css',
  'web/widget.jsx',
];

describe('list_files', () => {
  it('lists every file not ignored, sorted, relative to the root', async () => {
    const text = await ws.tools.list_files.execute({});
    expect(text.split('\n')[0]).toBe('17 files under the root:');
    expect(listed(text)).toEqual(ALL_FILES);
  });

  it('lists a folder, or a single file', async () => {
    const text = await ws.tools.list_files.execute({ path: 'src/auth' });
    expect(text).toBe(
      '3 files under src/auth:\nsrc/auth/login.spec.ts\nsrc/auth/login.ts\nsrc/auth/session.js',
    );
    expect(await ws.tools.list_files.execute({ path: 'app/models.py' })).toBe(
      'app/models.py\n(1 file: path names a file)',
    );
  });

  it('filters with globs: names at any depth, paths from the folder or the root', async () => {
    const cases: [Record<string, string>, string[]][] = [
      [{ glob: '*.ts' }, ['src/auth/login.spec.ts', 'src/auth/login.ts', 'src/util/strings.ts']],
      [
        { glob: 'src/**/*.ts' },
        ['src/auth/login.spec.ts', 'src/auth/login.ts', 'src/util/strings.ts'],
      ],
      [
        { glob: '**/*.py' },
        ['app/models.py', 'app/services/billing.py', 'src/models-link.py', 'tests/test_models.py'],
      ],
      [{ glob: 'app/*.py' }, ['app/models.py']],
      [{ glob: '*.{js,jsx}' }, ['src/auth/session.js', 'web/widget.jsx']],
      [{ glob: '[lm]*.ts' }, ['src/auth/login.spec.ts', 'src/auth/login.ts']],
      [{ glob: '[!l]*.ts' }, ['src/util/strings.ts']],
      [{ glob: '?????.ts' }, ['login.ts'].map((name) => `src/auth/${name}`)],
      [
        { path: 'src', glob: 'auth/*' },
        ['src/auth/login.spec.ts', 'src/auth/login.ts', 'src/auth/session.js'],
      ],
      [{ path: 'src', glob: 'src/util/*' }, ['src/util/strings.ts']],
      [{ glob: './web/*.css' }, ['web/styles.css']],
      [{ glob: '*.rs' }, []],
    ];
    for (const [input, expected] of cases) {
      const text = await ws.tools.list_files.execute(input);
      expect(listed(text), JSON.stringify(input)).toEqual(expected);
    }
    const none = await ws.tools.list_files.execute({ path: 'src', glob: '*.rs' });
    expect(none).toBe(
      'No files matching "*.rs" under src.\nNote: 2 symlinks leading outside the root skipped.',
    );
  });

  it('rejects malformed globs and bad paths', async () => {
    for (const glob of ['*.{ts,js', '[abc', '[z-a].ts']) {
      const error = await ws.tools.list_files.execute({ glob }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error, glob).toBeInstanceOf(InvalidToolInputError);
      expect((error as InvalidToolInputError).parameter).toBe('glob');
      expect((error as Error).message).toContain(
        `glob ${JSON.stringify(glob)} is not a valid glob`,
      );
    }
    await expect(ws.tools.list_files.execute({ path: 'nope' })).rejects.toBeInstanceOf(
      PathNotFoundError,
    );
  });

  it('says when a folder is excluded by .gitignore', async () => {
    const text = await ws.tools.list_files.execute({ path: 'src/generated' });
    expect(text).toBe(
      'No files under src/generated.\nNote: src/generated is excluded by a .gitignore file.',
    );
  });

  it('caps the count and the characters, and says how to narrow', async () => {
    const byCount = await ws.workspace.tools({ maxListedFiles: 5 }).list_files.execute({});
    expect(listed(byCount)).toEqual(ALL_FILES.slice(0, 5));
    expect(byCount).toContain('17 files under the root (the first 5 are listed):');
    expect(byCount).toContain(
      '[Output cut. Listed 5 of 17 files. Narrow the list with a path (a subfolder) or a glob such as "*.ts".]',
    );
    for (let index = 0; index < 200; index += 1) {
      await ws.workspace.write(
        `scratch/many/file-with-a-long-name-${String(index).padStart(3, '0')}.txt`,
        '',
      );
    }
    const bySize = await ws.workspace
      .tools({ maxOutputChars: 1_000 })
      .list_files.execute({ path: 'scratch/many' });
    expect(bySize.length).toBeLessThanOrEqual(1_000);
    expect(bySize).toMatch(/\[Output cut at 1000 characters\. Listed \d+ of 200 files\./);
  });

  it('stops the walk at maxFilesWalked and says so', async () => {
    const text = await ws.workspace.tools({ maxFilesWalked: 4 }).list_files.execute({});
    expect(listed(text)).toHaveLength(4);
    expect(text).toContain('Note: stopped after 4 files; give a narrower path.');
  });

  it('stops on an aborted signal', async () => {
    const controller = new AbortController();
    controller.abort(new Error('enough'));
    await expect(ws.tools.list_files.execute({}, { signal: controller.signal })).rejects.toThrow(
      'enough',
    );
  });
});

/** What git lists as untracked and not ignored under `folder`; undefined without git. */
function gitView(root: string, folder: string): string[] | undefined {
  try {
    execFileSync('git', ['init', '-q'], { cwd: root });
    return execFileSync('git', ['ls-files', '--others', '--exclude-standard', '-z', folder], {
      cwd: root,
      encoding: 'utf8',
    })
      .split('\0')
      .filter((path) => path !== '')
      .sort();
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return undefined; // no git here
    throw error;
  }
}

describe('list_files follows .gitignore as git does', () => {
  it('keeps the last matching rule deciding in a .gitignore of thousands of lines', async () => {
    const filler = (tag: string) =>
      Array.from({ length: 1_400 }, (_, index) => `filler-${tag}-${index}.tmp`);
    await ws.workspace.write(
      'long-gi/.gitignore',
      [
        '*.log',
        '!late.txt',
        ...filler('a'),
        '!keep.log',
        ...filler('b'),
        'late.txt',
        'filler-a-7.tmp',
        '!filler-b-9.tmp',
      ].join('\n'),
    );
    for (const file of ['a.log', 'keep.log', 'late.txt', 'plain.txt', 'filler-a-7.tmp']) {
      await ws.workspace.write(`long-gi/${file}`, 'x\n');
    }
    await ws.workspace.write('long-gi/filler-b-9.tmp', 'x\n');
    const ours = listed(await ws.tools.list_files.execute({ path: 'long-gi' }));
    const byGit = gitView(ws.workspace.root, 'long-gi');
    if (byGit !== undefined) expect(ours).toEqual(byGit);
    expect(ours).toEqual([
      'long-gi/.gitignore',
      'long-gi/filler-b-9.tmp',
      'long-gi/keep.log',
      'long-gi/plain.txt',
    ]);
  });

  it('agrees with git ls-files on anchors, folders, globs, negations and nested files', async () => {
    await ws.workspace.write(
      'gi/.gitignore',
      [
        '# comments and blank lines are not rules',
        '',
        '/anchored.txt',
        '*.log',
        '!keep.log',
        'cache/',
        'docs/*.txt',
        '**/tmp',
        'secret[0-9].env',
        'trailing\\ space.txt',
        '\\#hash.txt',
      ].join('\n'),
    );
    await ws.workspace.write('gi/nested/.gitignore', '!*.log\nlocal-only.md\n/anchored-here.js\n');
    const files = [
      'anchored.txt',
      'sub/anchored.txt',
      'a.log',
      'keep.log',
      'sub/b.log',
      'cache/x.js',
      'sub/cache/y.js',
      'cache-file.js',
      'docs/a.txt',
      'docs/deeper/b.txt',
      'docs/c.md',
      'deep/er/tmp/z.js',
      'tmp/w.js',
      'secret1.env',
      'secretx.env',
      'trailing space.txt',
      '#hash.txt',
      'nested/c.log',
      'nested/local-only.md',
      'nested/anchored-here.js',
      'nested/sub/anchored-here.js',
      'nested/sub/local-only.md',
      'plain.ts',
    ];
    for (const file of files) await ws.workspace.write(`gi/${file}`, 'x\n');
    const ours = listed(
      (await ws.tools.list_files.execute({ path: 'gi' })).replaceAll(
        'trailing space',
        'trailing_space',
      ),
    ).map((path) => path.replaceAll('trailing_space', 'trailing space'));
    const byGit = gitView(ws.workspace.root, 'gi');
    if (byGit !== undefined) expect(ours).toEqual(byGit);
    // The verdicts that matter, spelled out (so the test means something without git too).
    expect(ours).toContain('gi/keep.log');
    expect(ours).toContain('gi/nested/c.log');
    expect(ours).toContain('gi/cache-file.js');
    expect(ours).toContain('gi/docs/deeper/b.txt');
    expect(ours).toContain('gi/nested/sub/anchored-here.js');
    expect(ours).not.toContain('gi/a.log');
    expect(ours).not.toContain('gi/sub/cache/y.js');
    expect(ours).not.toContain('gi/nested/sub/local-only.md');
    expect(ours).toContain('gi/sub/anchored.txt');
    expect(ours).not.toContain('gi/anchored.txt');
    expect(ours).toContain('gi/secretx.env');
    expect(ours).not.toContain('gi/secret1.env');
    expect(ours).not.toContain('gi/#hash.txt');
    expect(ours).not.toContain('gi/trailing space.txt');
    expect(ours).not.toContain('gi/deep/er/tmp/z.js');
  });
});
