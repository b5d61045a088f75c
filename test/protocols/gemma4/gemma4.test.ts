/**
 * Gemma 4's format: `<|tool_call>call:NAME{key:<|"|>v<|"|>,n:3}<tool_call|>`, its reasoning
 * channel, its results, and the fallback forms models are seen writing. The cases are vLLM's,
 * SGLang's and mlx-lm's parser tests and outputs rendered by vLLM's chat template (each named
 * where it is used).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonText } from '../../../src/core/parse-json.ts';
import { FORMATS, type ParsedContent, type ToolDefinition } from '../../../src/index.ts';
import { gemma4Format, gemma4Protocol, gemma4Spec } from '../../../src/protocols/formats/gemma4.ts';
import { readFormatSpec } from '../../../src/protocols/spec/validate.ts';
import { describeFamilyChecks, familyReaders } from '../formats/family-checks.ts';
import { callsIn, errorsIn, reasoningIn, textIn } from '../formats/json-format-checks.ts';
import { callsOf, splitAt, streamEvents, TOOLS } from '../helpers.ts';

const gemma = gemma4Protocol();

/** The tools of vLLM's and the MLX servers' tests, with the repository's own. */
const TEST_TOOLS: readonly ToolDefinition[] = [
  ...TOOLS,
  ...['bash', 'gdb', 'read_file', 'web-search', 'fs.read_file', 'edit-file', 'func_name'].map(
    (name): ToolDefinition => ({ name, inputSchema: { type: 'object' } }),
  ),
];

/** Markup that never stays in the text of a read that gave calls. */
const WRAPPERS = [
  '<|tool_call>',
  '<tool_call|>',
  '<turn|>',
  '<|"|>',
  '<call>',
  '<|channel>',
  '<channel|>',
  '<|tool_response>',
  '```tool_code',
];
const readers = familyReaders(gemma, WRAPPERS, TEST_TOOLS);

function parts(text: string, interrupted = false): ParsedContent[] {
  return readers.parts(text, { interrupted });
}

describe('outputs of Gemma 4', () => {
  // vLLM tests/tool_parsers/test_gemma4_regex_and_bare_calls.py (commit 33a7f09).
  it.each([
    [
      'the canonical call',
      '<|tool_call>call:bash{command:<|"|>ls -la /work<|"|>}<tool_call|>',
      [{ name: 'bash', input: { command: 'ls -la /work' } }],
    ],
    [
      '<turn|> as the closer',
      '<|tool_call>call:gdb{args:<|"|>-batch -ex run /tmp/poc<|"|>}<turn|>',
      [{ name: 'gdb', input: { args: '-batch -ex run /tmp/poc' } }],
    ],
    [
      'two calls, a line break between',
      '<|tool_call>call:read_file{path:<|"|>/work/Makefile<|"|>}<tool_call|>\n<|tool_call>call:bash{command:<|"|>make -j8<|"|>}<tool_call|>',
      [
        { name: 'read_file', input: { path: '/work/Makefile' } },
        { name: 'bash', input: { command: 'make -j8' } },
      ],
    ],
    [
      'a stray colon after the token',
      '<|tool_call>:call:bash{command:<|"|>pytest<|"|>}',
      [{ name: 'bash', input: { command: 'pytest' } }],
    ],
    [
      'the <call> fragment',
      '<call>get_weather{city:<|"|>Paris<|"|>}',
      [{ name: 'get_weather', input: { city: 'Paris' } }],
    ],
    [
      'a bare call to a name with "-"',
      'call:web-search{query:<|"|>gemma 4 release<|"|>}',
      [{ name: 'web-search', input: { query: 'gemma 4 release' } }],
    ],
    [
      'a bare call to a name with "."',
      'call:fs.read_file{path:<|"|>/work/Makefile<|"|>}',
      [{ name: 'fs.read_file', input: { path: '/work/Makefile' } }],
    ],
    // mlx-lm PR #1105.
    [
      'a string and a number (mlx-lm)',
      '<|tool_call>call:func_name{key:<|"|>value<|"|>,num:42}<tool_call|>',
      [{ name: 'func_name', input: { key: 'value', num: 42 } }],
    ],
    // An MLX server's multi-family parser tests (find_string id 68833123204).
    [
      'nested objects in a list (MLX server)',
      '<|tool_call>call:edit-file{path:<|"|>test.txt<|"|>,edits:[{newText:<|"|>orange<|"|>,oldText:<|"|>apple<|"|>}]}<tool_call|>',
      [
        {
          name: 'edit-file',
          input: { path: 'test.txt', edits: [{ newText: 'orange', oldText: 'apple' }] },
        },
      ],
    ],
    [
      'a string and a number (MLX server)',
      '<|tool_call>call:get_weather{city:<|"|>Paris<|"|>,days:3}<tool_call|>',
      [{ name: 'get_weather', input: { city: 'Paris', days: 3 } }],
    ],
    [
      'a bare value with the tokens stripped (MLX server)',
      'call:get_weather{city:Austin}',
      [{ name: 'get_weather', input: { city: 'Austin' } }],
    ],
    // vllm-mlx PR #622: the parenthesis and tool_code fallbacks.
    [
      'the parenthesis form, unclosed',
      '<|tool_call>call:get_weather(city="Tokyo", unit="celsius")',
      [{ name: 'get_weather', input: { city: 'Tokyo', unit: 'celsius' } }],
    ],
    [
      'the parenthesis form, closed',
      '<|tool_call>call:get_weather(city="Tokyo")<tool_call|>',
      [{ name: 'get_weather', input: { city: 'Tokyo' } }],
    ],
    [
      'a tool_code fence',
      '```tool_code\nget_weather(city="Tokyo", unit="celsius")\n```',
      [{ name: 'get_weather', input: { city: 'Tokyo', unit: 'celsius' } }],
    ],
    [
      'a tool_code fence of two calls',
      '```tool_code\nget_weather(city="Tokyo")\nsearch(query="tides")\n```',
      [
        { name: 'get_weather', input: { city: 'Tokyo' } },
        { name: 'search', input: { query: 'tides' } },
      ],
    ],
    // Strings hold anything up to their closing token, and a JSON string reads as one.
    [
      'markup, quotes and braces in a string',
      '<|tool_call>call:write_file{content:<|"|>a}, b{ "c" <tool_call|> \\n<|"|>,path:<|"|>x<|"|>}<tool_call|>',
      [{ name: 'write_file', input: { content: 'a}, b{ "c" <tool_call|> \\n', path: 'x' } }],
    ],
    [
      'a quoted JSON string',
      '<|tool_call>call:write_file{path:"a\\"b",content:<|"|>x<|"|>}<tool_call|>',
      [{ name: 'write_file', input: { path: 'a"b', content: 'x' } }],
    ],
    [
      'no arguments',
      '<|tool_call>call:attempt_completion{}<tool_call|>',
      [{ name: 'attempt_completion', input: {} }],
    ],
  ])('%s', (_label, text, calls) => {
    const read = parts(text);
    expect(callsIn(read)).toEqual(calls);
    expect(errorsIn(read)).toEqual([]);
    expect(textIn(read).trim()).toBe('');
  });

  it('reads bare calls that end the output, with closers and white space between', () => {
    const read = parts(
      'Checking both. call:get_weather{city:Oslo}<tool_call|>\ncall:search{query:<|"|>tides<|"|>}<turn|><|tool_response>',
    );
    expect(callsIn(read)).toEqual([
      { name: 'get_weather', input: { city: 'Oslo' } },
      { name: 'search', input: { query: 'tides' } },
    ]);
    expect(textIn(read)).toBe('Checking both. ');
  });

  it('reads the reasoning channel, and a bare call glued to its end (vLLM)', () => {
    const read = parts(
      '<|channel>thought\nI need to read the entry source file to inspect the crash point.\n<channel|>call:bash{command:<|"|>cat /work/src/entry.c<|"|>}',
    );
    expect(reasoningIn(read).trim()).toBe(
      'I need to read the entry source file to inspect the crash point.',
    );
    expect(callsIn(read)).toEqual([{ name: 'bash', input: { command: 'cat /work/src/entry.c' } }]);
    expect(textIn(read)).toBe('');
  });

  // Rendered by vLLM's chat template (conformance chat-template-cases.json, gemma4.vllm/s1–s5).
  it.each([
    [
      's1',
      '<|tool_call>call:get_weather{city:<|"|>Oslo<|"|>,days:3}<tool_call|><|tool_response>',
      [{ name: 'get_weather', input: { city: 'Oslo', days: 3 } }],
      '',
    ],
    [
      's2',
      '<|tool_call>call:get_weather{city:<|"|>Oslo<|"|>,days:3}<tool_call|><|tool_call>call:search{limit:5,query:<|"|>tide tables<|"|>}<tool_call|><|tool_response>',
      [
        { name: 'get_weather', input: { city: 'Oslo', days: 3 } },
        { name: 'search', input: { query: 'tide tables', limit: 5 } },
      ],
      '',
    ],
    [
      's3',
      '<|tool_call>call:write_file{content:<|"|><p class="x">A & B</p>\nÆØÅ<|"|>,path:<|"|>a.txt<|"|>}<tool_call|><|tool_response>',
      [{ name: 'write_file', input: { path: 'a.txt', content: '<p class="x">A & B</p>\nÆØÅ' } }],
      '',
    ],
    [
      's4',
      '<|tool_call>call:get_weather{city:<|"|>Oslo<|"|>,days:3}<tool_call|>Let me check.<|tool_response>',
      [{ name: 'get_weather', input: { city: 'Oslo', days: 3 } }],
      'Let me check.',
    ],
    [
      's5',
      '<|channel>thought\nThe user asks about Oslo, so I should call get_weather.\n<channel|><|tool_call>call:get_weather{city:<|"|>Oslo<|"|>,days:3}<tool_call|><|tool_response>',
      [{ name: 'get_weather', input: { city: 'Oslo', days: 3 } }],
      '',
    ],
  ])('the chat template, %s', (_id, text, calls, rest) => {
    const read = parts(text);
    expect(callsIn(read)).toEqual(calls);
    // The token that opens the results is framing, not text.
    expect(textIn(read)).toBe(rest);
  });

  it('keeps text around calls', () => {
    const read = parts(
      'Sure. <|tool_call>call:get_weather{city:<|"|>Oslo<|"|>}<tool_call|> and done.',
    );
    expect(read.map((part) => part.type)).toEqual(['text', 'tool-call', 'text']);
    expect(textIn(read)).toBe('Sure.  and done.');
  });
});

describe('what is not a call', () => {
  it.each([
    // An MLX server's tests: prose that mentions a call.
    'Like call: prince',
    'You can call:get_weather later.',
    // A bare call of a tool the request did not declare.
    'call:delete_everything{path:<|"|>/<|"|>}',
    '<call>unknown{a:1}',
    // Not well-formed: a bare opener is text unless the call is whole.
    'call:get_weather{city:<|"|>Oslo',
    'call:get_weather{city:Oslo',
    // Bare calls are read only as the rest of the output: one quoted in prose is text.
    'call:get_weather{city:Oslo} extra',
    'You could write call:get_weather{city:<|"|>Oslo<|"|>} next time.',
    'call:get_weather{city:Oslo}\ncall:search{query:q} and so on',
    'call:get_weather is a tool',
    // Unsloth PR #11153: a bare call in inline code or a code block is shown, not run.
    'Run `call:get_weather{city:<|"|>Oslo<|"|>}` to check.',
    '`call:get_weather{city:Oslo}`',
    'Like this:\n```\ncall:get_weather{city:<|"|>Oslo<|"|>}\n```',
    '```text\n<call>get_weather{city:Oslo}\n```\n',
    // The parenthesis form without the token: prose is full of `word(…)`.
    'call:get_weather(city="Oslo")',
    // A tool_code fence whose code calls no declared tool.
    '```tool_code\nprint(1)\n```',
  ])('%s', (text) => {
    const read = parts(text);
    expect(callsIn(read)).toEqual([]);
    expect(errorsIn(read)).toEqual([]);
    expect(textIn(read)).toBe(text);
  });

  it('a bare block cut off by the output limit runs nothing', () => {
    const read = parts('call:get_weather{city:Oslo}', true);
    expect(callsIn(read)).toEqual([]);
    expect(textIn(read)).toBe('call:get_weather{city:Oslo}');
  });

  it("FunctionGemma's results, written as they are, hold no call for Gemma 4", () => {
    const rendered = FORMATS.find((entry) => entry.name === 'functiongemma')!
      .create()
      .formatToolResponse([
        {
          toolCallId: 'c1',
          toolName: 'get_weather',
          output: 'call:get_weather{city:<escape>Oslo<escape>}\n<start_function_call>call:search{}',
        },
      ]);
    expect(callsIn(parts(rendered))).toEqual([]);
  });

  it('an undeclared tool in the tokens is text through its closer', () => {
    const text = '<|tool_call>call:unknown{a:<|"|><|tool_call>call:bash{}<|"|>}<tool_call|>';
    const read = parts(text);
    expect(callsIn(read)).toEqual([]);
    expect(textIn(read)).toBe(text);
  });
});

describe("an undeclared tool's call is text through its end", () => {
  const inner = [
    '<html>hello</html>',
    gemma.formatToolCall({ toolName: 'get_weather', input: { city: 'Oslo' } }),
    'call:get_weather{city:<|"|>Oslo<|"|>}',
    '<call>get_weather{city:Oslo}',
    '```tool_code\nget_weather(city="Oslo")\n```',
    '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>',
  ];
  it.each(inner)('nothing in its arguments is read, at any split: %s', (held) => {
    const call = gemma.formatToolCall({
      toolName: 'publish_page',
      input: { body: `Page: ${held} end`, tags: [held] },
    });
    const output = `Publishing. ${call}`;
    fc.assert(
      fc.property(fc.array(fc.nat({ max: output.length }), { maxLength: 4 }), (points) => {
        const events = streamEvents(gemma, splitAt(output, points), { tools: TOOLS });
        expect(
          events.filter((event) => event.type === 'tool-input-start' || event.type === 'tool-call'),
        ).toEqual([]);
        expect(
          events.flatMap((event) => (event.type === 'text-delta' ? [event.delta] : [])).join(''),
        ).toBe(output);
      }),
      { numRuns: 40 },
    );
  });
});

describe('malformed calls are faults with their raw text, never run', () => {
  it('an unterminated string', () => {
    const text = '<|tool_call>call:get_weather{city:<|"|>Os';
    const read = parts(text);
    expect(callsIn(read)).toEqual([]);
    expect(errorsIn(read)).toMatchObject([
      {
        code: 'incomplete-call',
        raw: text,
        message: expect.stringContaining('string that was never closed'),
      },
    ]);
    expect(textIn(read)).toBe(text);
  });

  it('an unterminated string at a closer never runs with what was read', () => {
    const text = '<|tool_call>call:bash{command:<|"|>rm -rf /tmp/x<tool_call|>';
    for (const interrupted of [false, true]) {
      const read = parts(text, interrupted);
      expect(callsIn(read)).toEqual([]);
      expect(errorsIn(read)).toMatchObject([{ code: 'incomplete-call', raw: text }]);
    }
  });

  it.each([
    ['a bare word for a string', '<|tool_call>call:get_weather{city:Oslo}<tool_call|>'],
    ['a missing colon', '<|tool_call>call:get_weather{city<|"|>Oslo<|"|>}<tool_call|>'],
    ['no call: after the token', '<|tool_call>get_weather{city:<|"|>Oslo<|"|>}<tool_call|>'],
    [
      'FunctionGemma strings',
      '<|tool_call>call:get_weather{city:<escape>Oslo<escape>}<tool_call|>',
    ],
    ['text before the closer', '<|tool_call>call:get_weather{city:<|"|>Oslo<|"|>} ok<tool_call|>'],
  ])('%s', (_label, text) => {
    const read = parts(text);
    expect(callsIn(read)).toEqual([]);
    expect(errorsIn(read)).toMatchObject([{ code: 'malformed-call' }]);
    // Nothing is lost: the raw text is given back, but for the closer after it (framing).
    expect(textIn(read)).toBe(text.replace(/<tool_call\|>$/, ''));
  });

  it('a call cut off after its arguments is incomplete; ended there, it runs', () => {
    const text = '<|tool_call>call:get_weather{city:<|"|>Oslo<|"|>}<tool_c';
    expect(errorsIn(parts(text, true))).toMatchObject([{ code: 'incomplete-call' }]);
    const ended = parts(text);
    expect(callsIn(ended)).toEqual([{ name: 'get_weather', input: { city: 'Oslo' } }]);
    expect(textIn(ended)).toBe('<tool_c');
  });

  it('a closer left out before the next call: the next call still runs', () => {
    const first = '<|tool_call>call:get_weather{city:<|"|>Oslo<|"|>}';
    const second = '<|tool_call>call:get_weather{city:<|"|>Rome<|"|>}<tool_call|>';
    const read = parts(first + second);
    expect(errorsIn(read)).toMatchObject([{ code: 'malformed-call', raw: first }]);
    expect(callsIn(read)).toEqual([{ name: 'get_weather', input: { city: 'Rome' } }]);
  });
});

describe('prompt and history', () => {
  const key = fc.string({ minLength: 1, maxLength: 8 });
  const anyText = fc.oneof(
    fc.string({ maxLength: 12 }),
    fc.constantFrom('<|"|>', 'a<|"|>b', '<|"|', '"', '\\', '<tool_call|>', 'call:f{x:1}', '}'),
  );
  const value = fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      anyText,
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.boolean(),
      fc.constant(null),
      fc.array(tie('value'), { maxLength: 3 }),
      fc.dictionary(fc.oneof(key, anyText), tie('value'), { maxKeys: 3 }),
    ),
  })).value;

  it('formatToolCall reads back to the same calls, whatever the strings hold', () => {
    const tools: ToolDefinition[] = [
      { name: 'f', inputSchema: {} },
      { name: 'g-h.i', inputSchema: {} },
    ];
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(fc.constantFrom('f', 'g-h.i'), fc.dictionary(fc.oneof(key, anyText), value)),
          {
            minLength: 1,
            maxLength: 3,
          },
        ),
        (inputs) => {
          const calls = inputs.map(([toolName, input]) => ({ toolName, input }));
          const read = callsOf(gemma, gemma.formatToolCall(calls), tools);
          expect(read).toEqual(
            calls.map((call) => ({
              toolName: call.toolName,
              input: parseJsonText(JSON.stringify(call.input)),
            })),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('writes calls as the chat template does', () => {
    expect(
      gemma.formatToolCall([
        { toolName: 'get_weather', input: { city: 'Oslo', days: 3 } },
        { toolName: 'search', input: { query: 'tide tables', limit: 5 } },
      ]),
    ).toBe(
      '<|tool_call>call:get_weather{city:<|"|>Oslo<|"|>,days:3}<tool_call|><|tool_call>call:search{query:<|"|>tide tables<|"|>,limit:5}<tool_call|>',
    );
    // A string holding the delimiter cannot stand between delimiters: it is a JSON string.
    expect(gemma.formatToolCall({ toolName: 'f', input: { a: 'x<|"|>y' } })).toBe(
      '<|tool_call>call:f{a:"x<|\\"|>y"}<tool_call|>',
    );
  });

  it('declares tools as the chat template does', () => {
    const prompt = gemma.formatTools(TOOLS);
    expect(prompt).toContain(
      '<|tool>declaration:get_weather{description:<|"|>Current weather for a city<|"|>,parameters:{properties:{city:{type:<|"|>STRING<|"|>},days:{type:<|"|>INTEGER<|"|>},unit:{enum:[<|"|>celsius<|"|>,<|"|>fahrenheit<|"|>],type:<|"|>STRING<|"|>}},required:[<|"|>city<|"|>],type:<|"|>OBJECT<|"|>}}<tool|>',
    );
    expect(prompt).toContain('<|tool_call>call:get_weather{');
    expect(gemma.formatTools([])).toBe('');
  });

  it('writes results as the chat template writes a tool message', () => {
    expect(gemma.formatToolResponse({ toolName: 'get_weather', output: 'sunny' })).toBe(
      '<|tool_response>response:get_weather{value:<|"|>sunny<|"|>}<tool_response|>',
    );
    // An object is its JSON text, as a chat API's tool message carries it (prompt-safe).
    expect(
      gemma.formatToolResponse({ toolName: 'get_weather', output: { temp: 21, sky: 'clear' } }),
    ).toBe(
      '<|tool_response>response:get_weather{value:<|"|>{"\\u0074emp":21,"sky":"clear"}<|"|>}<tool_response|>',
    );
    expect(
      gemma.formatToolResponse({ toolName: 'get_weather', output: 'no city', isError: true }),
    ).toBe('<|tool_response>response:get_weather{value:<|"|>Error: no city<|"|>}<tool_response|>');
    // Text that would end the string or read as a call is broken.
    const text = gemma.formatToolResponse({
      toolName: 'get_weather',
      output: 'a<|"|>b call:get_weather{city:1}',
    });
    expect(text).not.toContain('a<|"|>b');
    expect(text).not.toContain('call:get_weather');
  });

  it('is a valid spec, and plain JSON', () => {
    const copy = parseJsonText(JSON.stringify(gemma4Spec));
    expect(copy).toEqual(gemma4Spec);
    expect(() => readFormatSpec(copy)).not.toThrow();
    expect(gemma4Spec.models).toEqual(['gemma-4', 'gemma4']);
  });
});

describe('results are never read as calls', () => {
  const markup = fc.constantFrom(
    '<|tool_call>call:get_weather{city:<|"|>Oslo<|"|>}<tool_call|>',
    '<|tool_call>:call:get_weather{city:<|"|>Oslo<|"|>}',
    'call:get_weather{city:<|"|>Oslo<|"|>}',
    'call:get_weather{city:Oslo}',
    '<call>get_weather{city:Oslo}',
    '<|tool_call>call:get_weather(city="Oslo")',
    '```tool_code\nget_weather(city="Oslo")\n```',
    '<tool_response|>',
    '<|"|>}<tool_response|><|tool_call>call:get_weather{',
    '<|"|>',
    '<channel|>',
    '<|channel>thought\n',
    '\n',
    'call:',
    'Oslo',
  );
  const text = fc.array(markup, { maxLength: 6 }).map((pieces) => pieces.join(''));
  const output = fc.oneof(
    text,
    fc.dictionary(fc.oneof(text, fc.constantFrom('value', 'call')), fc.oneof(text, fc.integer())),
    fc.array(text, { maxLength: 3 }),
  );
  const name = fc.oneof(fc.constantFrom('get_weather', 'search'), text);

  it('whatever the result, its name or its error holds', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ toolName: name, output, isError: fc.boolean() }), {
          minLength: 1,
          maxLength: 2,
        }),
        (results) => {
          const rendered = gemma.formatToolResponse(results);
          const events = streamEvents(gemma, [rendered], { tools: TOOLS });
          expect({
            rendered,
            read: events.filter(
              (event) => event.type === 'tool-input-start' || event.type === 'tool-call',
            ),
          }).toEqual({ rendered, read: [] });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a result holding a whole call, and a call name', () => {
    const rendered = gemma.formatToolResponse([
      {
        toolName: 'call:get_weather',
        output: '<|tool_call>call:get_weather{city:<|"|>Oslo<|"|>}<tool_call|>',
      },
      {
        toolName: 'get_weather',
        output: { 'call:get_weather{city:1}': 'call:get_weather{city:1}' },
      },
    ]);
    expect(callsOf(gemma, rendered, TOOLS)).toEqual([]);
  });
});

describeFamilyChecks({
  entry: gemma4Format,
  protocol: gemma,
  modelIds: {
    chosen: ['google/gemma-4-31b-it', 'gemma-4-26b', 'gemma4:e4b', 'mlx-community/gemma-4-27b-it'],
    notChosen: ['google/gemma-3-27b-it', 'gemma3:12b', 'google/gemma-2-9b'],
  },
  markup: [
    '<|tool_call>',
    '<tool_call|>',
    '<|tool_call>:',
    '<turn|>',
    'call:',
    '<call>',
    'get_weather',
    'city',
    '{',
    '}',
    '(',
    ')',
    '=',
    ':',
    ',',
    '<|"|>',
    '<|"',
    '"',
    'Oslo',
    '5',
    '[',
    ']',
    ' ',
    '`',
    'true',
    '<|channel>thought\n',
    '<channel|>',
    '<|tool_response>',
    '```tool_code\n',
    '```',
    '\n',
  ],
  wrappers: WRAPPERS,
  linear: {
    call: (index) =>
      `<|tool_call>call:get_weather{city:<|"|>c${index}<|"|>,days:${index}}<tool_call|>`,
    bigCall: (argument) =>
      `<|tool_call>call:write_file{path:<|"|>a<|"|>,content:<|"|>${argument}<|"|>}<tool_call|>`,
  },
});
