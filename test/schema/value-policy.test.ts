import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type JsonSchema,
  type StreamableKind,
  UNCONSTRAINED_POLICY,
  type ValuePolicy,
} from '../../src/core/index.ts';
import { coerceBySchema, createValuePolicy } from '../../src/schema/index.ts';
import { anyValue, suggestiveString, toolSchema, valueSchema } from './arbitraries.ts';

const streamsOf = (policy: ValuePolicy) =>
  (['string', 'object', 'array'] as const).filter((kind) => policy.streams(kind));

describe('createValuePolicy', () => {
  it('is UNCONSTRAINED_POLICY for unconstrained schemas', () => {
    expect(createValuePolicy(true)).toBe(UNCONSTRAINED_POLICY);
    expect(createValuePolicy({})).toBe(UNCONSTRAINED_POLICY);
    expect(createValuePolicy(undefined)).toBe(UNCONSTRAINED_POLICY);
    expect(createValuePolicy({ description: 'anything' })).toBe(UNCONSTRAINED_POLICY);
  });

  it('streams strings only where coercion could not rewrite them', () => {
    expect(streamsOf(createValuePolicy({ type: 'string' }))).toEqual(['string']);
    expect(createValuePolicy({ type: 'string', enum: ['a', 'b'] }).streams('string')).toBe(false);
    expect(createValuePolicy({ const: 'a' }).streams('string')).toBe(false);
    expect(createValuePolicy({ type: 'integer' }).streams('string')).toBe(false);
    expect(createValuePolicy({ type: 'boolean' }).streams('string')).toBe(false);
    expect(createValuePolicy({ type: 'object' }).streams('string')).toBe(false);
    expect(createValuePolicy({ type: 'array' }).streams('string')).toBe(false);
    const enumBranch = { anyOf: [{ type: 'string', enum: ['auto'] }, { type: 'integer' }] };
    expect(createValuePolicy(enumBranch).streams('string')).toBe(false);
  });

  it('streams a string the schema admits even when it admits other types too', () => {
    // Coercion keeps a value whose own type is admitted, so "42" stays "42" here.
    expect(createValuePolicy({ type: ['string', 'integer'] }).streams('string')).toBe(true);
    expect(createValuePolicy({ type: 'string', nullable: true }).streams('string')).toBe(true);
    expect(coerceBySchema('42', { type: ['string', 'integer'] })).toBe('42');
  });

  it('streams objects and arrays where the schema admits them', () => {
    expect(streamsOf(createValuePolicy({ type: 'object' }))).toEqual(['object']);
    expect(streamsOf(createValuePolicy({ type: 'array' }))).toEqual(['array']);
    expect(streamsOf(createValuePolicy({ anyOf: [{ type: 'object' }, { type: 'null' }] }))).toEqual(
      ['object'],
    );
    expect(createValuePolicy({ type: 'string' }).streams('object')).toBe(false);
  });

  it('holds an object that coercion could turn into a list', () => {
    const either = { type: ['object', 'array'], enum: [{ item: 1 }, [2]] };
    expect(createValuePolicy(either).streams('object')).toBe(false);
    expect(coerceBySchema({ item: 2 }, either)).toEqual([2]);
    expect(createValuePolicy({ type: ['object', 'array'] }).streams('object')).toBe(true);
  });

  it('gives child policies for properties and items', () => {
    const schema = {
      type: 'object',
      properties: {
        name: { type: 'string' },
        count: { type: 'integer' },
        tags: { type: 'array', items: { type: 'string' } },
        pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }] },
      },
    };
    const policy = createValuePolicy(schema);
    expect(policy.property('name').streams('string')).toBe(true);
    expect(policy.property('count').streams('string')).toBe(false);
    expect(policy.property('count').coerce('3')).toBe(3);
    expect(policy.property('tags').item(5).streams('string')).toBe(true);
    expect(policy.property('pair').item(0).streams('string')).toBe(true);
    expect(policy.property('pair').item(1).streams('string')).toBe(false);
    expect(policy.property('unknown')).toBe(UNCONSTRAINED_POLICY);
  });

  it('caches child policies and whole-schema policies', () => {
    const schema = { type: 'object', properties: { a: { type: 'integer' } } };
    const policy = createValuePolicy(schema);
    expect(createValuePolicy(schema)).toBe(policy);
    expect(policy.property('a')).toBe(policy.property('a'));
    const list = createValuePolicy({ type: 'array', items: { type: 'integer' } });
    expect(list.item(1)).toBe(list.item(1));
  });

  it('resolves references against the root', () => {
    const schema = {
      type: 'object',
      properties: { point: { $ref: '#/$defs/point' } },
      $defs: { point: { type: 'object', properties: { x: { type: 'number' } } } },
    };
    const point = createValuePolicy(schema).property('point');
    expect(point.streams('object')).toBe(true);
    expect(point.property('x').coerce('1.5')).toBe(1.5);
  });

  it('coerces as coerceBySchema does', () => {
    const schema = { type: 'object', properties: { n: { type: 'integer' } } };
    expect(createValuePolicy(schema).coerce('{"n": "2"}')).toEqual({ n: 2 });
  });

  it('stays total on cyclic schemas', () => {
    const cyclic = { anyOf: [{ $ref: '#' }, { $ref: '#' }], properties: { a: { $ref: '#' } } };
    const policy = createValuePolicy(cyclic);
    expect(() => policy.streams('string')).not.toThrow();
    expect(() => policy.property('a').property('a').item(0).coerce('1')).not.toThrow();
  });
});

function kindOf(value: unknown): StreamableKind | undefined {
  if (typeof value === 'string') return 'string';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object' && value !== null) return 'object';
  return undefined;
}

/**
 * Checks at `value`'s place and below: where the policy lets a kind stream, coercion keeps that
 * level as it is, and coercing members one by one (as a streaming parser does) gives the same
 * result as coercing the whole.
 */
function checkPolicy(policy: ValuePolicy, value: unknown, depth = 0): void {
  const coerced = policy.coerce(value);
  const kind = kindOf(value);
  if (kind === undefined || !policy.streams(kind)) return;
  if (kind === 'string') {
    expect(coerced).toBe(value);
    return;
  }
  if (kind === 'array') {
    const items = value as unknown[];
    expect(Array.isArray(coerced)).toBe(true);
    expect(coerced).toEqual(items.map((item, index) => policy.item(index).coerce(item)));
    if (depth < 4) {
      for (const [index, item] of items.entries()) checkPolicy(policy.item(index), item, depth + 1);
    }
    return;
  }
  const object = value as Record<string, unknown>;
  expect(kindOf(coerced)).toBe('object');
  expect(Object.keys(coerced as object)).toEqual(Object.keys(object));
  const memberwise = Object.fromEntries(
    Object.keys(object).map((key) => [key, policy.property(key).coerce(object[key])]),
  );
  expect(coerced).toEqual(memberwise);
  if (depth < 4) {
    for (const key of Object.keys(object)) {
      checkPolicy(policy.property(key), object[key], depth + 1);
    }
  }
}

describe('createValuePolicy: properties', () => {
  it('never promises to stream what coercion would change', () => {
    fc.assert(
      fc.property(toolSchema, anyValue, (schema: JsonSchema, value) => {
        const policy = createValuePolicy(schema);
        expect(policy.coerce(value)).toEqual(coerceBySchema(value, schema));
        checkPolicy(policy, value);
      }),
      { numRuns: 1000 },
    );
  });

  it('never promises to stream what coercion would change, for any one value', () => {
    fc.assert(
      fc.property(valueSchema, fc.oneof(suggestiveString, anyValue), (schema, value) => {
        checkPolicy(createValuePolicy(schema), value);
      }),
      { numRuns: 1000 },
    );
  });

  it('streams strings for plain string parameters of generated schemas', () => {
    // Guards the property above against passing only because nothing ever streams.
    let streamed = 0;
    fc.assert(
      fc.property(toolSchema, (schema) => {
        const policy = createValuePolicy(schema);
        for (const key of ['a', 'b', 'count', 'item']) {
          if (policy.property(key).streams('string')) streamed++;
        }
      }),
      { numRuns: 300 },
    );
    expect(streamed).toBeGreaterThan(20);
  });
});
