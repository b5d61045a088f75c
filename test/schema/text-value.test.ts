import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type JsonSchema, UNCONSTRAINED_POLICY } from '../../src/core/index.ts';
import { parseJsonText } from '../../src/core/parse-json.ts';
import {
  coerceBySchema,
  coerceText,
  createValuePolicy,
  textReading,
} from '../../src/schema/index.ts';

/** The same union written each way a schema can: a type list, anyOf, oneOf, nullable. */
function spellings(other: JsonSchema): [string, JsonSchema][] {
  const type = (other as { type: string }).type;
  return [
    ['type list', { type: ['string', type] }],
    ['type list, string last', { type: [type, 'string'] }],
    ['anyOf', { anyOf: [{ type: 'string' }, other] }],
    ['oneOf', { oneOf: [other, { type: 'string' }] }],
    [
      '$ref branch',
      { $defs: { text: { type: 'string' } }, anyOf: [{ $ref: '#/$defs/text' }, other] },
    ],
  ];
}

describe('coerceText: one rule for a union that admits strings', () => {
  it.each(spellings({ type: 'object' }))('["string","object"] (%s)', (_name, schema) => {
    expect(coerceText('{"a": 1}', schema)).toEqual({ a: 1 });
    expect(coerceText(' {"a": [1, {"b": null}]}\n', schema)).toEqual({ a: [1, { b: null }] });
    // Not JSON, or JSON of a type not admitted: the string, as written.
    expect(coerceText("{'a': 1}", schema)).toBe("{'a': 1}");
    expect(coerceText('{"a": 1', schema)).toBe('{"a": 1');
    expect(coerceText('[1, 2]', schema)).toBe('[1, 2]');
    expect(coerceText('7', schema)).toBe('7');
    expect(coerceText('null', schema)).toBe('null');
  });

  it.each(spellings({ type: 'integer' }))('["string","integer"] (%s)', (_name, schema) => {
    expect(coerceText('7', schema)).toBe(7);
    expect(coerceText('-12', schema)).toBe(-12);
    expect(coerceText('1e3', schema)).toBe(1000);
    // Not an integer, not JSON, or not printable back as written: the string.
    expect(coerceText('7.5', schema)).toBe('7.5');
    expect(coerceText('+7', schema)).toBe('+7');
    expect(coerceText('007', schema)).toBe('007');
    expect(coerceText('12345678901234567890', schema)).toBe('12345678901234567890');
    expect(coerceText('7 apples', schema)).toBe('7 apples');
    expect(coerceText('"7"', schema)).toBe('"7"');
  });

  it.each([
    ...spellings({ type: 'null' }),
    ['nullable', { type: 'string', nullable: true }] as [string, JsonSchema],
  ])('["string","null"] (%s)', (_name, schema) => {
    expect(coerceText('null', schema)).toBe(null);
    expect(coerceText('Null', schema)).toBe('Null');
    expect(coerceText('NULL', schema)).toBe('NULL');
    expect(coerceText('', schema)).toBe('');
    expect(coerceText('none', schema)).toBe('none');
  });

  it('types booleans and numbers only where admitted', () => {
    const schema = { type: ['string', 'boolean', 'number'] };
    expect(coerceText('true', schema)).toBe(true);
    expect(coerceText('false', schema)).toBe(false);
    expect(coerceText('True', schema)).toBe('True');
    expect(coerceText('2.5', schema)).toBe(2.5);
    expect(coerceText('{}', schema)).toBe('{}');
  });

  it('types what is inside a typed object by its branch', () => {
    const schema = {
      anyOf: [{ type: 'string' }, { type: 'object', properties: { count: { type: 'integer' } } }],
    };
    expect(coerceText('{"count": "3"}', schema)).toEqual({ count: 3 });
  });

  it('keeps a string exactly: white space, line breaks, case', () => {
    const schema = { type: ['string', 'integer', 'null'] };
    for (const text of ['line\n', '\n\n  indented\n', ' 7x', 'null!', '  ', '\t']) {
      expect(coerceText(text, schema)).toBe(text);
    }
  });

  it('keeps the rules of coerceBySchema where strings are not admitted, or only strings are', () => {
    const noString: JsonSchema[] = [
      { type: 'integer' },
      { type: ['integer', 'null'] },
      { type: 'boolean' },
      { type: 'object' },
      { type: 'array', items: { type: 'integer' } },
    ];
    const texts = [' 7 ', 'TRUE', "{'a': 1}", '', 'null', '[1, "2"]', 'x'];
    for (const schema of [...noString, { type: 'string' }, { type: 'string', enum: ['Celsius'] }]) {
      for (const text of texts) {
        expect([schema, text, coerceText(text, schema)]).toEqual([
          schema,
          text,
          coerceBySchema(text, schema),
        ]);
      }
    }
  });

  it('leaves a string that would not type as another alternative exactly as written', () => {
    const unions: JsonSchema[] = [
      { type: ['string', 'integer'] },
      { type: ['string', 'number', 'null'] },
      { type: ['string', 'object'] },
      { type: ['string', 'array', 'boolean'] },
      { anyOf: [{ type: 'string' }, { type: 'integer' }, { type: 'object' }] },
      { oneOf: [{ type: 'null' }, { type: 'string', minLength: 1 }] },
      { type: 'string', nullable: true },
    ];
    const text = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 30 }),
      fc.constantFrom('null', 'true', '7', '-0', '1.5', '{}', '[]', '{"a":1}', ' 7 ', '7\n'),
      fc.jsonValue().map((value) => JSON.stringify(value)),
    );
    fc.assert(
      fc.property(fc.constantFrom(...unions), text, (schema, sample) => {
        const result = coerceText(sample, schema);
        // The independent reading: strict JSON, of a type the union admits besides string.
        let json: unknown;
        try {
          json = parseJsonText(sample);
        } catch {
          json = undefined;
        }
        if (typeof result === 'string') {
          expect(result).toBe(sample);
          return;
        }
        // Typed: only from JSON text, and to that JSON value.
        expect(json).not.toBeUndefined();
        expect(typeof json).not.toBe('string');
        expect(result).toEqual(json);
      }),
      { numRuns: 500 },
    );
  });
});

describe('textReading: what a streaming text reader may do before the text ends', () => {
  const reading = (schema: JsonSchema, key = 'v') =>
    textReading(createValuePolicy({ type: 'object', properties: { [key]: schema } }).property(key));

  it('streams a plain string at once and holds nothing back', () => {
    const plain = reading({ type: 'string' });
    expect(plain.asString).toBe(true);
    expect(plain.type('7\n')).toBe('7\n');
  });

  it('holds a union value only while it may still be JSON of another admitted type', () => {
    const settlesAfter = (schema: JsonSchema, text: string) => {
      const probe = reading(schema).probe();
      for (let index = 0; index < text.length; index++) {
        if (!probe.push(text[index]!)) return index;
      }
      return -1;
    };
    const nullable = { type: ['string', 'null'] };
    expect(reading(nullable).asString).toBe(false);
    expect(settlesAfter(nullable, 'hello')).toBe(0);
    expect(settlesAfter(nullable, 'nullify')).toBe(4);
    expect(settlesAfter(nullable, 'null x')).toBe(5);
    expect(settlesAfter(nullable, '  null  ')).toBe(-1);
    expect(settlesAfter({ type: ['string', 'integer'] }, '12a')).toBe(2);
    expect(settlesAfter({ type: ['string', 'integer'] }, '{"a":1}')).toBe(0);
    expect(settlesAfter({ type: ['string', 'object'] }, '{"a":1} and more')).toBe(-1);
    // A const/enum may rewrite any text: held to the end.
    expect(settlesAfter({ type: ['string', 'boolean'], enum: ['a', true] }, 'TRUE x')).toBe(-1);
  });

  it('never settles a text as a string that then types as something else', () => {
    const schemas: JsonSchema[] = [
      { type: ['string', 'null'] },
      { type: ['string', 'integer', 'boolean'] },
      { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'array' }] },
      { type: ['string', 'object'] },
    ];
    const text = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.jsonValue().map((value) => JSON.stringify(value, null, 1)),
      fc.constantFrom('nul', 'null ', ' true', 'fals', '-1e5', '1.', '{', '[1', ' '),
    );
    fc.assert(
      fc.property(fc.constantFrom(...schemas), text, fc.nat(12), (schema, sample, cut) => {
        const at = Math.min(cut, sample.length);
        const current = reading(schema);
        const probe = current.probe();
        const settled = !probe.push(sample.slice(0, at)) || !probe.push(sample.slice(at));
        if (settled) expect(current.type(sample)).toBe(sample);
      }),
      { numRuns: 500 },
    );
  });

  it('reads an unconstrained value as JSON when it is JSON, else as the string', () => {
    const open = textReading(UNCONSTRAINED_POLICY);
    expect(open.type('42')).toBe(42);
    expect(open.type('{"a":1}')).toEqual({ a: 1 });
    expect(open.type('hello\n')).toBe('hello\n');
  });
});
