/**
 * Which npm packages toolwire's own code imports when a module of it is loaded: a child Node
 * process records, through a module resolve hook, every bare import made from a file under
 * src/. What those packages import in turn is theirs (and installed with them), so it is left
 * out. Type-only imports are erased before they run and so are not counted, as in the package.
 */
import { readFileSync } from 'node:fs';
import { runChild } from '../support/child-process.ts';

export const ROOT = new URL('../../', import.meta.url);
export const SRC = new URL('src/', ROOT);

export interface Manifest {
  readonly version: string;
  readonly files: readonly string[];
  readonly exports: Readonly<Record<string, string | { readonly import?: string }>>;
  readonly dependencies: Readonly<Record<string, string>>;
  readonly devDependencies: Readonly<Record<string, string>>;
  readonly peerDependencies: Readonly<Record<string, string>>;
  readonly peerDependenciesMeta: Readonly<Record<string, { readonly optional?: boolean }>>;
}

export function readManifest(): Manifest {
  return JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as Manifest;
}

/** The optional peer dependencies: what a plain `npm install toolwire` does not bring. */
export function optionalPeers(manifest: Manifest): string[] {
  return Object.keys(manifest.peerDependencies).filter(
    (name) => manifest.peerDependenciesMeta[name]?.optional === true,
  );
}

/** `@scope/name/sub/path` → `@scope/name`, `name/sub` → `name`. */
export function packageNameOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** The child's script: the hook, the import, `then`, and the report on standard error. */
function childScript(then: string): string {
  return `
import { registerHooks } from 'node:module';
const src = process.env.TOOLWIRE_SRC;
const packages = new Set();
registerHooks({
  resolve(specifier, context, nextResolve) {
    const result = nextResolve(specifier, context);
    const fromSrc = context.parentURL?.startsWith(src) === true;
    const external = !result.url.startsWith('node:') && !result.url.startsWith(src);
    if (fromSrc && external && !specifier.startsWith('.')) packages.add(specifier);
    return result;
  },
});
const loaded = await import(process.env.TOOLWIRE_MODULE);
${then}
process.stderr.write('\\nLOADED ' + JSON.stringify([...packages]) + '\\n');
`;
}

/**
 * The packages toolwire's code imports when `module` (a file URL under src/) is loaded and then
 * `then` (statements that may use `loaded`, the module's namespace) has run, sorted.
 */
export function packagesLoadedBy(module: URL, then = ''): string[] {
  const child = runChild(process.execPath, ['--input-type=module', '--eval', childScript(then)], {
    env: { ...process.env, TOOLWIRE_SRC: SRC.href, TOOLWIRE_MODULE: module.href },
  });
  const report = /^LOADED (.*)$/m.exec(child.stderr);
  if (child.status !== 0 || report === null)
    throw new Error(`loading ${module.pathname} failed (status ${child.status}):\n${child.stderr}`);
  const specifiers = JSON.parse(report[1]!) as string[];
  return [...new Set(specifiers.map(packageNameOf))].sort();
}
