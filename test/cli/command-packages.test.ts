/**
 * The CLI loads a command's module only when the command runs, and each command declares
 * (`needs`) exactly the optional packages its module imports: the check main makes before
 * loading it is then complete, and names nothing the command does not use.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands.ts';
import { SERVE_USAGE } from '../../src/cli/serve-command.ts';
import { STATED_REPLAY_DELAY_MS } from '../../src/cli/usage.ts';
import { DEFAULT_REPLAY_DELAY_MS } from '../../src/server/index.ts';
import {
  optionalPeers,
  packagesLoadedBy,
  ROOT,
  readManifest,
  SRC,
} from '../package/loaded-packages.ts';

const manifest = readManifest();
const peers = optionalPeers(manifest);
const dependencies = Object.keys(manifest.dependencies);

describe('the command table', () => {
  it('and the usage texts load no optional package (toolwire --help works on any install)', () => {
    for (const module of ['cli/commands.ts', 'cli/usage.ts', 'cli/help.ts']) {
      const loaded = packagesLoadedBy(new URL(module, SRC));
      expect(
        loaded.filter((name) => !dependencies.includes(name)),
        module,
      ).toEqual([]);
    }
  });

  it('declares only optional peers of the package as what a command needs', () => {
    for (const [name, command] of Object.entries(COMMANDS))
      for (const needed of command.needs ?? [])
        expect(peers, `${name} needs ${needed}`).toContain(needed);
  });

  it.each(Object.keys(COMMANDS))(
    '%s needs exactly the optional packages its module loads',
    (name) => {
      const command = COMMANDS[name]!;
      // `--help` loads the command's module and returns without doing anything else.
      const loaded = packagesLoadedBy(
        new URL('cli/commands.ts', SRC),
        `await loaded.COMMANDS[${JSON.stringify(name)}].run(['--help']);`,
      );
      const needs = command.needs ?? [];
      for (const pkg of loaded)
        expect([...dependencies, ...needs], `toolwire ${name} loads ${pkg}`).toContain(pkg);
      expect(loaded.filter((pkg) => peers.includes(pkg))).toEqual([...needs].sort());
    },
  );
});

describe('the README', () => {
  it('names every optional package a command needs, where it says how to install', () => {
    const readme = readFileSync(new URL('README.md', ROOT), 'utf8');
    const section = readme.slice(readme.indexOf('## Installing the package'));
    const install = section.slice(0, section.indexOf('\n## ', 1));
    expect(install.length).toBeGreaterThan(0);
    for (const command of Object.values(COMMANDS))
      for (const name of command.needs ?? []) expect(install, name).toContain(name);
  });
});

describe('the usage texts', () => {
  it("state the server's default replay delay", () => {
    expect(STATED_REPLAY_DELAY_MS).toBe(DEFAULT_REPLAY_DELAY_MS);
    expect(SERVE_USAGE).toContain(`(default ${DEFAULT_REPLAY_DELAY_MS};`);
  });
});
