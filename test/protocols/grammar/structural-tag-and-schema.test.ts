/**
 * The structural tag (vLLM, SGLang) and the whole-reply JSON Schema (Ollama, LM Studio) of every
 * format that gets them, compiled by xgrammar: what the format writes is accepted, what breaks
 * the tools' schemas or skips a demanded call is refused, and what a random walk writes the
 * parser reads as valid declared calls.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ToolCallProtocol } from '../../../src/index.ts';
import {
  grammarFor,
  type JsonSchemaGrammar,
  type StructuralTagGrammar,
} from '../../../src/protocols/grammar/index.ts';
import { FORMATS } from '../../../src/protocols/registry.ts';
import { specOf } from '../../../src/protocols/spec/define.ts';
import type { FormatSpec } from '../../../src/protocols/spec/types.ts';
import {
  closersOf,
  disposedAfterAll,
  parserOpenersOf,
  rawClosers,
  searchTool,
  weatherOrSearchCall,
  weatherTool,
} from '../../support/grammar-fixtures.ts';
import {
  accepts,
  compileJsonSchema,
  compileStructuralTag,
  grammarSupported,
  randomWalk,
  seededRandom,
} from '../../support/xgrammar.ts';

const TOOLS = [weatherTool, searchTool];
const call = weatherOrSearchCall;

function tagOf(
  protocol: ToolCallProtocol,
  toolChoice: 'auto' | 'required' | 'none' | { toolName: string },
  parallelToolCalls = true,
) {
  return (
    grammarFor(protocol, {
      tools: TOOLS,
      toolChoice,
      parallelToolCalls,
      syntax: 'structural-tag',
    }) as StructuralTagGrammar
  ).structuralTag;
}

function schemaOf(protocol: ToolCallProtocol, parallelToolCalls = true) {
  return (
    grammarFor(protocol, {
      tools: TOOLS,
      toolChoice: 'required',
      parallelToolCalls,
      syntax: 'json-schema',
    }) as JsonSchemaGrammar
  ).schema;
}

const WITH_TAGS = FORMATS.map((entry) => [entry.name, entry.create()] as const).filter(
  ([, protocol]) => grammarSupported(() => tagOf(protocol, 'required')),
);
const WITH_SCHEMA = FORMATS.map((entry) => [entry.name, entry.create()] as const).filter(
  ([, protocol]) => grammarSupported(() => schemaOf(protocol)),
);

const keep = disposedAfterAll();

function checkReadBack(protocol: ToolCallProtocol, reply: string) {
  const events = protocol.parseGeneratedText(reply, { tools: TOOLS });
  expect(
    events.filter((event) => event.type === 'error'),
    reply,
  ).toEqual([]);
  const calls = events.filter((event) => event.type === 'tool-call');
  expect(calls.length, reply).toBeGreaterThan(0);
  for (const part of calls) {
    expect(['get_weather', 'search'], reply).toContain(part.toolName);
    expect(part.problems, reply).toBeUndefined();
  }
}

it('every format with a GBNF grammar gets a structural tag', () => {
  const withGbnf = FORMATS.filter((entry) =>
    grammarSupported(() =>
      grammarFor(entry.create(), { tools: TOOLS, toolChoice: 'required', syntax: 'gbnf' }),
    ),
  ).map((entry) => entry.name);
  expect(withGbnf.length).toBeGreaterThan(20);
  expect(WITH_TAGS.map(([name]) => name)).toEqual(withGbnf);
});

describe.each(WITH_TAGS)('structural tag: %s', (_name, protocol) => {
  it('accepts what the format writes; refuses other tools, bad arguments and a skipped call', async () => {
    const required = await keep(compileStructuralTag(tagOf(protocol, 'required')));
    const auto = await keep(compileStructuralTag(tagOf(protocol, 'auto')));
    await fc.assert(
      fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 3 }), async (calls) => {
        // A tagged format's raw string holding one of its closers is outside its grammar.
        fc.pre(!rawClosers(protocol).some((closer) => JSON.stringify(calls).includes(closer)));
        const written = protocol.formatToolCall(calls);
        expect(await accepts(required, written)).toBe(true);
        expect(await accepts(auto, `Let me see.\n${written}`)).toBe(true);
      }),
      { numRuns: 15 },
    );
    const write = (toolName: string, input: unknown) =>
      protocol.formatToolCall([{ toolName, input }]);
    expect(await accepts(required, write('get_time', { city: 'Oslo' }))).toBe(false);
    expect(await accepts(required, write('get_weather', { days: 1 }))).toBe(false);
    // A wrongly typed value is told apart where it is written otherwise than the string (a
    // tagged or XML format writes a string raw: a 3 for city reads as the string "3").
    const wrong = write('get_weather', { city: 3 });
    if (wrong !== write('get_weather', { city: '3' }))
      expect(await accepts(required, wrong)).toBe(false);
    expect(await accepts(required, write('search', { query: 'a', limit: 7 }))).toBe(false);
    expect(await accepts(required, 'No call.')).toBe(false);
    expect(await accepts(auto, 'No call.')).toBe(true);
    const named = await keep(compileStructuralTag(tagOf(protocol, { toolName: 'search' })));
    expect(await accepts(named, write('search', { query: 'a' }))).toBe(true);
    expect(await accepts(named, write('get_weather', { city: 'a' }))).toBe(false);
    const once = await keep(compileStructuralTag(tagOf(protocol, 'required', false)));
    const two = protocol.formatToolCall([
      { toolName: 'search', input: { query: 'a' } },
      { toolName: 'search', input: { query: 'b' } },
    ]);
    expect(await accepts(once, two)).toBe(false);
  });

  it('under none holds text only: no call, nor any opener the parser reads (review 24, finding 1)', async () => {
    const none = await keep(compileStructuralTag(tagOf(protocol, 'none')));
    expect(await accepts(none, 'No call.')).toBe(true);
    const written = protocol.formatToolCall([{ toolName: 'search', input: { query: 'a' } }]);
    expect(await accepts(none, written)).toBe(false);
    for (const text of [written, ...parserOpenersOf(protocol, TOOLS).map((one) => `Ok ${one}`)]) {
      if (!(await accepts(none, text))) continue;
      const read = protocol.parseGeneratedText(text, { tools: TOOLS });
      expect(
        read.filter((event) => event.type === 'tool-call' || event.type === 'error'),
        text,
      ).toEqual([]);
    }
  });

  it('what a random walk of the demanded tag writes, the parser reads as valid declared calls', async () => {
    const required = await keep(compileStructuralTag(tagOf(protocol, 'required')));
    const random = seededRandom(99);
    // An output that begins in reasoning is walked from its closer on (free text rarely ends it).
    const spec = specOf(protocol) as FormatSpec;
    const prefix = spec.startInReasoning
      ? `Thinking.${spec.reasoning?.[0]?.close ?? '</think>'}`
      : '';
    let replies = 0;
    for (let walk = 0; walk < 14; walk++) {
      const reply = await randomWalk(required, random, {
        prefix,
        maxBytes: 2500,
        hints: closersOf(protocol),
      });
      if (reply === undefined) continue;
      replies++;
      checkReadBack(protocol, reply);
    }
    expect(replies).toBeGreaterThan(3);
  });
});

describe('whole-reply JSON Schema', () => {
  it('is made where a batch of calls is one JSON value, and refused elsewhere or under auto', () => {
    const names = WITH_SCHEMA.map(([name]) => name);
    expect(names).toContain('xlam');
    expect(names).not.toContain('hermes');
    const hermes = FORMATS.find((entry) => entry.name === 'hermes')?.create() as ToolCallProtocol;
    expect(() => schemaOf(hermes)).toThrow(
      /no grammar for format "hermes": its calls are not written as JSON alone/,
    );
    const xlam = FORMATS.find((entry) => entry.name === 'xlam')?.create() as ToolCallProtocol;
    expect(() =>
      grammarFor(xlam, { tools: TOOLS, toolChoice: 'auto', syntax: 'json-schema' }),
    ).toThrow(/only for a tool choice that demands a call/);
  });

  // Compiled with JSON's compact layout: the bare-JSON readers (xLAM's bare list, Llama 3's
  // `{"name"`) read the layouts models write, not white space between any two tokens
  // (`[ \t {\t"name"`), which a server's schema grammar may let through.
  it.each(WITH_SCHEMA)(
    '%s: accepts what the format writes, refuses what breaks the schemas, walks read back',
    async (_name, protocol) => {
      const parallel = await keep(compileJsonSchema(schemaOf(protocol)));
      const many = protocol.formatToolCall([
        { toolName: 'get_weather', input: { city: 'Oslo' } },
        { toolName: 'search', input: { query: 'x', limit: 5 } },
      ]);
      const one = protocol.formatToolCall([{ toolName: 'search', input: { query: 'x' } }]);
      expect(await accepts(parallel, one)).toBe(true);
      const single = await keep(compileJsonSchema(schemaOf(protocol, false)));
      expect(await accepts(single, one)).toBe(true);
      if (many.trim().startsWith('[')) {
        expect(await accepts(parallel, many)).toBe(true);
        expect(await accepts(single, many)).toBe(false);
      }
      expect(
        await accepts(parallel, protocol.formatToolCall([{ toolName: 'get_time', input: {} }])),
      ).toBe(false);
      expect(
        await accepts(
          parallel,
          protocol.formatToolCall([{ toolName: 'search', input: { limit: 5 } }]),
        ),
      ).toBe(false);
      const random = seededRandom(5);
      let replies = 0;
      for (let walk = 0; walk < 10; walk++) {
        const reply = await randomWalk(parallel, random);
        if (reply === undefined) continue;
        replies++;
        checkReadBack(protocol, reply);
      }
      expect(replies).toBeGreaterThan(3);
    },
  );
});
