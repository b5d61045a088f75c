import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { RE2JS } from 're2js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isErrorOfKind, ToolwireError } from '../../src/core/errors.ts';
import type { JsonSchema } from '../../src/core/index.ts';
import { linearFormats, REGEX_FORMATS } from '../../src/schema/formats.ts';
import {
  checkSchemaPatterns,
  coerceBySchema,
  compileSchemaPattern,
  createValidator,
  propertySchema,
  UnsupportedPatternError,
} from '../../src/schema/index.ts';

/** Patterns that take exponential time in a backtracking engine on `a…a!`. */
const CATASTROPHIC = ['^(a+)+$', '^(a|a)*$', '^(a|aa)+$', '^(\\w+\\s?)*$', '^([a-z]*)*$'];
const adversarial = (length: number) => `${'a'.repeat(length)}!`;

/**
 * Records every string a backtracking RegExp is asked to match, so a test can show that model
 * text never reaches one (whatever else uses RegExp meanwhile).
 */
function watchRegExps(): string[] {
  const seen: string[] = [];
  const exec = RegExp.prototype.exec;
  const test = RegExp.prototype.test;
  vi.spyOn(RegExp.prototype, 'exec').mockImplementation(function (this: RegExp, text: string) {
    seen.push(text);
    return exec.call(this, text);
  });
  vi.spyOn(RegExp.prototype, 'test').mockImplementation(function (this: RegExp, text: string) {
    seen.push(text);
    return test.call(this, text);
  });
  return seen;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('schema patterns run in linear time', () => {
  it.each(CATASTROPHIC)(
    '%s: Ajv compiles it with the linear engine and no RegExp sees the text',
    (pattern) => {
      // A pattern this test alone uses, so the engine's cache cannot hide the compilation.
      const unique = `${pattern}|^unique-${Math.random()}$`;
      const compile = vi.spyOn(RE2JS, 'compile');
      const seen = watchRegExps();
      const text = adversarial(34);
      const problems = createValidator().validate(
        { name: text },
        { type: 'object', properties: { name: { type: 'string', pattern: unique } } },
      );
      expect(problems.map((problem) => problem.keyword)).toEqual(['pattern']);
      expect(compile).toHaveBeenCalledTimes(1);
      expect(seen.some((input) => typeof input === 'string' && input.includes(text))).toBe(false);
    },
  );

  it('matches a 10 000-character adversarial string (hours for a backtracking engine)', () => {
    const validator = createValidator();
    const schema = { type: 'string', pattern: '^(a+)+$' };
    expect(validator.validate(adversarial(10_000), schema)).toHaveLength(1);
    expect(validator.validate('a'.repeat(10_000), schema)).toEqual([]);
  });

  it('matches patternProperties keys and propertyNames linearly, in Ajv and in coercion', () => {
    const seen = watchRegExps();
    const key = adversarial(10_000);
    const schema = {
      type: 'object',
      patternProperties: { '^(a+)+$': { type: 'integer' } },
      additionalProperties: false,
    };
    expect(
      createValidator()
        .validate({ [key]: 1 }, schema)
        .map((p) => p.keyword),
    ).toEqual(['additionalProperties']);
    expect(propertySchema(schema, key)).toBe(false);
    expect(coerceBySchema({ aaa: '7' }, schema)).toEqual({ aaa: 7 });
    const names = { type: 'object', propertyNames: { pattern: '^(a|aa)+$' } };
    expect(
      createValidator()
        .validate({ [key]: 1 }, names)
        .map((p) => p.keyword),
    ).toContain('pattern');
    expect(seen.some((input) => typeof input === 'string' && input.includes(key))).toBe(false);
  });
});

describe('patterns keep their ECMAScript meaning', () => {
  // Each pattern with texts that match and texts that do not, checked against RegExp (`u`).
  const cases: [string, string[]][] = [
    ['^\\s+$', [' \u00a0\u2028\t\u000b\ufeff', 'a', '\u0085']],
    ['^\\S+$', ['ab', 'a b', '\u00a0', '\u3000x']],
    ['^[\\s\\d]+$', [' 1 \u3000', 'x']],
    ['^[^\\s]+$', ['ab', 'a b']],
    ['^[\\S]+$', ['ab', 'a\u00a0b']],
    ['^.$', ['a', '\n', '\r', '\u2028', '\u2029', '😀', '\u0085']],
    ['^a$', ['a', 'a\n', '\na']],
    ['^\\u00e9\\u{1F600}\\uD83D\\uDE00$', ['é😀😀', 'e😀😀']],
    ['^[a-z\\-]+$', ['a-b', 'A']],
    ['^[\\u0400-\\u04FF]+$', ['Привет', 'Hi']],
    ['^\\p{L}+$', ['héllo', 'h1', 'Ωmega']],
    ['^\\p{Letter}\\p{Nd}$', ['a1', '11']],
    ['^\\p{Script=Greek}+$', ['αβ', 'ab']],
    ['^\\p{Lu}\\P{Lu}$', ['Ab', 'AB']],
    ['^[\\p{ASCII}]+$', ['ab', 'é']],
    ['^\\P{ASCII}$', ['é', 'a']],
    ['^(?<year>\\d{4})-(?:\\d{2})$', ['2024-01', '202-01']],
    ['[]', ['a', '']],
    ['^[^]$', ['a', '\n', '']],
    ['\\bfoo\\b', ['a foo b', 'afoob']],
    ['^[\\b]$', ['\b', 'b']],
    ['^\\cJ\\0$', ['\n\0', 'J0']],
    ['^\\/\\.\\*\\$$', ['/.*$', 'x.*$']],
    ['^[\\[\\]]+$', ['[]', 'a']],
    ['^[[:a]+$', ['[:a', 'b']],
    ['^a{2,3}$', ['aa', 'aaaa', 'a']],
    ['^a{2,}?b$', ['aab', 'ab']],
    ['^[\\w.+-]+@[\\w-]+\\.[a-z]{2,}$', ['a.b+c@d-e.org', 'a@b.c']],
    ['^#?[0-9a-fA-F]{6}$', ['#aabbcc', 'aabbc']],
    ['^(?:\\+?1[-. ]?)?\\(?\\d{3}\\)?[-. ]?\\d{3}[-. ]?\\d{4}$', ['+1 (555) 123-4567', '555-12']],
    ['^[^<>]*$', ['plain', 'a<b']],
    ['ab|cd', ['xcd', 'ac']],
    ['', ['', 'x']],
  ];
  it.each(cases)('%s', (pattern, texts) => {
    const linear = compileSchemaPattern(pattern);
    const expected = new RegExp(pattern, 'u');
    for (const text of texts)
      expect([text, linear.test(text)]).toEqual([text, expected.test(text)]);
  });

  it('agrees with RegExp on generated patterns and texts', () => {
    const atom = fc.oneof(
      fc.constantFrom(
        'a',
        'b',
        '\\d',
        '\\w',
        '\\s',
        '\\S',
        '.',
        '[ab]',
        '[^a]',
        '[a-c\\s]',
        'é',
        '\\u00e9',
        '😀',
      ),
      fc.constantFrom('\\.', '[\\-x]', '\\/', '[\\]]', '\\p{L}', '\\P{L}', '\\n'),
    );
    const { pattern } = fc.letrec<{ pattern: string }>((tie) => ({
      pattern: fc.oneof(
        { depthSize: 'small' },
        atom,
        fc.tuple(tie('pattern'), tie('pattern')).map(([left, right]) => left + right),
        fc.tuple(tie('pattern'), tie('pattern')).map(([left, right]) => `(?:${left}|${right})`),
        fc
          .tuple(tie('pattern'), fc.constantFrom('*', '+', '?', '{2}', '{1,3}', '*?', '{0,}'))
          .map(([inner, quantifier]) => `(${inner})${quantifier}`),
        tie('pattern').map((inner) => `^${inner}$`),
      ),
    }));
    const text = fc
      .array(
        fc.constantFrom('a', 'b', 'c', ' ', '\n', '\u00a0', 'é', '😀', '1', '.', '-', '/', ']'),
        {
          maxLength: 8,
        },
      )
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(pattern, fc.array(text, { minLength: 1, maxLength: 4 }), (source, texts) => {
        const linear = compileSchemaPattern(source);
        const expected = new RegExp(source, 'u');
        for (const sample of texts) {
          if (linear.test(sample) !== expected.test(sample)) return false;
        }
        return true;
      }),
      { numRuns: 300 },
    );
  });
});

describe('patterns the linear engine cannot express are refused by name', () => {
  const refused: [string, RegExp][] = [
    ['^(a)\\1$', /backreference \(\\1\)/],
    ['^(?<q>["\'])x\\k<q>$', /backreference/],
    ['^(?=.*\\d).+$', /lookahead/],
    ['^(?!admin).+$', /lookahead/],
    ['(?<=\\$)\\d+', /lookbehind/],
    ['(?<!x)y', /lookbehind/],
    ['^a{1001}$', /linear-time engine.*repeat count/],
    ['(', /not a valid regular expression/],
    ['\\p{Script_Extensions=Greek}', /Unicode property/],
    // Linear, but with 20 000 steps per character: 50 000 characters took 20 s.
    ['(?:a|b|c|d){1000}'.repeat(20), /expands to about 80000 steps .* at most 5000/],
    ['((ab){10}c){30}d{1000}w{1000}x{1000}y{1000}z{1000}', /expands to about 5630 steps/],
  ];

  it.each(refused)('%s', (pattern, reason) => {
    expect(() => compileSchemaPattern(pattern)).toThrow(UnsupportedPatternError);
    expect(() => compileSchemaPattern(pattern)).toThrow(reason);
    const problems = createValidator().validate('x', { type: 'string', pattern });
    expect(problems).toHaveLength(1);
    expect(problems[0]!.keyword).toBe('schema');
    expect(problems[0]!.message).toContain(JSON.stringify(pattern));
    expect(problems[0]!.message).toMatch(reason);
  });

  it('refuses a pattern too large before compiling it, and keeps large real ones', () => {
    const compile = vi.spyOn(RE2JS, 'compile');
    expect(() =>
      compileSchemaPattern(`${'[a-z]{1000}'.repeat(6)}|unique-${Math.random()}`),
    ).toThrow(/expands to about 6\d{3} steps/);
    expect(compile).not.toHaveBeenCalled();
    for (const pattern of [
      '^.{0,1000}$',
      '^(?:[a-z]{1,63}\\.){1,10}[a-z]{2,63}$',
      '^[\\s\\S]{1,1000}[\\s\\S]{0,1000}$',
    ]) {
      const linear = compileSchemaPattern(pattern);
      expect(linear.test('abc.de')).toBe(new RegExp(pattern, 'u').test('abc.de'));
    }
  });

  it('checkSchemaPatterns names the schema path of the first refused pattern', () => {
    const refusal = (schema: object) => {
      try {
        checkSchemaPatterns(schema as JsonSchema);
      } catch (error) {
        return error;
      }
      return undefined;
    };
    const inProperty = refusal({
      type: 'object',
      properties: { id: { type: 'string', pattern: '^(a)\\1$' }, ok: { pattern: '^a+$' } },
    });
    expect(inProperty).toBeInstanceOf(UnsupportedPatternError);
    expect(inProperty).toMatchObject({ schemaPath: '/properties/id/pattern', pattern: '^(a)\\1$' });
    expect((inProperty as Error).message).toBe(
      'the pattern "^(a)\\\\1$" at /properties/id/pattern uses a backreference (\\1), which cannot be matched in linear time',
    );
    expect(refusal({ patternProperties: { 'a/(?=b)': {} } })).toMatchObject({
      schemaPath: '/patternProperties/a~1(?=b)',
    });
    expect(
      refusal({ items: [{ anyOf: [{ propertyNames: { pattern: '(?<=a)' } }] }] }),
    ).toMatchObject({ schemaPath: '/items/0/anyOf/0/propertyNames/pattern' });
    expect(refusal({ $defs: { x: { not: { pattern: '\\k<n>(?<n>a)' } } } })).toMatchObject({
      schemaPath: '/$defs/x/not/pattern',
    });
    // Data that merely looks like a pattern is not one.
    expect(refusal({ enum: [{ pattern: '(a)\\1' }], default: { pattern: '(' } })).toBeUndefined();
    expect(refusal({ properties: { pattern: { type: 'string' } } })).toBeUndefined();
    // Any depth: the walk is not recursive.
    let deep: object = { pattern: '(?=x)' };
    for (let level = 0; level < 20_000; level++) deep = { not: deep };
    expect(refusal(deep)).toBeInstanceOf(UnsupportedPatternError);
  });

  it('is a ToolwireError of kind unsupported-pattern, with the parser error as its cause', () => {
    const refusal = (pattern: string) => {
      try {
        compileSchemaPattern(pattern);
      } catch (error) {
        return error;
      }
      return undefined;
    };
    const invalid = refusal('(');
    expect(invalid).toBeInstanceOf(ToolwireError);
    expect(ToolwireError.isInstance(invalid)).toBe(true);
    expect(UnsupportedPatternError.isInstance(invalid)).toBe(true);
    expect(isErrorOfKind(invalid, 'unsupported-pattern')).toBe(true);
    expect(invalid).toMatchObject({ name: 'UnsupportedPatternError', kind: 'unsupported-pattern' });
    // The RegExp parser said why: kept as the cause, also once placed in a schema.
    expect((invalid as Error).cause).toBeInstanceOf(SyntaxError);
    const placed = (invalid as UnsupportedPatternError).at('/properties/x/pattern');
    expect(placed.cause).toBe((invalid as Error).cause);
    expect(placed.kind).toBe('unsupported-pattern');
    // A refusal of the translation has no error underneath.
    expect((refusal('(a)\\1') as Error).cause).toBeUndefined();
  });
});

describe('formats defined by regular expressions run in linear time', () => {
  const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
    addFormatsModule) as { get(name: string): unknown };
  const checks = linearFormats((name) => addFormats.get(name));

  it('has a linear check for each of them', () => {
    expect([...checks.keys()].sort()).toEqual([...REGEX_FORMATS].sort());
  });

  // Valid and invalid samples; each check must agree with ajv-formats' own expression.
  const samples: Record<string, string[]> = {
    duration: ['P1D', 'PT1H30M', 'P1W', 'P', 'PT', 'P1DT', 'P1Y2M3DT4H5M6S', '1D'],
    'uri-reference': ['https://a.b/c?d#e', '/path', '#frag', 'a b', '//[::1]:80/', '%zz'],
    'uri-template': ['http://x/{id}', '/{+path}/x{?q,r}', '{', 'a b'],
    url: ['https://example.com/a?b', 'ftp://x.org', 'http://localhost', 'https://8.8.8.8', 'x'],
    email: ['a.b@c.org', 'a@b', 'a..b@c.org', 'A@EXAMPLE.COM'],
    hostname: ['example.com', 'a-.com', `${'a.'.repeat(126)}a`, `${'a.'.repeat(127)}a`, 'A.B.'],
    ipv4: ['192.168.0.1', '256.1.1.1', '1.2.3'],
    ipv6: ['::1', '2001:db8::ff00:42:8329', '1:2:3', 'fe80::1%eth0'],
    uuid: [
      '123e4567-e89b-12d3-a456-426614174000',
      'urn:uuid:123E4567-E89B-12D3-A456-426614174000',
      'x',
    ],
    'json-pointer': ['/a/b~1c', '', 'a', '/~2'],
    'json-pointer-uri-fragment': ['#/a/%20', '#a', '#'],
    'relative-json-pointer': ['0/a', '1#', '01', '-1'],
  };
  it.each(Object.entries(samples))('%s agrees with ajv-formats', (name, texts) => {
    const original = addFormats.get(name) as RegExp;
    const check = checks.get(name)!;
    for (const text of texts) expect([text, check(text)]).toEqual([text, original.test(text)]);
  });

  it('url no longer refuses private and loopback IPv4 hosts (a policy, not syntax)', () => {
    expect(checks.get('url')!('http://10.0.0.1/')).toBe(true);
    expect(checks.get('url')!('http://300.0.0.1/')).toBe(false);
  });

  it('checks a 350 KB url attack at once (39 s with ajv-formats)', () => {
    const seen = watchRegExps();
    const text = 'http://a._.'.repeat(32_000);
    const problems = createValidator().validate(text, { type: 'string', format: 'url' });
    expect(problems.map((problem) => problem.keyword)).toEqual(['format']);
    expect(seen.some((input) => typeof input === 'string' && input.includes(text))).toBe(false);
  });
});
