/**
 * Every link of the README and the docs works in a clone, on the repository host and inside the
 * installed package (the rules: markdown-links.ts).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROOT, readManifest } from './loaded-packages.ts';
import {
  anchorsOf,
  type LinkProblem,
  linkProblems,
  linksOf,
  type PackageFiles,
} from './markdown-links.ts';

/** Files npm puts in every package whatever `files` says. */
const ALWAYS_SHIPPED = ['package.json', 'README.md', 'LICENSE'];

function projectFiles(): PackageFiles {
  const { files } = readManifest();
  for (const entry of files)
    if (/[*?[\]{}!]/.test(entry))
      throw new Error(`"files" entry ${entry} is a pattern: not read here`);
  return {
    read(path) {
      const url = new URL(path, ROOT);
      return existsSync(url) && statSync(url).isFile() ? readFileSync(url, 'utf8') : undefined;
    },
    isShipped: (path) =>
      ALWAYS_SHIPPED.includes(path) ||
      files.some((entry) => {
        const folder = entry.replace(/^\.\//, '').replace(/\/$/, '');
        return path === folder || path.startsWith(`${folder}/`);
      }),
  };
}

/** The pages of docs/, as paths from the package root. */
function docPages(): string[] {
  return readdirSync(new URL('docs/', ROOT), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name.split('\\').join('/')}`)
    .sort();
}

const files = projectFiles();

describe('the README', () => {
  it('has links', () => {
    expect(linksOf(files.read('README.md')!).length).toBeGreaterThan(0);
  });

  it('links only to https addresses, anchors on the page, and shipped files, relatively', () => {
    expect(linkProblems('README.md', files)).toEqual([]);
  });

  it('links the docs it names', () => {
    const links = linksOf(files.read('README.md')!);
    for (const page of docPages().filter((page) => files.read('README.md')!.includes(page)))
      expect(links, page).toContain(page);
  });
});

describe('the docs inside the package', () => {
  it.each(docPages())('%s links only to existing, shipped files and headings', (page) => {
    expect(files.isShipped(page)).toBe(true);
    expect(linkProblems(page, files)).toEqual([]);
  });
});

describe('the link rules', () => {
  const pages: Record<string, string> = {
    'README.md': '',
    'docs/a.md': '# Title\n\n## ai 6 (`LanguageModelV3`)\n\n## Twice\n\n## Twice\n',
    'docs/b.md': '# B\n',
    'src/x.ts': 'export {};\n',
  };
  const fake: PackageFiles = {
    read: (path) => pages[path],
    isShipped: (path) => path === 'README.md' || path.startsWith('docs/'),
  };
  const readme = (text: string): LinkProblem[] => {
    pages['README.md'] = text;
    return linkProblems('README.md', fake);
  };
  const doc = (text: string): LinkProblem[] => {
    pages['docs/b.md'] = `# B\n\n${text}`;
    return linkProblems('docs/b.md', fake);
  };

  it('makes anchors as the registry does', () => {
    expect([...anchorsOf(pages['docs/a.md']!)]).toEqual([
      'title',
      'ai-6-languagemodelv3',
      'twice',
      'twice-1',
    ]);
  });

  it('lets the README link relatively, only to shipped files that exist', () => {
    expect(readme('[a](docs/a.md) [a](./docs/a.md#twice-1)')).toEqual([]);
    expect(readme('[a](docs/missing.md)')).toHaveLength(1);
    expect(readme('[a](src/x.ts)')).toHaveLength(1);
    expect(readme('[a](docs/a.md#nowhere)')).toHaveLength(1);
    expect(readme('[a](../other/README.md)')).toHaveLength(1);
  });

  it('refuses links through a package CDN, which serves nothing of an unpublished package', () => {
    expect(readme('[a](https://unpkg.com/toolwire/docs/a.md)')).toHaveLength(1);
    expect(readme('[a](https://cdn.jsdelivr.net/npm/toolwire/docs/a.md)')).toHaveLength(1);
  });

  it('refuses http, other schemes and bare addresses that are not https', () => {
    expect(readme('[a](http://example.com/)')).toHaveLength(1);
    expect(readme('see http://example.com/ and http://127.0.0.1:8787/')).toHaveLength(2);
    expect(readme('see `http://127.0.0.1:8787/` (code, not a link)')).toEqual([]);
    expect(readme('[a](ftp://example.com/x)')).toHaveLength(1);
    expect(readme('[a](//example.com/x)')).toHaveLength(1);
    expect(readme('[a](https://example.com/) <https://example.org>')).toEqual([]);
  });

  it('checks an anchor on the page', () => {
    expect(readme('# Top\n\n[a](#top)')).toEqual([]);
    expect(readme('# Top\n\n[a](#bottom)')).toHaveLength(1);
  });

  it('lets the docs link each other relatively, only to shipped files that exist', () => {
    expect(doc('[a](a.md) [a](./a.md#ai-6-languagemodelv3) [b](#b)')).toEqual([]);
    expect(doc('[x](../src/x.ts)')).toHaveLength(1);
    expect(doc('[x](missing.md)')).toHaveLength(1);
    expect(doc('[x](a.md#missing)')).toHaveLength(1);
    expect(doc('[x](../../outside.md)')).toHaveLength(1);
    expect(doc('[x](/docs/a.md)')).toHaveLength(1);
  });

  it('reads images too', () => {
    expect(readme('![logo](logo.png)')).toHaveLength(1);
  });
});
