/**
 * What `npm install toolwire` puts in node_modules: packs the package as it would be published
 * (built in a copy of the project, so the working tree's dist/ is left alone), installs the
 * tarball into fresh projects with `--omit=dev`, once as a parser-only user has it and once
 * with the optional peers the CLI's commands name, and adds up the files.
 *
 * `node bench/install-size.ts` prints the table (`--json` the figures). Needs the npm registry.
 */
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { COMMANDS } from '../src/cli/commands.ts';
import { formatTable } from './measure.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** The project's own build output and tooling state: not copied into the packing copy. */
const NOT_COPIED = new Set(['node_modules', 'dist', '.git', 'test-results', '.prof']);

/** The parser-only target of the package issue, in bytes (MB as 10^6 bytes, the stricter). */
export const PARSER_ONLY_TARGET_BYTES = 5_000_000;

export interface PackageSize {
  /** The top-level package (`ajv`, `@hono/node-server`), its nested node_modules included. */
  readonly name: string;
  readonly bytes: number;
}

export interface InstallSize {
  /** What `npm install` was given besides the tarball (`name@range`). */
  readonly extraPackages: readonly string[];
  /** The exact command, with the tarball's path. */
  readonly command: string;
  /** Sum of the files' sizes (what `du --apparent-size` counts). */
  readonly bytes: number;
  /** Space taken on this disk (whole blocks), for comparison. */
  readonly diskBytes: number;
  readonly files: number;
  /** Every top-level package, largest first. */
  readonly packages: readonly PackageSize[];
}

export interface InstallSizeResult {
  readonly tarballBytes: number;
  readonly parserOnly: InstallSize;
  readonly fullApp: InstallSize;
}

function run(command: string, args: readonly string[], cwd: string): string {
  try {
    return execFileSync(command, args, {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(
      `${command} ${args.join(' ')} failed in ${cwd}:\n${stdout ?? ''}${stderr ?? ''}`.trimEnd(),
    );
  }
}

/** Builds and packs the project in a copy under `work`; returns the tarball's path. */
function packProject(work: string): string {
  const copy = join(work, 'project');
  cpSync(ROOT, copy, {
    recursive: true,
    filter: (source) => !NOT_COPIED.has(relative(ROOT, source).split(sep)[0]!),
  });
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
  // `npm pack` runs `prepare`, the build, as publishing does.
  run('npm', ['pack', '--pack-destination', work, '--loglevel=error'], copy);
  const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'));
  if (tarball === undefined) throw new Error(`npm pack wrote no tarball into ${work}`);
  return join(work, tarball);
}

/** The optional peers the CLI's commands name, at the ranges package.json declares. */
export function fullAppPackages(): string[] {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    peerDependencies: Record<string, string>;
  };
  const names = new Set(Object.values(COMMANDS).flatMap((command) => command.needs ?? []));
  return [...names].map((name) => {
    const range = manifest.peerDependencies[name];
    if (range === undefined) throw new Error(`${name} is not a peer dependency in package.json`);
    return `${name}@${range}`;
  });
}

/** Adds up every file under `dir` (symlinks counted as themselves, not followed). */
function sizeOf(dir: string): { bytes: number; diskBytes: number; files: number } {
  let bytes = 0;
  let diskBytes = 0;
  let files = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isDirectory()) continue;
    const stat = lstatSync(join(entry.parentPath, entry.name));
    bytes += stat.size;
    diskBytes += stat.blocks * 512;
    files += 1;
  }
  return { bytes, diskBytes, files };
}

/** The top-level packages of a node_modules folder, each with its size. */
function packageSizes(nodeModules: string): PackageSize[] {
  const sizes: PackageSize[] = [];
  for (const entry of readdirSync(nodeModules, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    const names = entry.name.startsWith('@')
      ? readdirSync(join(nodeModules, entry.name)).map((name) => `${entry.name}/${name}`)
      : [entry.name];
    for (const name of names) sizes.push({ name, bytes: sizeOf(join(nodeModules, name)).bytes });
  }
  return sizes.sort((a, b) => b.bytes - a.bytes);
}

function installInto(dir: string, tarball: string, extraPackages: readonly string[]): InstallSize {
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: 'toolwire-install-size', version: '1.0.0', private: true })}\n`,
  );
  const args = [
    'install',
    tarball,
    ...extraPackages,
    '--omit=dev',
    '--no-audit',
    '--no-fund',
    '--loglevel=error',
  ];
  run('npm', args, dir);
  const nodeModules = join(dir, 'node_modules');
  return {
    extraPackages,
    command: `npm ${args.join(' ')}`,
    ...sizeOf(nodeModules),
    packages: packageSizes(nodeModules),
  };
}

/**
 * Packs the project and measures both installs. Takes a minute or more (a full build, two
 * installs from the registry); the temporary folder is removed unless `keep` is set.
 */
export function measureInstallSizes(options: { keep?: boolean } = {}): InstallSizeResult {
  const work = mkdtempSync(join(tmpdir(), 'toolwire-install-size-'));
  try {
    const tarball = packProject(work);
    const parserDir = join(work, 'parser-only');
    const fullDir = join(work, 'full-app');
    for (const dir of [parserDir, fullDir]) mkdirSync(dir);
    return {
      tarballBytes: lstatSync(tarball).size,
      parserOnly: installInto(parserDir, tarball, []),
      fullApp: installInto(fullDir, tarball, fullAppPackages()),
    };
  } finally {
    if (!options.keep) rmSync(work, { recursive: true, force: true });
  }
}

const megabytes = (bytes: number) => (bytes / 1e6).toFixed(2);
const mebibytes = (bytes: number) => (bytes / (1024 * 1024)).toFixed(2);

/** The table `node bench/install-size.ts` prints. */
export function formatInstallSizes(result: InstallSizeResult): string {
  const row = (label: string, size: InstallSize) => [
    label,
    size.bytes.toLocaleString('en-US'),
    megabytes(size.bytes),
    mebibytes(size.bytes),
    megabytes(size.diskBytes),
    String(size.packages.length),
  ];
  const table = formatTable(
    ['node_modules', 'bytes', 'MB', 'MiB', 'disk MB', 'packages'],
    [row('parser only', result.parserOnly), row('full app', result.fullApp)],
  );
  const largest = (size: InstallSize) =>
    size.packages
      .slice(0, 6)
      .map((pkg) => `${pkg.name} ${megabytes(pkg.bytes)}`)
      .join(', ');
  const met = result.parserOnly.bytes < PARSER_ONLY_TARGET_BYTES;
  return [
    `Install size (the packed tarball: ${megabytes(result.tarballBytes)} MB)`,
    table,
    `parser only: ${result.parserOnly.command.replace(/\S+\.tgz/, 'toolwire.tgz')}`,
    `full app:    ${result.fullApp.command.replace(/\S+\.tgz/, 'toolwire.tgz')}`,
    `largest, parser only (MB): ${largest(result.parserOnly)}`,
    `largest, full app (MB): ${largest(result.fullApp)}`,
    `parser-only target (< ${megabytes(PARSER_ONLY_TARGET_BYTES)} MB): ${met ? 'met' : 'MISSED'}`,
  ].join('\n');
}

if (import.meta.main) {
  const result = measureInstallSizes({ keep: process.argv.includes('--keep') });
  console.log(
    process.argv.includes('--json') ? JSON.stringify(result, null, 2) : formatInstallSizes(result),
  );
}
