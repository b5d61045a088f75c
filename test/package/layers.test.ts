/**
 * The layers of docs/architecture.md, checked on the source: which folder of src/ may import
 * which, and that the command line reaches the folders above the protocols only through their
 * public faces (index files). A new import that breaks a rule fails here with its file and line.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/** What each folder may import (besides itself), as docs/architecture.md lists it. */
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  core: [],
  scan: ['core'],
  schema: ['core', 'scan'],
  protocols: ['core', 'scan', 'schema'],
  'ai-sdk': ['core', 'scan', 'schema', 'protocols', 'stream'],
  agent: ['core', 'scan', 'schema', 'protocols'],
  stream: ['core', 'scan'],
  http: ['core', 'scan', 'stream'],
  // Runs kept for any instance: strings and JSON text, so the server and the proxy share it.
  store: ['core'],
  server: ['core', 'scan', 'schema', 'protocols', 'agent', 'stream', 'http', 'store'],
  proxy: ['core', 'scan', 'schema', 'protocols', 'http', 'store'],
  cli: [
    'core',
    'scan',
    'schema',
    'protocols',
    'agent',
    'stream',
    'http',
    'server',
    'proxy',
    'ai-sdk',
    'store',
  ],
  // src/index.ts, the package's main entry.
  '.': ['core', 'scan', 'schema', 'protocols'],
};

/** Folders the command line may reach only through these files. */
const FACES: Readonly<Record<string, readonly string[]>> = {
  agent: ['agent/index.ts', 'agent/tools/index.ts'],
  http: ['http/index.ts'],
  server: ['server/index.ts'],
  proxy: ['proxy/index.ts'],
};

interface Import {
  readonly file: string;
  readonly line: number;
  readonly target: string;
}

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => join(folder, name));
}

/** Every relative import and re-export of the source, resolved to a path under src/. */
function imports(): Import[] {
  const found: Import[] = [];
  for (const path of sourceFiles(SRC)) {
    const lines = readFileSync(path, 'utf8').split('\n');
    lines.forEach((text, index) => {
      const match = /\bfrom '(\.{1,2}\/[^']+)'|\bimport\('(\.{1,2}\/[^']+)'\)/.exec(text);
      const specifier = match?.[1] ?? match?.[2];
      if (specifier === undefined) return;
      found.push({
        file: relative(SRC, path),
        line: index + 1,
        target: relative(SRC, resolve(dirname(path), specifier)),
      });
    });
  }
  return found;
}

const layerOf = (path: string): string => (path.includes('/') ? path.split('/')[0]! : '.');

const all = imports();

describe('the layers of src/', () => {
  it('finds the imports it checks', () => {
    expect(all.length).toBeGreaterThan(500);
    expect(
      all.some((entry) => entry.file.startsWith('proxy/') && entry.target.startsWith('http/')),
    ).toBe(true);
  });

  it('knows every folder', () => {
    const folders = readdirSync(SRC, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    expect(folders).toEqual(
      Object.keys(ALLOWED)
        .filter((name) => name !== '.')
        .sort(),
    );
  });

  it('imports only downward (and ai-sdk the block types of stream)', () => {
    const wrong = all
      .filter((entry) => {
        const from = layerOf(entry.file);
        const to = layerOf(entry.target);
        return from !== to && !ALLOWED[from]!.includes(to);
      })
      .map((entry) => `${entry.file}:${entry.line} imports ${entry.target}`);
    expect(wrong).toEqual([]);
  });

  it('lets the command line reach agent, http, server and proxy only through their faces', () => {
    const wrong = all
      .filter((entry) => {
        if (layerOf(entry.file) !== 'cli') return false;
        const faces = FACES[layerOf(entry.target)];
        return faces !== undefined && !faces.includes(entry.target);
      })
      .map((entry) => `${entry.file}:${entry.line} imports ${entry.target}`);
    expect(wrong).toEqual([]);
  });

  it('keeps the proxy and the server apart', () => {
    const crossing = all.filter(
      (entry) =>
        (layerOf(entry.file) === 'proxy' && layerOf(entry.target) === 'server') ||
        (layerOf(entry.file) === 'server' && layerOf(entry.target) === 'proxy'),
    );
    expect(crossing).toEqual([]);
  });
});
