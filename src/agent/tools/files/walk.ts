import type { Dirent } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Settings } from '../settings.ts';
import { isInside, type RootPath } from './confine.ts';
import { GitignoreRules } from './gitignore.ts';

/** A file found by a walk. */
export interface WalkedFile {
  /** Where it was found, relative to the root. */
  readonly rel: string;
  /** The path to open: itself, or for a symlink its target (always inside the root). */
  readonly real: string;
}

/** What a walk saw besides the files it yielded, for the notes a tool adds to its output. */
export interface WalkReport {
  filesVisited: number;
  /** The walk stopped at `maxFilesWalked`. */
  stoppedAtLimit: boolean;
  /** The starting folder itself is excluded by a .gitignore, so nothing was walked. */
  startIgnored: boolean;
  /** Symlinks skipped because they lead out of the root (or nowhere). */
  linksOutside: number;
}

export function newWalkReport(): WalkReport {
  return {
    filesVisited: 0,
    stoppedAtLimit: false,
    startIgnored: false,
    linksOutside: 0,
  };
}

function byName(a: Dirent, b: Dirent): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * Every file below the folder `start`, depth first in name order, honouring .gitignore files
 * (including those of `start`'s parent folders) and always skipping `.git`. Symlinks are
 * followed only to files inside the root; symlinked folders are not entered, which keeps walks
 * free of cycles and of the same file under two names. Checks `signal` before each folder and
 * each file.
 */
export async function* walkFiles(
  settings: Settings,
  start: RootPath,
  report: WalkReport,
  signal?: AbortSignal,
): AsyncGenerator<WalkedFile> {
  signal?.throwIfAborted();
  const rules = await GitignoreRules.at(settings, start.rel);
  if (rules.ignoresPathOrParent(start.rel, true)) {
    report.startIgnored = true;
    return;
  }
  yield* walkFolder(settings, start.rel, start.real, rules, report, signal);
}

async function* walkFolder(
  settings: Settings,
  rel: string,
  real: string,
  rules: GitignoreRules,
  report: WalkReport,
  signal: AbortSignal | undefined,
): AsyncGenerator<WalkedFile> {
  signal?.throwIfAborted();
  let entries: Dirent[];
  try {
    entries = await readdir(real, { withFileTypes: true });
  } catch {
    return; // a folder that cannot be read (permissions, removed meanwhile) is skipped
  }
  entries.sort(byName);
  for (const entry of entries) {
    if (report.stoppedAtLimit) return;
    signal?.throwIfAborted();
    const childRel = rel === '' ? entry.name : `${rel}/${entry.name}`;
    const childReal = join(real, entry.name);
    if (entry.isDirectory()) {
      if (entry.name === '.git' || rules.ignores(childRel, true)) continue;
      const inner = await rules.enter(settings, childRel);
      yield* walkFolder(settings, childRel, childReal, inner, report, signal);
      continue;
    }
    if (rules.ignores(childRel, false)) continue;
    let target = childReal;
    if (entry.isSymbolicLink()) {
      const resolved = await resolveLink(settings, childReal);
      if (resolved === undefined) {
        report.linksOutside += 1;
        continue;
      }
      if (!resolved.isFile) continue; // a symlinked folder: not entered (see above)
      target = resolved.real;
    } else if (!entry.isFile()) {
      continue; // sockets, fifos, devices
    }
    if (report.filesVisited >= settings.maxFilesWalked) {
      report.stoppedAtLimit = true;
      return;
    }
    report.filesVisited += 1;
    yield { rel: childRel, real: target };
  }
}

/** A symlink's target when it is inside the root, else undefined. */
async function resolveLink(
  settings: Settings,
  path: string,
): Promise<{ real: string; isFile: boolean } | undefined> {
  try {
    const real = await realpath(path);
    if (!isInside(settings.realRoot, real)) return undefined;
    return { real, isFile: (await stat(real)).isFile() };
  } catch {
    return undefined;
  }
}
