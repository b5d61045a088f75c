/**
 * The manifest as a user's install reads it: no script runs when the package is installed
 * (npm asks users to allow such scripts, and the published package has its `dist/` built
 * already), and a description that says what the package holds.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PROTOCOL_NAMES } from '../../src/protocols/registry.ts';
import { ROOT } from './loaded-packages.ts';

const manifest = JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as {
  readonly description: string;
  readonly scripts: Readonly<Record<string, string>>;
};

/** The scripts npm runs when a package is installed (prepare: from a git or folder install). */
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepare'];

describe('package.json', () => {
  it('has no install-time script', () => {
    expect(Object.keys(manifest.scripts).filter((name) => INSTALL_SCRIPTS.includes(name))).toEqual(
      [],
    );
  });

  it('its description counts the formats there are', () => {
    const formats = PROTOCOL_NAMES.filter((name) => name !== 'auto');
    expect(manifest.description).toContain(`${formats.length} tool-call formats`);
    for (const part of ['auto-detection', 'AI SDK', 'agent', 'server', 'proxy'])
      expect(manifest.description, part).toContain(part);
  });
});
