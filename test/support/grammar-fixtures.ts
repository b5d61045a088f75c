/**
 * What the grammar tests share: their tools and the calls fast-check makes for them, the
 * literals that end a format's values (hints for random walks), and compiled grammars disposed
 * after a test file.
 */
import fc from 'fast-check';
import { afterAll } from 'vitest';
import type { JsonSchema, ToolCallProtocol, ToolDefinition } from '../../src/index.ts';
import { grammarOf } from '../../src/protocols/define/define-protocol.ts';
import { resolveParseOptions } from '../../src/protocols/engine/stream-engine.ts';
import { specOf } from '../../src/protocols/spec/define.ts';
import type { FormatSpec } from '../../src/protocols/spec/types.ts';
import type { EngineGrammar } from './xgrammar.ts';

export function toolWith(schema: JsonSchema, name = 'tool'): ToolDefinition {
  return { name, inputSchema: schema };
}

/** `get_weather(city, days?)`, nothing else. */
export const weatherTool = toolWith(
  {
    type: 'object',
    properties: { city: { type: 'string' }, days: { type: 'integer' } },
    required: ['city'],
    additionalProperties: false,
  },
  'get_weather',
);

/** `search(query, limit?)`, the limit 5 or 10. */
export const searchTool = toolWith(
  {
    type: 'object',
    properties: { query: { type: 'string' }, limit: { enum: [5, 10] } },
    required: ['query'],
    additionalProperties: false,
  },
  'search',
);

/** A call to `weatherTool` or `searchTool` with valid input. */
export const weatherOrSearchCall = fc.oneof(
  fc
    .record({ city: fc.string({ maxLength: 8 }), days: fc.integer() }, { requiredKeys: ['city'] })
    .map((input) => ({ toolName: 'get_weather', input })),
  fc
    .record(
      { query: fc.string({ maxLength: 8 }), limit: fc.constantFrom(5, 10) },
      { requiredKeys: ['query'] },
    )
    .map((input) => ({ toolName: 'search', input })),
);

/**
 * Tools whose arguments cover what a grammar writes: a bounded integer and an enum, a nested
 * object with a bounded array, and any JSON but a string (a tagged format writes a string raw,
 * which then reads as nothing else).
 */
export const ARGUMENT_TOOLS: readonly ToolDefinition[] = [
  toolWith(
    {
      type: 'object',
      properties: {
        city: { type: 'string' },
        days: { type: 'integer', minimum: 1 },
        unit: { enum: ['celsius', 'fahrenheit'] },
      },
      required: ['city'],
    },
    'get_weather',
  ),
  toolWith(
    {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'where' },
        content: { type: 'string' },
        options: {
          type: 'object',
          properties: {
            overwrite: { type: 'boolean' },
            tags: { type: 'array', items: { type: 'string' }, maxItems: 3 },
          },
          additionalProperties: false,
        },
      },
      required: ['path', 'content'],
    },
    'write_file',
  ),
  toolWith(
    {
      type: 'object',
      properties: {
        data: { type: ['object', 'array', 'number', 'boolean', 'null'] },
        ratio: { type: 'number' },
        flag: { type: ['boolean', 'null'] },
      },
    },
    'note',
  ),
];

/** Strings with markup, quotes, escapes and non-ASCII among plain ones. */
const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom('<tool_call>', '</tool_call>', '"', '\\', '\n', 'é', '😀', '{"name": "x"}', ']'),
);
const json = fc
  .jsonValue({ maxDepth: 2 })
  .filter((value) => typeof value !== 'string' && !JSON.stringify(value).includes('e+'));
const argumentInputs: Record<string, fc.Arbitrary<Record<string, unknown>>> = {
  get_weather: fc.record(
    {
      city: text,
      days: fc.integer({ min: 1, max: 10_000 }),
      unit: fc.constantFrom('celsius', 'fahrenheit'),
    },
    { requiredKeys: ['city'] },
  ),
  write_file: fc.record(
    {
      path: text,
      content: text,
      options: fc.record(
        { overwrite: fc.boolean(), tags: fc.array(text, { maxLength: 3 }) },
        { requiredKeys: [] },
      ),
    },
    { requiredKeys: ['path', 'content'] },
  ),
  note: fc.record(
    {
      data: json,
      ratio: fc.double({ min: -1e9, max: 1e9, noNaN: true }),
      flag: fc.constantFrom(true, false, null),
    },
    { requiredKeys: [] },
  ),
};

/** A call to one of `ARGUMENT_TOOLS` with valid input. */
export const argumentCall = fc
  .constantFrom(...ARGUMENT_TOOLS.map((tool) => tool.name))
  .chain((toolName) =>
    (argumentInputs[toolName] as fc.Arbitrary<Record<string, unknown>>).map((input) => ({
      toolName,
      input,
    })),
  );

/**
 * The literals that end a format's values, strings, calls and blocks, with the line breaks
 * writers put before them: free text rarely ends on one by chance, so random walks try them.
 */
export function closersOf(protocol: ToolCallProtocol): string[] {
  const spec = specOf(protocol) as FormatSpec;
  const literals: string[] = [];
  for (const form of spec.calls) {
    if (form.close) literals.push(form.close);
    if (form.codec === 'tagged') literals.push(form.syntax.parameterClose, form.syntax.callClose);
    // A dialect's string ends only at its delimiter, which random bytes rarely spell.
    if (form.codec === 'dialect') literals.push(form.stringDelimiters[1]);
  }
  for (const tag of spec.reasoning ?? []) literals.push(tag.close);
  return [
    ...new Set(literals.filter((text) => text !== '').flatMap((text) => [text, `\n${text}`])),
  ];
}

/**
 * Every literal the parser reads as a call's opener with `tools` declared, explicit or
 * speculative (a fence, `{"name"`, hermes' `<function=`), per-tool ones filled, taken from the
 * parser itself (not from the grammar's code).
 */
export function parserOpenersOf(
  protocol: ToolCallProtocol,
  tools: readonly ToolDefinition[],
): string[] {
  const grammar = grammarOf(protocol);
  if (!grammar) return [];
  const openers = grammar.callOpeners(resolveParseOptions({ tools }));
  return [...new Set(openers.filter((one) => one.kind !== 'framing').map((one) => one.literal))];
}

/**
 * The parser's openers with a declared tool's name after each, as the name is written bare or
 * as a JSON string, and a call's JSON begun: hints that lead a random walk towards a call
 * written in a form the grammar does not write.
 */
export function openerHintsOf(
  protocol: ToolCallProtocol,
  tools: readonly ToolDefinition[],
): string[] {
  const hints: string[] = [];
  for (const literal of parserOpenersOf(protocol, tools)) {
    hints.push(literal);
    for (const tool of tools) {
      const json = JSON.stringify(tool.name);
      hints.push(
        `${literal}${tool.name}`,
        `${literal}${json}`,
        `${literal}: ${json}, "arguments": {`,
      );
      hints.push(`${literal}{"name": ${json}, "arguments": {}}`, `${literal}${tool.name}>{}`);
    }
  }
  return [...new Set(hints)];
}

/**
 * The closers a tagged format's raw string values may not hold (see tagged-arguments.ts), cut
 * at a non-ASCII character, as the grammar keeps the closer's ASCII start out.
 */
export function rawClosers(protocol: ToolCallProtocol): string[] {
  const form = (specOf(protocol) as FormatSpec).calls[0];
  if (form?.codec !== 'tagged') return [];
  return [form.syntax.parameterClose, form.syntax.callClose, form.close ?? '']
    .map((tag) => tag.replace(/[^\x00-\x7f][\s\S]*$/, ''))
    .filter((tag) => tag !== '');
}

/**
 * Keeps compiled grammars and disposes of them after the test file (call at its top level):
 * `const keep = disposedAfterAll(); const grammar = await keep(compileEbnf(text));`.
 */
export function disposedAfterAll(): (grammar: Promise<EngineGrammar>) => Promise<EngineGrammar> {
  const compiled: EngineGrammar[] = [];
  afterAll(() => {
    for (const grammar of compiled) grammar.dispose();
  });
  return async (grammar) => {
    const done = await grammar;
    compiled.push(done);
    return done;
  };
}
