/**
 * The whole-call fast path of the JSON calls body (src/protocols/codecs/json/whole-json-call.ts): a
 * call that is whole in the text its body first sees is read with the native JSON reader. It
 * must give exactly the events the streaming path gives, and decline (emitting nothing)
 * whatever it does not read the same way. The fast path is wrapped here so that a test can count
 * when it was taken and turn it off, to compare with the streaming path on the same chunks.
 */
import fc from 'fast-check';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { parseJsonText } from '../../../src/core/parse-json.ts';
import {
  executeProtocol,
  hermesProtocol,
  type ParseEvent,
  type ToolCallProtocol,
} from '../../../src/index.ts';
import { contentOf, splitAt, streamEvents, streamingViolations, TOOLS } from '../helpers.ts';

const fastPath = vi.hoisted(() => ({ enabled: true, taken: 0, declined: 0 }));

vi.mock('../../../src/protocols/codecs/json/whole-json-call.ts', async (importOriginal) => {
  const actual =
    await importOriginal<typeof import('../../../src/protocols/codecs/json/whole-json-call.ts')>();
  return {
    ...actual,
    readWholeJsonCall: (...args: Parameters<typeof actual.readWholeJsonCall>): number => {
      if (!fastPath.enabled) return -1;
      const stop = actual.readWholeJsonCall(...args);
      if (stop === -1) fastPath.declined++;
      else fastPath.taken++;
      return stop;
    },
  };
});

beforeEach(() => {
  fastPath.enabled = true;
  fastPath.taken = 0;
  fastPath.declined = 0;
});

const hermes = hermesProtocol();
const tools = TOOLS;

/** Events of `chunks` with the fast path on or off (ids are deterministic, so events compare whole). */
function eventsOf(
  chunks: readonly string[],
  fast: boolean,
  protocol: ToolCallProtocol = hermes,
  validate = true,
): ParseEvent[] {
  const before = fastPath.enabled;
  fastPath.enabled = fast;
  try {
    return streamEvents(protocol, chunks, { tools, validate });
  } finally {
    fastPath.enabled = before;
  }
}

/** Asserts that the fast path changes nothing: one push, one character at a time, given splits. */
function expectSameAsStreaming(
  text: string,
  cuts: readonly number[] = [],
  protocol: ToolCallProtocol = hermes,
): ParseEvent[] {
  const whole = eventsOf([text], true, protocol);
  expect(whole).toEqual(eventsOf([text], false, protocol));
  expect(streamingViolations(whole)).toEqual([]);
  const split = splitAt(text, cuts);
  expect(eventsOf(split, true, protocol)).toEqual(eventsOf(split, false, protocol));
  expect(contentOf(eventsOf(split, true, protocol))).toEqual(contentOf(whole));
  expect(contentOf(eventsOf([...text], true, protocol))).toEqual(contentOf(whole));
  return whole;
}

// ── generating calls as a model might write them ─────────────────────────────────────────────

/** A JSON value as written: objects as entries, so a key may repeat; numbers as their text. */
type Written =
  | { readonly kind: 'string'; readonly value: string; readonly style: Style }
  | { readonly kind: 'number'; readonly text: string }
  | { readonly kind: 'literal'; readonly text: 'true' | 'false' | 'null' }
  | { readonly kind: 'array'; readonly items: readonly Written[] }
  | { readonly kind: 'object'; readonly entries: readonly (readonly [string, Written])[] };

/** How a string's characters are escaped: as JSON.stringify does, or the ways others do. */
type Style = 'plain' | 'html' | 'unicode' | 'slash' | 'mixed';

function hex4(code: number, upper: boolean): string {
  const digits = code.toString(16).padStart(4, '0');
  return `\\u${upper ? digits.toUpperCase() : digits}`;
}

const SHORT_ESCAPES: Record<number, string> = {
  8: '\\b',
  9: '\\t',
  10: '\\n',
  12: '\\f',
  13: '\\r',
};

/** A JSON string literal for `value`; lone surrogates stay raw unless escaped by the style. */
function writeString(value: string, style: Style): string {
  let out = '"';
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    const character = value[index]!;
    const mixed = style === 'mixed' && index % 2 === 1;
    if (character === '"') out += mixed ? '\\u0022' : '\\"';
    else if (character === '\\') out += mixed ? '\\u005C' : '\\\\';
    else if (code < 0x20)
      out += SHORT_ESCAPES[code] && !mixed ? SHORT_ESCAPES[code] : hex4(code, mixed);
    else if (character === '/' && (style === 'slash' || mixed)) out += '\\/';
    else if ('<>&'.includes(character) && (style === 'html' || mixed)) out += hex4(code, false);
    else if (code >= 0x7f && (style === 'unicode' || mixed)) out += hex4(code, index % 3 === 0);
    else out += character;
  }
  return `${out}"`;
}

function write(value: Written, space: string): string {
  switch (value.kind) {
    case 'string':
      return writeString(value.value, value.style);
    case 'number':
    case 'literal':
      return value.text;
    case 'array':
      return `[${value.items.map((item) => write(item, space)).join(`,${space}`)}]`;
    case 'object':
      return `{${space}${value.entries
        .map(([key, member]) => `${writeString(key, 'plain')}:${space}${write(member, space)}`)
        .join(`,${space}`)}${space}}`;
  }
}

const style = fc.constantFrom<Style>('plain', 'plain', 'html', 'unicode', 'slash', 'mixed');

const SPECIAL_PIECES = [
  '"',
  '\\',
  '<',
  '>',
  '&',
  '\n',
  '\r\n',
  '\t',
  '\u0000',
  '\u001f',
  '\u007f',
  '/',
  'é',
  'ü',
  '中',
  '😀',
  '\ud800',
  '\udc00',
  '\udbff',
  '\u2028',
  '\u00a0',
  '</tool_call>',
  '<tool_call>',
  '\\u0041',
  'a',
  ' ',
  'Hello',
];

const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.array(fc.constantFrom(...SPECIAL_PIECES), { maxLength: 12 }).map((parts) => parts.join('')),
  fc
    .array(fc.constantFrom(...SPECIAL_PIECES, 'x'.repeat(40)), { minLength: 20, maxLength: 80 })
    .map((parts) => parts.join('')),
);

const stringValue: fc.Arbitrary<Written> = fc
  .record({ value: text, style })
  .map(({ value, style }) => ({ kind: 'string' as const, value, style }));

const NUMBER_TEXTS = [
  '0',
  '-0',
  '1',
  '7',
  '1.0',
  '1.5',
  '-2.25',
  '1e2',
  '1E+2',
  '25e-1',
  '0.1',
  '12345678901234567890',
  '1e400',
  '-1e400',
  '5e-324',
];

const numberValue: fc.Arbitrary<Written> = fc
  .oneof(
    fc.constantFrom(...NUMBER_TEXTS),
    fc.integer().map(String),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((value) => JSON.stringify(value)),
  )
  .map((text) => ({ kind: 'number' as const, text }));

const literalValue: fc.Arbitrary<Written> = fc
  .constantFrom('true', 'false', 'null')
  .map((text) => ({ kind: 'literal' as const, text }));

/** A value written as text that schema coercion reads as something else. */
function textOf(...values: string[]): fc.Arbitrary<Written> {
  return fc
    .record({ value: fc.constantFrom(...values), style })
    .map(({ value, style }) => ({ kind: 'string' as const, value, style }));
}

const KEYS = [
  'city',
  'days',
  'unit',
  'query',
  'extra',
  'path',
  '',
  'é',
  '0',
  '12',
  '1a',
  '__proto__',
  'constructor',
  'toString',
  'a"b',
  'a\\b',
  '\ud800',
  '<x>',
];

const anyValue: fc.Arbitrary<Written> = fc.letrec<{ value: Written }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    stringValue,
    numberValue,
    literalValue,
    fc.array(tie('value'), { maxLength: 4 }).map((items) => ({ kind: 'array' as const, items })),
    fc
      .array(fc.tuple(fc.constantFrom(...KEYS), tie('value')), { maxLength: 4 })
      .map((entries) => ({ kind: 'object' as const, entries })),
  ),
})).value;

/** Per tool: values for its parameters, right, coercible and wrong. */
const PARAMETERS: Record<string, Record<string, fc.Arbitrary<Written>>> = {
  get_weather: {
    city: fc.oneof(stringValue, stringValue, anyValue),
    days: fc.oneof(
      numberValue,
      textOf('3', ' 7 ', '2.5', 'seven', '12345678901234567890'),
      anyValue,
    ),
    unit: fc.oneof(
      textOf('celsius', 'fahrenheit', 'Celsius', ' FAHRENHEIT ', 'kelvin', ''),
      anyValue,
    ),
  },
  write_file: {
    path: fc.oneof(stringValue, anyValue),
    content: fc.oneof(stringValue, stringValue, anyValue),
  },
  search: {
    query: fc.oneof(stringValue, anyValue),
    path: stringValue,
    allow_tests: fc.oneof(literalValue, textOf('true', 'False', 'yes'), anyValue),
    tags: fc.oneof(
      fc.array(stringValue, { maxLength: 3 }).map((items) => ({ kind: 'array' as const, items })),
      textOf('a', '["a", "b"]', "['x']", '[1, 2]'),
      anyValue,
    ),
    options: fc.oneof(
      fc
        .record(
          {
            depth: fc.oneof(numberValue, textOf('2', 'deep')),
            exact: fc.oneof(literalValue, textOf('true', 'no')),
          },
          { requiredKeys: [] },
        )
        .map((record) => ({
          kind: 'object' as const,
          entries: Object.entries(record) as [string, Written][],
        })),
      textOf('{"depth": "3"}', '{}'),
      anyValue,
    ),
  },
  attempt_completion: { result: fc.oneof(stringValue, anyValue) },
};

/** The arguments of a call: some of the tool's parameters in any order, sometimes more. */
function argumentsFor(tool: string): fc.Arbitrary<Written> {
  const parameters = PARAMETERS[tool]!;
  return fc
    .tuple(
      fc.shuffledSubarray(Object.keys(parameters)),
      fc.array(fc.tuple(fc.constantFrom(...KEYS), anyValue), { maxLength: 2 }),
      fc.boolean(),
    )
    .chain(([names, extra, withExtra]) =>
      fc.tuple(...names.map((name) => parameters[name]!)).map((values) => ({
        kind: 'object' as const,
        entries: [
          ...names.map((name, index) => [name, values[index]!] as const),
          ...(withExtra ? extra : []),
        ],
      })),
    );
}

/** One plain call: `{"name": …, "arguments": {…}}`, keys in either order, any white space. */
const plainCall = fc
  .constantFrom('get_weather', 'write_file', 'search', 'attempt_completion')
  .chain((tool) =>
    fc.record({
      tool: fc.constant(tool),
      arguments: argumentsFor(tool),
      nameKey: fc.constantFrom('name', 'name', 'tool_name', 'function'),
      argumentsKey: fc.constantFrom('arguments', 'arguments', 'parameters', 'args', 'input'),
      argumentsFirst: fc.boolean(),
      space: fc.constantFrom('', '', ' ', '\n  ', '\t'),
      before: fc.constantFrom('', '', '\n', ' \n ', '\u00a0'),
      after: fc.constantFrom('', '', '\n', '  \r\n'),
    }),
  )
  .map((call) => {
    const name: Written = { kind: 'string', value: call.tool, style: 'plain' };
    const entries: [string, Written][] = [
      [call.nameKey, name],
      [call.argumentsKey, call.arguments],
    ];
    if (call.argumentsFirst) entries.reverse();
    const json = write({ kind: 'object', entries }, call.space);
    return `<tool_call>${call.before}${json}${call.after}</tool_call>`;
  });

const prose = fc.constantFrom('', 'Sure.\n', 'Checking: ', '\n\n', 'a < b & c\n');

const document = fc
  .array(fc.tuple(prose, plainCall), { minLength: 1, maxLength: 3 })
  .chain((parts) => prose.map((last) => parts.map(([text, call]) => text + call).join('') + last));

// ── properties ────────────────────────────────────────────────────────────────────────────────

describe('hermes whole-call fast path: the same events as the streaming path', () => {
  it('for calls with arbitrary arguments, in one push, one character at a time and split anywhere', () => {
    fc.assert(
      fc.property(document, fc.array(fc.nat(), { maxLength: 6 }), (source, cuts) => {
        expectSameAsStreaming(source, cuts);
      }),
      { numRuns: 600 },
    );
  });

  it('without validation too', () => {
    fc.assert(
      fc.property(document, (source) => {
        expect(eventsOf([source], true, hermes, false)).toEqual(
          eventsOf([source], false, hermes, false),
        );
      }),
      { numRuns: 200 },
    );
  });

  it('takes the fast path for most generated calls (the property above is not vacuous)', () => {
    let calls = 0;
    fc.assert(
      fc.property(document, (source) => {
        calls += source.split('<tool_call>').length - 1;
        eventsOf([source], true);
      }),
      { numRuns: 300, seed: 42 },
    );
    expect(fastPath.taken).toBeGreaterThan(calls / 4);
    expect(fastPath.declined).toBeGreaterThan(0);
  });
});

// ── examples ──────────────────────────────────────────────────────────────────────────────────

/** Tool calls of events with their problems, and the input-delta events per call. */
function callsAndDeltas(events: readonly ParseEvent[]) {
  const calls = events.filter((event) => event.type === 'tool-call');
  const deltas = events.filter((event) => event.type === 'tool-input-delta');
  return { calls, deltas };
}

describe('hermes whole-call fast path: taken', () => {
  const cases: [string, string, unknown][] = [
    [
      'a plain call',
      '<tool_call>{"name": "get_weather", "arguments": {"city": "Seoul", "days": 3}}</tool_call>',
      { city: 'Seoul', days: 3 },
    ],
    [
      'the format the protocol writes (escaped <, white space)',
      hermes.formatToolCall({
        toolName: 'write_file',
        input: { path: 'a/b.ts', content: 'if (a < b) {\n  say("hi");\n}\n' },
      }),
      { path: 'a/b.ts', content: 'if (a < b) {\n  say("hi");\n}\n' },
    ],
    [
      'values coerced by the schema',
      '<tool_call>{"name":"get_weather","arguments":{"city":"Oslo","days":"4","unit":" Celsius "}}</tool_call>',
      { city: 'Oslo', days: 4, unit: 'celsius' },
    ],
    [
      'numbers written in other forms',
      '<tool_call>{"name":"search","arguments":{"query":"q","options":{"depth":1.0,"exact":true},"extra":[1e2,-0,1E400]}}</tool_call>',
      { query: 'q', options: { depth: 1, exact: true }, extra: [100, 0, null] },
    ],
    [
      'escapes written in other forms',
      '<tool_call>{"name":"search","arguments":{"query":"\\u0041\\/\\u00e9\\ud83d\\ude00\\n\\u001f\\u0022"}}</tool_call>',
      { query: 'A/é😀\n\u001f"' },
    ],
    [
      'a lone surrogate',
      '<tool_call>{"name":"search","arguments":{"query":"a\\ud800b\udc00"}}</tool_call>',
      { query: 'a\ud800b\udc00' },
    ],
    [
      'arguments before the name, other key names',
      '<tool_call>{"parameters": {"result": "done"}, "tool_name": "attempt_completion"}</tool_call>',
      { result: 'done' },
    ],
    [
      'a list given as one value and a list as text',
      '<tool_call>{"name":"search","arguments":{"query":"q","tags":"a"}}</tool_call>' +
        '<tool_call>{"name":"search","arguments":{"query":"q","tags":"[\\"x\\", \\"y\\"]"}}</tool_call>',
      { query: 'q', tags: ['a'] },
    ],
  ];

  it.each(cases)('%s', (_label, source, firstInput) => {
    const events = expectSameAsStreaming(source);
    const { calls, deltas } = callsAndDeltas(events);
    expect(calls.length).toBeGreaterThan(0);
    // One delta per call, the whole input.
    expect(deltas.length).toBe(calls.length);
    expect(fastPath.taken).toBeGreaterThanOrEqual(calls.length);
    const first = calls[0] as { input: string };
    expect(parseJsonText(first.input)).toEqual(firstInput);
  });

  it('counts: one fast read per call of a long response', () => {
    const source = Array.from(
      { length: 20 },
      (_, index) =>
        `Step ${index}.\n${hermes.formatToolCall({ toolName: 'search', input: { query: `q${index}`, allow_tests: index % 2 === 0 } })}\n`,
    ).join('');
    const events = eventsOf([source], true);
    expect(fastPath.taken).toBe(20);
    expect(fastPath.declined).toBe(0);
    expect(callsAndDeltas(events).deltas.length).toBe(20);
    expect(events).toEqual(eventsOf([source], false));
  });

  it('reports the same problems', () => {
    const source =
      '<tool_call>{"name":"get_weather","arguments":{"days":"many","unit":"kelvin","x":1}}</tool_call>';
    const events = expectSameAsStreaming(source);
    expect(fastPath.taken).toBeGreaterThan(0);
    const call = callsAndDeltas(events).calls[0] as { problems?: unknown[] };
    expect(call.problems?.length).toBeGreaterThan(0);
  });

  it('reads a single call in an <execute> block the same way', () => {
    const execute = executeProtocol();
    const source = '<execute>{"name": "get_weather", "args": {"city": "Lima"}}</execute>';
    expectSameAsStreaming(source, [], execute);
    expect(fastPath.taken).toBeGreaterThan(0);
  });
});

describe('hermes whole-call fast path: declined, and the streaming path reads it', () => {
  const cases: [string, string][] = [
    [
      'text after the JSON',
      '<tool_call>{"name":"search","arguments":{"query":"q"}} ok</tool_call>',
    ],
    ['a batch', '<tool_call>[{"name":"search","arguments":{"query":"q"}}]</tool_call>'],
    ['invalid JSON', '<tool_call>{"name":"search","arguments":{"query":"q",}}</tool_call>'],
    ['single quotes', "<tool_call>{'name':'search','arguments':{'query':'q'}}</tool_call>"],
    ['an unknown tool', '<tool_call>{"name":"nope","arguments":{"query":"q"}}</tool_call>'],
    ['an extra key', '<tool_call>{"name":"search","arguments":{"query":"q"},"id":1}</tool_call>'],
    ['no arguments', '<tool_call>{"name":"search"}</tool_call>'],
    [
      'arguments as a string',
      '<tool_call>{"name":"search","arguments":"{\\"query\\":\\"q\\"}"}</tool_call>',
    ],
    ['arguments as a list', '<tool_call>{"name":"search","arguments":["q"]}</tool_call>'],
    ['a name that is not a string', '<tool_call>{"name":1,"arguments":{}}</tool_call>'],
    [
      'a repeated argument',
      '<tool_call>{"name":"search","arguments":{"query":"a","query":"b"}}</tool_call>',
    ],
    [
      'a repeated nested key',
      '<tool_call>{"name":"search","arguments":{"query":"a","options":{"depth":1,"depth":2}}}</tool_call>',
    ],
    [
      'a repeated name',
      '<tool_call>{"name":"search","name":"get_weather","arguments":{"query":"a"}}</tool_call>',
    ],
    [
      'a __proto__ key',
      '<tool_call>{"name":"search","arguments":{"query":"a","__proto__":{"x":1}}}</tool_call>',
    ],
    [
      'a nested __proto__ key',
      '<tool_call>{"name":"search","arguments":{"query":"a","options":{"__proto__":1}}}</tool_call>',
    ],
    [
      'integer-like keys',
      '<tool_call>{"name":"search","arguments":{"query":"a","2":1,"1":2}}</tool_call>',
    ],
    [
      'a closer inside a string',
      '<tool_call>{"name":"search","arguments":{"query":"</tool_call>"}}</tool_call>',
    ],
    ['no closer', '<tool_call>{"name":"search","arguments":{"query":"a"}}\nthen text'],
    ['a comment', '<tool_call>{"name":"search", /* c */ "arguments":{"query":"a"}}</tool_call>'],
    [
      'Python literals',
      '<tool_call>{"name":"search","arguments":{"query":"a","allow_tests":True}}</tool_call>',
    ],
    ['a fence', '```json\n{"name":"search","arguments":{"query":"a"}}\n```'],
    ['bare JSON', 'x {"name":"search","arguments":{"query":"a"}} y'],
    ['an alternative tag', '<tool>{"name":"search","arguments":{"query":"a"}}</tool>'],
    ['a function tag', '<function=search>{"query":"a"}</function>'],
    [
      'deep nesting',
      `<tool_call>{"name":"search","arguments":{"query":"a","x":${'['.repeat(100)}${']'.repeat(100)}}}</tool_call>`,
    ],
  ];

  it.each(cases)('%s', (_label, source) => {
    expectSameAsStreaming(source);
    expect(fastPath.taken).toBe(0);
  });

  it('falls back on a call cut by the end of a push, and reads it as before', () => {
    const source =
      'a <tool_call>{"name":"search","arguments":{"query":"long query"}}</tool_call> b';
    for (let cut = 1; cut < source.length; cut++) {
      const chunks = [source.slice(0, cut), source.slice(cut)];
      expect(eventsOf(chunks, true)).toEqual(eventsOf(chunks, false));
    }
  });

  it('stays within maxCallChars', () => {
    const source =
      '<tool_call>{"name":"write_file","arguments":{"path":"p","content":"' +
      'x'.repeat(200) +
      '"}}</tool_call> after';
    const options = { tools, maxCallChars: 100, generateId: () => 'id' };
    fastPath.enabled = true;
    const fast = hermes.createStreamParser(options);
    const fastEvents = [...fast.push(source), ...fast.end()];
    fastPath.enabled = false;
    const slow = hermes.createStreamParser(options);
    expect(fastEvents).toEqual([...slow.push(source), ...slow.end()]);
  });
});
