import { describe, expect, it } from 'vitest';
import {
  missingPackages,
  missingPackagesMessage,
  type PackageResolver,
} from '../../src/cli/optional-packages.ts';

/** A resolver that finds only `installed`, failing as Node's does for the rest. */
function resolverWith(installed: readonly string[]): PackageResolver {
  return (name) => {
    if (installed.includes(name)) return `file:///app/node_modules/${name}/index.js`;
    throw Object.assign(new Error(`Cannot find package '${name}'`), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
  };
}

describe('missingPackages', () => {
  it('lists the packages that cannot be found, in the order asked', () => {
    const resolve = resolverWith(['hono']);
    expect(missingPackages(['@hono/node-server', 'hono', '@ast-grep/napi'], resolve)).toEqual([
      '@hono/node-server',
      '@ast-grep/napi',
    ]);
    expect(missingPackages(['hono'], resolve)).toEqual([]);
    expect(missingPackages([], resolve)).toEqual([]);
  });

  it('passes on a failure that is not a missing package', () => {
    const broken: PackageResolver = () => {
      throw Object.assign(new Error('bad "exports"'), { code: 'ERR_INVALID_PACKAGE_CONFIG' });
    };
    expect(() => missingPackages(['hono'], broken)).toThrow('bad "exports"');
  });

  it('finds the packages installed here, and not one that is not', () => {
    expect(missingPackages(['ajv', 'hono', 'toolwire-no-such-package'])).toEqual([
      'toolwire-no-such-package',
    ]);
  });
});

describe('missingPackagesMessage', () => {
  it('names the command, every missing package and the npm install that adds them', () => {
    expect(missingPackagesMessage('serve', ['hono', '@hono/node-server'])).toBe(
      'toolwire serve needs hono and @hono/node-server: npm install hono @hono/node-server',
    );
    expect(missingPackagesMessage('agent', ['@ast-grep/napi'])).toBe(
      'toolwire agent needs @ast-grep/napi: npm install @ast-grep/napi',
    );
    expect(missingPackagesMessage('serve', ['a', 'b', 'c'])).toBe(
      'toolwire serve needs a, b and c: npm install a b c',
    );
  });
});
