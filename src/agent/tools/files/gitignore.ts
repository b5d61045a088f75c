import { readFile, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import type { Settings } from '../settings.ts';
import { isInside } from './confine.ts';

/** The rules of one .gitignore file, which apply below the folder holding it. */
interface Scope {
  /** The folder of the .gitignore, relative to the root (`''` for the root). */
  readonly base: string;
  readonly rules: Ignore;
}

/** Larger "ignore files" are not plausible; reading one must not cost unbounded memory. */
const MAX_GITIGNORE_BYTES = 1_000_000;

async function readScope(settings: Settings, base: string): Promise<Scope | undefined> {
  try {
    // A .gitignore that is a symlink to a file outside the root is not read.
    const real = await realpath(join(settings.realRoot, base, '.gitignore'));
    if (!isInside(settings.realRoot, real)) return undefined;
    const text = await readFile(real, 'utf8');
    if (text.length > MAX_GITIGNORE_BYTES) return undefined;
    // Git matches case-sensitively (core.ignorecase is false on case-sensitive file systems).
    return { base, rules: ignore({ ignorecase: false }).add(text) };
  } catch {
    return undefined;
  }
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
  static async at(settings: Settings, rel: string): Promise<GitignoreRules> {
    let rules = new GitignoreRules([]);
    rules = await rules.enter(settings, '');
    if (rel === '') return rules;
    const parts = rel.split('/');
    for (let depth = 1; depth <= parts.length; depth += 1) {
      rules = await rules.enter(settings, parts.slice(0, depth).join('/'));
    }
    return rules;
  }

  /** The rules in force in the subfolder `rel`, adding its own .gitignore if it has one. */
  async enter(settings: Settings, rel: string): Promise<GitignoreRules> {
    const scope = await readScope(settings, rel);
    return scope === undefined ? this : new GitignoreRules([...this.#scopes, scope]);
  }

  /** Whether `rel` (relative to the root) is ignored; folders are tested as folders. */
  ignores(rel: string, isDirectory: boolean): boolean {
    for (let index = this.#scopes.length - 1; index >= 0; index -= 1) {
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
  ignoresPathOrParent(rel: string, isDirectory: boolean): boolean {
    const parts = rel.split('/');
    for (let depth = 1; depth < parts.length; depth += 1) {
      if (this.ignores(parts.slice(0, depth).join('/'), true)) return true;
    }
    return rel !== '' && this.ignores(rel, isDirectory);
  }
}
