/**
 * What `npm install toolwire` gets: the license, the README and the documents it links to, the
 * compiled code, and no source map pointing at sources the package does not ship.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { linksOf, PACKAGE_FILES_URL } from './markdown-links.ts';

const root = new URL('../../', import.meta.url);

function packedFiles(): string[] {
  const output = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
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

  it('ships every file the README links to (through unpkg, which serves the package)', () => {
    const readme = readFileSync(new URL('README.md', root), 'utf8');
    const shipped = linksOf(readme)
      .filter((link) => link.startsWith(PACKAGE_FILES_URL))
      .map((link) => link.slice(PACKAGE_FILES_URL.length).split('#')[0]!);
    expect(shipped.length).toBeGreaterThan(0);
    for (const path of shipped) expect(files, path).toContain(path);
  });
});
