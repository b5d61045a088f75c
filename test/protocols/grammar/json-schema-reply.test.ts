/**
 * The whole-reply JSON Schema (Ollama's `format`, LM Studio's `response_format`), compiled by
 * xgrammar with white space allowed between any two tokens, as Ollama's and LM Studio's
 * converters allow it: every reply a random walk of it writes, the format's parser reads as calls
 * to the tools in scope, each with valid input, as many as the reply's JSON holds. And the schema
 * is one those servers take: no `$ref`, no boolean schema, only keywords llama.cpp's
 * json-schema-to-grammar converts.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { JsonSchema, ToolCallProtocol, ToolDefinition } from '../../../src/index.ts';
import {
  type GrammarToolChoice,
  GrammarUnsupportedError,
  grammarFor,
  type JsonSchemaGrammar,
} from '../../../src/protocols/grammar/index.ts';
import { llama3Protocol } from '../../../src/protocols/llama3/index.ts';
import { FORMATS } from '../../../src/protocols/registry.ts';
import { defineFormat } from '../../../src/protocols/spec/define.ts';
import { xlamProtocol } from '../../../src/protocols/xlam/index.ts';
import {
  accepts,
  compileJsonSchema,
  type EngineGrammar,
  grammarSupported,
  randomWalk,
  seededRandom,
} from '../../support/xgrammar.ts';

const POINT = {
  type: 'object',
  properties: { x: { type: 'integer' }, y: { type: 'integer' } },
  required: ['x', 'y'],
  additionalProperties: false,
};

const TOOLS: ToolDefinition[] = [
  {
    name: 'get_weather',
    inputSchema: {
      type: 'object',
      properties: {
        city: { type: 'string' },
        days: { type: 'integer' },
        unit: { enum: ['celsius', 'fahrenheit'] },
      },
      required: ['city'],
      additionalProperties: false,
    },
  },
  {
    name: 'search',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string' },
        tags: { type: 'array', items: { type: 'string' }, maxItems: 3 },
        exact: { type: 'boolean' },
      },
      required: ['query'],
      additionalProperties: false,
    },
  },
  {
    // Local references, which the schema must inline: `#/$defs/…` would miss nested `$defs`.
    name: 'draw_line',
    inputSchema: {
      type: 'object',
      $defs: { point: POINT },
      properties: { from: { $ref: '#/$defs/point' }, to: { $ref: '#/$defs/point' } },
      required: ['from', 'to'],
      additionalProperties: false,
    },
  },
];

function schemaOf(
  protocol: ToolCallProtocol,
  toolChoice: GrammarToolChoice = 'required',
  parallelToolCalls = true,
  tools: readonly ToolDefinition[] = TOOLS,
): JsonSchema {
  return (
    grammarFor(protocol, {
      tools,
      toolChoice,
      parallelToolCalls,
      syntax: 'json-schema',
    }) as JsonSchemaGrammar
  ).schema;
}

const compiled: EngineGrammar[] = [];
afterAll(() => {
  for (const grammar of compiled) grammar.dispose();
});
async function compile(schema: JsonSchema): Promise<EngineGrammar> {
  const grammar = await compileJsonSchema(schema, { anyWhitespace: true });
  compiled.push(grammar);
  return grammar;
}

/** The call objects a reply's JSON holds (a list of them, or one). */
function callObjectsIn(reply: string): Record<string, unknown>[] {
  const value = JSON.parse(reply) as unknown;
  return (Array.isArray(value) ? value : [value]) as Record<string, unknown>[];
}

/** Reads `reply` and checks that every call object in it is a valid call to a tool in scope. */
function expectReadBack(
  protocol: ToolCallProtocol,
  reply: string,
  inScope: readonly string[],
  argumentsKey: string,
): number {
  const events = protocol.parseGeneratedText(reply, { tools: TOOLS });
  expect(
    events.filter((event) => event.type === 'error'),
    reply,
  ).toEqual([]);
  const calls = events.flatMap((event) => (event.type === 'tool-call' ? [event] : []));
  const written = callObjectsIn(reply);
  // Nothing lost: each call object is one call, with its name and its arguments.
  expect(
    calls.map((call) => ({ name: call.toolName, input: JSON.parse(call.input) })),
    reply,
  ).toEqual(written.map((object) => ({ name: object.name, input: object[argumentsKey] })));
  for (const call of calls) {
    expect(inScope, reply).toContain(call.toolName);
    expect(call.problems, reply).toBeUndefined();
  }
  // What is not a call is the white space around the JSON.
  const text = events.map((event) => (event.type === 'text' ? event.text : '')).join('');
  expect(text.trim(), reply).toBe('');
  return calls.length;
}

const FORMATS_WITH_SCHEMA = [
  ['xlam', xlamProtocol(), 'arguments'],
  ['llama3', llama3Protocol(), 'parameters'],
] as const;

describe.each(FORMATS_WITH_SCHEMA)(
  '%s: whole-reply JSON Schema',
  (_name, protocol, argumentsKey) => {
    it.each([
      ['required', 'required', true],
      ['required, one call', 'required', false],
      ['named', { toolName: 'draw_line' }, true],
    ] as const)(
      '%s: what a random walk writes with white space anywhere reads back as valid calls in scope',
      async (_case, toolChoice, parallel) => {
        const grammar = await compile(schemaOf(protocol, toolChoice, parallel));
        const inScope =
          typeof toolChoice === 'object' ? [toolChoice.toolName] : TOOLS.map((tool) => tool.name);
        const random = seededRandom(parallel ? 7 : 11);
        let replies = 0;
        let calls = 0;
        let spaced = 0;
        for (let walk = 0; walk < 40; walk++) {
          const reply = await randomWalk(grammar, random, { maxBytes: 4000 });
          if (reply === undefined) continue;
          replies++;
          if (/[{[,:][ \t\r\n]/.test(reply)) spaced++;
          const read = expectReadBack(protocol, reply, inScope, argumentsKey);
          if (!parallel) expect(read).toBe(1);
          calls += read;
        }
        expect(replies).toBeGreaterThan(20);
        expect(spaced).toBeGreaterThan(replies / 2);
        expect(calls).toBeGreaterThanOrEqual(replies);
      },
    );

    it('accepts what the format writes, in any layout, and refuses other tools and bad arguments', async () => {
      const grammar = await compile(schemaOf(protocol));
      const write = (toolName: string, input: unknown) =>
        protocol.formatToolCall([{ toolName, input }]);
      const call = write('draw_line', { from: { x: 1, y: 2 }, to: { x: 3, y: 4 } });
      expect(await accepts(grammar, call)).toBe(true);
      expect(await accepts(grammar, JSON.stringify(JSON.parse(call), null, '\t'))).toBe(true);
      expect(await accepts(grammar, write('get_time', {}))).toBe(false);
      expect(await accepts(grammar, write('get_weather', { days: 2 }))).toBe(false);
      expect(await accepts(grammar, write('get_weather', { city: 3 }))).toBe(false);
      expect(
        await accepts(grammar, write('draw_line', { from: { x: 1 }, to: { x: 3, y: 4 } })),
      ).toBe(false);
      expect(await accepts(grammar, 'No call.')).toBe(false);
    });
  },
);

describe('the schema', () => {
  const xlam = xlamProtocol();
  const llama3 = llama3Protocol();

  it('is a list of calls where the format reads one, one call at most when not parallel', () => {
    const list = schemaOf(xlam) as Record<string, unknown>;
    expect(list).toMatchObject({ type: 'array', minItems: 1 });
    expect(list).not.toHaveProperty('maxItems');
    expect(schemaOf(xlam, 'required', false)).toMatchObject({ type: 'array', maxItems: 1 });
    // Llama 3 reads a lone call object (its several calls are not one JSON value).
    expect(schemaOf(llama3)).toMatchObject({ oneOf: expect.any(Array) });
    expect(schemaOf(llama3, 'required', false)).toEqual(schemaOf(llama3));
  });

  it('has one branch per tool, its name a const and its arguments the tool schema, name first', () => {
    const branches = (schemaOf(llama3) as { oneOf: Record<string, unknown>[] }).oneOf;
    expect(branches.map((branch) => branch.properties)).toEqual([
      { name: { const: 'get_weather' }, parameters: TOOLS[0]?.inputSchema },
      { name: { const: 'search' }, parameters: TOOLS[1]?.inputSchema },
      {
        name: { const: 'draw_line' },
        parameters: {
          type: 'object',
          properties: { from: POINT, to: POINT },
          required: ['from', 'to'],
          additionalProperties: false,
        },
      },
    ]);
    for (const branch of branches) {
      expect(Object.keys(branch.properties as object)).toEqual(['name', 'parameters']);
      expect(branch).toMatchObject({
        required: ['name', 'parameters'],
        additionalProperties: false,
      });
    }
    // A named tool: its branch alone.
    expect(schemaOf(llama3, { toolName: 'search' })).toEqual(branches[1]);
  });

  it('is one Ollama and LM Studio take: no $ref, no boolean schema, keywords llama.cpp converts', () => {
    // llama.cpp's json-schema-to-grammar (which Ollama's SchemaToGrammar calls, and LM Studio's
    // llama.cpp engine uses) converts these; it refuses a bare boolean schema.
    const CONVERTED = new Set([
      'type',
      'properties',
      'required',
      'additionalProperties',
      'items',
      'minItems',
      'maxItems',
      'const',
      'enum',
      'oneOf',
      'anyOf',
    ]);
    const check = (schema: unknown, path: string): void => {
      expect(typeof schema, `${path} is a schema object`).toBe('object');
      for (const [key, value] of Object.entries(schema as object)) {
        expect(CONVERTED.has(key), `${path}.${key}`).toBe(true);
        if (key === 'properties') {
          for (const [name, member] of Object.entries(value)) check(member, `${path}.${name}`);
        } else if (key === 'items') check(value, `${path}.items`);
        else if (key === 'oneOf' || key === 'anyOf') {
          (value as unknown[]).forEach((member, index) => {
            check(member, `${path}.${key}[${index}]`);
          });
        }
      }
    };
    for (const protocol of [xlam, llama3]) {
      check(schemaOf(protocol), 'schema');
      check(schemaOf(protocol, 'required', false), 'schema');
    }
  });

  it('inlines local references (merged with keywords beside them), writes `true` as {}, and refuses a recursive schema', () => {
    const tree: ToolDefinition = {
      name: 'make_tree',
      inputSchema: {
        type: 'object',
        properties: { root: { $ref: '#/definitions/node' }, note: true },
        definitions: {
          node: {
            type: 'object',
            properties: { children: { type: 'array', items: { $ref: '#/definitions/node' } } },
          },
        },
      },
    };
    expect(() => schemaOf(llama3, 'required', true, [tree])).toThrow(
      /no grammar for format "llama3": tool "make_tree": it is recursive \(\$ref "#\/definitions\/node"/,
    );
    const flat: ToolDefinition = {
      name: 'place',
      inputSchema: {
        properties: {
          at: { $ref: '#/definitions/point', description: 'where' },
          near: { $ref: '#/properties/at' },
          corner: { $ref: '#/definitions/point', required: ['x'] },
          any: true,
        },
        definitions: { point: POINT },
      },
    };
    expect(schemaOf(llama3, 'required', true, [flat])).toMatchObject({
      properties: {
        parameters: {
          type: 'object',
          properties: {
            // Merged where nothing differs (llama.cpp reads allOf as merged properties only).
            at: { ...POINT, description: 'where' },
            near: { ...POINT, description: 'where' },
            corner: { allOf: [POINT, { required: ['x'] }] },
            any: {},
          },
        },
      },
    });
    expect(() =>
      schemaOf(llama3, 'required', true, [
        { name: 'far', inputSchema: { properties: { a: { $ref: 'other.json#/a' } } } },
      ]),
    ).toThrow(/tool "far": \$ref "other.json#\/a" is not a reference inside the schema/);
    expect(() =>
      schemaOf(llama3, 'required', true, [{ name: 'text', inputSchema: { type: 'string' } }]),
    ).toThrow(/tool "text": its input schema is of type "string", not an object/);
  });
});

describe('which formats get one', () => {
  it('xlam and llama3 among the built-in formats: the others write calls inside markup', () => {
    const names = FORMATS.filter((entry) => grammarSupported(() => schemaOf(entry.create()))).map(
      (entry) => entry.name,
    );
    expect(names).toEqual(['xlam', 'llama3']);
  });

  it('refuses a format that reads JSON alone only in the layouts its openers list', () => {
    const bare = (open: string) =>
      ({ codec: 'json', open, openHoldsJson: open, certainty: 'speculative' }) as const;
    const listed = defineFormat({
      spec: 1,
      name: 'listed-layouts',
      calls: [bare('{"name"'), bare('{\n  "name"')],
      write: { call: '{"name":{name_json},"arguments":{arguments}}', join: '\n' },
      results: { each: '{output}', join: '\n', output: 'json' },
    });
    expect(() => schemaOf(listed)).toThrow(
      /its reader does not read a reply of JSON alone as calls, in every layout of white space/,
    );
  });

  it('refuses a format that writes JSON alone but reads calls only inside its markup', () => {
    const tagged = defineFormat({
      spec: 1,
      name: 'tagged-json',
      calls: [{ codec: 'json', open: '<call>', close: '</call>' }],
      write: { call: '{"name":{name_json},"arguments":{arguments}}', join: '\n' },
      results: { each: '{output}', join: '\n', output: 'json' },
    });
    expect(() => schemaOf(tagged)).toThrow(GrammarUnsupportedError);
    expect(() => schemaOf(tagged)).toThrow(
      /its reader does not read a reply of JSON alone as calls/,
    );
  });
});
