/**
 * The llama3 format (Llama 3.1 and 3.3): bare JSON calls, `<|python_tag|>` with JSON, built-in
 * calls and code, as vLLM's llama3_json parser, llama.cpp's Llama 3.x tests and the model card
 * show them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonText } from '../../../src/core/parse-json.ts';
import type { ToolDefinition } from '../../../src/index.ts';
import { llama3Format, llama3Protocol, llama3Spec } from '../../../src/protocols/llama3/index.ts';
import { defineFormat, specOf } from '../../../src/protocols/spec/define.ts';
import type { FormatSpec } from '../../../src/protocols/spec/types.ts';
import { callWriter } from '../../../src/protocols/spec/writers.ts';
import { expectLinearGrowth } from '../../support/growth.ts';
import { callsOf, contentAtEverySplit, contentOf, streamEvents, TOOLS } from '../helpers.ts';
import { itIsChunkInvariantOnItsMarkup } from './json-format-checks.ts';

const llama3 = llama3Protocol();
const builtIn = (name: string, property: string): ToolDefinition => ({
  name,
  inputSchema: {
    type: 'object',
    properties: { [property]: { type: 'string' } },
    required: [property],
  },
});
const tools = [
  ...TOOLS,
  builtIn('brave_search', 'query'),
  builtIn('wolfram_alpha', 'query'),
  builtIn('code_interpreter', 'code'),
];
const options = { tools };

describe('outputs of Llama 3.1 and 3.3', () => {
  it.each([
    ['parameters', '{"name": "get_weather", "parameters": {"city": "Oslo"}}', { city: 'Oslo' }],
    ['arguments', '{"name": "get_weather", "arguments": {"city": "Oslo"}}', { city: 'Oslo' }],
    [
      'type first (Llama 3.2 JSON)',
      '{"type": "function", "name": "get_weather", "parameters": {"city": "Oslo"}}',
      { city: 'Oslo' },
    ],
    [
      'python_tag JSON',
      '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Oslo"}}<|eom_id|>',
      { city: 'Oslo' },
    ],
    [
      'built-in search',
      '<|python_tag|>brave_search.call(query="weather in Oslo")<|eom_id|>',
      { query: 'weather in Oslo' },
    ],
    [
      'built-in wolfram',
      "<|python_tag|>wolfram_alpha.call(query='solve x^2 = 4')",
      { query: 'solve x^2 = 4' },
    ],
    [
      'code interpreter',
      '<|python_tag|>import sys\nprint(sys.version)<|eom_id|>',
      { code: 'import sys\nprint(sys.version)' },
    ],
    ['custom function tag', '<function=get_weather>{"city": "Oslo"}</function>', { city: 'Oslo' }],
  ])('%s', (_label, text, input) => {
    const content = contentAtEverySplit(llama3, text, options);
    expect(content).toEqual([
      { type: 'tool-call', toolName: expect.any(String), input: JSON.stringify(input) },
    ]);
  });

  it('reads calls separated by ";" or a line break', () => {
    const text =
      '{"name": "get_weather", "parameters": {"city": "A"}}; {"name": "search", "parameters": {"query": "b"}}\n{"name": "get_weather", "parameters": {"city": "C"}}';
    expect(callsOf(llama3, text, tools).map((call) => call.input)).toEqual([
      { city: 'A' },
      { query: 'b' },
      { city: 'C' },
    ]);
  });

  it('JSON that is not a call, or calls an undeclared tool, stays text', () => {
    for (const text of [
      '{"name": "toolWithoutParams"}',
      '{"parameters": {}}',
      '{"name": "invalidTool", "parameters": {invalid json}',
      '{"name": "undeclared", "parameters": {}}',
      '<|python_tag|>undeclared.call(x=1)',
    ]) {
      // Without a code tool, what follows <|python_tag|> and is no call stays text.
      const content = contentAtEverySplit(llama3, text, { tools: TOOLS }) as {
        type: string;
        text: string;
      }[];
      expect(
        content.filter((part) => part.type !== 'text'),
        text,
      ).toEqual([]);
      expect(content.map((part) => part.text).join('')).toBe(text);
    }
  });

  it('code after <|python_tag|> is text when no code tool is declared', () => {
    const text = '<|python_tag|>print(1)';
    expect(contentOf(streamEvents(llama3, [text], { tools: TOOLS }))).toEqual([
      { type: 'text', text },
    ]);
  });

  it('a built-in call with a positional argument is a fault with its raw text', () => {
    const content = contentAtEverySplit(llama3, '<|python_tag|>brave_search.call("x")', options);
    expect(content[0]).toMatchObject({ type: 'error', error: { code: 'malformed-call' } });
  });

  it('cut-off calls and code are never run', () => {
    for (const text of [
      '{"name": "get_weather", "parameters": {"city": "Os',
      '<|python_tag|>brave_search.call(query="x"',
    ]) {
      const content = contentAtEverySplit(llama3, text, options);
      expect(content).not.toContainEqual(expect.objectContaining({ type: 'tool-call' }));
    }
    const code = contentAtEverySplit(llama3, '<|python_tag|>print(1', options, {
      interrupted: true,
    });
    expect(code[0]).toMatchObject({ type: 'error', error: { code: 'incomplete-call' } });
  });
});

describe('llama3 as a spec', () => {
  it('is built from its spec, with or without a code tool of its own', () => {
    expect(specOf(llama3Format.create())?.name).toBe('llama3');
    expect(specOf(llama3Protocol({ codeTool: 'python' }))?.name).toBe('llama3');
  });

  it('its spec alone, read from JSON, reads every call form (no hook reads calls)', () => {
    const fromJson = defineFormat(parseJsonText(JSON.stringify(llama3Spec())) as FormatSpec);
    for (const [text, input] of [
      ['<|python_tag|>brave_search.call(query="x")<|eom_id|>', { query: 'x' }],
      ['<|python_tag|>{"name": "search", "parameters": {"query": "a"}}; ', { query: 'a' }],
      ['<|python_tag|>print(1)\n<|eot_id|>', { code: 'print(1)\n' }],
      ['{"name": "get_weather", "parameters": {"city": "Oslo"}}', { city: 'Oslo' }],
      ['<function=get_weather>{"city": "Oslo"}</function>', { city: 'Oslo' }],
    ] as const) {
      const content = contentAtEverySplit(fromJson, text, options) as { input?: string }[];
      expect(parseJsonText(content[0]?.input ?? 'null'), text).toEqual(input);
    }
  });

  it('code ends at <|eot_id|> too, and goes to the code tool the options name', () => {
    const python = builtIn('python', 'code');
    const content = contentAtEverySplit(
      llama3Protocol({ codeTool: 'python' }),
      '<|python_tag|>x = 1\nprint(x)<|eot_id|>',
      { tools: [...TOOLS, python] },
    );
    expect(content).toEqual([
      { type: 'tool-call', toolName: 'python', input: JSON.stringify({ code: 'x = 1\nprint(x)' }) },
    ]);
  });

  it('the spec writes the JSON calls as the hook does', () => {
    const calls = [
      { toolName: 'get_weather', input: { city: 'Oslo' } },
      { toolName: 'search', input: { query: 'rain' } },
    ];
    expect(callWriter(llama3Spec())(calls)).toBe(llama3.formatToolCall(calls));
  });
});

describe('prompt and history', () => {
  it('formatToolCall reads back to the same calls, built-ins and code included', () => {
    const key = fc.stringMatching(/^[a-z_][a-z0-9_]{0,8}$/);
    fc.assert(
      fc.property(
        fc.dictionary(key, fc.jsonValue()),
        fc.string(),
        fc.string().map((code) => code.replaceAll('<|', '')),
        (input, query, code) => {
          const calls = [
            { toolName: 'search', input: { query: 'x', ...input } },
            { toolName: 'brave_search', input: { query } },
            { toolName: 'code_interpreter', input: { code: `x = 1\n${code}` } },
          ];
          const read = callsOf(llama3, llama3.formatToolCall(calls), [
            { name: 'search', inputSchema: {} },
            ...tools.slice(-3),
          ]);
          expect(read.map((call) => call.input)).toEqual(
            calls.map((call) => parseJsonText(JSON.stringify(call.input))),
          );
        },
      ),
      { numRuns: 100 },
    );
  });

  it('teaches the format as Llama 3.1 template does', () => {
    const prompt = llama3.formatTools(tools);
    expect(prompt).toContain('Environment: ipython\nTools: brave_search, wolfram_alpha');
    expect(prompt).toContain(
      'Respond in the format {"name": function name, "parameters": dictionary',
    );
  });

  it('the registry entry matches Llama 3.1, 3.3 and plain llama3, not 3.2', () => {
    for (const id of [
      'llama3.1:8b',
      'meta-llama/llama-3.1-8b-instruct',
      'llama3.3',
      'llama-3.3-70b',
      'llama3',
      'llama3:8b',
    ]) {
      expect(
        llama3Format.models.some((pattern) => pattern.test(id)),
        id,
      ).toBe(true);
    }
    expect(llama3Format.models.some((pattern) => pattern.test('llama3.2'))).toBe(false);
  });
});

describe('invariants', () => {
  const fragments = [
    '{"name"',
    '{"type"',
    ': ',
    '"get_weather"',
    '"parameters"',
    '{',
    '}',
    ',',
    ';',
    '"',
    '\n',
    '<|python_tag|>',
    'brave_search',
    '.call(',
    'query=',
    '"x"',
    ')',
    '<|eom_id|>',
    '<|eot_id|>',
    '<function=get_weather>',
    '</function>',
    'print(1)',
    ' ',
  ];

  itIsChunkInvariantOnItsMarkup(llama3, fragments, options.tools);

  it('a long code argument streams in linear time', () => {
    expectLinearGrowth(
      (size) => `<|python_tag|>${'x = "a"\n'.repeat(size / 8)}<|eom_id|>`,
      (text) => llama3.parseGeneratedText(text, options),
      1 << 15,
    );
  });
});
