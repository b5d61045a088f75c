/**
 * What `npm install toolwire` gets: the license, the README and the documents it links to, the
 * compiled code, and no source map pointing at sources the package does not ship.
 */

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runChild } from '../support/child-process.ts';
import { linksOf } from './markdown-links.ts';

const root = new URL('../../', import.meta.url);

function packedFiles(): string[] {
  const packed = runChild('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: fileURLToPath(root),
  });
  if (packed.status !== 0) throw new Error(`npm pack failed (${packed.status}):\n${packed.stderr}`);
  const output = packed.stdout;
  const [pack] = JSON.parse(output) as [{ files: { path: string }[] }];
  return pack.files.map((file) => file.path);
}

describe('the npm package', () => {
  const files = packedFiles();

  it('ships the license, the README and the compiled entry points', () => {
    expect(files).toContain('LICENSE');
    expect(files).toContain('README.md');
    expect(files).toContain('dist/index.js');
    expect(files).toContain('dist/cli/main.js');
  });

  it('ships no source map (its sources are not in the package)', () => {
    expect(files.filter((path) => path.endsWith('.map'))).toEqual([]);
  });

  it('ships every file the README links to (relative links, read in the package too)', () => {
    const readme = readFileSync(new URL('README.md', root), 'utf8');
    const shipped = linksOf(readme)
      .filter((link) => !/^[a-z][a-z0-9+.-]*:|^#/i.test(link))
      .map((link) => link.replace(/^\.\//, '').split('#')[0]!);
    expect(shipped.length).toBeGreaterThan(0);
    for (const path of shipped) expect(files, path).toContain(path);
  });
});
