/**
 * One error type: every error class of the source extends `ToolwireError`, directly or through
 * another toolwire error class, so `kind`, `cause` and `isInstance` hold for all of them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/** `class Name extends Base` of every source file: name → base. */
function classes(): Map<string, string> {
  const found = new Map<string, string>();
  for (const name of readdirSync(SRC, { recursive: true, encoding: 'utf8' })) {
    if (!name.endsWith('.ts')) continue;
    const text = readFileSync(join(SRC, name), 'utf8');
    for (const match of text.matchAll(/\bclass (\w+) extends (\w+)/g))
      found.set(match[1]!, match[2]!);
  }
  return found;
}

/** What the class's chain of bases ends at, inside the source. */
function root(name: string, bases: Map<string, string>): string {
  let current = name;
  for (let step = 0; step < 20 && bases.has(current) && current !== 'ToolwireError'; step++)
    current = bases.get(current)!;
  return current;
}

describe('error classes', () => {
  const bases = classes();
  const errorClasses = [...bases.keys()].filter((name) => {
    const end = root(name, bases);
    return end === 'Error' || end === 'ToolwireError' || /Error$|Timeout$/.test(name);
  });

  it('finds the error classes of the source', () => {
    expect(errorClasses).toEqual(
      expect.arrayContaining(['ModelCallError', 'HttpError', 'UsageError']),
    );
    expect(errorClasses.length).toBeGreaterThan(20);
  });

  it('has one base: every error class ends at ToolwireError, which alone extends Error', () => {
    const stray = errorClasses
      .filter((name) => name !== 'ToolwireError' && root(name, bases) !== 'ToolwireError')
      .map((name) => `${name} extends ${bases.get(name)}`);
    expect(stray).toEqual([]);
    expect(bases.get('ToolwireError')).toBe('Error');
  });
});
