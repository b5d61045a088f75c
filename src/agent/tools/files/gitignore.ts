import { join } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import type { Pacer } from '../pacer.ts';
import type { Settings } from '../settings.ts';
import { openInRoot } from './open-in-root.ts';

/** The rules of one .gitignore file, which apply below the folder holding it. */
interface Scope {
  /** The folder of the .gitignore, relative to the root (`''` for the root). */
  readonly base: string;
  readonly rules: Ignore;
}

/** Larger "ignore files" are not plausible; reading one must not cost unbounded memory. */
const MAX_GITIGNORE_BYTES = 1_000_000;

/**
 * Lines of one .gitignore compiled together. A longer file becomes several consecutive scopes
 * with the same base, so that one test (which runs every rule of a scope at once) stays short;
 * the last matching rule still decides, since later scopes are asked first.
 */
const LINES_PER_SCOPE = 1_000;

async function readScopes(settings: Settings, base: string, pacer: Pacer): Promise<Scope[]> {
  let text: string;
  try {
    // Opened with the root check, so a .gitignore that leads outside the root is not read.
    const path = join(settings.realRoot, base, '.gitignore');
    const rel = base === '' ? '.gitignore' : `${base}/.gitignore`;
    const handle = await openInRoot(settings, { real: path, rel });
    try {
      if ((await handle.stat()).size > MAX_GITIGNORE_BYTES) return [];
      text = await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
  } catch {
    return [];
  }
  const lines = text.split(/\r?\n/);
  const scopes: Scope[] = [];
  for (let start = 0; start < lines.length; start += LINES_PER_SCOPE) {
    const part = lines.slice(start, start + LINES_PER_SCOPE).join('\n');
    // Git matches case-sensitively (core.ignorecase is false on case-sensitive file systems).
    scopes.push({ base, rules: ignore({ ignorecase: false }).add(part) });
    if (pacer.due()) await pacer.pause();
  }
  return scopes;
}

/**
 * The .gitignore files in force in one folder: the root's and every nested one down to it,
 * with git's precedence (a deeper file overrides a shallower one, `!` re-includes). Only
 * .gitignore files inside the root count; `.git/info/exclude` and global excludes do not.
 */
export class GitignoreRules {
  readonly #scopes: readonly Scope[];

  private constructor(scopes: readonly Scope[]) {
    this.#scopes = scopes;
  }

  /** The rules in force in `rel` (a folder relative to the root), loading its ancestors' files. */
  static async at(settings: Settings, rel: string, pacer: Pacer): Promise<GitignoreRules> {
    let rules = new GitignoreRules([]);
    rules = await rules.enter(settings, '', pacer);
    if (rel === '') return rules;
    const parts = rel.split('/');
    for (let depth = 1; depth <= parts.length; depth += 1) {
      rules = await rules.enter(settings, parts.slice(0, depth).join('/'), pacer);
    }
    return rules;
  }

  /** The rules in force in the subfolder `rel`, adding its own .gitignore if it has one. */
  async enter(settings: Settings, rel: string, pacer: Pacer): Promise<GitignoreRules> {
    const scopes = await readScopes(settings, rel, pacer);
    return scopes.length === 0 ? this : new GitignoreRules([...this.#scopes, ...scopes]);
  }

  /**
   * Whether `rel` (relative to the root) is ignored; folders are tested as folders. Gives the
   * event loop a turn between scopes when due: many or large .gitignore files cost time.
   */
  async ignores(rel: string, isDirectory: boolean, pacer: Pacer): Promise<boolean> {
    for (let index = this.#scopes.length - 1; index >= 0; index -= 1) {
      if (pacer.due()) await pacer.pause();
      const scope = this.#scopes[index]!;
      let sub: string;
      if (scope.base === '') sub = rel;
      else if (rel.startsWith(`${scope.base}/`)) sub = rel.slice(scope.base.length + 1);
      else continue;
      if (sub === '') continue;
      let verdict: ignore.TestResult;
      try {
        verdict = scope.rules.test(isDirectory ? `${sub}/` : sub);
      } catch {
        continue; // a name `ignore` cannot test (it has no rule that could match it)
      }
      if (verdict.ignored) return true;
      if (verdict.unignored) return false;
    }
    return false;
  }

  /** Whether `rel` or one of its parent folders is ignored. */
  async ignoresPathOrParent(rel: string, isDirectory: boolean, pacer: Pacer): Promise<boolean> {
    const parts = rel.split('/');
    for (let depth = 1; depth < parts.length; depth += 1) {
      if (await this.ignores(parts.slice(0, depth).join('/'), true, pacer)) return true;
    }
    return rel !== '' && (await this.ignores(rel, isDirectory, pacer));
  }
}
