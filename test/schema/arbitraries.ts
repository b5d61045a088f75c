import fc from 'fast-check';
import type { JsonSchema } from '../../src/core/index.ts';

/** Keys that stress object handling: prototype names, the XML list wrapper, plain names. */
export const trickyKeys = ['a', 'b', 'count', 'item', '__proto__', 'constructor', 'toString'];

const scalarLeaf: fc.Arbitrary<JsonSchema> = fc.oneof(
  fc.constant({ type: 'string' }),
  fc.constant({ type: 'integer' }),
  fc.constant({ type: 'number' }),
  fc.constant({ type: 'boolean' }),
  fc.constant({ type: 'null' }),
  fc.constant({ type: ['string', 'null'] }),
  fc.constant({ type: ['integer', 'boolean'] }),
  fc.constant({ type: 'integer', nullable: true }),
  fc.constant({ type: 'string', enum: ['celsius', 'fahrenheit'] }),
  fc.constant({ enum: [1, 2, 'three', null] }),
  fc.constant({ const: 'fixed' }),
  fc.constant({ type: 'string', format: 'email' }),
  fc.constant({ type: 'number', minimum: 0 }),
  fc.constant({ description: 'anything' }),
  fc.constant(true),
  fc.constant(false),
  fc.constant({}),
);

/** The references a generated schema may use: to a definition, and back to the root. */
const referenceLeaf: fc.Arbitrary<JsonSchema> = fc.constantFrom(
  { $ref: '#/$defs/node' },
  { $ref: '#' },
  { $ref: '#/$defs/missing' },
);

const { schema: nestedSchema } = fc.letrec<{ schema: JsonSchema }>((tie) => ({
  schema: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalarLeaf,
    referenceLeaf,
    fc.record(
      {
        type: fc.constant('object'),
        properties: fc.dictionary(fc.constantFrom(...trickyKeys), tie('schema'), {
          maxKeys: 3,
        }),
        additionalProperties: fc.oneof(fc.boolean(), tie('schema')),
        required: fc.subarray(['a', 'b']),
      },
      { requiredKeys: ['type', 'properties'] },
    ),
    fc.record({ type: fc.constant('array'), items: tie('schema') }),
    fc.record({
      type: fc.constant('array'),
      prefixItems: fc.array(tie('schema'), { maxLength: 2 }),
      items: tie('schema'),
    }),
    fc.record({ anyOf: fc.array(tie('schema'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ oneOf: fc.array(tie('schema'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ allOf: fc.array(tie('schema'), { minLength: 1, maxLength: 2 }) }),
    tie('schema').map((inner) => ({ anyOf: [inner, { type: 'null' }] })),
    fc.record({ type: fc.constant(['object', 'array']), enum: fc.constant([[1], { a: 1 }]) }),
  ),
}));

/**
 * Tool schemas as models meet them: an object at the top, with definitions that may refer to
 * themselves and to the root (cyclic references included).
 */
export const toolSchema: fc.Arbitrary<JsonSchema> = fc
  .tuple(nestedSchema, nestedSchema)
  .map(([top, definition]) => {
    if (typeof top === 'boolean' || top.type !== 'object') {
      return { type: 'object', properties: { a: top }, $defs: { node: definition } };
    }
    return { ...top, $defs: { node: definition } };
  });

/** A schema for any one value (not only objects), with the same definitions available. */
export const valueSchema: fc.Arbitrary<JsonSchema> = fc
  .tuple(nestedSchema, nestedSchema)
  .map(([schema, definition]) =>
    typeof schema === 'boolean' ? schema : { ...schema, $defs: { node: definition } },
  );

/** Text that coercion reads as something else: numbers, booleans, null, JSON, enum values. */
export const suggestiveString = fc.constantFrom(
  '42',
  ' -3.5 ',
  '1e3',
  '0x10',
  '12abc',
  '',
  'true',
  'FALSE',
  'null',
  '{"a": "1"}',
  "{'a': 1,}",
  '[1, "2"]',
  '["x",]',
  ' Celsius',
  'fixed',
  'three',
  '{"__proto__": {"polluted": true}}',
  '{"constructor": {"prototype": {"polluted": true}}}',
);

const leafValue: fc.Arbitrary<unknown> = fc.oneof(fc.jsonValue({ maxDepth: 1 }), suggestiveString);

/** Objects are built with Object.fromEntries, so `__proto__` is an own key as in parsed JSON. */
export const messyValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leafValue,
    fc.array(tie('value'), { maxLength: 3 }),
    fc
      .array(fc.tuple(fc.constantFrom(...trickyKeys), tie('value')), { maxLength: 4 })
      .map((entries) => Object.fromEntries(entries)),
  ),
})).value;

/** Any value a test may throw at coercion: arbitrary JSON and the messy values above. */
export const anyValue: fc.Arbitrary<unknown> = fc.oneof(fc.jsonValue(), messyValue);

/** A deep copy that keeps own `__proto__` keys, to check the input was not mutated. */
export function snapshot(value: unknown): string {
  return JSON.stringify(value) ?? 'undefined';
}
