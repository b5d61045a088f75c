import { cp, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import {
  type CodeTools,
  type CodeToolsOptions,
  createCodeTools,
} from '../../../src/agent/tools/index.ts';

/** The committed fixture repository (never used in place: tests work on a temporary copy). */
export const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), '../../fixtures/code-repo');

/**
 * A temporary copy of the fixture repository, with a folder beside it standing for "outside the
 * root", and symlinks made at run time (git keeps symlinks badly):
 * - `src/leak.txt` → `../../outside/secret.txt` (relative link to a file outside)
 * - `src/leakdir` → `<tmp>/outside` (absolute link to a folder outside)
 * - `dangling.txt` → `../outside/missing.txt` (a link to nothing, outside)
 * - `src/models-link.py` → `../app/models.py` (a link to a file inside the root)
 * - `app-link` → `app` (a link to a folder inside the root)
 * - `<tmp>/root-link` → the repository (the root itself reached through a symlink)
 */
export interface Workspace {
  readonly base: string;
  readonly root: string;
  readonly outside: string;
  readonly rootLink: string;
  tools(options?: Omit<CodeToolsOptions, 'root'>): CodeTools;
  write(rel: string, content: string | Uint8Array): Promise<void>;
  remove(): Promise<void>;
}

export const OUTSIDE_SECRET = 'TOP SECRET loginUser from outside the root';

export async function makeWorkspace(): Promise<Workspace> {
  const base = await mkdtemp(join(tmpdir(), 'toolwire-code-tools-'));
  const root = join(base, 'repo');
  const outside = join(base, 'outside');
  await cp(FIXTURE, root, { recursive: true });
  await mkdir(join(outside, 'nested'), { recursive: true });
  await writeFile(join(outside, 'secret.txt'), `${OUTSIDE_SECRET}\n`);
  await writeFile(join(outside, 'nested', 'inner.ts'), 'export function loginUser() {}\n');
  await symlink('../../outside/secret.txt', join(root, 'src', 'leak.txt'));
  await symlink(outside, join(root, 'src', 'leakdir'), 'dir');
  await symlink('../outside/missing.txt', join(root, 'dangling.txt'));
  await symlink('../app/models.py', join(root, 'src', 'models-link.py'));
  await symlink('app', join(root, 'app-link'), 'dir');
  const rootLink = join(base, 'root-link');
  await symlink(root, rootLink, 'dir');
  return {
    base,
    root,
    outside,
    rootLink,
    tools: (options = {}) => createCodeTools({ root, ...options }),
    async write(rel, content) {
      await mkdir(dirname(join(root, rel)), { recursive: true });
      await writeFile(join(root, rel), content);
    },
    remove: () => rm(base, { recursive: true, force: true }),
  };
}

/**
 * A workspace made before this file's tests (`setup` then adds files to it) and removed after
 * them, with code tools on its root. Its fields are set in `beforeAll`: read them in tests.
 */
export function useWorkspace(setup?: (workspace: Workspace) => Promise<void>): {
  readonly workspace: Workspace;
  readonly tools: CodeTools;
} {
  const shared = {} as { workspace: Workspace; tools: CodeTools };
  beforeAll(async () => {
    shared.workspace = await makeWorkspace();
    shared.tools = shared.workspace.tools();
    await setup?.(shared.workspace);
  });
  afterAll(() => shared.workspace?.remove());
  return shared;
}
