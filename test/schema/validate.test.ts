import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import type { JsonSchema } from '../../src/core/index.ts';
import { createValidator } from '../../src/schema/index.ts';
import { anyValue, toolSchema } from './arbitraries.ts';

const weather = {
  type: 'object',
  properties: {
    location: { type: 'string' },
    count: { type: 'integer' },
    unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
    options: { type: 'object', properties: { depth: { type: 'integer', minimum: 1 } } },
    items: { type: 'array', items: { type: 'number' } },
  },
  required: ['location'],
  additionalProperties: false,
};

const messages = (input: unknown, schema: JsonSchema) =>
  createValidator()
    .validate(input, schema)
    .map((problem) => problem.message);

describe('createValidator', () => {
  const validator = createValidator();

  it('finds nothing wrong with a valid input', () => {
    expect(validator.validate({ location: 'Paris', unit: 'celsius' }, weather)).toEqual([]);
  });

  it('names a missing required parameter', () => {
    expect(validator.validate({}, weather)).toEqual([
      { path: '/location', keyword: 'required', message: 'missing required parameter "location"' },
    ]);
  });

  it('says what type was expected and what came', () => {
    expect(validator.validate({ location: 'x', count: 'abc' }, weather)).toEqual([
      {
        path: '/count',
        keyword: 'type',
        message: 'parameter "count" must be integer, got string "abc"',
      },
    ]);
    expect(
      messages(
        { location: 1 },
        { type: 'object', properties: { location: { type: ['string', 'null'] } } },
      ),
    ).toEqual(['parameter "location" must be string or null, got number 1']);
    expect(messages([], weather)).toEqual(['the input must be object, got array']);
  });

  it('lists the allowed values of an enum', () => {
    expect(validator.validate({ location: 'x', unit: 'kelvin' }, weather)).toEqual([
      {
        path: '/unit',
        keyword: 'enum',
        message: 'parameter "unit" must be one of "celsius", "fahrenheit", got "kelvin"',
      },
    ]);
  });

  it('reports parameters the schema does not know', () => {
    expect(validator.validate({ location: 'x', colour: 'red' }, weather)).toEqual([
      {
        path: '/colour',
        keyword: 'additionalProperties',
        message: 'unexpected parameter "colour" (not in the schema)',
      },
    ]);
  });

  it('writes nested paths as the model would', () => {
    expect(
      messages({ location: 'x', options: { depth: 0 }, items: [1, 2, 'three'] }, weather),
    ).toEqual([
      'parameter "options.depth" must be >= 1, got 0',
      'parameter "items[2]" must be number, got string "three"',
    ]);
    const nested = {
      type: 'object',
      properties: {
        options: { type: 'object', required: ['depth'], additionalProperties: false },
      },
    };
    expect(messages({ options: { size: 1 } }, nested)).toEqual([
      'missing required parameter "options.depth"',
      'unexpected parameter "options.size" (not in the schema)',
    ]);
  });

  it('gives paths as JSON Pointers to the offending or missing value', () => {
    const problems = validator.validate({ location: 'x', items: [1, 'a/b'] }, weather);
    expect(problems.map((problem) => problem.path)).toEqual(['/items/1']);
    const nested = {
      type: 'object',
      properties: { 'a/b': { type: 'object', required: ['c~d'], additionalProperties: false } },
    };
    const paths = validator.validate({ 'a/b': { e: 1 } }, nested).map((problem) => problem.path);
    expect(paths).toEqual(['/a~1b/c~0d', '/a~1b/e']);
  });

  it('words const, format, bounds, lengths and patterns', () => {
    const schema = {
      type: 'object',
      properties: {
        kind: { const: 'circle' },
        email: { type: 'string', format: 'email' },
        size: { type: 'number', exclusiveMaximum: 10 },
        name: { type: 'string', minLength: 3 },
        tags: { type: 'array', maxItems: 1, uniqueItems: true },
        code: { type: 'string', pattern: '^[A-Z]+$' },
        step: { type: 'integer', multipleOf: 5 },
      },
    };
    const input = {
      kind: 'square',
      email: 'nope',
      size: 10,
      name: 'ab',
      tags: ['a', 'a'],
      code: 'abc',
      step: 7,
    };
    expect(messages(input, schema)).toEqual([
      'parameter "kind" must be "circle", got "square"',
      'parameter "email" must be a valid email, got "nope"',
      'parameter "size" must be < 10, got 10',
      'parameter "name" must be at least 3 characters long, got 2',
      'parameter "tags" must have at most 1 items, got 2',
      'parameter "tags" must not contain duplicates (items 0 and 1 are equal)',
      'parameter "code" must match the pattern "^[A-Z]+$", got "abc"',
      'parameter "step" must be a multiple of 5, got 7',
    ]);
  });

  it('reports one message for a failed anyOf, naming the kinds allowed', () => {
    const schema = {
      type: 'object',
      properties: { limit: { anyOf: [{ type: 'integer' }, { type: 'null' }] } },
    };
    expect(validator.validate({ limit: 'x' }, schema)).toEqual([
      {
        path: '/limit',
        keyword: 'anyOf',
        message: 'parameter "limit" must be integer or null, got string "x"',
      },
    ]);
    const literals = { anyOf: [{ const: 'auto' }, { const: 'none' }, { type: 'integer' }] };
    expect(messages('x', literals)).toEqual([
      'the input must be "auto", "none" or integer, got string "x"',
    ]);
  });

  it('reports the closest branch of a union of objects', () => {
    const schema = {
      type: 'object',
      properties: {
        shape: {
          oneOf: [
            {
              type: 'object',
              properties: { kind: { const: 'circle' }, radius: { type: 'number' } },
              required: ['kind', 'radius'],
            },
            {
              type: 'object',
              properties: { kind: { const: 'square' }, side: { type: 'number' } },
              required: ['kind', 'side'],
            },
          ],
        },
      },
    };
    expect(validator.validate({ shape: { kind: 'circle' } }, schema)).toEqual([
      {
        path: '/shape',
        keyword: 'oneOf',
        message:
          'parameter "shape" does not match any of the allowed forms; closest: missing required parameter "shape.radius"',
      },
    ]);
    expect(messages({ shape: 3 }, schema)).toEqual([
      'parameter "shape" must be object, got number 3',
    ]);
  });

  it('places errors from a compiled $ref branch with that branch', () => {
    const tree = {
      type: 'object',
      properties: { root: { anyOf: [{ $ref: '#/$defs/node' }, { type: 'null' }] } },
      $defs: {
        node: {
          type: 'object',
          required: ['name'],
          properties: {
            name: { type: 'string' },
            children: { type: 'array', items: { $ref: '#/$defs/node' } },
          },
        },
      },
    };
    expect(messages({ root: { children: [] } }, tree)).toEqual([
      'parameter "root" does not match any of the allowed forms; closest: missing required parameter "root.name"',
    ]);
  });

  it('says when a oneOf matches more than one branch', () => {
    const schema = { oneOf: [{ type: 'integer' }, { type: 'number' }] };
    expect(validator.validate(3, schema)).toEqual([
      {
        path: '',
        keyword: 'oneOf',
        message: 'the input matches more than one of the allowed forms; it must match exactly one',
      },
    ]);
  });

  it('drops duplicates and the `if` noise', () => {
    const schema = {
      type: 'object',
      allOf: [{ required: ['a'] }, { required: ['a'] }],
      if: { required: ['b'] },
      // biome-ignore lint/suspicious/noThenProperty: `then` is a JSON Schema keyword.
      then: { required: ['c'] },
    };
    expect(messages({ b: 1 }, schema)).toEqual([
      'missing required parameter "a"',
      'missing required parameter "c"',
    ]);
  });

  it('accepts OpenAPI nullable', () => {
    const schema = { type: 'object', properties: { note: { type: 'string', nullable: true } } };
    expect(validator.validate({ note: null }, schema)).toEqual([]);
  });

  it('uses draft 2020-12 when the schema says so', () => {
    const tuple = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'array',
      prefixItems: [{ type: 'string' }, { type: 'integer' }],
      items: false,
    };
    expect(validator.validate(['a', 1], tuple)).toEqual([]);
    expect(messages(['a', 'b'], tuple)).toEqual([
      'parameter "[1]" must be integer, got string "b"',
    ]);
    expect(validator.validate(['a', 1, true], tuple)).toHaveLength(1);
    // Draft-07 knows no prefixItems: the same tuple without $schema checks nothing.
    const { $schema: _declared, ...draft7 } = tuple;
    expect(validator.validate(['a', 'b'], { ...draft7, items: true })).toEqual([]);
  });

  it('understands 2019-09 and other declared drafts without failing', () => {
    const declared = (uri: string) => ({ $schema: uri, type: 'object', required: ['a'] });
    for (const uri of [
      'https://json-schema.org/draft/2019-09/schema',
      'http://json-schema.org/draft-07/schema#',
      'http://json-schema.org/draft-04/schema#',
    ]) {
      expect(messages({}, declared(uri))).toEqual(['missing required parameter "a"']);
    }
  });

  it('reports a schema Ajv cannot compile as one problem instead of throwing', () => {
    const problems = validator.validate({}, { type: 'strng' });
    expect(problems).toHaveLength(1);
    expect(problems[0]!.keyword).toBe('schema');
    expect(problems[0]!.message).toMatch(/^the tool's input schema is invalid.*type/);
    expect(validator.validate({}, { $ref: '#/$defs/missing' })[0]!.keyword).toBe('schema');
  });

  it('handles boolean schemas', () => {
    expect(validator.validate({ a: 1 }, true)).toEqual([]);
    expect(validator.validate({ a: 1 }, false)).toEqual([
      { path: '', keyword: 'false schema', message: 'the tool accepts no input' },
    ]);
    const forbidden = { type: 'object', properties: { a: false } };
    expect(messages({ a: 1 }, forbidden)).toEqual([
      'parameter "a" is not allowed (not in the schema)',
    ]);
  });

  it('compiles each schema once', () => {
    let reads = 0;
    const target: Record<string, unknown> = {
      type: 'object',
      properties: { a: { type: 'integer' } },
    };
    const counted = new Proxy(target, {
      get(object, key, receiver) {
        reads++;
        return Reflect.get(object, key, receiver);
      },
    });
    const fresh = createValidator();
    expect(fresh.validate({ a: 'x' }, counted)).toHaveLength(1);
    expect(reads).toBeGreaterThan(0);
    reads = 0;
    // Compiling reads the schema; a valid input checked by the compiled code reads nothing.
    expect(fresh.validate({ a: 1 }, counted)).toEqual([]);
    expect(fresh.validate({}, counted)).toEqual([]);
    expect(reads).toBe(0);
    expect(fresh.validate({ a: 'y' }, counted)).toHaveLength(1);
  });

  it('keeps schemas that share an $id apart', () => {
    const first = { $id: 'https://example.com/input', type: 'object', required: ['a'] };
    const second = { $id: 'https://example.com/input', type: 'object', required: ['b'] };
    expect(messages({}, first)).toEqual(['missing required parameter "a"']);
    const shared = createValidator();
    shared.validate({}, first);
    expect(shared.validate({}, second).map((problem) => problem.message)).toEqual([
      'missing required parameter "b"',
    ]);
    const nestedFirst = { properties: { x: { $id: 'https://example.com/x', type: 'string' } } };
    const nestedSecond = { properties: { x: { $id: 'https://example.com/x', type: 'integer' } } };
    shared.validate({ x: 1 }, nestedFirst);
    expect(shared.validate({ x: 1 }, nestedSecond)).toEqual([]);
  });

  it('quotes long values briefly', () => {
    const [message] = messages(
      { count: 'x'.repeat(500) },
      { properties: { count: { type: 'integer' } } },
    );
    expect(message!.length).toBeLessThan(120);
  });

  it('never throws, whatever the input and schema', () => {
    fc.assert(
      fc.property(anyValue, toolSchema, (input, schema) => {
        const problems = validator.validate(input, schema);
        for (const problem of problems) {
          expect(typeof problem.message).toBe('string');
          expect(typeof problem.path).toBe('string');
          expect(problem.message).not.toMatch(/undefined/);
        }
        expect(new Set(problems.map((problem) => JSON.stringify(problem))).size).toBe(
          problems.length,
        );
      }),
      { numRuns: 300 },
    );
  });
});

describe('compiling schemas', () => {
  it('compiles an equal schema once, whichever object carries it (a server gets new ones per request)', async () => {
    const { default: AjvModule } = await import('ajv');
    const Ajv = ((AjvModule as unknown as { default?: unknown }).default ?? AjvModule) as {
      prototype: { compile: (...args: unknown[]) => unknown };
    };
    const compile = vi.spyOn(Ajv.prototype, 'compile');
    try {
      const validator = createValidator();
      for (let request = 0; request < 5; request++) {
        const schema = JSON.parse(JSON.stringify(weather)) as JsonSchema;
        expect(validator.validate({ location: 'Oslo', count: 'x' }, schema)).toHaveLength(1);
      }
      expect(compile).toHaveBeenCalledTimes(1);
      // A schema that differs is compiled on its own, and judged by itself.
      const other = { ...weather, required: ['count'] } as JsonSchema;
      expect(validator.validate({ location: 'Oslo' }, other)).toHaveLength(1);
      expect(compile).toHaveBeenCalledTimes(2);
    } finally {
      compile.mockRestore();
    }
  });

  it('a schema that has no JSON text (a cycle) is judged without throwing, the same each time', () => {
    const validator = createValidator();
    const schema: Record<string, unknown> = {
      type: 'object',
      properties: { n: { type: 'number' } },
    };
    Object.defineProperty(schema, 'self', { value: schema, enumerable: true });
    const first = validator.validate({ n: 'x' }, schema as JsonSchema);
    expect(first.length).toBeGreaterThan(0);
    expect(validator.validate({ n: 'x' }, schema as JsonSchema)).toEqual(first);
  });
});
