import { mkdir, open, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PathOutsideRootError } from '../../../src/agent/tools/errors.ts';
import {
  descriptorPath,
  openInRoot,
  pathIfSameFile,
} from '../../../src/agent/tools/files/open-in-root.ts';
import { resolveSettings } from '../../../src/agent/tools/settings.ts';
import { OUTSIDE_SECRET, useWorkspace } from './workspace.ts';

/**
 * The file system, with two test seams: a hook run just before a path is opened (to swap it for a
 * symlink between the root check and the open, as a concurrent attacker would), and a switch that
 * makes `/proc/self/fd` unreadable (a platform without /proc).
 */
const seams = vi.hoisted(() => ({
  beforeOpen: undefined as ((path: string) => Promise<void>) | undefined,
  noProc: false,
}));

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...real,
    open: async (...args: Parameters<typeof real.open>) => {
      const hook = seams.beforeOpen;
      if (hook !== undefined) await hook(String(args[0]));
      return real.open(...args);
    },
    readlink: async (...args: Parameters<typeof real.readlink>) => {
      if (seams.noProc && String(args[0]).startsWith('/proc/')) {
        throw Object.assign(new Error(`ENOENT: no such file, readlink '${args[0]}'`), {
          code: 'ENOENT',
        });
      }
      return real.readlink(...args);
    },
  };
});

const ws = useWorkspace();

/** Swaps `rel` (a file or folder under the root) for a symlink to `target` the first time it is opened. */
function swapOnOpen(rel: string, target: string): void {
  const path = join(ws.workspace.root, rel);
  seams.beforeOpen = async (opened) => {
    if (opened !== path) return;
    seams.beforeOpen = undefined;
    await rename(path, `${path}.moved`);
    await symlink(target, path);
  };
}

async function restore(rel: string): Promise<void> {
  const path = join(ws.workspace.root, rel);
  await rm(path, { force: true });
  await rename(`${path}.moved`, path);
}

async function outcome(run: () => Promise<string>): Promise<string | Error> {
  try {
    return await run();
  } catch (error) {
    return error as Error;
  }
}

beforeEach(() => {
  seams.beforeOpen = undefined;
  seams.noProc = false;
});
afterEach(() => {
  seams.beforeOpen = undefined;
  seams.noProc = false;
});

describe.each([
  ['the descriptor path (/proc/self/fd)', false],
  ['the same-file check (no /proc)', true],
])('a file swapped for a symlink after the root check is refused, through %s', (_, noProc) => {
  const secret = () => join(ws.workspace.outside, 'secret.txt');

  beforeEach(() => {
    seams.noProc = noProc;
  });

  it('openInRoot refuses a path that is a symlink leading out, before reading', async () => {
    const settings = resolveSettings({ root: ws.workspace.root });
    const error = await openInRoot(settings, {
      real: join(ws.workspace.root, 'src/leak.txt'),
      rel: 'src/leak.txt',
    }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(PathOutsideRootError);
    expect((error as Error).message).toContain('"src/leak.txt" is outside the root folder');
  });

  for (const [name, input] of [
    ['the whole file', { file_path: 'src/util/strings.ts' }],
    ['a line range', { file_path: 'src/util/strings.ts', line: 1, end_line: 3 }],
    ['a symbol', { file_path: 'src/util/strings.ts#slugify' }],
    ['the enclosing definition', { file_path: 'src/util/strings.ts:2' }],
  ] as const) {
    it(`extract of ${name}`, async () => {
      swapOnOpen('src/util/strings.ts', secret());
      try {
        const result = await outcome(() => ws.tools.extract.execute(input));
        expect(result).toBeInstanceOf(PathOutsideRootError);
        expect((result as Error).message).toContain(
          'Path "src/util/strings.ts" is outside the root folder (it was changed into a link ' +
            'leading out of it)',
        );
        expect(String(result)).not.toContain(OUTSIDE_SECRET);
      } finally {
        await restore('src/util/strings.ts');
      }
    });
  }

  it('search of a file named by path, and of the same file met in a walk', async () => {
    swapOnOpen('src/util/strings.ts', secret());
    try {
      const named = await outcome(() =>
        ws.tools.search.execute({ query: 'secret', path: 'src/util/strings.ts' }),
      );
      expect(named).toBeInstanceOf(PathOutsideRootError);
    } finally {
      await restore('src/util/strings.ts');
    }
    swapOnOpen('src/util/strings.ts', secret());
    try {
      const walked = await ws.tools.search.execute({ query: '"top secret"', path: 'src/util' });
      expect(walked).not.toContain(OUTSIDE_SECRET);
      expect(walked).toContain('No matches under src/util');
      expect(walked).toContain('Note: 1 symlink leading outside the root (or nowhere) skipped.');
    } finally {
      await restore('src/util/strings.ts');
    }
  });

  it('query of a file met in a walk', async () => {
    await writeFile(join(ws.workspace.outside, 'outside.ts'), 'export function escaped() {}\n');
    swapOnOpen('src/util/strings.ts', join(ws.workspace.outside, 'outside.ts'));
    try {
      const text = await ws.tools.query.execute({ pattern: 'function $F() {}', path: 'src/util' });
      expect(text).not.toContain('escaped');
      expect(text).toContain('No matches in 0 ');
    } finally {
      await restore('src/util/strings.ts');
    }
  });

  it('list_files of a folder swapped for a symlink to a folder outside', async () => {
    await mkdir(join(ws.workspace.root, 'swapped/inner'), { recursive: true });
    await writeFile(join(ws.workspace.root, 'swapped/inner/own.txt'), 'x\n');
    swapOnOpen('swapped/inner', ws.workspace.outside);
    try {
      const text = await ws.tools.list_files.execute({ path: 'swapped' });
      expect(text).not.toMatch(/secret\.txt|inner\.ts|outside\.ts/);
      expect(text).toContain('No files under swapped.');
      expect(text).toContain('Note: 1 symlinks leading outside the root skipped.');
    } finally {
      await rm(join(ws.workspace.root, 'swapped'), { recursive: true, force: true });
    }
  });
});

describe('the checks on an opened descriptor', () => {
  it('reads the real path of an open file from /proc/self/fd where there is one', async () => {
    const handle = await open(join(ws.workspace.root, 'src/leak.txt'), 'r');
    try {
      const where = await descriptorPath(handle);
      if (process.platform === 'linux') {
        expect(where).toBe(join(ws.workspace.outside, 'secret.txt'));
      } else {
        expect(where).toBeUndefined();
      }
    } finally {
      await handle.close();
    }
  });

  it('without /proc, accepts a path only while it still names the opened file', async () => {
    const link = join(ws.workspace.root, 'swap-back.txt');
    await symlink(join(ws.workspace.outside, 'secret.txt'), link);
    const handle = await open(link, 'r');
    try {
      // Still swapped: the path resolves to the outside file, which the root check refuses.
      expect(await pathIfSameFile(handle, link)).toBe(join(ws.workspace.outside, 'secret.txt'));
      // Swapped back to an inside file after the open: a different file, so no path at all.
      await rm(link);
      await writeFile(link, 'inside\n');
      expect(await pathIfSameFile(handle, link)).toBeUndefined();
      // The handle still reads the outside file: which is why nothing is read before the check.
      expect(await handle.readFile('utf8')).toContain(OUTSIDE_SECRET);
    } finally {
      await handle.close();
      await rm(link, { force: true });
    }
    expect(await readFile(join(ws.workspace.outside, 'secret.txt'), 'utf8')).toContain(
      OUTSIDE_SECRET,
    );
  });
});
