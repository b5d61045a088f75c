import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../src/core/index.ts';
import { itemSchema, propertySchema, resolveSchema, schemaTypes } from '../../src/schema/index.ts';

const point = { type: 'object', properties: { x: { type: 'number' } } };

describe('resolveSchema', () => {
  it('follows #/definitions and #/$defs references', () => {
    const root = { definitions: { point }, $defs: { other: { type: 'string' } } };
    expect(resolveSchema({ $ref: '#/definitions/point' }, root)).toBe(point);
    expect(resolveSchema({ $ref: '#/$defs/other' }, root)).toBe(root.$defs.other);
  });

  it('follows chains of references', () => {
    const root = { $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/c' }, c: point } };
    expect(resolveSchema({ $ref: '#/$defs/a' }, root)).toBe(point);
  });

  it('decodes ~0, ~1 and percent escapes in JSON Pointers', () => {
    const slash = { type: 'string' };
    const tilde = { type: 'integer' };
    const space = { type: 'boolean' };
    const root = { $defs: { 'a/b': slash, 'c~d': tilde, 'e f': space } };
    expect(resolveSchema({ $ref: '#/$defs/a~1b' }, root)).toBe(slash);
    expect(resolveSchema({ $ref: '#/$defs/c~0d' }, root)).toBe(tilde);
    expect(resolveSchema({ $ref: '#/$defs/e%20f' }, root)).toBe(space);
  });

  it('resolves into arrays and to the root', () => {
    const first = { type: 'string' };
    const root = { anyOf: [first] };
    expect(resolveSchema({ $ref: '#/anyOf/0' }, root)).toBe(first);
    expect(resolveSchema({ $ref: '#' }, root)).toBe(root);
  });

  it('resolves a reference through the root $id', () => {
    const root = { $id: 'https://example.com/tool.json', $defs: { point } };
    const reference = { $ref: 'https://example.com/tool.json#/$defs/point' };
    expect(resolveSchema(reference, root)).toBe(point);
  });

  it('treats cyclic references as unconstrained', () => {
    const root = { $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } } };
    expect(resolveSchema({ $ref: '#/$defs/a' }, root)).toBe(true);
    const selfReference = { $ref: '#' };
    expect(resolveSchema(selfReference, selfReference)).toBe(true);
  });

  it('treats missing, remote and anchor references as unconstrained', () => {
    const root = { $defs: {} };
    expect(resolveSchema({ $ref: '#/$defs/missing' }, root)).toBe(true);
    expect(resolveSchema({ $ref: 'https://example.com/other.json' }, root)).toBe(true);
    expect(resolveSchema({ $ref: '#anchor' }, root)).toBe(true);
  });

  it('does not read pointer segments from Object.prototype', () => {
    expect(resolveSchema({ $ref: '#/constructor' }, {})).toBe(true);
    expect(resolveSchema({ $ref: '#/__proto__' }, {})).toBe(true);
  });

  it('returns a schema that constrains beside its $ref as it is', () => {
    const schema = { $ref: '#/$defs/point', required: ['x'] };
    expect(resolveSchema(schema, { $defs: { point } })).toBe(schema);
  });

  it('follows a $ref whose siblings are only annotations', () => {
    const schema = { $ref: '#/$defs/point', description: 'where' };
    expect(resolveSchema(schema, { $defs: { point } })).toBe(point);
  });

  it('passes booleans through and reads a missing schema as true', () => {
    expect(resolveSchema(true)).toBe(true);
    expect(resolveSchema(false)).toBe(false);
    expect(resolveSchema(undefined)).toBe(true);
  });
});

describe('propertySchema', () => {
  const count = { type: 'integer' };
  const note = { type: 'string' };
  const extra = { type: 'boolean' };
  const schema = {
    type: 'object',
    properties: { count },
    patternProperties: { '^note_': note },
    additionalProperties: extra,
  };

  it('looks in properties, then patternProperties, then additionalProperties', () => {
    expect(propertySchema(schema, 'count')).toBe(count);
    expect(propertySchema(schema, 'note_1')).toBe(note);
    expect(propertySchema(schema, 'other')).toBe(extra);
  });

  it('answers true when unconstrained and false when forbidden', () => {
    expect(propertySchema({ type: 'object', properties: { count } }, 'other')).toBe(true);
    expect(propertySchema({ properties: { count }, additionalProperties: false }, 'x')).toBe(false);
    expect(propertySchema(true, 'x')).toBe(true);
    expect(propertySchema(false, 'x')).toBe(false);
    expect(propertySchema({}, 'x')).toBe(true);
  });

  it('does not mistake Object.prototype members for declared properties', () => {
    const closed = { type: 'object', properties: { count }, additionalProperties: false };
    expect(propertySchema(closed, 'constructor')).toBe(false);
    expect(propertySchema(closed, 'toString')).toBe(false);
    expect(propertySchema(closed, '__proto__')).toBe(false);
    const declared = JSON.parse('{"properties": {"__proto__": {"type": "string"}}}');
    expect(propertySchema(declared, '__proto__')).toEqual({ type: 'string' });
  });

  it('follows $ref, also to the property schema', () => {
    const root = {
      $ref: '#/$defs/outer',
      $defs: { outer: { properties: { point: { $ref: '#/$defs/point' } } }, point },
    };
    expect(propertySchema(root, 'point', root)).toEqual({ $ref: '#/$defs/point' });
    expect(resolveSchema(propertySchema(root, 'point', root), root)).toBe(point);
  });

  it('looks through allOf, combining what several members say', () => {
    const lower = { minimum: 0 };
    const combined = { allOf: [{ properties: { count } }, { properties: { count: lower } }] };
    expect(propertySchema({ allOf: [{ properties: { count } }] }, 'count')).toBe(count);
    expect(propertySchema(combined, 'count')).toEqual({ allOf: [count, lower] });
    expect(propertySchema({ allOf: [{ additionalProperties: false }] }, 'x')).toBe(false);
  });

  it('looks through a sibling $ref as one more allOf member', () => {
    const root = { $ref: '#/$defs/point', required: ['x'], $defs: { point } };
    expect(propertySchema(root, 'x', root)).toEqual({ type: 'number' });
  });

  it('takes from union branches that declare the property', () => {
    const radius = { type: 'number' };
    const side = { type: 'integer' };
    const shape = {
      anyOf: [
        { type: 'object', properties: { kind: { const: 'circle' }, radius } },
        { type: 'object', properties: { kind: { const: 'square' }, side } },
        { type: 'null' },
      ],
    };
    expect(propertySchema(shape, 'radius')).toBe(radius);
    expect(propertySchema(shape, 'side')).toBe(side);
    expect(propertySchema(shape, 'kind')).toEqual({
      anyOf: [{ const: 'circle' }, { const: 'square' }],
    });
    expect(propertySchema(shape, 'other')).toBe(true);
  });

  it('finds the properties of an optional object', () => {
    const root = { anyOf: [{ $ref: '#/$defs/point' }, { type: 'null' }], $defs: { point } };
    expect(propertySchema(root, 'x', root)).toEqual({ type: 'number' });
  });

  it('ignores patterns that are not valid regular expressions', () => {
    const schema = { patternProperties: { '(': count, '^a': note } };
    expect(propertySchema(schema, 'abc')).toBe(note);
  });

  it('stays total on cyclic unions', () => {
    const root = { anyOf: [{ $ref: '#' }, { $ref: '#' }], properties: { a: count } };
    expect(propertySchema(root, 'a', root)).toBe(count);
  });
});

describe('itemSchema', () => {
  const text = { type: 'string' };
  const integer = { type: 'integer' };
  const flag = { type: 'boolean' };

  it('uses items for every element', () => {
    expect(itemSchema({ type: 'array', items: text }, 0)).toBe(text);
    expect(itemSchema({ type: 'array', items: text }, 99)).toBe(text);
  });

  it('uses prefixItems, then items', () => {
    const tuple = { prefixItems: [text, integer], items: flag };
    expect(itemSchema(tuple, 0)).toBe(text);
    expect(itemSchema(tuple, 1)).toBe(integer);
    expect(itemSchema(tuple, 2)).toBe(flag);
    expect(itemSchema({ prefixItems: [text] }, 1)).toBe(true);
  });

  it('uses a tuple items array, then additionalItems', () => {
    const tuple = { items: [text, integer], additionalItems: flag };
    expect(itemSchema(tuple, 1)).toBe(integer);
    expect(itemSchema(tuple, 2)).toBe(flag);
    expect(itemSchema({ items: [text], additionalItems: false }, 1)).toBe(false);
    expect(itemSchema({ items: [text] }, 1)).toBe(true);
  });

  it('answers true when unconstrained', () => {
    expect(itemSchema({ type: 'array' }, 0)).toBe(true);
    expect(itemSchema(true, 0)).toBe(true);
  });

  it('looks through $ref, allOf and unions', () => {
    const root = { $defs: { list: { items: integer } } };
    expect(itemSchema({ $ref: '#/$defs/list' }, 0, root)).toBe(integer);
    expect(itemSchema({ allOf: [{ items: integer }] }, 0)).toBe(integer);
    expect(itemSchema({ anyOf: [{ type: 'array', items: text }, { type: 'null' }] }, 3)).toBe(text);
  });
});

describe('schemaTypes', () => {
  const types = (schema: JsonSchema | undefined, root?: JsonSchema) =>
    [...schemaTypes(schema, root)].sort();
  const everything = ['array', 'boolean', 'null', 'number', 'object', 'string'];

  it('reads type as a string or an array', () => {
    expect(types({ type: 'string' })).toEqual(['string']);
    expect(types({ type: ['integer', 'null'] })).toEqual(['integer', 'null']);
  });

  it('keeps integer apart from number', () => {
    expect(types({ type: 'integer' })).toEqual(['integer']);
    expect(types({ type: 'number' })).toEqual(['number']);
    expect(types({ allOf: [{ type: 'number' }, { type: 'integer' }] })).toEqual(['integer']);
  });

  it('reads OpenAPI nullable', () => {
    expect(types({ type: 'string', nullable: true })).toEqual(['null', 'string']);
    expect(types({ type: 'string', nullable: false })).toEqual(['string']);
  });

  it('reads const and enum', () => {
    expect(types({ const: 3 })).toEqual(['integer']);
    expect(types({ const: 3.5 })).toEqual(['number']);
    expect(types({ enum: ['a', null, true] })).toEqual(['boolean', 'null', 'string']);
    expect(types({ type: 'string', enum: ['a', 1] })).toEqual(['string']);
  });

  it('unites anyOf and oneOf branches', () => {
    expect(types({ anyOf: [{ type: 'string' }, { type: 'null' }] })).toEqual(['null', 'string']);
    expect(types({ oneOf: [{ type: 'integer' }, { type: 'boolean' }] })).toEqual([
      'boolean',
      'integer',
    ]);
    expect(types({ type: ['string', 'integer'], anyOf: [{ type: 'integer' }] })).toEqual([
      'integer',
    ]);
  });

  it('follows $ref', () => {
    const root = { $defs: { name: { type: 'string' } } };
    expect(types({ $ref: '#/$defs/name' }, root)).toEqual(['string']);
  });

  it('admits everything for true, {}, a missing schema and unknown type names', () => {
    expect(types(true)).toEqual(everything);
    expect(types({})).toEqual(everything);
    expect(types(undefined)).toEqual(everything);
    expect(types({ type: 'strng' })).toEqual(everything);
    expect(types({ $ref: '#' }, { $ref: '#' })).toEqual(everything);
  });

  it('admits nothing for false', () => {
    expect(types(false)).toEqual([]);
  });
});
