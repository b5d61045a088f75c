import type { Dirent } from 'node:fs';
import { opendir, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { PathOutsideRootError } from '../errors.ts';
import { sortPaced } from '../paced-sort.ts';
import type { Pacer } from '../pacer.ts';
import type { Settings } from '../settings.ts';
import { isInside, type RootPath } from './confine.ts';
import { GitignoreRules } from './gitignore.ts';
import { type CheckedFolder, openFolderInRoot } from './open-in-root.ts';

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

/** Entries read from the directory at a time: each read lets the event loop run. */
const DIRECTORY_BUFFER = 256;

/**
 * Entries read from one folder at most (or `maxFilesWalked` when larger): keeps the memory and
 * the sorting of a folder with millions of entries bounded.
 */
const MAX_FOLDER_ENTRIES = 100_000;

/**
 * The entries of a folder, sorted by name, read from the opened folder itself once it is checked
 * to be inside the root (see `openFolderInRoot`). Reads a bounded number of entries (`cut` says
 * there were more). Undefined when the folder cannot be read or now leads out of the root.
 */
async function readFolder(
  settings: Settings,
  rel: string,
  real: string,
  report: WalkReport,
  pacer: Pacer,
): Promise<{ readonly entries: Dirent[]; readonly cut: boolean } | undefined> {
  let opened: CheckedFolder;
  try {
    opened = await openFolderInRoot(settings, { real, rel });
  } catch (error) {
    if (error instanceof PathOutsideRootError) report.linksOutside += 1;
    return undefined; // also a folder that cannot be read (permissions, removed meanwhile)
  }
  const limit = Math.max(MAX_FOLDER_ENTRIES, settings.maxFilesWalked);
  const entries: Dirent[] = [];
  let cut = false;
  try {
    const folder = await opendir(opened.listPath, { bufferSize: DIRECTORY_BUFFER });
    for await (const entry of folder) {
      if (entries.length >= limit) {
        cut = true;
        break;
      }
      entries.push(entry);
      if (pacer.due()) await pacer.pause();
    }
  } catch (error) {
    if (pacer.signal?.aborted) throw error;
    // Removed or unreadable while being read: walk what was read.
  } finally {
    await opened.close();
  }
  return { entries: await sortPaced(entries, byName, pacer), cut };
}

/**
 * Every file below the folder `start`, depth first in name order, honouring .gitignore files
 * (including those of `start`'s parent folders) and always skipping `.git`. Symlinks are
 * followed only to files inside the root; symlinked folders are not entered, which keeps walks
 * free of cycles and of the same file under two names. `pacer` gives the event loop its turns
 * and ends the walk (with the signal's reason) when the call is aborted.
 */
export async function* walkFiles(
  settings: Settings,
  start: RootPath,
  report: WalkReport,
  pacer: Pacer,
): AsyncGenerator<WalkedFile> {
  pacer.check();
  const rules = await GitignoreRules.at(settings, start.rel, pacer);
  if (await rules.ignoresPathOrParent(start.rel, true, pacer)) {
    report.startIgnored = true;
    return;
  }
  yield* walkFolder(settings, start.rel, start.real, rules, report, pacer);
}

async function* walkFolder(
  settings: Settings,
  rel: string,
  real: string,
  rules: GitignoreRules,
  report: WalkReport,
  pacer: Pacer,
): AsyncGenerator<WalkedFile> {
  await pacer.step();
  const folder = await readFolder(settings, rel, real, report, pacer);
  if (folder === undefined) return;
  for (const entry of folder.entries) {
    if (report.stoppedAtLimit) return;
    await pacer.step();
    const childRel = rel === '' ? entry.name : `${rel}/${entry.name}`;
    const childReal = join(real, entry.name);
    if (entry.isDirectory()) {
      if (entry.name === '.git' || (await rules.ignores(childRel, true, pacer))) continue;
      const inner = await rules.enter(settings, childRel, pacer);
      yield* walkFolder(settings, childRel, childReal, inner, report, pacer);
      continue;
    }
    if (await rules.ignores(childRel, false, pacer)) continue;
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
  if (folder.cut) report.stoppedAtLimit = true;
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
