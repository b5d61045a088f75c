import { readFileSync } from 'node:fs';
import { parseJsonText } from '../core/parse-json.ts';

/**
 * The package's version, read from its package.json at run time. The CLI runs as
 * `src/cli/main.ts` in the repository and as `dist/cli/main.js` in the installed package: both
 * sit two folders below the package root, so the path is taken relative to the CLI's own file.
 */
export function packageVersion(cliFile: string | URL = import.meta.url): string {
  const file = new URL('../../package.json', cliFile);
  let manifest: unknown;
  try {
    manifest = parseJsonText(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(
      `cannot read the package version from ${file.pathname}: ${(error as Error).message}`,
      { cause: error },
    );
  }
  const version = (manifest as { version?: unknown } | null)?.version;
  if (typeof version !== 'string' || version.length === 0)
    throw new Error(`${file.pathname} has no "version"`);
  return version;
}
