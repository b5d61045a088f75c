/**
 * parseJsonText is JSON.parse without V8's escaped-key bug (nodejs/node#63785): after a parse of
 * an object with the key `\`, the native parser reads a later escaped one-character key at the
 * same place as `\` too. These tests set that trap first, then hold parseJsonText to JSON.parse's
 * result on every text, valid or not.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasEscapedKey, parseJsonText } from '../../src/core/parse-json.ts';
import { setOwnProperty } from '../../src/core/safe-object.ts';

/** Makes the native parser's trap: one-character keys after `x`, `__proto__` and first. */
function setTheTrap(): void {
  JSON.parse('{"x":0,"\\\\":1}');
  JSON.parse('{"__proto__":0,"\\\\":true}');
  JSON.parse('{"\\\\":1}');
}

/** A JSON text of `value` with every key and string character written as `\uXXXX` at random. */
function escapedText(value: unknown, escapes: (index: number) => boolean): string {
  let counter = 0;
  const quote = (text: string): string => {
    let out = '"';
    for (const unit of text.split('')) {
      if (escapes(counter++)) out += `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`;
      else out += JSON.stringify(unit).slice(1, -1);
    }
    return `${out}"`;
  };
  const write = (item: unknown): string => {
    if (Array.isArray(item)) return `[ ${item.map(write).join(' , ')} ]`;
    if (item !== null && typeof item === 'object') {
      const members = Object.entries(item).map(
        ([key, member]) => `${quote(key)} :\n${write(member)}`,
      );
      return `{\t${members.join(',')}\r}`;
    }
    return typeof item === 'string' ? quote(item) : JSON.stringify(item);
  };
  return write(value);
}

/**
 * What JSON.parse(JSON.stringify(value)) gives, built without the native parser (which the trap
 * would mislead): non-finite numbers become null, -0 becomes 0.
 */
function asJson(value: unknown): unknown {
  if (typeof value === 'number') return Number.isFinite(value) ? value + 0 : null;
  if (Array.isArray(value)) return value.map(asJson);
  if (value === null || typeof value !== 'object') return value;
  const copy: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) setOwnProperty(copy, key, asJson(member));
  return copy;
}

const KEY = fc.oneof(
  fc.string({ maxLength: 3 }),
  fc.constantFrom('\\', '>', '"', '\n', '__proto__', 'constructor', '\ud800', 'é'),
);
const { node: VALUE } = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small' },
    fc.oneof(
      fc.string({ maxLength: 4 }),
      fc.double(),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
    ),
    fc.array(tie('node'), { maxLength: 3 }),
    fc.dictionary(KEY, tie('node'), { maxKeys: 3, noNullPrototype: true }),
  ),
}));

describe('parseJsonText', () => {
  it('reads an escaped one-character key as written after the native parser was trapped', () => {
    setTheTrap();
    expect(Object.keys(parseJsonText('{"x":0,"\\u0062":1}') as object)).toEqual(['x', 'b']);
    expect(Object.keys(parseJsonText('{"x":0,"\\n":1}') as object)).toEqual(['x', '\n']);
    const proto = parseJsonText('{"__proto__":0,"\\u003e":true}') as Record<string, unknown>;
    expect(Object.keys(proto)).toEqual(['__proto__', '>']);
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    expect(Object.keys(parseJsonText('{"\\u003e":1}') as object)).toEqual(['>']);
  });

  it('gives the value of any JSON text of any value, keys and strings escaped at random', () => {
    setTheTrap();
    fc.assert(
      fc.property(VALUE, fc.array(fc.boolean(), { minLength: 1, maxLength: 16 }), (value, bits) => {
        const text = escapedText(value, (index) => bits[index % bits.length]!);
        expect(parseJsonText(text)).toEqual(asJson(value));
      }),
      { numRuns: 500 },
    );
  });

  it('refuses exactly the texts JSON.parse refuses, with a SyntaxError saying where', () => {
    const broken = fc
      .tuple(
        VALUE,
        fc.nat(),
        fc.constantFrom('', '"', '\\', ',', '}', ']', ':', 'x', '\u0001', '-'),
      )
      .map(([value, at, insert]) => {
        const text = escapedText(value, (index) => index % 3 === 0);
        const cut = at % (text.length + 1);
        return text.slice(0, cut) + insert + text.slice(cut + (insert === '' ? 1 : 0));
      });
    fc.assert(
      fc.property(broken, (text) => {
        let native: unknown;
        try {
          native = JSON.parse(text);
        } catch {
          expect(() => parseJsonText(text)).toThrow(SyntaxError);
          // The native parser's messages are its own; the reader here says where.
          if (hasEscapedKey(text)) expect(() => parseJsonText(text)).toThrow(/position \d+/);
          return;
        }
        if (!hasEscapedKey(text)) expect(parseJsonText(text)).toEqual(native);
        else expect(() => parseJsonText(text)).not.toThrow();
      }),
      { numRuns: 1000 },
    );
  });

  it('reads what JSON.parse reads at the edges of the grammar', () => {
    // The values JSON.parse gives, written out: after the trap the native parser is no oracle
    // for texts with escaped keys.
    const cases: [string, unknown][] = [
      ['{"\\u0061":-0}', { a: -0 }],
      ['{"\\u0061":1e400,"b":-1E-2,"c":0.5e+3}', { a: Number.POSITIVE_INFINITY, b: -0.01, c: 500 }],
      ['{"\\u0061":"\\ud800","b":"\\/"}', { a: '\ud800', b: '/' }],
      ['{"\\u0061":1,"a":2}', { a: 2 }],
      ['{"a":1,"\\u0061":2}', { a: 2 }],
      [' \t\n\r{"\\u0061" : [ ] , "b" : { } }\r\n', { a: [], b: {} }],
      ['{"\\u0031":1,"0":2,"b":3}', { 0: 2, 1: 1, b: 3 }],
    ];
    for (const [text, value] of cases) {
      expect(hasEscapedKey(text)).toBe(true);
      const read = parseJsonText(text) as Record<string, unknown>;
      expect(read).toEqual(value);
      expect(Object.keys(read)).toEqual(Object.keys(value as object));
      // -0 stays -0.
      if (typeof read.a === 'number')
        expect(Object.is(read.a, (value as { a: unknown }).a)).toBe(true);
    }
    for (const text of ['{"\\u0061":01}', '{"\\u0061":1.}', '{"\\u0061":.5}', '{"\\u0061":+1}']) {
      expect(() => JSON.parse(text)).toThrow(SyntaxError);
      expect(() => parseJsonText(text)).toThrow(SyntaxError);
    }
  });

  it('reads any depth without recursion', () => {
    const depth = 200_000;
    const text = `${'{"\\u0061":['.repeat(depth)}1${']}'.repeat(depth)}`;
    let value = parseJsonText(text) as { a: unknown[] };
    for (let level = 1; level < depth; level++) value = value.a[0] as { a: unknown[] };
    expect(value.a).toEqual([1]);
  });

  it('tells keys from values: a backslash in a value, or in a string before a colon inside one, is no escaped key', () => {
    expect(hasEscapedKey('{"a":"\\n","b":"x\\":"}')).toBe(false);
    expect(hasEscapedKey('["\\\\",":"]')).toBe(false);
    expect(hasEscapedKey('{"a":"\\\\"  :1}')).toBe(true);
    expect(hasEscapedKey('{"a\\"b":1}')).toBe(true);
    expect(hasEscapedKey('{"ab":"\\u0000","\\\\" \n: 2}')).toBe(true);
    expect(hasEscapedKey('no quotes \\ here')).toBe(false);
  });
});

describe('the sources', () => {
  it('parse JSON only through parseJsonText, but for lone strings (which hold no keys)', () => {
    // The page's too: Chromium's V8 is the same engine.
    const root = fileURLToPath(new URL('../../', import.meta.url));
    const files = ['src', join('web', 'src')].flatMap((folder) =>
      readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' }).map((file) =>
        join(folder, file),
      ),
    );
    const offending: string[] = [];
    for (const file of files) {
      if (!file.endsWith('.ts') || file === join('src', 'core', 'parse-json.ts')) continue;
      readFileSync(join(root, file), 'utf8')
        .split('\n')
        .forEach((line, index) => {
          const code = line.trim();
          if (code.startsWith('*') || code.startsWith('//')) return;
          // `JSON.parse(`"…"`)`: a string literal's content, decoded natively.
          const calls = code.match(/JSON\.parse\((?!`")/g);
          if (calls !== null) offending.push(`${file}:${index + 1}: ${code}`);
        });
    }
    expect(offending).toEqual([]);
  });
});
