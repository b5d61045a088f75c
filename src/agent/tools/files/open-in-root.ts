import { constants } from 'node:fs';
import { type FileHandle, open, readlink, realpath, stat } from 'node:fs/promises';
import { PathOutsideRootError, WrongPathKindError } from '../errors.ts';
import type { Settings } from '../settings.ts';
import { isInside } from './confine.ts';

/** Read only; non-blocking, so that a FIFO or device swapped in cannot hold the open. */
const FILE_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);
/** A folder, and only a folder. */
const FOLDER_FLAGS = constants.O_RDONLY | (constants.O_DIRECTORY ?? 0);

/** A file or folder to open: where it is (`real`) and how the model knows it (`rel`). */
export interface FileToOpen {
  readonly real: string;
  readonly rel: string;
}

function errorCode(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string'
    ? error.code
    : undefined;
}

/** Whether `error` says the path no longer exists (removed since it was listed or checked). */
export function isGone(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * Where an open file really is, from the descriptor itself (Linux: `/proc/self/fd`), so that a
 * path swapped for a symlink after it was checked shows up as the place it now leads to.
 * Undefined where the platform has no `/proc` or does not let it be read (the caller then uses
 * `pathIfSameFile`).
 */
export async function descriptorPath(handle: FileHandle): Promise<string | undefined> {
  try {
    return await readlink(`/proc/self/fd/${handle.fd}`);
  } catch {
    return undefined;
  }
}

/**
 * For platforms without `/proc`: `path` resolved again, but only when it still names the very
 * file that was opened (same device and inode); otherwise undefined. A link swapped in before
 * the open and still there resolves outside the root; one swapped back out since leaves a path
 * naming another file. Either way the caller refuses the file.
 */
export async function pathIfSameFile(
  handle: FileHandle,
  path: string,
): Promise<string | undefined> {
  try {
    const real = await realpath(path);
    const [opened, named] = await Promise.all([handle.stat(), stat(real)]);
    return opened.dev === named.dev && opened.ino === named.ino ? real : undefined;
  } catch {
    return undefined;
  }
}

/** An opened file or folder, checked to be inside the root. */
interface Verified {
  readonly handle: FileHandle;
  /** A path naming the opened descriptor itself, where the platform has one. */
  readonly descriptor: string | undefined;
}

async function openVerified(
  settings: Settings,
  target: FileToOpen,
  kind: 'file' | 'folder',
): Promise<Verified> {
  const handle = await open(target.real, kind === 'file' ? FILE_FLAGS : FOLDER_FLAGS);
  try {
    const fromDescriptor = await descriptorPath(handle);
    const where = fromDescriptor ?? (await pathIfSameFile(handle, target.real));
    if (where === undefined || !isInside(settings.realRoot, where)) {
      throw new PathOutsideRootError(target.rel, 'it was changed into a link leading out of it');
    }
    const info = await handle.stat();
    if (kind === 'file' ? !info.isFile() : !info.isDirectory()) {
      throw new WrongPathKindError(
        target.rel,
        `Path ${JSON.stringify(target.rel)} is not a ${kind} any more.`,
      );
    }
    return {
      handle,
      descriptor: fromDescriptor === undefined ? undefined : `/proc/self/fd/${handle.fd}`,
    };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * Opens a file for reading and checks, on the opened descriptor, that it is inside the root and
 * a regular file. Confinement resolves paths before they are used; this closes the gap between
 * that check and the read, in which a file or a folder on the path could be replaced by a
 * symlink leading out. Throws `PathOutsideRootError` (nothing is read) or `WrongPathKindError`.
 */
export async function openInRoot(settings: Settings, file: FileToOpen): Promise<FileHandle> {
  return (await openVerified(settings, file, 'file')).handle;
}

/** A folder checked to be inside the root, ready to list. */
export interface CheckedFolder {
  /** What to list: the opened folder itself where the platform allows, else the checked path. */
  readonly listPath: string;
  close(): Promise<void>;
}

/**
 * Opens a folder the same way, for listing. On Linux `listPath` names the opened folder itself,
 * so the listing cannot come from a folder swapped in after the check; elsewhere it is the
 * checked path. Windows cannot open a folder as a file: there the resolved path is checked.
 */
export async function openFolderInRoot(
  settings: Settings,
  folder: FileToOpen,
): Promise<CheckedFolder> {
  if (process.platform === 'win32') {
    const real = await realpath(folder.real);
    if (!isInside(settings.realRoot, real)) {
      throw new PathOutsideRootError(folder.rel, 'it was changed into a link leading out of it');
    }
    return { listPath: real, close: async () => {} };
  }
  const { handle, descriptor } = await openVerified(settings, folder, 'folder');
  return { listPath: descriptor ?? folder.real, close: () => handle.close() };
}
