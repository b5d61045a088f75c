/**
 * Which packages each entry point of the package pulls in. A parser-only user installs
 * `dependencies` and nothing else, so every entry point may load only those, plus the optional
 * peers its own job needs (and then exactly those, so none is declared needlessly).
 */
import { describe, expect, it } from 'vitest';
import {
  type Manifest,
  optionalPeers,
  packagesLoadedBy,
  ROOT,
  readManifest,
} from './loaded-packages.ts';

/** The optional peers each entry point needs. Every export of package.json must be listed. */
const PEERS_OF_ENTRY: Readonly<Record<string, readonly string[]>> = {
  '.': [],
  './ai-sdk': [],
  './ai-sdk/v3': [],
  './agent': [],
  './code-tools': ['@ast-grep/napi'],
  './stream': [],
};

/** What a parser-only install must not bring: the server, the native parser, the model client. */
const HEAVY = ['hono', '@hono/node-server', '@ast-grep/napi', '@ai-sdk/openai-compatible'];

/** The source file an export's `import` target (`./dist/x/y.js`) is compiled from. */
function sourceOf(target: string): URL {
  const match = /^\.\/dist\/(.+)\.js$/.exec(target);
  if (match === null) throw new Error(`export target "${target}" is not a file under ./dist`);
  return new URL(`src/${match[1]}.ts`, ROOT);
}

/** Each export with an `import` target: its subpath (`./ai-sdk`) and the target. */
function importTargets(manifest: Manifest): [string, string][] {
  return Object.entries(manifest.exports).flatMap(([subpath, target]) => {
    const file = typeof target === 'string' ? undefined : target.import;
    return file === undefined ? [] : [[subpath, file] as [string, string]];
  });
}

/** What a user imports: `toolwire`, `toolwire/ai-sdk`. */
const importName = (subpath: string) => `toolwire${subpath.slice(1)}`;

const manifest = readManifest();
const peers = optionalPeers(manifest);
const dependencies = Object.keys(manifest.dependencies);

describe('the manifest', () => {
  it('declares the heavy packages as optional peers, not dependencies, and keeps them for tests', () => {
    for (const name of HEAVY) {
      expect(peers, name).toContain(name);
      expect(dependencies, name).not.toContain(name);
      expect(manifest.devDependencies[name], name).toBe(manifest.peerDependencies[name]);
    }
  });

  it('classifies every entry point', () => {
    expect(Object.keys(PEERS_OF_ENTRY).sort()).toEqual(
      importTargets(manifest)
        .map(([subpath]) => subpath)
        .sort(),
    );
  });
});

describe('each entry point loads only its own packages', () => {
  it.each(
    importTargets(manifest).map(([subpath, target]) => [importName(subpath), subpath, target]),
  )('%s', (name, subpath, target) => {
    const loaded = packagesLoadedBy(sourceOf(target));
    const allowed = PEERS_OF_ENTRY[subpath] ?? [];
    for (const pkg of loaded)
      expect([...dependencies, ...allowed], `${name} loads ${pkg}`).toContain(pkg);
    expect(
      loaded.filter((name) => peers.includes(name)),
      'the optional peers it loads',
    ).toEqual([...allowed].sort());
  });

  it('the parser entry point loads no heavy package', () => {
    const loaded = packagesLoadedBy(sourceOf('./dist/index.js'));
    expect(loaded.filter((name) => HEAVY.includes(name))).toEqual([]);
    expect(loaded).toContain('ajv');
  });
});
