import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../src/core/index.ts';
import { parseJsonText } from '../../src/core/parse-json.ts';
import { coerceBySchema, createValidator } from '../../src/schema/index.ts';
import { anyValue, snapshot, toolSchema, trickyKeys } from './arbitraries.ts';

const integer = { type: 'integer' };
const number = { type: 'number' };
const boolean = { type: 'boolean' };
const string = { type: 'string' };

describe('coerceBySchema: numbers', () => {
  it.each([
    ['42', 42],
    [' -3.5 ', -3.5],
    ['1e3', 1000],
    ['+7', 7],
    ['.5', 0.5],
  ])('reads %j as the number %j', (text, expected) => {
    expect(coerceBySchema(text, number)).toBe(expected);
  });

  it.each(['', '  ', '12abc', '0x10', 'Infinity', 'NaN', '1e999', '1,000', '- 1'])(
    'leaves %j alone: not a finite number literal',
    (text) => {
      expect(coerceBySchema(text, number)).toBe(text);
    },
  );

  it('reads integers only when integral', () => {
    expect(coerceBySchema('42', integer)).toBe(42);
    expect(coerceBySchema('3.0', integer)).toBe(3);
    expect(coerceBySchema('1e3', integer)).toBe(1000);
    expect(coerceBySchema('3.5', integer)).toBe('3.5');
  });

  it('keeps integers too large to hold exactly as text', () => {
    expect(coerceBySchema('12345678901234567890', integer)).toBe('12345678901234567890');
    expect(coerceBySchema('9007199254740991', integer)).toBe(9007199254740991);
    // Beyond 2^53, a number whose printed form is the literal loses nothing.
    expect(coerceBySchema('-9007199254740992', integer)).toBe(-9007199254740992);
    expect(coerceBySchema('32170083830782430', number)).toBe(32170083830782430);
    expect(coerceBySchema('1000000000000000000000', number)).toBe('1000000000000000000000');
  });

  it('reads integer literals with leading zeros or a sign as their value, up to 2^53 and past it only when exact', () => {
    expect(coerceBySchema('007', integer)).toBe(7);
    expect(coerceBySchema('-0', integer)).toBe(-0);
    expect(coerceBySchema('+12', integer)).toBe(12);
    expect(coerceBySchema('9007199254740993', integer)).toBe('9007199254740993');
  });

  it('leaves a number that the schema admits alone', () => {
    expect(coerceBySchema(3.5, number)).toBe(3.5);
    expect(coerceBySchema(3.5, integer)).toBe(3.5);
  });
});

describe('coerceBySchema: booleans and null', () => {
  it.each([
    ['true', true],
    ['false', false],
    [' TRUE ', true],
    ['False', false],
  ])('reads %j as %j', (text, expected) => {
    expect(coerceBySchema(text, boolean)).toBe(expected);
  });

  it('does not read other words as booleans', () => {
    expect(coerceBySchema('yes', boolean)).toBe('yes');
    expect(coerceBySchema('1', boolean)).toBe('1');
  });

  it('reads "null" as null when null is admitted', () => {
    expect(coerceBySchema('null', { type: 'null' })).toBe(null);
    expect(coerceBySchema(' NULL ', { type: ['integer', 'null'] })).toBe(null);
  });

  it('reads an empty string as null only when strings are not admitted', () => {
    expect(coerceBySchema('', { type: ['integer', 'null'] })).toBe(null);
    expect(coerceBySchema('', { type: ['string', 'null'] })).toBe('');
    expect(coerceBySchema('', integer)).toBe('');
  });

  it('keeps "null" as text when strings are admitted', () => {
    expect(coerceBySchema('null', { type: 'string', nullable: true })).toBe('null');
  });
});

describe('coerceBySchema: JSON text', () => {
  const object = {
    type: 'object',
    properties: { depth: integer, tags: { type: 'array', items: string } },
  };

  it('parses an object written as JSON text and coerces what it holds', () => {
    expect(coerceBySchema(' {"depth": "3", "tags": "x"} ', object)).toEqual({
      depth: 3,
      tags: ['x'],
    });
  });

  it('parses an array written as JSON text and coerces its elements', () => {
    expect(coerceBySchema('[1, "2"]', { type: 'array', items: integer })).toEqual([1, 2]);
  });

  it('repairs broken JSON that is bracketed as the kind wanted', () => {
    expect(coerceBySchema("{'depth': 2,}", object)).toEqual({ depth: 2 });
    expect(coerceBySchema('["a", "b",]', { type: 'array' })).toEqual(['a', 'b']);
    expect(coerceBySchema('{depth: True}', { type: 'object' })).toEqual({ depth: true });
  });

  it('does not parse JSON of the other kind', () => {
    expect(coerceBySchema('[1]', { type: 'object' })).toBe('[1]');
    expect(coerceBySchema('{"a": 1}', { type: 'array' })).toEqual(['{"a": 1}']);
  });

  it('does not repair prose into structure', () => {
    expect(coerceBySchema('see {the docs', { type: 'object' })).toBe('see {the docs');
    expect(coerceBySchema('{unclosed', { type: 'object' })).toBe('{unclosed');
  });

  it('keeps a `__proto__` key from JSON text as an own property', () => {
    const result = coerceBySchema('{"__proto__": {"polluted": true}, "depth": "1"}', object);
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(Object.hasOwn(result as object, '__proto__')).toBe(true);
    expect((result as Record<string, unknown>).depth).toBe(1);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('coerceBySchema: lists', () => {
  const list = { type: 'array', items: integer };

  it('wraps a lone value where a list is wanted', () => {
    expect(coerceBySchema('5', list)).toEqual([5]);
    expect(coerceBySchema(5, list)).toEqual([5]);
    expect(coerceBySchema({ a: 1 }, { type: 'array' })).toEqual([{ a: 1 }]);
  });

  it('does not wrap null', () => {
    expect(coerceBySchema(null, list)).toBe(null);
  });

  it('does not wrap a value whose own type is admitted', () => {
    expect(coerceBySchema('5', { type: ['array', 'string'] })).toBe('5');
  });

  it('wraps once, even where the element schema would wrap again', () => {
    const tree = { oneOf: [{ type: 'array', items: { $ref: '#' } }, { type: 'number' }] };
    expect(coerceBySchema('x', tree)).toEqual(['x']);
    expect(coerceBySchema('2', tree)).toBe(2);
  });

  it('unwraps XML list wrappers', () => {
    expect(coerceBySchema({ item: ['1', '2'] }, list)).toEqual([1, 2]);
    expect(coerceBySchema({ item: '1' }, list)).toEqual([1]);
  });

  it('coerces each element by its own schema', () => {
    const tuple = { type: 'array', prefixItems: [string, integer], items: boolean };
    expect(coerceBySchema([1, '2', 'true', 'false'], tuple)).toEqual(['1', 2, true, false]);
  });
});

describe('coerceBySchema: to text', () => {
  it('writes numbers and booleans as text where text is wanted', () => {
    expect(coerceBySchema(42, string)).toBe('42');
    expect(coerceBySchema(-0.5, string)).toBe('-0.5');
    expect(coerceBySchema(true, string)).toBe('true');
  });

  it('leaves null, objects and arrays alone', () => {
    expect(coerceBySchema(null, string)).toBe(null);
    const object = { a: 1 };
    expect(coerceBySchema(object, string)).toBe(object);
  });
});

describe('coerceBySchema: unions', () => {
  it('keeps a value whose type is admitted', () => {
    expect(coerceBySchema('42', { type: ['string', 'integer'] })).toBe('42');
    expect(coerceBySchema('42', { anyOf: [string, integer] })).toBe('42');
    expect(coerceBySchema(7, { oneOf: [string, integer] })).toBe(7);
  });

  it('tries the admitted types in order: JSON first, then number, boolean, null', () => {
    expect(coerceBySchema('42', { type: ['boolean', 'integer'] })).toBe(42);
    expect(coerceBySchema('true', { type: ['boolean', 'integer'] })).toBe(true);
    expect(coerceBySchema('null', { anyOf: [integer, { type: 'null' }] })).toBe(null);
    expect(coerceBySchema('[1]', { anyOf: [{ type: 'array' }, integer] })).toEqual([1]);
    expect(coerceBySchema('{"a":1}', { type: ['object', 'integer'] })).toEqual({ a: 1 });
  });

  it('takes the branch whose constraints the converted value meets', () => {
    const schema = { anyOf: [{ type: 'string', enum: ['auto'] }, integer] };
    expect(coerceBySchema('5', schema)).toBe(5);
    expect(coerceBySchema(' AUTO ', schema)).toBe('auto');
    expect(coerceBySchema('manual', schema)).toBe('manual');
  });

  it('coerces the members of an object by the branch that declares them', () => {
    const shape = {
      anyOf: [
        { type: 'object', properties: { kind: { const: 'circle' }, radius: number } },
        { type: 'object', properties: { kind: { const: 'square' }, side: number } },
      ],
    };
    expect(coerceBySchema({ kind: 'Circle', radius: '2' }, shape)).toEqual({
      kind: 'circle',
      radius: 2,
    });
    expect(coerceBySchema({ kind: 'square', side: '3' }, shape)).toEqual({
      kind: 'square',
      side: 3,
    });
  });

  it('coerces by every member of allOf', () => {
    const schema = {
      allOf: [{ type: 'object', properties: { a: integer } }, { properties: { b: boolean } }],
    };
    expect(coerceBySchema({ a: '1', b: 'true' }, schema)).toEqual({ a: 1, b: true });
  });
});

describe('coerceBySchema: enum and const', () => {
  const unit = { type: 'string', enum: ['celsius', 'fahrenheit'] };

  it('matches an enum value after trimming or ignoring case', () => {
    expect(coerceBySchema(' celsius ', unit)).toBe('celsius');
    expect(coerceBySchema('Fahrenheit', unit)).toBe('fahrenheit');
  });

  it('matches the text form of a non-string enum value', () => {
    expect(coerceBySchema('1', { enum: [1, 2] })).toBe(1);
    expect(coerceBySchema('true', { enum: [true, 'maybe'] })).toBe(true);
    expect(coerceBySchema('null', { enum: ['a', null] })).toBe(null);
  });

  it('matches const the same way', () => {
    expect(coerceBySchema('CIRCLE', { const: 'circle' })).toBe('circle');
    expect(coerceBySchema('3', { const: 3 })).toBe(3);
  });

  it('prefers an exact match and refuses an ambiguous one', () => {
    expect(coerceBySchema('Foo', { enum: ['FOO', 'Foo'] })).toBe('Foo');
    expect(coerceBySchema('foo', { enum: ['FOO', 'Foo'] })).toBe('foo');
  });

  it('leaves a value that matches nothing for validation to report', () => {
    expect(coerceBySchema('kelvin', unit)).toBe('kelvin');
  });
});

describe('coerceBySchema: objects', () => {
  const schema = {
    type: 'object',
    properties: { count: integer, options: { type: 'object', properties: { deep: boolean } } },
    patternProperties: { '^n_': number },
    additionalProperties: string,
  };

  it('coerces properties, pattern properties and additional properties', () => {
    const input = { count: '2', options: { deep: 'false' }, n_x: '1.5', other: 7 };
    expect(coerceBySchema(input, schema)).toEqual({
      count: 2,
      options: { deep: false },
      n_x: 1.5,
      other: '7',
    });
  });

  it('keeps key order', () => {
    const result = coerceBySchema({ z: 1, count: '2', a: 3 }, schema);
    expect(Object.keys(result as object)).toEqual(['z', 'count', 'a']);
  });

  it('returns the input itself when nothing changes', () => {
    const input = { count: 2, options: { deep: true } };
    expect(coerceBySchema(input, schema)).toBe(input);
    const list = [1, 2];
    expect(coerceBySchema(list, { type: 'array', items: integer })).toBe(list);
  });

  it('follows $ref to definitions', () => {
    const withReference = {
      type: 'object',
      properties: { point: { $ref: '#/$defs/point' } },
      $defs: { point: { type: 'object', properties: { x: number } } },
    };
    expect(coerceBySchema({ point: '{"x": "1"}' }, withReference)).toEqual({ point: { x: 1 } });
  });

  it('coerces a property named `__proto__` without touching any prototype', () => {
    const withProto = { type: 'object', properties: { ['__proto__']: integer } };
    const input = parseJsonText('{"__proto__": "5", "b": 1}');
    const result = coerceBySchema(input, withProto) as Record<string, unknown>;
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(result, '__proto__')?.value).toBe(5);
    expect(Object.keys(result)).toEqual(['__proto__', 'b']);
  });
});

describe('coerceBySchema: totality', () => {
  const cyclic = {
    $ref: '#/$defs/a',
    $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } },
  };
  const selfUnion = { anyOf: [{ $ref: '#' }, { $ref: '#' }], properties: { a: { $ref: '#' } } };
  const weird = [
    true,
    false,
    {},
    cyclic,
    selfUnion,
    { $ref: 'https://example.com/remote.json' },
    { type: 5, enum: 'x', properties: null, items: 3, anyOf: 'no', allOf: [null] },
    { type: 'object', patternProperties: { '(': integer } },
  ] as JsonSchema[];

  it.each(weird.map((schema) => [JSON.stringify(schema), schema]))(
    'handles the schema %s',
    (_name, schema) => {
      for (const value of ['42', '{"a": 1}', [1, '2'], { a: '1' }, null, undefined]) {
        expect(() => coerceBySchema(value, schema)).not.toThrow();
      }
    },
  );

  it('handles a missing schema as unconstrained', () => {
    const value = { a: '1' };
    expect(coerceBySchema(value)).toBe(value);
    expect(coerceBySchema(value, undefined)).toBe(value);
  });

  it('handles values JSON cannot hold', () => {
    const cyclicValue: Record<string, unknown> = { a: '1' };
    cyclicValue.self = cyclicValue;
    const recursive = { type: 'object', properties: { self: { $ref: '#' }, a: integer } };
    expect(() => coerceBySchema(cyclicValue, recursive)).not.toThrow();
    const throwing = Object.defineProperty({}, 'a', {
      enumerable: true,
      get() {
        throw new Error('getter');
      },
    });
    expect(coerceBySchema(throwing, recursive)).toBe(throwing);
    const callback = () => 1;
    expect(coerceBySchema(callback, integer)).toBe(callback);
  });

  it('handles deeply nested values', () => {
    let deep: unknown = '1';
    for (let level = 0; level < 5000; level++) deep = [deep];
    const nested = { type: 'array', items: { $ref: '#' } };
    expect(() => coerceBySchema(deep, nested)).not.toThrow();
  });
});

describe('coerceBySchema: properties', () => {
  it('never throws and never mutates its input', () => {
    fc.assert(
      fc.property(anyValue, toolSchema, (value, schema) => {
        const before = snapshot(value);
        const schemaBefore = snapshot(schema);
        coerceBySchema(value, schema);
        expect(snapshot(value)).toBe(before);
        expect(snapshot(schema)).toBe(schemaBefore);
      }),
      { numRuns: 500 },
    );
  });

  it('never lets a `__proto__` key change a prototype', () => {
    const payload = fc.constantFrom(
      '{"__proto__": {"polluted": true}}',
      '{"a": {"__proto__": {"polluted": true}}}',
      '{"constructor": {"prototype": {"polluted": true}}}',
    );
    fc.assert(
      fc.property(payload, toolSchema, fc.boolean(), (text, schema, asText) => {
        const result = coerceBySchema(asText ? text : parseJsonText(text), schema);
        if (typeof result === 'object' && result !== null && !Array.isArray(result)) {
          expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
        }
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });

  const declarableKeys = trickyKeys.filter((key) => key !== '__proto__');

  /** Simple typed schemas paired with values that satisfy them. */
  type SchemaAndValue = [JsonSchema, unknown];
  const pairWith =
    (schema: JsonSchema) =>
    (value: unknown): SchemaAndValue => [schema, value];

  const schemaWithValidValue = fc.letrec<{ pair: SchemaAndValue }>((tie) => ({
    pair: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.string().map(pairWith(string)),
      fc.integer().map(pairWith(integer)),
      fc.double({ noNaN: true, noDefaultInfinity: true }).map(pairWith(number)),
      fc.boolean().map(pairWith(boolean)),
      fc.constant(null).map(pairWith({ type: 'null' })),
      fc
        .constantFrom('celsius', 'fahrenheit')
        .map(pairWith({ type: 'string', enum: ['celsius', 'fahrenheit'] })),
      fc.oneof(fc.string(), fc.constant(null)).map(pairWith({ type: ['string', 'null'] })),
      fc.array(tie('pair'), { maxLength: 3 }).map((pairs): SchemaAndValue => {
        const items = pairs[0]?.[0] ?? string;
        // Every element follows the first element's schema.
        const values = pairs.filter(([schema]) => schema === items).map(([, value]) => value);
        return [{ type: 'array', items }, values];
      }),
      // Ajv ignores a declared `__proto__` property, so it is left out of valid values here.
      fc
        .array(fc.tuple(fc.constantFrom(...declarableKeys), tie('pair')), { maxLength: 4 })
        .map((entries): SchemaAndValue => {
          const properties = Object.fromEntries(entries.map(([key, [schema]]) => [key, schema]));
          const value = Object.fromEntries(entries.map(([key, [, member]]) => [key, member]));
          return [{ type: 'object', properties, additionalProperties: false }, value];
        }),
    ),
  })).pair;

  it('is the identity on values that are already valid', () => {
    const validator = createValidator();
    fc.assert(
      fc.property(schemaWithValidValue, ([schema, value]) => {
        expect(validator.validate(value, schema)).toEqual([]);
        expect(coerceBySchema(value, schema)).toBe(value);
      }),
      { numRuns: 500 },
    );
  });
});

describe('coerceBySchema: one schema object in several places', () => {
  it('answers a shared flat schema the same alone, by $ref, and next to constraints', () => {
    const count = { type: 'integer' };
    const unit = { type: 'string', enum: ['celsius', 'fahrenheit'] };
    const root: JsonSchema = {
      type: 'object',
      $defs: { count, unit },
      properties: {
        direct: count,
        byRef: { $ref: '#/$defs/count' },
        both: { allOf: [count, { minimum: 0 }] },
        unit: { $ref: '#/$defs/unit' },
      },
    };
    for (let round = 0; round < 2; round++) {
      expect(coerceBySchema('3', count)).toBe(3);
      expect(coerceBySchema('Celsius', unit)).toBe('celsius');
      expect(coerceBySchema('kelvin', unit)).toBe('kelvin');
      expect(
        coerceBySchema({ direct: '1', byRef: '2', both: '3', unit: ' FAHRENHEIT ' }, root),
      ).toEqual({ direct: 1, byRef: 2, both: 3, unit: 'fahrenheit' });
    }
  });

  it('keeps a scalar only when it passes both const and enum', () => {
    const schema = { type: 'string', const: 'a', enum: ['a', 'b'] };
    expect(coerceBySchema('a', schema)).toBe('a');
    expect(coerceBySchema('b', schema)).toBe('b');
    expect(coerceBySchema(' A ', schema)).toBe('a');
  });
});
