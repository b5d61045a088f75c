import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_DEPTH } from '../../src/core/index.ts';
import { parseJsonText } from '../../src/core/parse-json.ts';
import {
  type LenientJsonOptions,
  parseJson,
  parseLenientJson,
  readLenientJson,
} from '../../src/scan/lenient-json.ts';
import { expectLinearGrowth } from '../support/growth.ts';

/** Deepest nesting of objects and arrays in a value, measured without recursion. */
function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    deepest = Math.max(deepest, depth + 1);
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** Every leaf and key of a value, without recursion. */
function partsOf(value: unknown): { leaves: unknown[]; keys: string[] } {
  const leaves: unknown[] = [];
  const keys: string[] = [];
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (item === null || typeof item !== 'object') {
      leaves.push(item);
      continue;
    }
    if (!Array.isArray(item)) keys.push(...Object.keys(item));
    stack.push(...Object.values(item));
  }
  return { leaves, keys };
}

function occurrences(text: string, words: readonly string[]): number {
  let count = 0;
  for (const word of words) {
    for (let at = text.indexOf(word); at !== -1; at = text.indexOf(word, at + 1)) count++;
  }
  return count;
}

/**
 * What reading `text` may never do, whatever the text: throw, return a value deeper than the cap,
 * or hold data the text does not: a null or boolean not written as a literal, a string or key not
 * written in the text.
 */
function checkReadsOnlyWhatIsWritten(text: string, options: LenientJsonOptions): void {
  const read = readLenientJson(text, options);
  if (!read.ok) {
    expect(read.message.length).toBeGreaterThan(0);
    expect(read.offset).toBeGreaterThanOrEqual(0);
    expect(read.offset).toBeLessThanOrEqual(text.length);
    return;
  }
  expect(depthOf(read.value)).toBeLessThanOrEqual(options.maxDepth ?? DEFAULT_MAX_DEPTH);
  if (!read.repaired) expect(read.value).toEqual(parseJsonText(text));
  const { leaves, keys } = partsOf(read.value);
  const nulls = leaves.filter((leaf) => leaf === null).length;
  expect(nulls).toBeLessThanOrEqual(occurrences(text, ['null', 'None', 'undefined']));
  const booleans = leaves.filter((leaf) => typeof leaf === 'boolean').length;
  expect(booleans).toBeLessThanOrEqual(occurrences(text, ['true', 'false', 'True', 'False']));
  for (const written of [...keys, ...leaves.filter((leaf) => typeof leaf === 'string')]) {
    // Text that escapes could have changed is looked for as written.
    if (!/[\\"'\u0000-\u001f]/.test(written as string)) expect(text).toContain(written);
  }
}

/** Pieces of JSON and of the loose JSON models write, for random texts. */
const jsonishPiece = fc.constantFrom(
  '{',
  '}',
  '[',
  ']',
  ':',
  ',',
  '"',
  "'",
  '\\',
  ' ',
  '\n',
  '/*',
  '*/',
  '//',
  '```',
  '+',
  '-',
  '.',
  'e',
  '0',
  '1',
  '12',
  'a',
  'key',
  'tru',
  'true',
  'False',
  'null',
  'None',
  'undefined',
  'hello world',
  '"k"',
  "'v'",
  '"x": ',
  '\u00a0',
);
const jsonishText = fc.array(jsonishPiece, { maxLength: 40 }).map((pieces) => pieces.join(''));

/**
 * Writes a value the way a careless model might: single quotes, unquoted keys, Python literals,
 * trailing and missing commas, comments, odd spacing. `choose(n)` picks one of n ways.
 */
function writeLoosely(value: unknown, choose: (ways: number) => number): string {
  const space = () => ['', ' ', '\n  ', ' /* note */ ', ' // note\n'][choose(5)]!;
  const separator = () => [',', ', ', ' ', '\n', ',/* c */'][choose(5)]!;
  if (value === null) return ['null', 'None'][choose(2)]!;
  if (typeof value === 'boolean') return choose(2) === 0 ? String(value) : value ? 'True' : 'False';
  if (typeof value === 'number') return JSON.stringify(value);
  if (typeof value === 'string') {
    const strict = JSON.stringify(value);
    return choose(2) === 0 ? strict : `'${strict.slice(1, -1).replaceAll("'", "\\'")}'`;
  }
  const trailing = choose(2) === 0 ? ',' : '';
  // A comma left out after a string is read before a quote or a bracket only: before a word or
  // a number the quote is taken as the string's own (an unescaped inner quote).
  const join = (parts: readonly string[], values: readonly unknown[]) =>
    parts
      .map((part, index) => {
        if (index === 0) return part;
        const chosen = separator();
        const keepsComma = typeof values[index - 1] !== 'string' || chosen.includes(',');
        return (keepsComma ? chosen : ',') + part;
      })
      .join('');
  if (Array.isArray(value)) {
    const elements = value.map((element) => space() + writeLoosely(element, choose) + space());
    return `[${join(elements, value)}${elements.length > 0 ? trailing : ''}]`;
  }
  const entries = Object.entries(value as object);
  const members = entries.map(([key, member]) => {
    const written =
      /^[A-Za-z_$][\w$]*$/.test(key) && choose(2) === 0 ? key : writeLoosely(key, choose);
    return `${space()}${written}${space()}:${space()}${writeLoosely(member, choose)}${space()}`;
  });
  return `{${join(
    members,
    entries.map(([, member]) => member),
  )}${members.length > 0 ? trailing : ''}}`;
}

describe('readLenientJson', () => {
  it('reads strict JSON as written, and says when it repaired loose JSON', () => {
    expect(readLenientJson('{"a": [1, "x", null]}')).toEqual({
      ok: true,
      value: { a: [1, 'x', null] },
      repaired: false,
    });
    expect(readLenientJson("{a: 'x', b: None,}")).toEqual({
      ok: true,
      value: { a: 'x', b: null },
      repaired: true,
    });
  });

  it('refuses invented data, saying what was found where', () => {
    expect(readLenientJson('{"file": }')).toEqual({
      ok: false,
      reason: 'not-json',
      message: 'unexpected "}" at offset 9, expected a value',
      offset: 9,
    });
    expect(readLenientJson('[1,,2]')).toMatchObject({ ok: false, reason: 'not-json', offset: 3 });
    expect(readLenientJson('{"a": tru}')).toMatchObject({ ok: false, offset: 9 });
    expect(readLenientJson('{"a": "x" + "y"}')).toMatchObject({ reason: 'not-json', offset: 10 });
    // An unquoted value is not guessed at; a comma left out makes nothing up.
    expect(readLenientJson('{"a": hello}')).toMatchObject({ ok: false, offset: 6 });
    expect(readLenientJson('{"a": 1 "b": [2 3]}')).toEqual({
      ok: true,
      value: { a: 1, b: [2, 3] },
      repaired: true,
    });
    // Stray closing brackets after the value drop nothing.
    expect(readLenientJson('{"a": 1}}')).toEqual({ ok: true, value: { a: 1 }, repaired: true });
    expect(readLenientJson('{"a": 1} text')).toMatchObject({ reason: 'not-json', offset: 9 });
  });

  it('tells complete JSON from JSON cut off when the caller requires it complete', () => {
    const complete = { requireComplete: true };
    for (const text of ['{"a": "hel', '{"a": [1, 2', '{"name":"get_weather","argu']) {
      expect(readLenientJson(text, complete), text).toMatchObject({
        ok: false,
        reason: 'incomplete',
        offset: text.length,
      });
    }
    expect(readLenientJson('{"a": 1}', complete)).toEqual({
      ok: true,
      value: { a: 1 },
      repaired: false,
    });
    // Closed by the caller's markup: a missing bracket is added, nothing else.
    expect(readLenientJson('{"a": [1, 2')).toEqual({
      ok: true,
      value: { a: [1, 2] },
      repaired: true,
    });
  });

  it('refuses an invalid maxDepth with a clear error', () => {
    expect(() => readLenientJson('1', { maxDepth: -1 })).toThrow(
      new RangeError('readLenientJson: maxDepth must be an integer >= 0, got -1'),
    );
    expect(() => parseJson('1', { maxDepth: 1.5 })).toThrow(
      'parseJson: maxDepth must be an integer >= 0, got 1.5',
    );
    expect(() => parseLenientJson('1', { maxDepth: Number.POSITIVE_INFINITY })).toThrow(RangeError);
  });
});

describe('nesting', () => {
  const nestedArrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
  const nestedObjects = (depth: number) => '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1);

  it('accepts 1,000 levels and refuses 1,001 by default, strict or loose', () => {
    expect(DEFAULT_MAX_DEPTH).toBe(1000);
    for (const nested of [nestedArrays, nestedObjects]) {
      const deepest = readLenientJson(nested(1000));
      expect(deepest.ok && depthOf(deepest.value)).toBe(1000);
      expect(readLenientJson(nested(1001))).toMatchObject({ ok: false, reason: 'too-deep' });
      expect(parseJson(nested(1000))).toBeDefined();
      expect(parseJson(nested(1001))).toBeUndefined();
    }
    const loose = `${"['x', ".repeat(1000)}${']'.repeat(1000)}`;
    expect(readLenientJson(loose)).toMatchObject({ ok: true, repaired: true });
    expect(readLenientJson(`[${loose}]`)).toEqual({
      ok: false,
      reason: 'too-deep',
      message: 'nesting deeper than 1000 levels at offset 5995',
      offset: 5995,
    });
  });

  it('takes a custom maxDepth', () => {
    expect(readLenientJson('[[[]]]', { maxDepth: 3 })).toMatchObject({ ok: true });
    expect(readLenientJson('[[[[]]]]', { maxDepth: 3 })).toMatchObject({
      reason: 'too-deep',
      offset: 3,
    });
    expect(readLenientJson('{a: {b: {c: {}}}}', { maxDepth: 3 })).toMatchObject({
      reason: 'too-deep',
      offset: 12,
    });
    expect(parseJson('[[[[]]]]', { maxDepth: 3 })).toBeUndefined();
    expect(parseJson('[[[[]]]]', { maxDepth: 4 })).toEqual([[[[]]]]);
    expect(parseLenientJson(nestedArrays(1500), { maxDepth: 2000 })).toBeDefined();
  });

  it('refuses 100,000 levels of brackets without throwing, closed or not', () => {
    const texts = [
      '['.repeat(100_000),
      nestedArrays(100_000),
      '{"a":'.repeat(100_000),
      nestedObjects(100_000),
      '[{"a":'.repeat(50_000),
      `${'[{"a":'.repeat(50_000)}1${'}]'.repeat(50_000)}`,
      `${"[{'a':".repeat(50_000)}`,
    ];
    for (const text of texts) {
      for (const requireComplete of [false, true]) {
        const read = readLenientJson(text, { requireComplete });
        expect(read, text.slice(0, 12)).toMatchObject({ ok: false, reason: 'too-deep' });
        expect(read.ok || text.charAt(read.offset)).toMatch(/[[{]/);
      }
      expect(parseLenientJson(text)).toBeUndefined();
      expect(parseJson(text)).toBeUndefined();
      expect(readLenientJson(text, { maxDepth: 10 })).toMatchObject({ reason: 'too-deep' });
    }
  });
});

describe('properties', () => {
  it('reads any valid JSON as JSON.parse does, unrepaired', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(undefined, 0, 2, '\t'), (value, indent) => {
        const text = JSON.stringify(value, null, indent);
        const read = readLenientJson(text, { requireComplete: true });
        expect(read).toEqual({ ok: true, value: parseJsonText(text), repaired: false });
      }),
    );
  });

  it('reads JSON written loosely back to the same value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.array(fc.nat(), { minLength: 1 }), (value, seeds) => {
        let next = 0;
        const choose = (ways: number) => seeds[next++ % seeds.length]! % ways;
        const text = writeLoosely(value, choose);
        const read = readLenientJson(text, { requireComplete: true });
        expect(read, text).toMatchObject({ ok: true, value: parseJsonText(JSON.stringify(value)) });
      }),
    );
  });

  it('never throws and never holds data the text does not, for any JSON-like text', () => {
    fc.assert(
      fc.property(
        jsonishText,
        fc.constantFrom(undefined, 0, 1, 3),
        fc.boolean(),
        (text, maxDepth, requireComplete) => {
          checkReadsOnlyWhatIsWritten(text, { maxDepth, requireComplete });
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('never throws for any text at all', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (text) => {
        checkReadsOnlyWhatIsWritten(text, {});
      }),
      { numRuns: 1000 },
    );
  });

  it('reads complete text alike whether or not completeness is required', () => {
    fc.assert(
      fc.property(jsonishText, (text) => {
        const required = readLenientJson(text, { requireComplete: true });
        const closedByMarkup = readLenientJson(text);
        if (required.ok) expect(closedByMarkup).toEqual(required);
        else if (closedByMarkup.ok) expect(required.reason).toBe('incomplete');
      }),
      { numRuns: 1000 },
    );
  });

  it('never reads a member or element whose value was left out', () => {
    const member = fc.tuple(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }));
    fc.assert(
      fc.property(
        fc.array(member, { minLength: 1, maxLength: 5 }),
        fc.nat(),
        fc.constantFrom('', ' ', '\n'),
        (members, pick, gap) => {
          const missing = pick % members.length;
          const written = members.map(([key, value], index) =>
            index === missing
              ? `${JSON.stringify(key)}:${gap}`
              : `${JSON.stringify(key)}: ${JSON.stringify(value)}`,
          );
          const object = readLenientJson(`{${written.join(', ')}}`);
          expect(object).toMatchObject({ ok: false, reason: 'not-json' });
          const elements = members.map(([, value]) => JSON.stringify(value));
          elements.splice(missing, 1, gap);
          const array = readLenientJson(`[${elements.join(',')}]`);
          if (missing === members.length - 1) {
            // Left out at the end, it reads as a trailing comma: nothing in its place.
            const written = members.slice(0, -1).map(([, value]) => value);
            expect(array.ok && array.value).toEqual(parseJsonText(JSON.stringify(written)));
          } else {
            expect(array).toMatchObject({ ok: false, reason: 'not-json' });
          }
        },
      ),
    );
  });
});

describe('time', () => {
  const MEGABYTE = 1 << 20;
  const fill = (unit: string) => (size: number) =>
    `[${unit.repeat(Math.floor(size / unit.length))}1]`;
  const nested = (unit: string) => (size: number) => {
    const depth = DEFAULT_MAX_DEPTH - 1;
    const inner = unit.repeat(Math.max(0, Math.floor((size - 2 * depth) / unit.length)));
    return `${'['.repeat(depth)}[${inner}1]${']'.repeat(depth)}`;
  };
  const inputs: readonly [string, (size: number) => string, string][] = [
    ['flat strict', fill('{"k": "value", "n": 12},'), 'ok'],
    ['flat loose', fill("{k: 'value', n: 12, b: True},"), 'ok'],
    ['flat, missing commas', fill('1 '), 'ok'],
    ['nested to maxDepth, strict', nested('"x",'), 'ok'],
    ['nested to maxDepth, loose', nested("'x', "), 'ok'],
    ['open brackets', (size) => '['.repeat(size), 'too-deep'],
  ];

  // Work that grows with the square of the length fails this however busy the machine is (a
  // megabyte of missing commas took the jsonrepair library over half a minute).
  it.each(inputs)('reads a megabyte, %s, in linear time', (_name, make, outcome) => {
    const read = readLenientJson(make(MEGABYTE));
    expect(read.ok ? 'ok' : read.reason).toBe(outcome);
    expectLinearGrowth(make, readLenientJson, MEGABYTE / 64);
  });
});

describe('parseJson / parseLenientJson', () => {
  it('parse JSON as written, with __proto__ an own property', () => {
    const value = parseJson('{"__proto__": {"x": 1}, "a": [1]}') as object;
    expect(Object.hasOwn(value, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(parseLenientJson('null')).toBeNull();
  });

  it('say undefined for text that is not JSON; the lenient one repairs what it can first', () => {
    expect(parseJson("{a: 'b',}")).toBeUndefined();
    expect(parseLenientJson("{a: 'b',}")).toEqual({ a: 'b' });
    expect(parseLenientJson('{"city": "Oslo"')).toEqual({ city: 'Oslo' });
    expect(parseLenientJson('{"city" "Paris" :: }')).toBeUndefined();
  });

  it('say undefined rather than fill in missing data', () => {
    for (const text of ['{"file": }', '{"a": , "b": 2}', '[1,,2]', '{"a": -}', '{"a": 1e}']) {
      expect(parseLenientJson(text), text).toBeUndefined();
    }
    expect(parseLenientJson('{"a": [1, 2', { requireComplete: true })).toBeUndefined();
  });
});
