/**
 * FunctionGemma's reader gives up on what its grammar does not define (issue 20, sections 1 and
 * 5): a token or delimiter that is not FunctionGemma's (`<|"|>`, `<|tool_call>`, quotes around a
 * value, a bare word where a string needs `<escape>`) fails the call with its raw text; nothing is
 * guessed, nothing cut at an inner `}` runs. A bare `call:NAME{…}` (tokens stripped by a server)
 * is a call only when the whole output is such calls, so prose, results and other formats'
 * markup that mention one are never read as calls.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonText } from '../../../src/core/parse-json.ts';
import type { ParsedContent, ParseEvent, ToolCallProtocol } from '../../../src/index.ts';
import { autoProtocol, FORMATS } from '../../../src/index.ts';
import { functionGemmaProtocol } from '../../../src/protocols/functiongemma/index.ts';
import { contentAtEverySplit, splitAt, streamEvents, TOOLS } from '../helpers.ts';

const gemma = functionGemmaProtocol();
const auto = autoProtocol();
const options = { tools: TOOLS };

/** Gemma 4's own calls, which FunctionGemma's reader does not read. */
const GEMMA4_OUTPUTS = [
  // The example.
  '<|tool_call>call:get_weather{city:<|"|>Paris<|"|>}<tool_call|>',
  // vLLM's Gemma 4 chat template, rendered (conformance chat-template-cases.json, gemma4.vllm/s1–s5).
  '<|tool_call>call:get_weather{city:<|"|>Oslo<|"|>,days:3}<tool_call|><|tool_response>',
  '<|tool_call>call:get_weather{city:<|"|>Oslo<|"|>,days:3}<tool_call|><|tool_call>call:search{limit:5,query:<|"|>tide tables<|"|>}<tool_call|><|tool_response>',
  '<|tool_call>call:write_file{content:<|"|><p class="x">A & B</p>\nÆØÅ<|"|>,path:<|"|>a.txt<|"|>}<tool_call|><|tool_response>',
  '<|tool_call>call:get_weather{city:<|"|>Oslo<|"|>,days:3}<tool_call|>Let me check.<|tool_response>',
  '<|channel>thought\nThe user asks about Oslo.\n<channel|><|tool_call>call:get_weather{city:<|"|>Oslo<|"|>,days:3}<tool_call|><|tool_response>',
  // A string holding `}` and `,`, and a call with no strings at all.
  '<|tool_call>call:write_file{content:<|"|>a}, b{<|"|>,path:<|"|>x<|"|>}<tool_call|>',
  '<|tool_call>call:get_weather{days:3}<tool_call|>',
  // With the call tokens stripped, but not the string delimiter.
  'call:get_weather{city:<|"|>Paris<|"|>}',
  'call:write_file{path:<|"|>a}b<|"|>,content:<|"|>x<|"|>}',
];

function ranCalls(events: readonly ParseEvent[]): ParseEvent[] {
  return events.filter((event) => event.type === 'tool-call' || event.type === 'tool-input-start');
}

function textOf(parts: readonly unknown[]): string {
  return (parts as ParsedContent[])
    .flatMap((part) => (part.type === 'text' ? [part.text] : []))
    .join('');
}

function errorsOf(parts: readonly unknown[]) {
  return (parts as ParsedContent[]).flatMap((part) => (part.type === 'error' ? [part.error] : []));
}

function callsOfParts(parts: readonly unknown[]) {
  return (parts as ParsedContent[]).flatMap((part) =>
    part.type === 'tool-call' ? [{ name: part.toolName, input: parseJsonText(part.input) }] : [],
  );
}

// FunctionGemma never reads Gemma 4's calls; auto does, as the gemma4 format reads them (see
// test/protocols/auto.test.ts, which holds auto to every registered format's reading).
describe.each([['functiongemma', gemma]] as [string, ToolCallProtocol][])(
  '%s never runs a Gemma 4 call',
  (_name, protocol) => {
    it.each(GEMMA4_OUTPUTS)('%s', (text) => {
      const parts = contentAtEverySplit(protocol, text, options);
      expect(ranCalls(streamEvents(protocol, [text], options))).toEqual([]);
      // Nothing is lost: what is not reasoning is text (a failed call's raw text included).
      const reasoning = (parts as ParsedContent[])
        .flatMap((part) => (part.type === 'reasoning' ? [part.text] : []))
        .join('');
      expect(textOf(parts).length + reasoning.length).toBeGreaterThanOrEqual(
        text.length - '<|channel>thought\n<channel|>'.length,
      );
      if (protocol === gemma) expect(textOf(parts)).toBe(text);
    });

    it('fails the call when the tokens around it are stripped but the delimiter is not', () => {
      const text = 'call:get_weather{city:<|"|>Paris<|"|>}';
      const parts = contentAtEverySplit(protocol, text, options);
      expect(errorsOf(parts)).toMatchObject([{ code: 'malformed-call', raw: expect.any(String) }]);
      expect(callsOfParts(parts)).toEqual([]);
    });
  },
);

describe("Gemma 4's blocks through functiongemma", () => {
  it('each block is a fault that names Gemma 4, with its raw text, and nothing runs', () => {
    const block = '<|tool_call>call:get_weather{city:<|"|>Oslo<|"|>,days:3}<tool_call|>';
    const parts = contentAtEverySplit(gemma, `Sure. ${block}${block}<|tool_response>`, options);
    expect(callsOfParts(parts)).toEqual([]);
    expect(errorsOf(parts)).toMatchObject([
      { code: 'malformed-call', raw: block, message: expect.stringContaining('Gemma 4') },
      { code: 'malformed-call', raw: block, message: expect.stringContaining('Gemma 4') },
    ]);
    expect(textOf(parts)).toBe(`Sure. ${block}${block}<|tool_response>`);
  });

  it('a block cut off is incomplete; the token alone, or in prose, is text', () => {
    const cut = contentAtEverySplit(gemma, '<|tool_call>call:get_weather{city:<|"|>Os', options);
    expect(errorsOf(cut)).toMatchObject([{ code: 'incomplete-call' }]);
    for (const text of ['Gemma 4 writes <|tool_call> tokens', '<|tool_call>', '<|tool_call>call']) {
      const parts = contentAtEverySplit(gemma, text, options);
      expect(errorsOf(parts), text).toEqual([]);
      expect(textOf(parts), text).toBe(text);
    }
  });
});

/** Tokens and delimiters FunctionGemma does not define. */
const unknownToken = fc.oneof(
  fc.constantFrom(
    '<|"|>',
    '<|tool_call>',
    '<tool_call|>',
    '<|im_end|>',
    '<eos>',
    '<escape',
    '<escapee>',
    '<esc>',
    '</escape>',
    '"',
    "'",
    '`',
    '«',
    '<',
  ),
  fc
    .tuple(
      fc.constantFrom('<|', '<', '</'),
      fc.string({
        unit: fc.constantFrom('a', 'z', '_', '"', '|', '1'),
        minLength: 1,
        maxLength: 6,
      }),
      fc.constantFrom('|>', '>'),
    )
    .map(([open, name, close]) => `${open}${name}${close}`)
    .filter((token) => token !== '<escape>'),
);

describe('a token or delimiter outside the grammar fails the call', () => {
  const explicit = (body: string) =>
    `<start_function_call>call:get_weather{${body}}<end_function_call>`;
  const bare = (body: string) => `call:get_weather{${body}}`;

  it('around a string value, with the call tokens or without', () => {
    fc.assert(
      fc.property(
        unknownToken,
        fc.constantFrom(explicit, bare),
        fc.array(fc.nat(), { maxLength: 4 }),
        (token, wrap, cuts) => {
          const text = wrap(`city:${token}Paris${token},days:3`);
          const events = streamEvents(gemma, splitAt(text, cuts), options);
          // An explicit call streams from its `{` on; its fault closes it.
          expect(events.filter((event) => event.type === 'tool-call')).toEqual([]);
          expect(events.some((event) => event.type === 'error')).toBe(true);
          // The raw text is kept, as text (emitRawTextOnError).
          const text2 = events.flatMap((event) =>
            event.type === 'text-delta' ? [event.delta] : [],
          );
          expect(text2.join('')).toBe(text);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('anywhere between the parts of a call', () => {
    const parts = [
      'call:get_weather',
      '{',
      'city',
      ':',
      '<escape>Oslo<escape>',
      ',',
      'days',
      ':',
      '3',
      '}',
    ];
    fc.assert(
      fc.property(
        unknownToken,
        fc.integer({ min: 1, max: parts.length - 1 }),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 4 }),
        (token, at, withTokens, cuts) => {
          const body = [...parts.slice(0, at), token, ...parts.slice(at)].join('');
          const text = withTokens ? `<start_function_call>${body}<end_function_call>` : body;
          const events = streamEvents(gemma, splitAt(text, cuts), options);
          expect(ranCalls(events).filter((event) => event.type === 'tool-call')).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('after the arguments, where <end_function_call> belongs', () => {
    fc.assert(
      fc.property(unknownToken, fc.array(fc.nat(), { maxLength: 4 }), (token, cuts) => {
        const text = `<start_function_call>call:get_weather{city:<escape>Oslo<escape>}${token}<end_function_call>`;
        const events = streamEvents(gemma, splitAt(text, cuts), options);
        expect(events.filter((event) => event.type === 'tool-call')).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it('but inside an <escape> string it is data', () => {
    fc.assert(
      fc.property(unknownToken, fc.array(fc.nat(), { maxLength: 4 }), (token, cuts) => {
        const city = `a}${token},b:{`;
        const text = `<start_function_call>call:get_weather{city:<escape>${city}<escape>,days:3}<end_function_call>`;
        const events = streamEvents(gemma, splitAt(text, cuts), options);
        const calls = events.flatMap((event) =>
          event.type === 'tool-call' ? [parseJsonText(event.input)] : [],
        );
        expect(calls).toEqual([{ city, days: 3 }]);
      }),
      { numRuns: 200 },
    );
  });
});

describe('the values the grammar accepts', () => {
  it.each([
    ['numbers', '{days:-2.5e1}', { days: -25 }],
    ['true, false and null', '{a:true,b:false,c:null}', { a: true, b: false, c: null }],
    ['nested objects and arrays', '{o:{p:[1,[2],{}],q:[]}}', { o: { p: [1, [2], {}], q: [] } }],
    ['escaped keys and strings', '{<escape>a b<escape>:<escape>c, d<escape>}', { 'a b': 'c, d' }],
    [
      'white space between parts',
      '{ city : <escape>Oslo<escape> , days : 3 }',
      { city: 'Oslo', days: 3 },
    ],
  ])('%s', (_label, body, input) => {
    const tool = { name: 'f', inputSchema: {} };
    const parts = contentAtEverySplit(
      gemma,
      `<start_function_call>call:f${body}<end_function_call>`,
      { tools: [tool] },
    );
    expect(callsOfParts(parts)).toEqual([{ name: 'f', input }]);
  });

  it.each([
    ['a bare word where a string needs <escape>', '{city:Paris}'],
    ['a string in double quotes', '{city:"Paris"}'],
    ['a string in single quotes', "{city:'Paris'}"],
    ['a Python tuple', '{days:(1,2)}'],
    ['a trailing comma', '{city:<escape>Oslo<escape>,}'],
    ['a number followed by a word', '{days:3 days}'],
    ['two values without a comma', '{city:<escape>Oslo<escape> <escape>Rome<escape>}'],
  ])('%s fails the call', (_label, body) => {
    const text = `<start_function_call>call:get_weather${body}<end_function_call>`;
    const parts = contentAtEverySplit(gemma, text, options);
    expect(callsOfParts(parts)).toEqual([]);
    expect(errorsOf(parts)).toMatchObject([{ code: 'malformed-call' }]);
    expect(textOf(parts)).toBe(text);
  });

  it('bare words are strings only once a server stripped every token', () => {
    const parts = contentAtEverySplit(gemma, 'call:get_weather{city:New York,days:3}', options);
    expect(callsOfParts(parts)).toEqual([
      { name: 'get_weather', input: { city: 'New York', days: 3 } },
    ]);
    for (const body of ['{city:"Paris"}', '{city:a<b}', '{city:a{b}', '{city:a[b]}']) {
      const failed = contentAtEverySplit(gemma, `call:get_weather${body}`, options);
      expect(callsOfParts(failed), body).toEqual([]);
      expect(errorsOf(failed), body).toMatchObject([{ code: 'malformed-call' }]);
    }
  });
});

/**
 * What real FunctionGemma output looks like, from Ollama's parser tests
 * (ollama/ollama model/parsers/functiongemma_test.go): the strict grammar still reads all of it.
 */
describe("Ollama's FunctionGemma test vectors", () => {
  const anyTools = [
    'write_file',
    'get_weather',
    'add',
    'set_flag',
    'process',
    'create',
    'set_temp',
    'greet',
    'first',
    'second',
  ].map((name) => ({ name, inputSchema: {} }));
  const call = (body: string) => `<start_function_call>call:${body}<end_function_call>`;

  it.each([
    ['plain content', 'Hello, world!', [], 'Hello, world!'],
    [
      'a multi-line string',
      call('write_file{content:<escape>first line\r\nsecond line<escape>}'),
      [{ name: 'write_file', input: { content: 'first line\r\nsecond line' } }],
      '',
    ],
    [
      'content before a call',
      `Let me check.${call('get_weather{city:<escape>Paris<escape>}')}`,
      [{ name: 'get_weather', input: { city: 'Paris' } }],
      'Let me check.',
    ],
    ['numbers', call('add{a:1,b:2}'), [{ name: 'add', input: { a: 1, b: 2 } }], ''],
    [
      'booleans',
      call('set_flag{enabled:true,verbose:false}'),
      [{ name: 'set_flag', input: { enabled: true, verbose: false } }],
      '',
    ],
    [
      'an array of strings',
      call('process{items:[<escape>a<escape>,<escape>b<escape>,<escape>c<escape>]}'),
      [{ name: 'process', input: { items: ['a', 'b', 'c'] } }],
      '',
    ],
    [
      'nested objects',
      call('create{config:{settings:{enabled:true,name:<escape>test<escape>}}}'),
      [{ name: 'create', input: { config: { settings: { enabled: true, name: 'test' } } } }],
      '',
    ],
    ['a float', call('set_temp{value:3.14}'), [{ name: 'set_temp', input: { value: 3.14 } }], ''],
    [
      'unicode',
      `こんにちは ${call('greet{name:<escape>日本語<escape>}')}`,
      [{ name: 'greet', input: { name: '日本語' } }],
      'こんにちは ',
    ],
    ['angle brackets in content', 'The result is a <value> tag', [], 'The result is a <value> tag'],
    ['a partial start tag in content', 'Hello <start world', [], 'Hello <start world'],
    [
      'content between calls',
      `${call('first{}')}Some text here${call('second{}')}`,
      [
        { name: 'first', input: {} },
        { name: 'second', input: {} },
      ],
      'Some text here',
    ],
  ])('%s', (_label, text, calls, content) => {
    const parts = contentAtEverySplit(gemma, text, { tools: anyTools });
    expect(callsOfParts(parts)).toEqual(calls);
    expect(textOf(parts)).toBe(content);
    expect(errorsOf(parts)).toEqual([]);
  });
});

/**
 * vLLM's FunctionGemma chat template (examples/tool_chat_template_functiongemma.jinja), rendered:
 * chat-template-cases.json of the shared conformance data, functiongemma.vllm/s1–s3. It writes
 * every value between `<escape>` tokens; the schema types them.
 */
describe("vLLM's FunctionGemma template, rendered", () => {
  /** The cases' tools (chat-template-tools.json), as far as these calls need them. */
  const templateTools = [
    {
      name: 'get_weather',
      inputSchema: {
        type: 'object',
        properties: { city: { type: 'string' }, days: { type: 'integer' } },
        required: ['city'],
      },
    },
    {
      name: 'search',
      inputSchema: {
        type: 'object',
        properties: { query: { type: 'string' }, limit: { type: 'integer' } },
        required: ['query'],
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

  it.each([
    [
      's1',
      '<start_function_call>call:get_weather{city:<escape>Oslo<escape>,days:<escape>3<escape>}<end_function_call>',
      [{ name: 'get_weather', input: { city: 'Oslo', days: 3 } }],
    ],
    [
      's2',
      '<start_function_call>call:get_weather{city:<escape>Oslo<escape>,days:<escape>3<escape>}<end_function_call><start_function_call>call:search{query:<escape>tide tables<escape>,limit:<escape>5<escape>}<end_function_call>',
      [
        { name: 'get_weather', input: { city: 'Oslo', days: 3 } },
        { name: 'search', input: { query: 'tide tables', limit: 5 } },
      ],
    ],
    [
      's3',
      '<start_function_call>call:write_file{path:<escape>a.txt<escape>,content:<escape><p class="x">A & B</p>\nÆØÅ<escape>}<end_function_call>',
      [{ name: 'write_file', input: { path: 'a.txt', content: '<p class="x">A & B</p>\nÆØÅ' } }],
    ],
  ])('%s', (_id, text, calls) => {
    const parts = contentAtEverySplit(gemma, text, { tools: templateTools });
    expect(callsOfParts(parts)).toEqual(calls);
    expect(textOf(parts)).toBe('');
  });
});

describe('values are data', () => {
  const tool = { name: 'f', inputSchema: {} };

  it('a __proto__ key is an own key and reaches no prototype', () => {
    const parts = contentAtEverySplit(
      gemma,
      '<start_function_call>call:f{__proto__:{polluted:1},<escape>constructor<escape>:{prototype:{x:1}}}<end_function_call>',
      { tools: [tool] },
    );
    const [call] = callsOfParts(parts);
    expect(Object.keys(call!.input as object)).toEqual(['__proto__', 'constructor']);
    expect(({} as { polluted?: number }).polluted).toBeUndefined();
  });

  it('nesting past maxDepth fails the call', () => {
    const text = `<start_function_call>call:f{a:${'['.repeat(40)}${']'.repeat(40)}}<end_function_call>`;
    const parts = gemma.parseGeneratedText(text, { tools: [tool], maxDepth: 16 });
    expect(parts.filter((part) => part.type === 'tool-call')).toEqual([]);
    expect(errorsOf(parts)).toMatchObject([{ code: 'too-deep' }]);
  });
});

describe('a bare call:NAME{…} is a call only when the whole output is calls', () => {
  it.each([
    ['one call', 'call:get_weather{city:<escape>Oslo<escape>}', 1],
    ['calls in a row', 'call:get_weather{city:Oslo}call:search{query:tide tables}', 2],
    [
      'calls on lines, white space after',
      'call:get_weather{city:Oslo}\ncall:get_weather{city:Rome}\n\n',
      2,
    ],
  ])('%s', (_label, text, count) => {
    const parts = contentAtEverySplit(gemma, text, options);
    expect(callsOfParts(parts)).toHaveLength(count);
    expect(textOf(parts).trim()).toBe('');
  });

  it.each([
    ['in prose', 'the result was call:get_weather{city:<escape>Oslo<escape>}'],
    ['on a later line', 'Here it is:\ncall:get_weather{city:Oslo}'],
    ['after white space', '\n call:get_weather{city:Oslo}'],
    ['in an escaped JSON result', '{"content":"call:get_weather{city:<escape>Oslo<escape>}"}'],
  ])('%s is text', (_label, text) => {
    const parts = contentAtEverySplit(gemma, text, options);
    expect(callsOfParts(parts)).toEqual([]);
    expect(errorsOf(parts)).toEqual([]);
    expect(textOf(parts)).toBe(text);
  });

  it('after an explicit call it is text', () => {
    const call =
      '<start_function_call>call:get_weather{city:<escape>Oslo<escape>}<end_function_call>';
    const parts = contentAtEverySplit(gemma, `${call}call:get_weather{city:Rome}`, options);
    expect(callsOfParts(parts)).toEqual([{ name: 'get_weather', input: { city: 'Oslo' } }]);
    expect(textOf(parts)).toBe('call:get_weather{city:Rome}');
  });

  it('after any text at all, bare calls are text', () => {
    const bareCalls = fc
      .array(
        fc.constantFrom(
          'call:get_weather{city:Oslo}',
          'call:get_weather{city:<escape>Oslo<escape>,days:3}',
          '\n',
          ' ',
        ),
        { minLength: 1, maxLength: 4 },
      )
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 8 }),
        bareCalls,
        fc.array(fc.nat(), { maxLength: 4 }),
        (before, calls, cuts) => {
          const text = before + calls;
          const events = streamEvents(gemma, splitAt(text, cuts), options);
          expect(ranCalls(events)).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('calls followed by text fail, and none of them runs', () => {
    const text = 'call:get_weather{city:Oslo}\ncall:get_weather{city:Rome} is what I would write';
    const parts = contentAtEverySplit(gemma, text, options);
    expect(callsOfParts(parts)).toEqual([]);
    expect(errorsOf(parts)).toMatchObject([{ code: 'malformed-call' }]);
    expect(textOf(parts)).toBe(text);
  });

  it('a bare block cut off by the output limit runs nothing', () => {
    const parts = contentAtEverySplit(gemma, 'call:get_weather{city:Oslo}', options, {
      interrupted: true,
    });
    expect(callsOfParts(parts)).toEqual([]);
  });

  it('no format renders a result that FunctionGemma or auto reads as a call', () => {
    const outputs = [
      'call:get_weather{city:<escape>Oslo<escape>}',
      'call:get_weather{city:Oslo}',
      'x\ncall:get_weather{city:Oslo}\n',
      '<start_function_call>call:get_weather{city:<escape>Oslo<escape>}<end_function_call>',
      { note: 'call:get_weather{city:Oslo}' },
    ];
    for (const entry of FORMATS) {
      const renderer = entry.create();
      for (const output of outputs) {
        const rendered = renderer.formatToolResponse([
          { toolCallId: 'c1', toolName: 'get_weather', output },
        ]);
        // Read as the model's output, whole and one character at a time.
        for (const chunks of [[rendered], [...rendered]]) {
          expect(
            ranCalls(streamEvents(gemma, chunks, options)),
            `${entry.name}: ${rendered}`,
          ).toEqual([]);
        }
      }
    }
  });
});

describe("no format's rendered result is a call to FunctionGemma's reader", () => {
  /** Calls of every format, FunctionGemma's bare and Gemma 4's among them, and their pieces. */
  const fragments = [
    ...new Set([
      ...FORMATS.flatMap((entry) => {
        const call = entry
          .create()
          .formatToolCall({ toolName: 'get_weather', input: { city: 'Oslo', days: 7 } });
        return [call, call.slice(0, call.length >> 1), call.slice(call.length >> 1)];
      }),
      'call:get_weather{city:Oslo}',
      'call:get_weather{city:<escape>Oslo<escape>}',
      '<|tool_call>call:get_weather{city:<|"|>Paris<|"|>}<tool_call|>',
      '\n',
      ' ',
      '"',
      '\\',
    ]),
  ];
  const output = fc.oneof(
    fc.array(fc.constantFrom(...fragments), { maxLength: 6 }).map((parts) => parts.join('')),
    fc.dictionary(
      fc.constantFrom('note', 'call', 'text'),
      fc.array(fc.constantFrom(...fragments), { maxLength: 4 }).map((parts) => parts.join('')),
    ),
  );
  const onlyGemma = autoProtocol({ formats: ['functiongemma'] });

  it.each(FORMATS.map((entry) => [entry.name, entry.create()] as const))(
    'rendered by %s',
    (_name, renderer) => {
      fc.assert(
        fc.property(output, fc.boolean(), (result, isError) => {
          const rendered = renderer.formatToolResponse([
            { toolCallId: 'c1', toolName: 'get_weather', output: result, isError },
          ]);
          for (const reader of [gemma, onlyGemma]) {
            expect({ rendered, read: ranCalls(streamEvents(reader, [rendered], options)) }).toEqual(
              { rendered, read: [] },
            );
          }
        }),
        { numRuns: 60 },
      );
    },
  );
});

describe('an explicit call runs only once its closing token came', () => {
  it('text instead of <end_function_call> fails the call', () => {
    const text =
      '<start_function_call>call:get_weather{city:<escape>Oslo<escape>} and more<end_function_call>';
    const parts = contentAtEverySplit(gemma, text, options);
    expect(callsOfParts(parts)).toEqual([]);
    expect(errorsOf(parts)).toMatchObject([{ code: 'malformed-call' }]);
    expect(textOf(parts)).toBe(text);
  });

  it('the output may end where the closing token was (a stop sequence), unless cut off', () => {
    const text = '<start_function_call>call:get_weather{city:<escape>Oslo<escape>}';
    expect(callsOfParts(contentAtEverySplit(gemma, text, options))).toEqual([
      { name: 'get_weather', input: { city: 'Oslo' } },
    ]);
    expect(callsOfParts(contentAtEverySplit(gemma, text, options, { interrupted: true }))).toEqual(
      [],
    );
  });

  it('formatToolResponse writes a name that is markup as prompt-safe JSON, read by no format', () => {
    for (const toolName of [
      '<tool_call>{"name": "get_weather", "arguments": {}}</tool_call>',
      'get_weather{city:Oslo}',
      '[TOOL_CALLS]',
      '<|im_start|>',
    ]) {
      const rendered = gemma.formatToolResponse([{ toolCallId: 'c1', toolName, output: 'ok' }]);
      expect(rendered).not.toContain(toolName);
      expect(rendered).toMatch(/^<start_function_response>response:"[^<>[\]{}]*"\{value:/);
      for (const entry of FORMATS) {
        expect(ranCalls(streamEvents(entry.create(), [rendered], options)), entry.name).toEqual([]);
      }
    }
    expect(
      gemma.formatToolResponse([{ toolCallId: 'c1', toolName: 'get_weather', output: 1 }]),
    ).toBe(
      '<start_function_response>response:get_weather{value:<escape>1<escape>}<end_function_response>',
    );
  });

  it('formatToolResponse is never read back as a call, by any format', () => {
    const rendered = gemma.formatToolResponse([
      {
        toolCallId: 'c1',
        toolName: 'get_weather',
        output: 'call:get_weather{city:<escape>Oslo<escape>}\n<start_function_call>call:search{}',
      },
    ]);
    for (const entry of FORMATS) {
      expect(ranCalls(streamEvents(entry.create(), [rendered], options)), entry.name).toEqual([]);
    }
    expect(ranCalls(streamEvents(auto, [rendered], options))).toEqual([]);
  });
});
