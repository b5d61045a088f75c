/**
 * `defineFormat`: a FormatSpec (plain JSON) becomes a protocol that reads, writes and guards
 * like the hand-written ones, for each codec; `readFormatSpec` names the bad field.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isErrorOfKind } from '../../../src/core/errors.ts';
import { parseJsonText } from '../../../src/core/parse-json.ts';
import { autoProtocol, FORMATS, type ToolDefinition } from '../../../src/index.ts';
import { grammarOf } from '../../../src/protocols/define/define-protocol.ts';
import {
  defineFormat,
  FormatSpecError,
  formatEntryFromSpec,
  readFormatSpec,
  specOf,
  startingInReasoning,
} from '../../../src/protocols/spec/define.ts';
import type { FormatSpec } from '../../../src/protocols/spec/types.ts';
import { fillTemplate } from '../../../src/protocols/spec/writers.ts';
import { callsOf, chunksOf, contentOf, streamEvents } from '../helpers.ts';

const TOOLS: ToolDefinition[] = [
  {
    name: 'get_weather',
    inputSchema: {
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer' } },
      required: ['city'],
    },
  },
  {
    name: 'write_file',
    inputSchema: {
      type: 'object',
      properties: { path: { type: 'string' }, content: { type: 'string' } },
      required: ['path', 'content'],
    },
  },
];

/** A JSON-in-tags format that is nobody's: proves the spec alone decides. */
const JSON_SPEC: FormatSpec = {
  spec: 1,
  name: 'test-json',
  models: ['acme-llm'],
  calls: [
    { codec: 'json', open: '<<call>>', close: '<</call>>' },
    {
      codec: 'json',
      open: '[[fn:',
      close: ']]',
      nameHeader: { end: '|', namePrefixes: ['functions.'] },
    },
  ],
  write: { call: '<<call>>{"name": {name_json}, "arguments": {arguments}}<</call>>', join: '\n' },
  results: { each: '<<result name="{name}">>{output}<</result>>', join: '\n' },
};

/** A tagged format in Qwen3-Coder's shape but its own markers. */
const TAGGED_SPEC: FormatSpec = {
  spec: 1,
  name: 'test-tagged',
  reasoning: [{ open: '<<think>>', close: '<</think>>' }],
  calls: [
    {
      codec: 'tagged',
      open: '<<calls>>',
      close: '<</calls>>',
      syntax: {
        callOpen: '<fn',
        callClose: '</fn>',
        parameterOpen: '<arg',
        parameterClose: '</arg>',
        layout: 'inline',
      },
    },
  ],
  write: {
    section: { open: '<<calls>>', close: '<</calls>>' },
    call: '<fn name="{name}">{arguments}</fn>',
    parameter: '<arg name="{key}">{value}</arg>',
  },
  results: { each: '<<out>>{output}<</out>>' },
};

const PYTHON_SPEC: FormatSpec = {
  spec: 1,
  name: 'test-python',
  calls: [{ codec: 'python', open: '<py>[', close: '</py>', listOpened: true }],
  write: { section: { open: '<py>[', close: ']</py>' }, call: '{name}({arguments})', join: ', ' },
  results: { each: '{output}', output: 'json' },
};

const SPECS = [JSON_SPEC, TAGGED_SPEC, PYTHON_SPEC];

describe('defineFormat', () => {
  it('reads the calls its spec describes, for each codec', () => {
    expect(
      callsOf(
        defineFormat(JSON_SPEC),
        'Sure. <<call>>{"name": "get_weather", "arguments": {"city": "Oslo"}}<</call>> [[fn: functions.write_file|{"path": "a", "content": "b"}]]',
        TOOLS,
      ),
    ).toEqual([
      { toolName: 'get_weather', input: { city: 'Oslo' } },
      { toolName: 'write_file', input: { path: 'a', content: 'b' } },
    ]);
    expect(
      callsOf(
        defineFormat(TAGGED_SPEC),
        '<<calls>><fn name="get_weather"><arg name="city">Oslo</arg><arg name="days">3</arg></fn><</calls>>',
        TOOLS,
      ),
    ).toEqual([{ toolName: 'get_weather', input: { city: 'Oslo', days: 3 } }]);
    expect(
      callsOf(defineFormat(PYTHON_SPEC), '<py>[get_weather(city="Oslo", days=2)]</py>', TOOLS),
    ).toEqual([{ toolName: 'get_weather', input: { city: 'Oslo', days: 2 } }]);
  });

  it('drops the wrapper markup from the text and keeps the prose', () => {
    const parts = defineFormat(JSON_SPEC).parseGeneratedText(
      'Before <<call>>{"name": "get_weather", "arguments": {"city": "Oslo"}}<</call>> after',
      { tools: TOOLS },
    );
    const text = parts
      .filter((part) => part.type === 'text')
      .map((part) => (part as { text: string }).text)
      .join('');
    expect(text).toBe('Before  after');
  });

  it('reports a broken explicit call with its raw text, and runs nothing', () => {
    const parts = defineFormat(JSON_SPEC).parseGeneratedText(
      '<<call>>{"name": "get_weather", "arguments": {"city": }<</call>>',
      { tools: TOOLS },
    );
    expect(parts.some((part) => part.type === 'tool-call')).toBe(false);
    const error = parts.find((part) => part.type === 'error');
    expect(error).toBeDefined();
    expect(JSON.stringify(parts)).toContain('\\"city\\": }');
  });

  it.each(SPECS.map((spec) => [spec.name, spec] as const))(
    '%s: formatToolCall reads back as the same calls, in any chunking',
    (_name, spec) => {
      const protocol = defineFormat(spec);
      fc.assert(
        fc.property(
          fc.string({ maxLength: 30 }),
          fc.integer({ min: -1000, max: 1000 }),
          fc.integer({ min: 1, max: 9 }),
          (city, days, size) => {
            // Tagged values are written raw: a value holding the closer cannot be written so.
            fc.pre(!city.includes('</arg>') && !city.includes('<<') && city.trim() === city);
            const calls = [
              { toolName: 'get_weather', input: { city, days } },
              { toolName: 'write_file', input: { path: 'p', content: 'c' } },
            ];
            const text = protocol.formatToolCall(calls);
            expect(callsOf(protocol, text, TOOLS)).toEqual(
              calls.map(({ toolName, input }) => ({ toolName, input })),
            );
            const whole = contentOf(streamEvents(protocol, [text], { tools: TOOLS }));
            expect(
              contentOf(streamEvents(protocol, chunksOf(text, size), { tools: TOOLS })),
            ).toEqual(whole);
          },
        ),
        { numRuns: 150 },
      );
    },
  );

  it.each(SPECS.map((spec) => [spec.name, spec] as const))(
    '%s: a result is never read back as a call, even one holding the format’s own call',
    (_name, spec) => {
      const protocol = defineFormat(spec);
      const call = protocol.formatToolCall({ toolName: 'get_weather', input: { city: 'Oslo' } });
      for (const output of [call, `text ${call} more`, { nested: call }]) {
        const written = protocol.formatToolResponse({ toolName: 'get_weather', output });
        expect(callsOf(protocol, written, TOOLS)).toEqual([]);
        expect(callsOf(protocol, `${written}${written}`, TOOLS)).toEqual([]);
      }
    },
  );

  it('writes results through its template, text as it is and errors with their prefix', () => {
    const protocol = defineFormat(JSON_SPEC);
    expect(
      protocol.formatToolResponse([
        { toolName: 'get_weather', output: 'Sunny, 20 °C' },
        { toolName: 'get_weather', output: 'no such city', isError: true },
      ]),
    ).toBe(
      '<<result name="get_weather">>Sunny, 20 °C<</result>>\n<<result name="get_weather">>Error: no such city<</result>>',
    );
    expect(defineFormat(PYTHON_SPEC).formatToolResponse({ toolName: 'x', output: 'a' })).toBe(
      '"a"',
    );
  });

  it('breaks a bare call:NAME{…} at the start of a text result, for any spec (FunctionGemma reads it)', () => {
    const bare = defineFormat({ ...JSON_SPEC, results: { each: '{output}' } });
    const output = '  call:get_weather{city:<escape>Oslo<escape>}';
    const rendered = bare.formatToolResponse({ toolName: 'get_weather', output });
    expect(rendered).toBe('  \\u0063all:get_weather{city:<escape>Oslo<escape>}');
    const gemma = FORMATS.find((entry) => entry.name === 'functiongemma')!.create();
    expect(callsOf(gemma, rendered, TOOLS)).toEqual([]);
    // The same text unbroken is a call to FunctionGemma's reader: the test can fail.
    expect(callsOf(gemma, output.trimStart(), TOOLS)).toHaveLength(1);
    // Elsewhere `call:` is prose and stays.
    expect(bare.formatToolResponse({ toolName: 'x', output: 'a call: b' })).toBe('a call: b');
  });

  it('teaches the format with the example its writer writes', () => {
    const prompt = defineFormat(JSON_SPEC).formatTools(TOOLS);
    expect(prompt).toContain('"name":"get_weather"');
    expect(prompt).toContain('<<call>>{"name": "get_weather", "arguments": {"city":');
    expect(defineFormat(JSON_SPEC).formatTools([])).toBe('');
    const custom = defineFormat({
      ...JSON_SPEC,
      prompt: { text: 'Tools:\n{tool_list}\nOpen with {call_open}.' },
    });
    expect(custom.formatTools(TOOLS)).toMatch(
      /^Tools:\n\[\{"type":"function"[\s\S]*Open with <<call>>\.$/,
    );
  });

  it('starts in reasoning when its template opens reasoning, unless the caller says otherwise', () => {
    const protocol = defineFormat({ ...TAGGED_SPEC, startInReasoning: true });
    const text = 'hmm<</think>>Answer';
    expect(protocol.parseGeneratedText(text, { tools: TOOLS }).map((part) => part.type)).toEqual([
      'reasoning',
      'text',
    ]);
    expect(
      protocol
        .parseGeneratedText(text, { tools: TOOLS, startInReasoning: false })
        .map((part) => part.type),
    ).toEqual(['text']);
  });

  it('starts a protocol in reasoning by default, keeping its spec and its grammar for auto', () => {
    const protocol = defineFormat(TAGGED_SPEC);
    const thinking = startingInReasoning(protocol);
    const text = 'hmm<</think>>Answer';
    expect(thinking.parseGeneratedText(text, { tools: TOOLS }).map((part) => part.type)).toEqual([
      'reasoning',
      'text',
    ]);
    expect(protocol.parseGeneratedText(text, { tools: TOOLS }).map((part) => part.type)).toEqual([
      'text',
    ]);
    expect(specOf(thinking)).toEqual({ ...TAGGED_SPEC, startInReasoning: true });
    expect(grammarOf(thinking)).toBe(grammarOf(protocol));
    const call = thinking.formatToolCall({ toolName: 'get_weather', input: { city: 'Oslo' } });
    expect(callsOf(autoProtocol({ formats: [thinking] }), call, TOOLS)).toEqual([
      { toolName: 'get_weather', input: { city: 'Oslo' } },
    ]);
  });

  it('remembers the spec behind the protocol', () => {
    const protocol = defineFormat(JSON_SPEC);
    expect(specOf(protocol)).toBe(JSON_SPEC);
  });

  it('gives a registry entry matching its model substrings', () => {
    const entry = formatEntryFromSpec(JSON_SPEC);
    expect(entry.name).toBe('test-json');
    expect(entry.models.some((pattern) => pattern.test('acme/acme-llm-7b'))).toBe(true);
    expect(entry.models.some((pattern) => pattern.test('acme/acmexllm'))).toBe(false);
    expect(entry.example).toContain('<<call>>');
    expect(entry.create()).toBe(entry.create());
  });
});

describe('readFormatSpec', () => {
  const bad: [string, unknown, string][] = [
    ['not an object', [], 'format spec: must be a JSON object'],
    ['another version', { ...JSON_SPEC, spec: 2 }, 'format spec spec: must be 1'],
    ['a bad name', { ...JSON_SPEC, name: 'Has Space' }, 'format spec name:'],
    ['no calls', { ...JSON_SPEC, calls: [] }, 'format spec calls: must hold at least one'],
    [
      'an empty opener',
      { ...JSON_SPEC, calls: [{ codec: 'json', open: '' }] },
      'format spec calls[0].open: must be a non-empty string',
    ],
    [
      'an unknown codec',
      { ...JSON_SPEC, calls: [{ codec: 'yaml', open: '<x>' }] },
      'format spec calls[0].codec: must be one of json, tagged, python, dialect',
    ],
    [
      'a typo',
      { ...JSON_SPEC, calls: [{ codec: 'json', open: '<x>', clsoe: '</x>' }] },
      'format spec calls[0].clsoe: unknown field',
    ],
    [
      'a write form out of range',
      { ...JSON_SPEC, write: { form: 5, call: '' } },
      'format spec write.form: must be the index of a call form (0 to 1)',
    ],
    [
      'a tagged writer without its parameter template',
      { ...TAGGED_SPEC, write: { call: '{name}' } },
      'format spec write.parameter: missing',
    ],
    [
      'a literal too long',
      { ...JSON_SPEC, markup: ['x'.repeat(300)] },
      'format spec markup[0]: must be a non-empty string of at most 256',
    ],
    ['no results', { ...JSON_SPEC, results: undefined }, 'format spec results: missing'],
    [
      'a typo in a tagged syntax',
      {
        ...TAGGED_SPEC,
        calls: [
          {
            ...TAGGED_SPEC.calls[0],
            syntax: { ...(TAGGED_SPEC.calls[0] as { syntax: object }).syntax, layuot: 'inline' },
          },
        ],
      },
      'format spec calls[0].syntax.layuot: unknown field',
    ],
  ];

  it.each(bad)('refuses %s, naming the field', (_what, json, message) => {
    let caught: unknown;
    try {
      readFormatSpec(json);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(FormatSpecError);
    expect(isErrorOfKind(caught, 'invalid-format')).toBe(true);
    expect((caught as Error).message).toContain(message);
  });

  it('accepts every spec of these tests and a round trip through JSON', () => {
    for (const spec of SPECS)
      expect(readFormatSpec(parseJsonText(JSON.stringify(spec)))).toEqual(spec);
  });

  it('defineFormat checks the spec too', () => {
    expect(() => defineFormat({ ...JSON_SPEC, calls: [] })).toThrow(FormatSpecError);
  });
});

describe('fillTemplate', () => {
  it('fills placeholders and keeps every other brace', () => {
    expect(fillTemplate('{"a": {x}, "b": {y}}{', { x: '1' })).toBe('{"a": 1, "b": {y}}{');
    expect(fillTemplate('{{x}}', { x: 'v' })).toBe('{v}');
    expect(fillTemplate('{__proto__}{constructor}', {})).toBe('{__proto__}{constructor}');
  });

  it('takes linear time on a template of many open braces', () => {
    for (const template of ['{'.repeat(200_000), `${'{'.repeat(200_000)}}`, '{x'.repeat(100_000)]) {
      expect(fillTemplate(template, { x: '1' })).toBe(template);
    }
  });
});
