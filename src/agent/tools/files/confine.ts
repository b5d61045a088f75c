import { realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import {
  CodeToolError,
  InvalidToolInputError,
  PathNotFoundError,
  PathOutsideRootError,
  WrongPathKindError,
} from '../errors.ts';
import type { Settings } from '../settings.ts';

/** A path the tools may use: inside the root once every symlink is resolved. */
export interface RootPath {
  /** Relative to the root, `/`-separated; `''` is the root itself. */
  readonly rel: string;
  /** Absolute, every symlink resolved: the path that is actually opened. */
  readonly real: string;
  readonly kind: 'file' | 'directory';
}

/** Whether `path` is `root` or below it (both absolute and normalised). */
export function isInside(root: string, path: string): boolean {
  if (path === root) return true;
  return path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** How a folder is named to the model in a sentence ("under the root", "under src"). */
export function shown(rel: string): string {
  return rel === '' ? 'the root' : rel;
}

export function relativeToRoot(settings: Settings, real: string): string {
  return relative(settings.realRoot, real).split(sep).join('/');
}

function errorCode(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string'
    ? error.code
    : undefined;
}

/** Where `input` points before symlinks are resolved, or an error if it already leaves the root. */
function lexicalTarget(settings: Settings, input: string): string {
  // Backslashes are separators too, so that `..\..\x` is refused rather than read as a name.
  const normalized = input.trim().replaceAll('\\', '/');
  if (isAbsolute(normalized)) {
    const absolute = resolve(normalized);
    // The caller may spell the root either way (e.g. through a symlinked /tmp).
    for (const base of [settings.realRoot, settings.givenRoot]) {
      if (isInside(base, absolute)) return join(settings.realRoot, relative(base, absolute));
    }
    throw new PathOutsideRootError(input, 'an absolute path that is not under the root');
  }
  const target = resolve(settings.realRoot, normalized);
  if (!isInside(settings.realRoot, target)) {
    throw new PathOutsideRootError(input, '".." leads above the root');
  }
  return target;
}

/** For a path that does not exist: refuse it if the part that does exist already leads out. */
async function explainMissing(settings: Settings, input: string, target: string): Promise<never> {
  let ancestor = dirname(target);
  while (isInside(settings.realRoot, ancestor) && ancestor !== settings.realRoot) {
    try {
      const real = await realpath(ancestor);
      if (!isInside(settings.realRoot, real)) {
        throw new PathOutsideRootError(input, 'a symlink on the way leads out of it');
      }
      break;
    } catch (error) {
      if (error instanceof CodeToolError) throw error;
      ancestor = dirname(ancestor);
    }
  }
  throw new PathNotFoundError(input);
}

/**
 * Resolves a path given by the model (relative to the root, or absolute under it) to a real path
 * inside the root. Refuses `..` that climbs out, absolute paths elsewhere, and symlinks — at the
 * end or in the middle of the path — whose target is outside; the check is made on the fully
 * resolved path, which is also the path the tools then open.
 */
export async function resolveInRoot(
  settings: Settings,
  input: string | undefined,
  parameter: string,
): Promise<RootPath> {
  if (input?.includes('\0')) {
    throw new InvalidToolInputError(parameter, `${parameter} contains a NUL character.`);
  }
  const target = input === undefined ? settings.realRoot : lexicalTarget(settings, input);
  const named = input ?? '.';
  let real: string;
  try {
    real = await realpath(target);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return explainMissing(settings, named, target);
    if (code === 'ELOOP') {
      throw new WrongPathKindError(named, `Path ${JSON.stringify(named)} is a symlink loop.`, {
        cause: error,
      });
    }
    // Not readable (permissions, an I/O error): refused like a file the tools will not read.
    throw new CodeToolError(
      'file-refused',
      `Path ${JSON.stringify(named)} cannot be read (${code ?? error}).`,
      { cause: error },
    );
  }
  if (!isInside(settings.realRoot, real)) {
    throw new PathOutsideRootError(named, 'a symlink leads out of it');
  }
  const info = await stat(real);
  const kind = info.isDirectory() ? 'directory' : info.isFile() ? 'file' : undefined;
  if (kind === undefined) {
    throw new WrongPathKindError(
      named,
      `Path ${JSON.stringify(named)} is neither a regular file nor a folder.`,
    );
  }
  return { rel: relativeToRoot(settings, real), real, kind };
}
