/**
 * Grammar and parser agree, for every format that gets a grammar, checked with a real engine
 * (xgrammar in WebAssembly): every call the format writes for valid inputs is accepted; calls to
 * undeclared tools, without a required argument or with a wrongly typed one are refused; a
 * demanded call cannot be skipped; text is accepted under `auto`; and what a random walk of the
 * grammar writes, the parser reads as valid calls of declared tools, with nothing lost. The GBNF
 * is also checked against what llama.cpp's parser refuses and xgrammar lets through.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { ToolCallProtocol, ToolDefinition } from '../../../src/index.ts';
import {
  type EbnfGrammar,
  type GbnfGrammar,
  grammarFor,
} from '../../../src/protocols/grammar/index.ts';
import { FORMATS } from '../../../src/protocols/registry.ts';
import { specOf } from '../../../src/protocols/spec/define.ts';
import type { FormatSpec } from '../../../src/protocols/spec/types.ts';
import {
  accepts,
  compileEbnf,
  type EngineGrammar,
  grammarSupported,
  randomWalk,
  seededRandom,
} from '../../support/xgrammar.ts';
import { gbnfProblems } from '../../support/xgrammar-gbnf-rules.ts';

const TOOLS: ToolDefinition[] = [
  {
    name: 'get_weather',
    inputSchema: {
      type: 'object',
      properties: {
        city: { type: 'string' },
        days: { type: 'integer', minimum: 1 },
        unit: { enum: ['celsius', 'fahrenheit'] },
      },
      required: ['city'],
    },
  },
  {
    name: 'write_file',
    inputSchema: {
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
  },
  {
    name: 'note',
    inputSchema: {
      type: 'object',
      // Any JSON but a string: a tagged format writes a string raw, which then reads as nothing else.
      properties: {
        data: { type: ['object', 'array', 'number', 'boolean', 'null'] },
        ratio: { type: 'number' },
        flag: { type: ['boolean', 'null'] },
      },
    },
  },
];

/** Strings with markup, quotes, escapes and non-ASCII among plain ones. */
const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom('<tool_call>', '</tool_call>', '"', '\\', '\n', 'é', '😀', '{"name": "x"}', ']'),
);
const json = fc
  .jsonValue({ maxDepth: 2 })
  .filter((value) => typeof value !== 'string' && !JSON.stringify(value).includes('e+'));
const inputs: Record<string, fc.Arbitrary<Record<string, unknown>>> = {
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
const call = fc.constantFrom(...TOOLS.map((tool) => tool.name)).chain((toolName) =>
  (inputs[toolName] as fc.Arbitrary<Record<string, unknown>>).map((input) => ({
    toolName,
    input,
  })),
);

function supports(protocol: ToolCallProtocol): boolean {
  return grammarSupported(() =>
    grammarFor(protocol, { tools: TOOLS, toolChoice: 'required', syntax: 'gbnf' }),
  );
}

const SUPPORTED = FORMATS.filter((entry) => supports(entry.create())).map(
  (entry) => [entry.name, entry.create()] as const,
);

const compiled: EngineGrammar[] = [];
afterAll(() => {
  for (const grammar of compiled) grammar.dispose();
});

async function compile(text: string): Promise<EngineGrammar> {
  const grammar = await compileEbnf(text);
  compiled.push(grammar);
  return grammar;
}

function gbnf(
  protocol: ToolCallProtocol,
  toolChoice: 'auto' | 'required' | 'none' | { toolName: string },
  parallelToolCalls = true,
): GbnfGrammar {
  return grammarFor(protocol, {
    tools: TOOLS,
    toolChoice,
    parallelToolCalls,
    syntax: 'gbnf',
  }) as GbnfGrammar;
}

function wholeAuto(protocol: ToolCallProtocol): EbnfGrammar {
  return grammarFor(protocol, { tools: TOOLS, toolChoice: 'auto', syntax: 'ebnf' }) as EbnfGrammar;
}

/** Reasoning as the format writes it before `written`: opened (unless the output begins in it) and closed. */
function reasoningBefore(protocol: ToolCallProtocol, written: string): string {
  const spec = specOf(protocol) as FormatSpec;
  const { open, close } = spec.reasoning?.[0] ?? { open: '<think>', close: '</think>' };
  if (!spec.startInReasoning) return `${open}the user wants weather${close}\n`;
  // Apriel's calls begin with its reasoning's closer.
  return written.startsWith(close) ? 'the user wants weather' : `the user wants weather${close}\n`;
}

/** The literals that end a format's values, strings, calls and blocks, with the line breaks writers put before them. */
function closersOf(protocol: ToolCallProtocol): string[] {
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

/** The closers a tagged format's raw string values may not hold (see tagged-arguments.ts). */
function rawClosers(protocol: ToolCallProtocol): string[] {
  const form = (specOf(protocol) as FormatSpec).calls[0];
  if (form?.codec !== 'tagged') return [];
  // Cut at a non-ASCII character, as the grammar keeps the closer's ASCII start out.
  return [form.syntax.parameterClose, form.syntax.callClose, form.close ?? '']
    .map((tag) => tag.replace(/[^\x00-\x7f][\s\S]*$/, ''))
    .filter((tag) => tag !== '');
}

/** What the parser read: its calls, checked, and whether anything was a fault. */
function readBack(protocol: ToolCallProtocol, reply: string) {
  const events = protocol.parseGeneratedText(reply, { tools: TOOLS });
  const calls = events.filter((event) => event.type === 'tool-call');
  const faults = events.filter((event) => event.type === 'error');
  return { calls, faults, events };
}

describe('formats that get a grammar', () => {
  it('include the JSON-codec and parameter-tag formats with a template writer', () => {
    const names = SUPPORTED.map(([name]) => name);
    for (const name of [
      'hermes',
      'xlam',
      'kimi-k2',
      'llama3',
      'execute',
      'firefunction',
      'qwen3-coder',
      'glm',
      'minimax',
    ])
      expect(names).toContain(name);
  });

  it('the others are refused with the format and what is missing', () => {
    const refused = FORMATS.filter((entry) => !supports(entry.create()));
    expect(refused.length).toBeGreaterThan(0);
    for (const entry of refused) {
      expect(() =>
        grammarFor(entry.create(), { tools: TOOLS, toolChoice: 'required', syntax: 'gbnf' }),
      ).toThrow(new RegExp(`no grammar for format "${entry.name}": .+`));
    }
  });
});

describe.each(SUPPORTED)('%s', (_name, protocol) => {
  it('writes GBNF llama.cpp reads (names, rules defined, no left recursion, no empty alternative, ASCII classes)', () => {
    for (const grammar of [
      gbnf(protocol, 'required').grammar,
      gbnf(protocol, 'required', false).grammar,
      gbnf(protocol, 'auto').grammar,
      gbnf(protocol, 'none').grammar,
      gbnf(protocol, { toolName: 'write_file' }).grammar,
      wholeAuto(protocol).grammar,
    ]) {
      expect(gbnfProblems(grammar)).toEqual([]);
    }
    const lazy = gbnf(protocol, 'auto');
    expect(lazy.lazy).toBe(true);
    expect(lazy.triggers).toHaveLength(1);
    expect(lazy.triggers[0]?.length).toBeGreaterThan(0);
  });

  it('accepts every batch the format writes, demanded, lazy and whole under auto', async () => {
    const required = await compile(gbnf(protocol, 'required').grammar);
    const lazy = await compile(gbnf(protocol, 'auto').grammar);
    const whole = await compile(wholeAuto(protocol).grammar);
    await fc.assert(
      fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 3 }), async (calls) => {
        // A tagged format's raw string holding one of its closers is outside its grammar.
        fc.pre(!rawClosers(protocol).some((closer) => JSON.stringify(calls).includes(closer)));
        const written = protocol.formatToolCall(calls);
        expect(await accepts(required, written)).toBe(true);
        expect(await accepts(lazy, written)).toBe(true);
        expect(await accepts(whole, `Let me check.\n${written}`)).toBe(true);
      }),
      { numRuns: 25 },
    );
  });

  it('refuses undeclared tools, missing required arguments, wrong types, and skipping a demanded call', async () => {
    const required = await compile(gbnf(protocol, 'required').grammar);
    const write = (toolName: string, input: unknown) =>
      protocol.formatToolCall([{ toolName, input }]);
    expect(await accepts(required, write('get_weather', { city: 'Oslo', days: 2 }))).toBe(true);
    expect(await accepts(required, write('get_time', { city: 'Oslo' }))).toBe(false);
    expect(await accepts(required, write('get_weather', { days: 2 }))).toBe(false);
    expect(await accepts(required, write('get_weather', { city: 'Oslo', days: 'two' }))).toBe(
      false,
    );
    expect(await accepts(required, write('get_weather', { city: 'Oslo', days: 0 }))).toBe(false);
    expect(await accepts(required, write('get_weather', { city: 'Oslo', unit: 'kelvin' }))).toBe(
      false,
    );
    // A wrongly typed value is told apart where it is written otherwise than the string (a
    // tagged or XML format writes a string raw: `1` for content reads as the string "1").
    const wrong = write('write_file', { path: 'a', content: 1 });
    if (wrong !== write('write_file', { path: 'a', content: '1' }))
      expect(await accepts(required, wrong)).toBe(false);
    expect(await accepts(required, 'The weather is fine.')).toBe(false);
    expect(await accepts(required, '')).toBe(false);
    // Reasoning may come first; the call may not be left out after it.
    const reasoning = reasoningBefore(protocol, write('get_weather', { city: 'Oslo' }));
    expect(await accepts(required, reasoning + write('get_weather', { city: 'Oslo' }))).toBe(true);
    expect(await accepts(required, reasoning)).toBe(false);
    const named = await compile(gbnf(protocol, { toolName: 'write_file' }).grammar);
    expect(await accepts(named, write('write_file', { path: 'a', content: 'b' }))).toBe(true);
    expect(await accepts(named, write('get_weather', { city: 'Oslo' }))).toBe(false);
    const single = await compile(gbnf(protocol, 'required', false).grammar);
    const two = protocol.formatToolCall([
      { toolName: 'get_weather', input: { city: 'a' } },
      { toolName: 'get_weather', input: { city: 'b' } },
    ]);
    expect(await accepts(single, two)).toBe(false);
  });

  it('under auto takes plain text, and under none nothing that opens a call', async () => {
    const whole = await compile(wholeAuto(protocol).grammar);
    const none = await compile(gbnf(protocol, 'none').grammar);
    // (No `<`: an opener with a non-ASCII character, DeepSeek's `<｜tool▁calls▁begin｜>`, keeps
    // its ASCII start out of free text, since classes stay ASCII.)
    for (const plain of ['', 'The weather in Oslo is fine.', 'x = 1 and y > 2\n\n- list']) {
      expect(await accepts(whole, plain)).toBe(true);
      expect(await accepts(none, plain)).toBe(true);
    }
    const written = protocol.formatToolCall([{ toolName: 'get_weather', input: { city: 'Oslo' } }]);
    expect(await accepts(none, written)).toBe(false);
  });

  it('what a random walk of the grammar writes, the parser reads as valid declared calls, nothing lost', async () => {
    const required = await compile(gbnf(protocol, 'required').grammar);
    const whole = await compile(wholeAuto(protocol).grammar);
    const trigger = gbnf(protocol, 'auto').triggers[0] as string;
    const random = seededRandom(2024);
    let replies = 0;
    for (let walk = 0; walk < 24; walk++) {
      const fromTrigger = walk % 2 === 1;
      const reply = await randomWalk(fromTrigger ? whole : required, random, {
        prefix: fromTrigger ? `Sure.\n${trigger}` : '',
        maxBytes: 2500,
        hints: closersOf(protocol),
      });
      if (reply === undefined) continue;
      replies++;
      const { calls, faults } = readBack(protocol, reply);
      expect(faults, reply).toEqual([]);
      expect(calls.length, reply).toBeGreaterThan(0);
      for (const part of calls) {
        expect(
          TOOLS.map((tool) => tool.name),
          reply,
        ).toContain(part.toolName);
        expect(part.problems, reply).toBeUndefined();
      }
    }
    expect(replies).toBeGreaterThan(6);
  });
});
