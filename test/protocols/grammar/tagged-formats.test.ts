/**
 * The grammars of the tagged formats whose values are written otherwise than as plain raw text:
 * MiniCPM's CDATA (a string holding `<` is written in CDATA sections, `]]>` split across two),
 * Kimi K3's type attribute (`type="string"` raw, any other type JSON, one alternative per type a
 * schema allows) and GigaChat GCML's `{value_json}` (every value JSON, `string="false"`). Each
 * is compiled by xgrammar: what the writer writes is accepted and reads back as written, and
 * what the reader would read otherwise (or not at all) is refused.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { parseJsonText } from '../../../src/core/parse-json.ts';
import type { ToolCallProtocol, ToolDefinition } from '../../../src/index.ts';
import { alternatives } from '../../../src/protocols/grammar/gbnf-text.ts';
import { GrammarRules } from '../../../src/protocols/grammar/grammar-rules.ts';
import {
  type EbnfGrammar,
  type GbnfGrammar,
  GrammarUnsupportedError,
  grammarFor,
  type StructuralTagGrammar,
} from '../../../src/protocols/grammar/index.ts';
import { JsonValueRules } from '../../../src/protocols/grammar/json-value-rules.ts';
import { writesXmlElements, XmlArguments } from '../../../src/protocols/grammar/xml-arguments.ts';
import { FORMATS } from '../../../src/protocols/registry.ts';
import { xmlProtocol } from '../../../src/protocols/xml/index.ts';
import {
  accepts,
  compileEbnf,
  compileStructuralTag,
  type EngineGrammar,
  randomWalk,
  seededRandom,
} from '../../support/xgrammar.ts';
import { gbnfProblems } from '../../support/xgrammar-gbnf-rules.ts';

const compiled: EngineGrammar[] = [];
afterAll(() => {
  for (const grammar of compiled) grammar.dispose();
});

function protocolNamed(name: string): ToolCallProtocol {
  const entry = FORMATS.find((one) => one.name === name);
  if (!entry) throw new Error(`no format ${name}`);
  return entry.create();
}

const TOOLS: ToolDefinition[] = [
  {
    name: 'write_file',
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string' },
        content: { type: 'string' },
        mode: { enum: ['a<b', 'plain'] },
        lines: { type: 'integer' },
        data: { type: ['object', 'array', 'number', 'boolean', 'null'] },
      },
      required: ['path', 'content'],
    },
  },
];

async function demanded(protocol: ToolCallProtocol, tools = TOOLS): Promise<EngineGrammar> {
  const { grammar } = grammarFor(protocol, {
    tools,
    toolChoice: 'required',
    syntax: 'gbnf',
  }) as GbnfGrammar;
  expect(gbnfProblems(grammar)).toEqual([]);
  const engine = await compileEbnf(grammar);
  compiled.push(engine);
  return engine;
}

/** The calls the parser reads from `text`: names and inputs, and whether any had problems. */
function readCalls(protocol: ToolCallProtocol, text: string, tools = TOOLS) {
  return protocol
    .parseGeneratedText(text, { tools })
    .filter((event) => event.type === 'tool-call')
    .map((event) =>
      event.type === 'tool-call'
        ? { toolName: event.toolName, input: parseJsonText(event.input), problems: event.problems }
        : undefined,
    );
}

/** Accepted by `grammar`, and read back as exactly `input`. */
async function acceptsAndReadsBack(
  protocol: ToolCallProtocol,
  grammar: EngineGrammar,
  input: Record<string, unknown>,
  before = '',
): Promise<void> {
  const written = protocol.formatToolCall([{ toolName: 'write_file', input }]);
  expect(await accepts(grammar, before + written), written).toBe(true);
  expect(readCalls(protocol, written)).toEqual([
    { toolName: 'write_file', input, problems: undefined },
  ]);
}

describe('minicpm: CDATA values', () => {
  const protocol = protocolNamed('minicpm');

  it('accepts strings in CDATA, a ]]> split across two sections, and markup-free strings raw', async () => {
    const grammar = await demanded(protocol);
    for (const content of [
      'plain text',
      'if (a < b) {}',
      '</param></function>',
      'x ]]> y',
      ']]>',
      '<![CDATA[nested]]>',
      '',
    ]) {
      await acceptsAndReadsBack(protocol, grammar, { path: 'a.ts', content });
    }
    await acceptsAndReadsBack(protocol, grammar, {
      path: 'p',
      content: 'c',
      mode: 'a<b',
      lines: 3,
      data: { tags: ['<b>'] },
    });
    await acceptsAndReadsBack(protocol, grammar, { path: 'p', content: 'c', data: [1, null] });
  });

  it('refuses ]]> inside one CDATA section, text after a section, and a < outside CDATA', async () => {
    const grammar = await demanded(protocol);
    const call = (content: string) =>
      `<function name="write_file"><param name="path">p</param><param name="content">${content}</param></function>`;
    expect(await accepts(grammar, call('<![CDATA[a]]]]><![CDATA[>b]]>'))).toBe(true);
    expect(await accepts(grammar, call('<![CDATA[a]]>b]]>'))).toBe(false);
    expect(await accepts(grammar, call('<![CDATA[a]]>b'))).toBe(false);
    expect(await accepts(grammar, call('a < b'))).toBe(false);
    expect(await accepts(grammar, call('<![CDATA[unclosed'))).toBe(false);
  });

  it('refuses a value of the wrong type and an enum member spelled otherwise than the writer writes it', async () => {
    const grammar = await demanded(protocol);
    const call = (params: string) =>
      `<function name="write_file"><param name="path">p</param><param name="content">c</param>${params}</function>`;
    expect(await accepts(grammar, call('<param name="lines">3</param>'))).toBe(true);
    expect(await accepts(grammar, call('<param name="lines">three</param>'))).toBe(false);
    expect(await accepts(grammar, call('<param name="mode"><![CDATA[a<b]]></param>'))).toBe(true);
    expect(await accepts(grammar, call('<param name="mode">a&lt;b</param>'))).toBe(false);
    expect(await accepts(grammar, call('<param name="data">"text"</param>'))).toBe(false);
  });
});

describe('JSON inside a tag', () => {
  const tools: ToolDefinition[] = [
    {
      name: 'f',
      inputSchema: {
        type: 'object',
        properties: { tags: { type: 'array', items: { type: 'string' } } },
        additionalProperties: false,
      },
    },
  ];

  it('holds no raw < (a tag, a CDATA section or the closer would end the value early)', async () => {
    const protocol = protocolNamed('minicpm');
    const grammar = await demanded(protocol, tools);
    const call = (json: string) =>
      `<function name="f"><param name="tags">${json}</param></function>`;
    // What the reader made of it: `{"tags":["[\""], "\"x\"": "\"]"}`, and a CDATA section left open.
    expect(await accepts(grammar, call('["</param><param name=\\"x\\">"]'))).toBe(false);
    expect(await accepts(grammar, call('["a<![CDATA[b"]'))).toBe(false);
    expect(await accepts(grammar, call('["\\u003c/param>"]'))).toBe(true);
    const written = protocol.formatToolCall([{ toolName: 'f', input: { tags: ['</param><b>'] } }]);
    expect(await accepts(grammar, written)).toBe(true);
    expect(readCalls(protocol, written, tools)).toEqual([
      { toolName: 'f', input: { tags: ['</param><b>'] }, problems: undefined },
    ]);
  });

  it('in every gigachat-gcml value', async () => {
    const protocol = protocolNamed('gigachat-gcml');
    const grammar = await demanded(protocol, tools);
    const call = (json: string) =>
      `<｜GCML｜tool_calls>\n<｜GCML｜invoke name="f">\n<｜GCML｜parameter name="tags" string="false">${json}</｜GCML｜parameter>\n</｜GCML｜invoke>\n</｜GCML｜tool_calls>`;
    expect(await accepts(grammar, call('["a</｜GCML｜parameter></｜GCML｜invoke>"]'))).toBe(false);
    expect(await accepts(grammar, call('["a\\u003c/｜GCML｜parameter>"]'))).toBe(true);
  });
});

describe('kimi-k3: a type attribute per value', () => {
  const protocol = protocolNamed('kimi-k3');
  // The output begins inside the think element, which the demanded call may follow.
  const THOUGHT = 'a file to write<|close|>think<|sep|>';

  it('accepts what the writer writes, each value with the type it is written as', async () => {
    const grammar = await demanded(protocol);
    await acceptsAndReadsBack(
      protocol,
      grammar,
      { path: 'a.ts', content: 'if (a < b) {}\n', mode: 'a<b', lines: 3 },
      THOUGHT,
    );
    for (const data of [{ a: [1, 'x'] }, [true], 2.5, false, null]) {
      await acceptsAndReadsBack(protocol, grammar, { path: 'p', content: 'c', data }, THOUGHT);
    }
  });

  it('refuses a value under the wrong type attribute, a JSON value of the wrong type, and a closer in a string', async () => {
    const grammar = await demanded(protocol);
    const argument = (key: string, type: string, value: string) =>
      `<|open|>argument key="${key}" type="${type}"<|sep|>${value}<|close|>argument<|sep|>`;
    const call = (extra: string, content = 'c') =>
      `${THOUGHT}<|open|>tools<|sep|><|open|>call tool="write_file" index="0"<|sep|>${argument('path', 'string', 'p')}${argument('content', 'string', content)}${extra}<|close|>call<|sep|><|close|>tools<|sep|>`;
    expect(await accepts(grammar, call(argument('lines', 'number', '3')))).toBe(true);
    expect(await accepts(grammar, call(argument('lines', 'string', '3')))).toBe(false);
    expect(await accepts(grammar, call(argument('lines', 'number', '"3"')))).toBe(false);
    expect(await accepts(grammar, call(argument('data', 'object', '{"a":1}')))).toBe(true);
    expect(await accepts(grammar, call(argument('data', 'array', '{"a":1}')))).toBe(false);
    expect(await accepts(grammar, call(argument('data', 'null', 'null')))).toBe(true);
    expect(await accepts(grammar, call(argument('data', 'string', 'x')))).toBe(false);
    expect(await accepts(grammar, call('', 'a<|close|>argument<|sep|>b'))).toBe(false);
    expect(await accepts(grammar, call('', 'a<|close|>call<|sep|>b'))).toBe(false);
    // The arguments written as one JSON element are read, but not what the writer writes.
    expect(
      await accepts(
        grammar,
        `${THOUGHT}<|open|>tools<|sep|><|open|>call tool="write_file" index="0"<|sep|><|open|>json type="object"<|sep|>{"path":"p","content":"c"}<|close|>json<|sep|><|close|>call<|sep|><|close|>tools<|sep|>`,
      ),
    ).toBe(false);
  });

  it('refuses an allowed string that holds a tag of the call (written as it is, it would not read back)', () => {
    const tools: ToolDefinition[] = [
      {
        name: 'f',
        inputSchema: {
          type: 'object',
          properties: { x: { enum: ['ok', 'a<|close|>argument<|sep|>b'] } },
        },
      },
    ];
    expect(() => grammarFor(protocol, { tools, toolChoice: 'required', syntax: 'gbnf' })).toThrow(
      GrammarUnsupportedError,
    );
  });

  it('refuses a raw string under a keyword it cannot hold', () => {
    for (const keyword of [
      { maxLength: 3 },
      { pattern: '^a' },
      { contentMediaType: 'text/html' },
    ]) {
      const tools: ToolDefinition[] = [
        {
          name: 'f',
          inputSchema: { type: 'object', properties: { x: { type: 'string', ...keyword } } },
        },
      ];
      expect(
        () => grammarFor(protocol, { tools, toolChoice: 'required', syntax: 'gbnf' }),
        JSON.stringify(keyword),
      ).toThrow(GrammarUnsupportedError);
    }
  });

  it('refuses a string that may also be another type (raw text reads by the schema, not the attribute)', () => {
    const tools: ToolDefinition[] = [
      {
        name: 'f',
        inputSchema: { type: 'object', properties: { x: { type: ['string', 'number'] } } },
      },
    ];
    expect(() => grammarFor(protocol, { tools, toolChoice: 'required', syntax: 'gbnf' })).toThrow(
      GrammarUnsupportedError,
    );
  });
});

describe('gigachat-gcml: every value as JSON', () => {
  const protocol = protocolNamed('gigachat-gcml');

  it('accepts what the writer writes: strings as JSON strings, < and > escaped', async () => {
    const grammar = await demanded(protocol);
    await acceptsAndReadsBack(protocol, grammar, {
      path: 'a.ts',
      content: 'if (a < b) {}\n</｜GCML｜parameter>',
      mode: 'a<b',
      lines: 3,
      data: { a: [1, 'x'] },
    });
  });

  it('refuses a raw string, a JSON value of the wrong type, and a value outside its enum', async () => {
    const grammar = await demanded(protocol);
    const parameter = (key: string, value: string) =>
      `<｜GCML｜parameter name="${key}" string="false">${value}</｜GCML｜parameter>\n`;
    const call = (path: string, extra = '') =>
      `<｜GCML｜tool_calls>\n<｜GCML｜invoke name="write_file">\n${parameter('path', path)}${parameter('content', '"c"')}${extra}</｜GCML｜invoke>\n</｜GCML｜tool_calls>`;
    expect(await accepts(grammar, call('"p"'))).toBe(true);
    expect(await accepts(grammar, call('p'))).toBe(false);
    expect(await accepts(grammar, call('1'))).toBe(false);
    expect(await accepts(grammar, call('"p"', parameter('lines', '3')))).toBe(true);
    expect(await accepts(grammar, call('"p"', parameter('lines', '"3"')))).toBe(false);
    expect(await accepts(grammar, call('"p"', parameter('mode', '"plain"')))).toBe(true);
    expect(await accepts(grammar, call('"p"', parameter('mode', '"other"')))).toBe(false);
  });
});

describe('xml: arguments as elements, as its writer writes them', () => {
  const protocol = xmlProtocol();
  const XML_TOOLS: ToolDefinition[] = [
    {
      name: 'write_file',
      inputSchema: {
        type: 'object',
        properties: {
          path: { type: 'string' },
          content: { type: 'string' },
          lines: { type: 'integer', minimum: 1 },
          mode: { enum: ['a<b', ' edge', 'plain'] },
          options: {
            type: 'object',
            properties: {
              overwrite: { type: 'boolean' },
              tags: { type: 'array', items: { type: 'string' }, maxItems: 3 },
              ratio: { type: ['number', 'null'] },
            },
          },
          matrix: { type: 'array', items: { type: 'array', items: { type: 'integer' } } },
        },
        required: ['path', 'content'],
      },
    },
    {
      name: 'get_weather',
      inputSchema: {
        type: 'object',
        properties: { city: { type: 'string' } },
        required: ['city'],
      },
    },
    { name: 'ping', inputSchema: { type: 'object', properties: {} } },
  ];

  /** The grammar of one or more calls, joined as the writer joins them. */
  async function xmlGrammar(tools = XML_TOOLS): Promise<EngineGrammar> {
    const rules = new GrammarRules();
    const refuse = (path: string, problem: string): never => {
      throw new GrammarUnsupportedError('xml', `${path}: ${problem}`);
    };
    const elements = new XmlArguments(rules, new JsonValueRules(rules, refuse), refuse);
    const call = alternatives(tools.map((tool) => elements.call(tool)));
    const grammar = rules.render(`${call} ( "\\n" ${call} )*`);
    expect(gbnfProblems(grammar)).toEqual([]);
    const engine = await compileEbnf(grammar);
    compiled.push(engine);
    return engine;
  }

  const text = fc.oneof(
    fc.string({ maxLength: 10 }),
    fc.constantFrom('a < b && c > d', ' edge ', '\n', ']]>', 'x]]>y<![CDATA[', '</path>', '&amp;'),
  );
  const xmlCall = fc.oneof(
    fc
      .record(
        {
          path: text,
          content: text,
          lines: fc.integer({ min: 1, max: 10_000 }),
          mode: fc.constantFrom('a<b', ' edge', 'plain'),
          options: fc.record(
            {
              overwrite: fc.boolean(),
              tags: fc.array(text, { maxLength: 3 }),
              ratio: fc.oneof(fc.constant(null), fc.double({ min: -1e6, max: 1e6, noNaN: true })),
            },
            { requiredKeys: [] },
          ),
          matrix: fc.array(fc.array(fc.integer(), { maxLength: 2 }), { maxLength: 2 }),
        },
        { requiredKeys: ['path', 'content'] },
      )
      .map((input) => ({ toolName: 'write_file', input })),
    text.map((city) => ({ toolName: 'get_weather', input: { city } })),
    fc.constant({ toolName: 'ping', input: {} }),
  );

  it('accepts every batch the writer writes, and the parser reads it back as written', async () => {
    const grammar = await xmlGrammar();
    await fc.assert(
      fc.asyncProperty(fc.array(xmlCall, { minLength: 1, maxLength: 3 }), async (calls) => {
        const written = protocol.formatToolCall(calls);
        expect(await accepts(grammar, written), written).toBe(true);
        const read = readCalls(protocol, written, XML_TOOLS);
        // Numbers as the reader gives them back (-0 is written 0).
        expect(read).toEqual(
          calls.map((one) => ({
            toolName: one.toolName,
            input: parseJsonText(JSON.stringify(one.input)),
            problems: undefined,
          })),
        );
      }),
      { numRuns: 60 },
    );
  });

  it('decodes the escapes and CDATA it accepts, and refuses markup characters written bare', async () => {
    const grammar = await xmlGrammar();
    const call = (city: string) => `<get_weather>\n  <city>${city}</city>\n</get_weather>`;
    for (const [written, city] of [
      ['a &lt;b&gt; &amp; &quot;c&quot; &apos;d&apos;', 'a <b> & "c" \'d\''],
      ['<![CDATA[ <b> & ]]]]><![CDATA[> ]]>', ' <b> & ]]> '],
      ['x > y', 'x > y'],
    ] as const) {
      expect(await accepts(grammar, call(written)), written).toBe(true);
      expect(readCalls(protocol, call(written), XML_TOOLS)).toEqual([
        { toolName: 'get_weather', input: { city }, problems: undefined },
      ]);
    }
    for (const written of ['a < b', 'a & b', '&#60;', '<![CDATA[a]]>b]]>', '<![CDATA[a]]>b'])
      expect(await accepts(grammar, call(written)), written).toBe(false);
  });

  it('refuses undeclared tools, missing required arguments and wrong types', async () => {
    const grammar = await xmlGrammar();
    const write = (toolName: string, input: unknown) =>
      protocol.formatToolCall([{ toolName, input }]);
    expect(await accepts(grammar, write('write_file', { path: 'a', content: 'b' }))).toBe(true);
    expect(await accepts(grammar, write('get_time', { city: 'Oslo' }))).toBe(false);
    expect(await accepts(grammar, write('write_file', { path: 'a' }))).toBe(false);
    for (const wrong of [
      { lines: 0 },
      { lines: 'two' },
      { mode: 'other' },
      { options: { overwrite: 'yes' } },
      { options: { tags: ['a', 'b', 'c', 'd'] } },
      { matrix: [['x']] },
    ])
      expect(
        await accepts(grammar, write('write_file', { path: 'a', content: 'b', ...wrong })),
        JSON.stringify(wrong),
      ).toBe(false);
    expect(await accepts(grammar, '')).toBe(false);
  });

  it('what a random walk of the grammar writes, the parser reads as valid declared calls', async () => {
    const grammar = await xmlGrammar();
    const random = seededRandom(24);
    let replies = 0;
    for (let walk = 0; walk < 40; walk++) {
      const reply = await randomWalk(grammar, random, {
        maxBytes: 2500,
        hints: ['</path>', '</content>', '</city>', '</item>', ']]>', '\n</write_file>'],
      });
      if (reply === undefined) continue;
      replies++;
      const events = protocol.parseGeneratedText(reply, { tools: XML_TOOLS });
      expect(
        events.filter((event) => event.type === 'error'),
        reply,
      ).toEqual([]);
      const calls = events.filter((event) => event.type === 'tool-call');
      expect(calls.length, reply).toBeGreaterThan(0);
      for (const call of calls) expect(call.problems, reply).toBeUndefined();
    }
    expect(replies).toBeGreaterThan(10);
  });

  it('refuses what it cannot name: objects without declared properties, a property named item, names no element has', () => {
    for (const schema of [
      { type: 'object', properties: { data: { type: 'object' } } },
      { type: 'object', properties: { data: { type: 'array' } } },
      { type: 'object', properties: { data: {} } },
      { type: 'object', properties: { item: { type: 'string' } } },
      { type: 'object', properties: { 'two words': { type: 'string' } } },
      { type: 'object', properties: { x: { type: ['string', 'number'] } } },
      {
        type: 'object',
        properties: {
          o: { type: 'object', properties: { a: { type: 'string' } }, minProperties: 1 },
        },
      },
      { type: 'object', properties: { x: { type: 'string', pattern: '^a' } } },
    ] as const) {
      const rules = new GrammarRules();
      const refuse = (path: string, problem: string): never => {
        throw new GrammarUnsupportedError('xml', `${path}: ${problem}`);
      };
      const elements = new XmlArguments(rules, new JsonValueRules(rules, refuse), refuse);
      expect(
        () => elements.call({ name: 'f', inputSchema: schema }),
        JSON.stringify(schema),
      ).toThrow(GrammarUnsupportedError);
    }
  });

  it('is told apart from other writers by what it writes', () => {
    expect(writesXmlElements(protocol)).toBe(true);
    expect(writesXmlElements(protocolNamed('minicpm'))).toBe(false);
    expect(writesXmlElements(protocolNamed('hermes'))).toBe(false);
  });

  describe('through grammarFor (what the grammar-parser-agree test proves of every format, over tools whose objects declare their properties)', () => {
    const make = (
      syntax: 'gbnf' | 'ebnf',
      toolChoice: 'auto' | 'required' | 'none' | { toolName: string },
      parallelToolCalls = true,
    ) =>
      grammarFor(protocol, { tools: XML_TOOLS, toolChoice, parallelToolCalls, syntax }) as
        | GbnfGrammar
        | EbnfGrammar;
    async function engine(
      syntax: 'gbnf' | 'ebnf',
      toolChoice: 'auto' | 'required' | 'none' | { toolName: string },
      parallelToolCalls = true,
    ): Promise<EngineGrammar> {
      const { grammar } = make(syntax, toolChoice, parallelToolCalls);
      expect(gbnfProblems(grammar)).toEqual([]);
      const compiledGrammar = await compileEbnf(grammar);
      compiled.push(compiledGrammar);
      return compiledGrammar;
    }

    it('is lazy under auto, started by each tool opener', () => {
      const lazy = make('gbnf', 'auto') as GbnfGrammar;
      expect(lazy.lazy).toBe(true);
      expect(lazy.triggers).toEqual(['<write_file', '<get_weather', '<ping']);
    });

    it('accepts every batch the writer writes: demanded, lazy, and after text under auto', async () => {
      const required = await engine('gbnf', 'required');
      const lazy = await engine('gbnf', 'auto');
      const whole = await engine('ebnf', 'auto');
      await fc.assert(
        fc.asyncProperty(fc.array(xmlCall, { minLength: 1, maxLength: 3 }), async (calls) => {
          const written = protocol.formatToolCall(calls);
          expect(await accepts(required, written), written).toBe(true);
          expect(await accepts(lazy, written), written).toBe(true);
          expect(await accepts(whole, `Let me check: a < b.\n${written}`), written).toBe(true);
        }),
        { numRuns: 25 },
      );
    });

    it('refuses a skipped demanded call, another tool than the named one, two calls when one is allowed, and calls under none', async () => {
      const required = await engine('gbnf', 'required');
      const write = (toolName: string, input: unknown) =>
        protocol.formatToolCall([{ toolName, input }]);
      const weather = write('get_weather', { city: 'Oslo' });
      expect(await accepts(required, '')).toBe(false);
      expect(await accepts(required, 'The weather is fine.')).toBe(false);
      expect(await accepts(required, `<think>the user wants weather</think>\n${weather}`)).toBe(
        true,
      );
      expect(await accepts(required, '<think>the user wants weather</think>\n')).toBe(false);
      const named = await engine('gbnf', { toolName: 'ping' });
      expect(await accepts(named, write('ping', {}))).toBe(true);
      expect(await accepts(named, weather)).toBe(false);
      const single = await engine('gbnf', 'required', false);
      expect(await accepts(single, weather)).toBe(true);
      expect(await accepts(single, `${weather}\n${weather}`)).toBe(false);
      const none = await engine('gbnf', 'none');
      const whole = await engine('ebnf', 'auto');
      for (const plain of ['', 'The weather in Oslo is fine.', 'x < 1 and <b>y</b> > 2']) {
        expect(await accepts(none, plain), plain).toBe(true);
        expect(await accepts(whole, plain), plain).toBe(true);
      }
      expect(await accepts(none, weather)).toBe(false);
    });

    it('what a random walk writes, demanded or after a trigger under auto, the parser reads as valid declared calls', async () => {
      const required = await engine('gbnf', 'required');
      const whole = await engine('ebnf', 'auto');
      const random = seededRandom(2024);
      let replies = 0;
      for (let walk = 0; walk < 30; walk++) {
        const fromTrigger = walk % 2 === 1;
        const reply = await randomWalk(fromTrigger ? whole : required, random, {
          prefix: fromTrigger ? 'Sure.\n<get_weather' : '',
          maxBytes: 2500,
          hints: ['</path>', '</content>', '</city>', '</item>', ']]>', '\n</write_file>'],
        });
        if (reply === undefined) continue;
        replies++;
        const events = protocol.parseGeneratedText(reply, { tools: XML_TOOLS });
        expect(
          events.filter((event) => event.type === 'error'),
          reply,
        ).toEqual([]);
        const calls = events.filter((event) => event.type === 'tool-call');
        expect(calls.length, reply).toBeGreaterThan(0);
        for (const call of calls) expect(call.problems, reply).toBeUndefined();
      }
      expect(replies).toBeGreaterThan(8);
    });

    it('gets a structural tag that accepts what the writer writes and refuses a wrong type', async () => {
      const { structuralTag } = grammarFor(protocol, {
        tools: XML_TOOLS,
        toolChoice: 'required',
        syntax: 'structural-tag',
      }) as StructuralTagGrammar;
      const tag = await compileStructuralTag(structuralTag);
      compiled.push(tag);
      const written = protocol.formatToolCall([
        { toolName: 'write_file', input: { path: 'a', content: ' <b> ]]> ', matrix: [[1]] } },
        { toolName: 'ping', input: {} },
      ]);
      expect(await accepts(tag, written)).toBe(true);
      const wrong = protocol.formatToolCall([
        { toolName: 'write_file', input: { path: 'a', content: 'b', lines: 'two' } },
      ]);
      expect(await accepts(tag, wrong)).toBe(false);
    });
  });
});
