import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidToolInputError } from '../../../src/agent/tools/errors.ts';
import { compileGlob, type GlobLimits } from '../../../src/agent/tools/files/glob.ts';
import { DEFAULTS } from '../../../src/agent/tools/settings.ts';
import { bestCpuMsOf, expectLinearGrowth } from '../../support/growth.ts';
import { useWorkspace } from './workspace.ts';

const LIMITS: GlobLimits = {
  maxChars: DEFAULTS.maxGlobChars,
  maxBraceDepth: DEFAULTS.maxGlobBraceDepth,
};

function matcher(glob: string, limits: GlobLimits = LIMITS): (path: string) => boolean {
  return compileGlob(glob, 'glob', limits);
}

function failure(glob: string, limits: GlobLimits = LIMITS): InvalidToolInputError {
  try {
    compileGlob(glob, 'glob', limits);
  } catch (error) {
    if (error instanceof InvalidToolInputError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(glob)} to be refused`);
}

/**
 * The reference: the glob rules written down as a regular expression, the way globs were matched
 * before (backtracking, so only for the small globs and paths of the property test). Sets never
 * match `/`; `**` is whole folders when it is a segment of its own in the text.
 */
function referenceRegExp(glob: string): RegExp {
  const hex = (char: string) => `\\u{${char.codePointAt(0)!.toString(16)}}`;
  let source = '';
  let braces = 0;
  for (let index = 0; index < glob.length; index += 1) {
    const char = glob[index]!;
    if (char === '*' && glob[index + 1] === '*') {
      const segment = (index === 0 || glob[index - 1] === '/') && glob[index + 2] === '/';
      source += segment ? '(?:[^/]*/)*' : '[^]*';
      index += segment ? 2 : 1;
    } else if (char === '*') {
      source += '[^/]*';
    } else if (char === '?') {
      source += '[^/]';
    } else if (char === '[') {
      let cursor = index + 1;
      const negated = glob[cursor] === '!' || glob[cursor] === '^';
      if (negated) cursor += 1;
      const members: string[] = [];
      const escaped: boolean[] = [];
      let closed = false;
      while (cursor < glob.length) {
        if (glob[cursor] === ']' && members.length > 0) {
          closed = true;
          break;
        }
        const isEscape = glob[cursor] === '\\' && cursor + 1 < glob.length;
        if (isEscape) cursor += 1;
        members.push(glob[cursor]!);
        escaped.push(isEscape);
        cursor += 1;
      }
      if (!closed) throw new Error('unclosed [');
      let set = '';
      for (let member = 0; member < members.length; member += 1) {
        const isRange =
          members[member + 1] === '-' && !escaped[member + 1] && member + 2 < members.length;
        if (isRange) {
          if (members[member + 2]! < members[member]!) throw new Error('bad range');
          set += `${hex(members[member]!)}-${hex(members[member + 2]!)}`;
          member += 2;
        } else {
          set += hex(members[member]!);
        }
      }
      source += negated ? `[^/${set}]` : `(?!/)[${set}]`;
      index = cursor;
    } else if (char === '{') {
      braces += 1;
      source += '(?:';
    } else if (char === '}' && braces > 0) {
      braces -= 1;
      source += ')';
    } else if (char === ',' && braces > 0) {
      source += '|';
    } else if (char === '\\' && index + 1 < glob.length) {
      index += 1;
      source += hex(glob[index]!);
    } else {
      source += hex(char);
    }
  }
  if (braces > 0) throw new Error('unclosed {');
  return new RegExp(`^(?:${source})$`, 'u');
}

function referenceMatch(glob: string, path: string): boolean {
  const regex = referenceRegExp(glob);
  return regex.test(glob.includes('/') ? path : path.slice(path.lastIndexOf('/') + 1));
}

const GLOB_PARTS = [
  'a',
  'b',
  '.',
  '/',
  '-',
  '*',
  '**',
  '**/',
  '?',
  '[ab]',
  '[!a]',
  '[^b]',
  '[a-b]',
  '[]a]',
  '[a-]',
  '[\\]]',
  '{',
  ',',
  '}',
  '\\*',
  '\\',
  '[',
];
const PATH_PARTS = ['a', 'b', '.', '/', '-', '*', ']', '\\', ','];

describe('glob matching agrees with the reference rules', () => {
  it('on random small globs and paths (or both refuse the glob)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...GLOB_PARTS), { maxLength: 8 }).map((parts) => parts.join('')),
        fc.array(fc.array(fc.constantFrom(...PATH_PARTS), { maxLength: 12 }), {
          minLength: 1,
          maxLength: 6,
        }),
        (glob, paths) => {
          let reference: RegExp | undefined;
          try {
            reference = referenceRegExp(glob.trim().replace(/^\.\//, ''));
          } catch {
            reference = undefined;
          }
          if (reference === undefined) {
            expect(() => matcher(glob)).toThrow(InvalidToolInputError);
            return;
          }
          const matches = matcher(glob);
          for (const parts of paths) {
            const path = parts.join('');
            const trimmed = glob.trim().replace(/^\.\//, '');
            expect(matches(path), `${glob} on ${path}`).toBe(referenceMatch(trimmed, path));
          }
        },
      ),
      { numRuns: 1_000 },
    );
  });
});

describe('glob rules', () => {
  it('reads ** as whole folders only when it is a segment of its own', () => {
    const cases: [string, string, boolean][] = [
      ['a/**/b', 'a/b', true],
      ['a/**/b', 'a/x/y/b', true],
      ['a/**/b', 'ab', false],
      ['**/b', 'b', true],
      ['**/b', 'x/b', true],
      ['**/b', 'xb', false],
      ['a**/b', 'a/b', true],
      ['a**/b', 'ab', false],
      ['a**b/c', 'a/x/b/c', true],
      ['a/**', 'a/b/c', true],
      ['**', 'a', true],
    ];
    for (const [glob, path, expected] of cases) {
      expect(matcher(glob)(path), `${glob} on ${path}`).toBe(expected);
    }
  });

  it('never matches / with *, ? or a set, negated or not', () => {
    expect(matcher('a*b/c')('a/b/c')).toBe(false);
    expect(matcher('a?b/c')('a/b/c')).toBe(false);
    expect(matcher('a[!x]b/c')('a/b/c')).toBe(false);
    expect(matcher('a[^x]b/c')('a/b/c')).toBe(false);
    expect(matcher('a[/]b/c')('a/b/c')).toBe(false);
    expect(matcher('a[!x]b/c')('ayb/c')).toBe(true);
  });

  it('reads sets: ] first, - first or last, \\ escapes, ranges', () => {
    expect(matcher('[]x]')('x/]')).toBe(true);
    expect(matcher('[!]x]')('x/]')).toBe(false);
    expect(matcher('[!]x]')('x/y')).toBe(true);
    expect(matcher('[a-]')('d/-')).toBe(true);
    expect(matcher('[-a]')('d/-')).toBe(true);
    expect(matcher('[\\]]')('d/]')).toBe(true);
    expect(matcher('[a\\-z]')('d/m')).toBe(false);
    expect(matcher('[a-z]')('d/m')).toBe(true);
    expect(matcher('[0-9][0-9].log')('logs/42.log')).toBe(true);
  });

  it('reads nested {a,b} alternatives, empty options and escaped braces', () => {
    const glob = matcher('*.{ts,{m,c}{js,ts},}');
    for (const name of ['a.ts', 'a.mjs', 'a.cts', 'a.']) expect(glob(`x/${name}`), name).toBe(true);
    for (const name of ['a.mts.js', 'a.js', 'a.tsx']) expect(glob(name), name).toBe(false);
    expect(matcher('\\{a,b\\}')('{a,b}')).toBe(true);
    expect(matcher('\\{a,b\\}')('a')).toBe(false);
    expect(matcher('a}b,c')('a}b,c')).toBe(true);
  });

  it('counts one character per code point, not per UTF-16 unit', () => {
    expect(matcher('?.md')('docs/😀.md')).toBe(true);
    expect(matcher('??.md')('docs/😀.md')).toBe(false);
    expect(matcher('[😀-😂].md')('docs/😁.md')).toBe(true);
    expect(matcher('*é*')('café.txt')).toBe(true);
  });

  it('ignores a leading ./ and surrounding white space', () => {
    expect(matcher(' ./src/*.ts ')('src/a.ts')).toBe(true);
  });
});

describe('glob limits', () => {
  it('refuses malformed globs with the same messages as before', () => {
    for (const [glob, reason] of [
      ['*.{ts,js', 'a "{" has no closing "}"'],
      ['[abc', 'a "[" has no closing "]"'],
      ['[z-a].ts', 'a character set in it is malformed'],
      ['[]', 'a "[" has no closing "]"'],
    ] as const) {
      const error = failure(glob);
      expect(error.parameter).toBe('glob');
      expect(error.message).toBe(`glob ${JSON.stringify(glob)} is not a valid glob: ${reason}.`);
    }
  });

  it('refuses a glob longer than maxChars, saying how long it is and what is allowed', () => {
    const glob = `${'a'.repeat(40)}*`;
    expect(() => matcher(glob, { ...LIMITS, maxChars: 41 })).not.toThrow();
    const error = failure(glob, { ...LIMITS, maxChars: 40 });
    expect(error.parameter).toBe('glob');
    expect(error.message).toBe(
      'glob is 41 characters long; a glob may have at most 40. Use a shorter glob, such as ' +
        '"src/**/*.ts".',
    );
  });

  it('refuses braces nested deeper than maxBraceDepth', () => {
    const nested = (depth: number): string => (depth === 0 ? 'a' : `{a,${nested(depth - 1)}}`);
    expect(matcher(nested(3), { ...LIMITS, maxBraceDepth: 3 })('a')).toBe(true);
    const error = failure(nested(4), { ...LIMITS, maxBraceDepth: 3 });
    expect(error.message).toContain('its "{…}" groups are nested more than 3 deep');
    expect(failure('{a,b}', { ...LIMITS, maxBraceDepth: 0 }).message).toContain('more than 0 deep');
  });
});

describe('glob matching time is linear, whatever the glob', () => {
  // Each of these takes a backtracking regular expression longer than a test can wait
  // (the * and ** before every letter can split the path in exponentially many ways).
  const pathological: [string, string, string][] = [
    ['stars before letters', '**/*a*a*a*a*a*a*a*a*a*a*b', 'a'.repeat(4_000)],
    ['stars across folders', '**a**a**a**a**a**a**a**a**a**a**/b', `${'a/'.repeat(2_000)}c`],
    ['?s between **', `${'**?'.repeat(160)}**/x`, `${'ab/'.repeat(1_300)}c`],
    ['nested alternatives', `${'{a,'.repeat(10)}a${'}'.repeat(10)}*b/x`, 'a'.repeat(4_000)],
    ['sets', `${'*[a-c]'.repeat(80)}/x`, 'b'.repeat(4_000)],
  ];
  for (const [name, glob, path] of pathological) {
    it(`${name}: ${glob.length}-character glob on a ${path.length}-character path`, () => {
      const matches = matcher(glob);
      expect(matches(path)).toBe(false);
      // CPU time, the fastest of a few runs: a busy machine does not decide.
      expect(bestCpuMsOf(() => matches(path))).toBeLessThan(100);
    });
  }

  it('grows in proportion to the path, not faster', () => {
    const matches = matcher(`${'*a'.repeat(100)}b/x`);
    expectLinearGrowth((size) => 'a'.repeat(size), matches, 500);
  });

  it('compiles deeply nested alternatives without recursion limits when allowed', () => {
    const depth = 5_000;
    const glob = `${'{a,'.repeat(depth)}b${'}'.repeat(depth)}`;
    const matches = matcher(glob, { maxChars: glob.length, maxBraceDepth: depth });
    expect(matches('b')).toBe(true);
    expect(matches('a')).toBe(true);
    expect(matches('c')).toBe(false);
  });
});

describe('list_files glob limits are settings', () => {
  const ws = useWorkspace();

  it('takes maxGlobChars and maxGlobBraceDepth from createCodeTools', async () => {
    const tools = ws.workspace.tools({ maxGlobChars: 10, maxGlobBraceDepth: 1 });
    await expect(tools.list_files.execute({ glob: '*.{ts,py}' })).resolves.toContain('.py');
    await expect(tools.list_files.execute({ glob: 'src/**/*.tsx' })).rejects.toThrow(
      'glob is 12 characters long; a glob may have at most 10.',
    );
    await expect(tools.list_files.execute({ glob: '{a,{b,c}}' })).rejects.toThrow(
      'nested more than 1 deep',
    );
    expect(() => ws.workspace.tools({ maxGlobChars: 0 })).toThrow(
      'createCodeTools: maxGlobChars must be an integer >= 1, got 0',
    );
  });
});
