/**
 * Tool schemas come from clients (the proxy passes them through as they are), so they are
 * untrusted JSON: `formatTools` of every format describes any JSON a client sends as a schema,
 * however malformed (`properties: {a: null}`, `items: null`, `required: "x"`, a description
 * that is a number), without throwing: what it cannot describe it describes generically
 * (a parameter of any type), and what it can it keeps.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonText } from '../../src/core/parse-json.ts';
import {
  FORMATS,
  type JsonSchema,
  type ToolCallProtocol,
  type ToolDefinition,
} from '../../src/index.ts';
import { deepseekProtocol } from '../../src/protocols/deepseek/index.ts';
import { functionaryProtocol } from '../../src/protocols/functionary/index.ts';
import { mistralProtocol } from '../../src/protocols/mistral/index.ts';
import { pythonicProtocol } from '../../src/protocols/pythonic/index.ts';

/** Every format, with the versions whose tools sections are written differently. */
const formats: [string, ToolCallProtocol][] = [
  ...FORMATS.map((entry): [string, ToolCallProtocol] => [entry.name, entry.create()]),
  ['deepseek v3', deepseekProtocol({ version: 'v3' })],
  ['deepseek v3.2', deepseekProtocol({ version: 'v3.2' })],
  ['functionary v3.1', functionaryProtocol({ version: 'v3.1' })],
  ['mistral pre-v11', mistralProtocol({ style: 'pre-v11' })],
  ['pythonic lfm2', pythonicProtocol({ promptStyle: 'lfm2' })],
  ['pythonic olmo3', pythonicProtocol({ promptStyle: 'olmo3' })],
  ['pythonic llama4', pythonicProtocol({ promptStyle: 'llama4' })],
];

/** Malformed schemas clients send (each valid JSON), as the audit found them and like them. */
const MALFORMED: [string, unknown][] = [
  ['a property that is null', { type: 'object', properties: { a: null } }],
  ['a property that is true', { type: 'object', properties: { a: true, b: false } }],
  ['a property that is a number', { type: 'object', properties: { a: 5, b: 'string' } }],
  ['a property that is a list', { type: 'object', properties: { a: [{ type: 'string' }] } }],
  ['items that are null', { type: 'object', properties: { a: { type: 'array', items: null } } }],
  ['items that are a list', { type: 'object', properties: { a: { type: 'array', items: [1] } } }],
  ['required as a string', { type: 'object', properties: { a: {} }, required: 'a' }],
  ['required holding non-strings', { type: 'object', properties: { a: {} }, required: [1, null] }],
  ['a description that is a number', { type: 'object', properties: { a: { description: 5 } } }],
  ['a description that is an object', { properties: { a: { description: { x: 1 } } } }],
  ['properties that are null', { type: 'object', properties: null }],
  ['properties that are a string', { type: 'object', properties: 'abc' }],
  ['properties that are a list', { type: 'object', properties: [{ type: 'string' }] }],
  ['a type that is a number', { type: 5, properties: { a: { type: 7 } } }],
  ['a type list holding non-strings', { properties: { a: { type: [null, 1, 'string'] } } }],
  ['an enum that is a string', { properties: { a: { enum: 'abc' } } }],
  ['anyOf holding null', { properties: { a: { anyOf: [null, true, { type: 'string' }] } } }],
  ['anyOf that is an object', { properties: { a: { anyOf: { type: 'string' } } } }],
  ['a default that is an object', { properties: { a: { default: { b: [1] } } } }],
  ['examples that are a string', { properties: { a: { type: 'string', examples: 'x' } } }],
  ['a schema that is null', null],
  ['a schema that is a number', 5],
  ['a schema that is a string', 'object'],
  ['a schema that is a list', [{ type: 'object' }]],
  ['a schema that is false', false],
  ['a __proto__ property', parseJsonText('{"properties": {"__proto__": {"type": "string"}}}')],
  [
    'property names with markup, quotes and line breaks',
    {
      type: 'object',
      properties: {
        'a]]>b': { type: 'string' },
        'say "hi"': { type: 'string', description: 'x */ y\n// z' },
        'line\nbreak': { type: 'integer' },
        '<tool_call>': { type: 'string' },
        '': { type: 'string' },
      },
      required: ['a]]>b'],
    },
  ],
];

function toolWith(
  inputSchema: unknown,
  extra: Partial<Record<string, unknown>> = {},
): ToolDefinition {
  return {
    name: 'get_weather',
    description: 'Weather',
    inputSchema: inputSchema as JsonSchema,
    ...extra,
  } as ToolDefinition;
}

/** Any JSON value, nested a little (what a client may put anywhere in a schema). */
const anyJson = fc.jsonValue({ maxDepth: 3 });

/** A schema with a client's JSON in the places describers read. */
const clientSchema: fc.Arbitrary<unknown> = fc.oneof(
  anyJson,
  fc.record(
    {
      type: fc.oneof(fc.constantFrom('object', 'array', 'string', 'integer'), anyJson),
      properties: fc.oneof(fc.dictionary(fc.string(), anyJson, { maxKeys: 3 }), anyJson),
      required: fc.oneof(fc.array(fc.string(), { maxLength: 2 }), anyJson),
      items: anyJson,
      description: anyJson,
      enum: anyJson,
      anyOf: anyJson,
      default: anyJson,
      examples: anyJson,
    },
    { requiredKeys: [] },
  ),
  fc
    .dictionary(
      fc.string(),
      fc.record(
        {
          type: fc.oneof(fc.constantFrom('array', 'object', 'string'), anyJson),
          items: anyJson,
          properties: anyJson,
          description: anyJson,
          enum: anyJson,
          anyOf: anyJson,
          oneOf: anyJson,
          const: anyJson,
          default: anyJson,
        },
        { requiredKeys: [] },
      ),
      { maxKeys: 3 },
    )
    .map((properties) => ({ type: 'object', properties })),
);

describe.each(formats)('%s: formatTools describes any client schema', (_name, protocol) => {
  it.each(MALFORMED)('%s', (_case, schema) => {
    const text = protocol.formatTools([toolWith(schema)]);
    expect(text).toContain('get_weather');
  });

  it('a tool description that is not text', () => {
    for (const description of [5, { a: 1 }, ['x'], true]) {
      const text = protocol.formatTools([toolWith({ type: 'object' }, { description })]);
      expect(text).toContain('get_weather');
    }
  });

  it('whatever JSON stands where a schema or its parts are', () => {
    fc.assert(
      fc.property(clientSchema, (schema) => {
        expect(protocol.formatTools([toolWith(schema)])).toContain('get_weather');
      }),
      { numRuns: 200 },
    );
  });

  it('a deeply nested schema (deeper than the proxy lets through)', () => {
    let schema: unknown = { type: 'string' };
    for (let level = 0; level < 200; level++) {
      schema = { type: 'object', properties: { a: level % 2 ? schema : { anyOf: [schema] } } };
    }
    expect(protocol.formatTools([toolWith(schema)])).toContain('get_weather');
  });

  it('a union at every level, in time that grows with the schema only', { timeout: 10_000 }, () => {
    // A `type` list that names a type twice (or holds a list) must not describe a level twice.
    let schema: unknown = { type: 'string' };
    for (let level = 0; level < 60; level++) {
      schema = { type: ['object', 'object', ['object'], 'null'], properties: { a: schema } };
    }
    expect(protocol.formatTools([toolWith(schema)])).toContain('get_weather');
  });
});

describe('what a schema cannot say is described generically', () => {
  const schema = { type: 'object', properties: { a: null, b: { type: 'string', description: 5 } } };
  const byName = new Map(formats);

  it.each([
    ['xml', '- a (any, optional)'],
    ['execute', '- a (any, optional)'],
    ['apertus', 'a?: any,'],
    ['gpt-oss', 'a?: any,'],
    ['seed-oss', 'a: Any'],
  ])('%s shows a parameter without a schema as any type', (name, line) => {
    const text = byName.get(name)!.formatTools([toolWith(schema)]);
    expect(text).toContain(line);
    // The other parameter keeps its type; a description that is not text is left out.
    expect(text).toMatch(/\bb\b[^\n]*\b(string|str)\b/);
    expect(text).not.toMatch(/(\/\/ |: )5\b/);
  });

  it.each(formats)('%s: a tool name with markup or quotes', (_name, protocol) => {
    const text = protocol.formatTools([
      { name: 'a]]>b"c', description: 'x', inputSchema: { type: 'object' } },
    ]);
    expect(typeof text).toBe('string');
  });
});
