/**
 * The pieces of a grammar: JSON Schema keywords held or refused (never a grammar that lets an
 * invalid value through), free text that excludes a literal exactly, rules shared across tools,
 * choices checked, and a format given as data getting its grammar like a built-in.
 */
import { describe, expect, it } from 'vitest';
import { isErrorOfKind } from '../../../src/core/errors.ts';
import type { JsonSchema, ToolDefinition } from '../../../src/index.ts';
import { GrammarRules } from '../../../src/protocols/grammar/grammar-rules.ts';
import {
  type EbnfGrammar,
  type GbnfGrammar,
  GrammarUnsupportedError,
  grammarFor,
  type StructuralTagGrammar,
} from '../../../src/protocols/grammar/index.ts';
import { textExcluding } from '../../../src/protocols/grammar/text-excluding.ts';
import { hermesProtocol } from '../../../src/protocols/hermes/index.ts';
import { protocolByName } from '../../../src/protocols/index.ts';
import { defineFormat } from '../../../src/protocols/spec/define.ts';
import { xmlProtocol } from '../../../src/protocols/xml/index.ts';
import { disposedAfterAll, toolWith } from '../../support/grammar-fixtures.ts';
import {
  accepts,
  compileEbnf,
  compileStructuralTag,
  type EngineGrammar,
} from '../../support/xgrammar.ts';
import { gbnfProblems } from '../../support/xgrammar-gbnf-rules.ts';

const keep = disposedAfterAll();

function compile(text: string): Promise<EngineGrammar> {
  return keep(compileEbnf(text));
}

function gbnfFor(tools: readonly ToolDefinition[], toolChoice: 'auto' | 'required' = 'required') {
  return grammarFor(hermesProtocol(), { tools, toolChoice, syntax: 'gbnf' }) as GbnfGrammar;
}

describe('the GBNF checker (what llama.cpp refuses)', () => {
  it('finds empty alternatives, ".", non-ASCII classes, undefined rules and left recursion', () => {
    expect(gbnfProblems('root ::= a | \na ::= root "x" | b\nb ::= [é] .')).toEqual(
      expect.arrayContaining([
        'empty alternative in root',
        'non-ASCII class member',
        '"." in a rule',
        'left recursion through root',
      ]),
    );
    expect(gbnfProblems('root ::= x')).toContain('undefined rule x');
    expect(gbnfProblems('root ::= e root "a" | "b"\ne ::= "x"?')).toContain(
      'left recursion through root',
    );
    expect(gbnfProblems('root ::= "a" root | "b"')).toEqual([]);
  });
});

describe('free text without a literal', () => {
  async function textThen(excluded: string, follow: string) {
    const rules = new GrammarRules();
    const text = textExcluding(rules, 'text', [excluded], follow);
    const grammar = rules.render(`${text} "${follow}"`);
    expect(gbnfProblems(grammar)).toEqual([]);
    return compile(grammar);
  }

  it('ends at the first occurrence of its closer, whatever stands before it', async () => {
    const grammar = await textThen('</think>', '</think>');
    for (const ok of [
      '</think>',
      'plan</think>',
      'a<b</think>',
      '<</think>',
      '</thin</think>',
      '</think</think>',
    ])
      expect(await accepts(grammar, ok), ok).toBe(true);
    for (const bad of ['a</think>b</think>', '</think></think>', 'x'])
      expect(await accepts(grammar, bad), bad).toBe(false);
  });

  it('cannot end where its follower would complete the literal early (a literal that overlaps itself)', async () => {
    const grammar = await textThen('aa', 'aa');
    expect(await accepts(grammar, 'baa')).toBe(true);
    expect(await accepts(grammar, 'aa')).toBe(true);
    expect(await accepts(grammar, 'aaa')).toBe(false);
    expect(await accepts(grammar, 'abaa')).toBe(true);
  });

  it('a literal holding another adds no rules, unless the follower could finish it', async () => {
    const size = (excluded: readonly string[], follow: string) => {
      const rules = new GrammarRules();
      textExcluding(rules, 'text', excluded, follow);
      return rules.size;
    };
    expect(size(['{"n"', '[{"n"', '{{"n"'], '<a>')).toBe(size(['{"n"'], '<a>'));
    // Text ending in `[` before the follower `{"n"` would spell `[{"n"`: it stays excluded.
    const rules = new GrammarRules();
    const text = textExcluding(rules, 'text', ['{"n"', '[{"n"'], '{"n"');
    const grammar = await compile(rules.render(`${text} "{\\"n\\""`));
    expect(await accepts(grammar, 'ok{"n"')).toBe(true);
    expect(await accepts(grammar, 'ok[{"n"')).toBe(false);
    expect(await accepts(grammar, 'ok{"n"{"n"')).toBe(false);
  });

  it('at a line start keeps a line opener out of its very start', async () => {
    const rules = new GrammarRules();
    const text = textExcluding(rules, 'text', ['\nrun('], '', undefined, true);
    const grammar = await compile(rules.render(text));
    expect(await accepts(grammar, 'run(1)')).toBe(false);
    expect(await accepts(grammar, 'ok\nrun(1)')).toBe(false);
    expect(await accepts(grammar, 'ok run(1)')).toBe(true);
    expect(await accepts(grammar, 'rerun(1)')).toBe(true);
  });
});

describe('JSON Schema keywords', () => {
  it.each([
    [{ type: 'string', pattern: '^a' }, 'pattern'],
    [{ type: 'string', format: 'uri' }, 'format'],
    [{ $ref: '#/$defs/x' }, '$ref'],
    [{ allOf: [{ type: 'string' }] }, 'allOf'],
    [{ type: 'integer', minimum: 5 }, 'minimum other than 0 or 1'],
    [{ type: 'number', maximum: 5 }, 'maximum'],
    [{ oneOf: [{ type: 'string' }, { type: 'string', maxLength: 2 }] }, 'distinct types'],
    [{ type: 'array', uniqueItems: true }, 'uniqueItems'],
    [{ type: 'string', maxLength: 5000 }, 'maxLength must be an integer from 0 to 1000'],
    // Review 24, finding 6: no keyword is passed over.
    [{ minimum: 0 }, 'a number minimum'],
    [{ type: 'integer', const: -1, minimum: 0 }, 'no member of the enum (or const) is valid'],
    [{ enum: ['a'], $ref: '#/$defs/x' }, '$ref'],
  ])('a keyword held inexactly is refused, naming the tool and argument: %j', (schema, what) => {
    const tools = [toolWith({ type: 'object', properties: { value: schema as JsonSchema } })];
    let caught: unknown;
    try {
      gbnfFor(tools);
    } catch (error) {
      caught = error;
    }
    expect(GrammarUnsupportedError.isInstance(caught)).toBe(true);
    expect((caught as Error).message).toContain(
      'no grammar for format "hermes": tool "tool", argument value',
    );
    expect((caught as Error).message).toContain(what);
    expect(isErrorOfKind(caught, 'invalid-format')).toBe(true);
  });

  it('holds types, enums, nested objects, arrays with counts, maps, anyOf and oneOf of distinct types', async () => {
    const tools = [
      toolWith({
        type: 'object',
        properties: {
          when: { anyOf: [{ type: 'string', minLength: 1, maxLength: 3 }, { type: 'null' }] },
          size: { oneOf: [{ type: 'integer', minimum: 0 }, { type: 'string' }] },
          list: { type: 'array', items: { type: 'boolean' }, minItems: 1, maxItems: 2 },
          map: { type: 'object', additionalProperties: { type: 'integer' } },
          nested: { type: 'object', properties: { a: { const: 'x<y' } }, required: ['a'] },
        },
        required: ['list'],
        additionalProperties: false,
      }),
    ];
    const grammar = await compile(gbnfFor(tools).grammar);
    const write = (input: unknown) =>
      hermesProtocol().formatToolCall([{ toolName: 'tool', input }]);
    const good = [
      { list: [true] },
      { when: 'abc', size: 0, list: [false, true], map: { k: 1, '': -2 }, nested: { a: 'x<y' } },
      { when: null, size: 'big', list: [true] },
    ];
    for (const input of good)
      expect(await accepts(grammar, write(input)), JSON.stringify(input)).toBe(true);
    const bad = [
      {},
      { list: [] },
      { list: [true, true, true] },
      { list: [true], when: '' },
      { list: [true], when: 'abcd' },
      { list: [true], size: -1 },
      { list: [true], map: { k: 'v' } },
      { list: [true], nested: {} },
      { list: [true], extra: 1 },
    ];
    for (const input of bad)
      expect(await accepts(grammar, write(input)), JSON.stringify(input)).toBe(false);
  });
});

describe('const and enum beside other keywords (review 24, finding 6)', () => {
  const cases: readonly [JsonSchema, readonly unknown[], readonly unknown[]][] = [
    [{ type: 'string', enum: ['a', 1] }, ['a'], [1]],
    [{ type: 'string', enum: ['a', 'bbb'], maxLength: 1 }, ['a'], ['bbb']],
    [{ enum: ['ab', 'cd'], pattern: '^a' }, ['ab'], ['cd']],
    [{ type: 'integer', enum: [-1, 0, 3], minimum: 0, maximum: 2 }, [0], [-1, 3]],
    [{ const: 'x', enum: ['x', 'y'] }, ['x'], ['y']],
  ];
  const protocols = [
    ['hermes', hermesProtocol()],
    ['xml', xmlProtocol()],
    ['qwen3-coder', protocolByName('qwen3-coder')],
  ] as const;
  it.each(protocols)(
    '%s: members the sibling keywords refuse are refused',
    async (_name, protocol) => {
      for (const [schema, good, bad] of cases) {
        // A tagged format writes a string raw: an enum mixing strings and numbers is refused there.
        if (_name === 'qwen3-coder' && [...good, ...bad].some((value) => typeof value !== 'string'))
          continue;
        const tools = [
          toolWith({
            type: 'object',
            properties: { value: schema },
            required: ['value'],
            additionalProperties: false,
          }),
        ];
        const made = grammarFor(protocol, { tools, toolChoice: 'required', syntax: 'gbnf' });
        const grammar = await compile((made as GbnfGrammar).grammar);
        const write = (value: unknown) =>
          protocol.formatToolCall([{ toolName: 'tool', input: { value } }]);
        for (const value of good)
          expect(await accepts(grammar, write(value)), `${JSON.stringify(schema)} ${value}`).toBe(
            true,
          );
        for (const value of bad)
          expect(await accepts(grammar, write(value)), `${JSON.stringify(schema)} ${value}`).toBe(
            false,
          );
      }
    },
  );
});

describe('size', () => {
  const schemaNumbered = (index: number): JsonSchema => ({
    type: 'object',
    properties: {
      [`path_${index}`]: { type: 'string' },
      count: { type: 'integer' },
      mode: { enum: ['r', 'w'] },
    },
    required: [`path_${index}`],
  });

  it('tools with one schema share its rules: 300 tools cost a rule each', () => {
    const same = Array.from({ length: 300 }, (_, index) =>
      toolWith(
        { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
        `tool_${index}`,
      ),
    );
    const grammar = gbnfFor(same);
    expect(grammar.rules).toBeLessThan(300 + 30);
  });

  it('grows linearly with distinct schemas (the value rules are shared)', () => {
    const size = (count: number) =>
      gbnfFor(
        Array.from({ length: count }, (_, index) =>
          toolWith(schemaNumbered(index), `tool_${index}`),
        ),
      ).grammar.length;
    const perTool = (size(300) - size(30)) / 270;
    expect(perTool).toBeLessThan(600);
    expect(size(300)).toBeLessThan(300 * 600);
  });
});

describe('choices', () => {
  const tools = [toolWith({ type: 'object', properties: {} }, 'ping')];

  it('a named tool that is not among the tools is refused', () => {
    let caught: unknown;
    try {
      grammarFor(hermesProtocol(), { tools, toolChoice: { toolName: 'pong' }, syntax: 'gbnf' });
    } catch (error) {
      caught = error;
    }
    expect(isErrorOfKind(caught, 'unknown-tool-choice')).toBe(true);
  });

  it('a demanded call with no tools is refused', () => {
    expect(() =>
      grammarFor(hermesProtocol(), { tools: [], toolChoice: 'required', syntax: 'gbnf' }),
    ).toThrow(/tool choice "required" with no tools/);
  });

  it('auto is lazy in GBNF (the opener is the trigger) and whole in EBNF', async () => {
    const lazy = gbnfFor(tools, 'auto');
    expect(lazy).toMatchObject({ lazy: true, triggers: ['<tool_call>'] });
    expect(lazy.grammar.startsWith('root ::= calls')).toBe(true);
    const whole = grammarFor(hermesProtocol(), { tools, syntax: 'ebnf' }) as EbnfGrammar;
    const engine = await compile(whole.grammar);
    const call = '<tool_call>\n{"name": "ping", "arguments": {}}\n</tool_call>';
    expect(await accepts(engine, 'Just text.'), 'text alone').toBe(true);
    expect(await accepts(engine, `Let me check.\n${call}`), 'text, then a call').toBe(true);
    expect(
      await accepts(engine, '<tool_call>\n{"name": "pong", "arguments": {}}\n</tool_call>'),
    ).toBe(false);
  });

  it('auto in GBNF with lazy false is the whole reply, as llama.cpp reads GBNF (review 24, finding 13)', () => {
    const whole = grammarFor(hermesProtocol(), {
      tools,
      syntax: 'gbnf',
      lazy: false,
    }) as GbnfGrammar;
    expect(whole).toMatchObject({ syntax: 'gbnf', lazy: false, triggers: [] });
    expect(gbnfProblems(whole.grammar)).toEqual([]);
    const ebnf = grammarFor(hermesProtocol(), { tools, syntax: 'ebnf' }) as EbnfGrammar;
    expect(whole.grammar).toBe(ebnf.grammar);
    // A demanded call is the whole reply either way.
    const required = { tools, toolChoice: 'required', syntax: 'gbnf' } as const;
    expect(grammarFor(hermesProtocol(), { ...required, lazy: false })).toEqual(
      grammarFor(hermesProtocol(), required),
    );
  });
});

it('a format given as data gets its grammar as a built-in does', async () => {
  const protocol = defineFormat({
    spec: 1,
    name: 'my-format',
    calls: [{ codec: 'json', open: '<call>', close: '</call>' }],
    write: { call: '<call>{"name": {name_json}, "arguments": {arguments}}</call>' },
    results: { each: '<result>{output}</result>' },
  });
  const tools = [
    toolWith({ type: 'object', properties: { q: { type: 'string' } }, required: ['q'] }, 'find'),
  ];
  const grammar = grammarFor(protocol, {
    tools,
    toolChoice: 'required',
    syntax: 'gbnf',
  }) as GbnfGrammar;
  const engine = await compile(grammar.grammar);
  expect(
    await accepts(engine, protocol.formatToolCall([{ toolName: 'find', input: { q: 'x' } }])),
  ).toBe(true);
  expect(await accepts(engine, '<call>{"name": "find", "arguments": {}}</call>')).toBe(false);
});

it('a format whose calls are read inside the reasoning it begins in takes a demanded call with the reasoning closed or not', async () => {
  const protocol = defineFormat({
    spec: 1,
    name: 'think-calls',
    reasoning: [{ open: '<think>', close: '</think>' }],
    startInReasoning: true,
    calls: [{ codec: 'json', open: '<call>', close: '</call>', inReasoning: true }],
    write: { call: '<call>{"name": {name_json}, "arguments": {arguments}}</call>' },
    results: { each: '<result>{output}</result>' },
  });
  const tools = [toolWith({ type: 'object', properties: {} }, 'ping')];
  const call = protocol.formatToolCall([{ toolName: 'ping', input: {} }]);
  const required = await compile(
    (grammarFor(protocol, { tools, toolChoice: 'required', syntax: 'gbnf' }) as GbnfGrammar)
      .grammar,
  );
  const whole = await compile(
    (grammarFor(protocol, { tools, syntax: 'ebnf' }) as EbnfGrammar).grammar,
  );
  const tag = await keep(
    compileStructuralTag(
      (
        grammarFor(protocol, {
          tools,
          toolChoice: 'required',
          syntax: 'structural-tag',
        }) as StructuralTagGrammar
      ).structuralTag,
    ),
  );
  for (const engine of [required, whole, tag]) {
    for (const reply of [call, `plan ${call}`, `plan</think>\n${call}`])
      expect(await accepts(engine, reply), reply).toBe(true);
  }
  for (const engine of [required, tag]) expect(await accepts(engine, 'plan</think>')).toBe(false);
  // Reasoning text never holds the call opener unless a call follows it.
  expect(await accepts(required, 'a <call> b</think>\n' + call)).toBe(false);
  expect(await accepts(whole, 'plan</think>Done.')).toBe(true);
});

it("a format opened per tool (xml's <NAME) triggers on each tool's opener, and free text keeps only those out", async () => {
  const protocol = xmlProtocol();
  const tools = [
    toolWith({ type: 'object', properties: { city: { type: 'string' } } }, 'get_weather'),
    toolWith({ type: 'object', properties: {} }, 'ping'),
  ];
  const lazy = grammarFor(protocol, { tools, syntax: 'gbnf' }) as GbnfGrammar;
  expect(lazy.triggers).toEqual(['<get_weather', '<ping']);
  const whole = await compile(
    (grammarFor(protocol, { tools, syntax: 'ebnf' }) as EbnfGrammar).grammar,
  );
  const call = protocol.formatToolCall([{ toolName: 'get_weather', input: { city: 'Oslo' } }]);
  expect(await accepts(whole, 'Some <b>bold</b> text.')).toBe(true);
  expect(await accepts(whole, `Let me look.\n${call}`)).toBe(true);
  expect(await accepts(whole, 'Say <ping> to it.')).toBe(false);
  expect(await accepts(whole, 'a\nping')).toBe(false);
});
