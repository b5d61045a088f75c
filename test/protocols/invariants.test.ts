/**
 * The invariants of DESIGN.md, held by property tests for every registered format and `auto`:
 * chunk invariance, nothing lost, growing prefix, round trip, and total (no throw on any input).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonText } from '../../src/core/parse-json.ts';
import {
  autoProtocol,
  FORMATS,
  type JsonSchema,
  type ToolCallProtocol,
  type ToolDefinition,
} from '../../src/index.ts';
import { grammarOf } from '../../src/protocols/define/define-protocol.ts';
import { contentOf, splitAt, streamEvents, streamingViolations, TOOLS } from './helpers.ts';

/**
 * Options that read an output from its first character as text: formats whose template opens
 * reasoning in the prompt (Apriel, Kimi K3) start in reasoning by default, which these
 * properties (text comes out as written, calls read back) are not about.
 */
const READ_AS_TEXT = (tools: readonly ToolDefinition[]) => ({ tools, startInReasoning: false });

const protocols: [string, ToolCallProtocol][] = [
  ...FORMATS.map((entry): [string, ToolCallProtocol] => [entry.name, entry.create()]),
  ['auto', autoProtocol()],
];

/**
 * The markup of a protocol's own calls and reasoning, cut into pieces: a formatted batch is
 * split around its values, and each piece of markup once more in the middle, so generated
 * text holds whole and broken openers, separators and closers of that format.
 */
function markupFragments(protocol: ToolCallProtocol): string[] {
  const sample = protocol.formatToolCall([
    { toolName: 'get_weather', input: { city: 'Qq', days: 7 } },
    { toolName: 'write_file', input: { path: 'Pp', content: 'Zz' } },
  ]);
  const pieces = sample.split(/Qq|7|Pp|Zz/).filter((piece) => piece.length > 0);
  const halves = pieces.flatMap((piece) =>
    piece.length > 3 ? [piece.slice(0, piece.length >> 1), piece.slice(piece.length >> 1)] : [],
  );
  const reasoning = (grammarOf(protocol)?.reasoningTags ?? []).flatMap((tag) => [
    tag.open,
    tag.close,
  ]);
  return [...new Set([...pieces, ...halves, ...reasoning])];
}

/** Fragments real outputs are made of, malformed ones included. */
const FRAGMENTS = [
  '<',
  '>',
  '/',
  '&',
  ';',
  '"',
  "'",
  '{',
  '}',
  '[',
  ']',
  ':',
  ',',
  '`',
  '```',
  '```json\n',
  '\n',
  ' ',
  'a',
  'Hello',
  'é',
  '😀',
  '\\',
  '&amp;',
  '&lt;',
  '<![CDATA[',
  ']]>',
  '<b>',
  '</b>',
  '<think>',
  '</think>',
  '<thinking>',
  '</thinking>',
  '<get_weather>',
  '</get_weather>',
  '<city>',
  '</city>',
  '<days>',
  '</days>',
  '<get_weather/>',
  '<write_file>',
  '</write_file>',
  '<content>',
  '</content>',
  '<path>',
  '</path>',
  '<attempt_completion>',
  '</attempt_completion>',
  '<result>',
  '</result>',
  '<tool_call>',
  '</tool_call>',
  '<execute>',
  '</execute>',
  '{"name": "get_weather", "arguments": {"city": "',
  '{"name": "get_weather", "args": {"city": "',
  '"}}',
  '"}',
  '[{"name": "write_file", "args": {"path": "p", "content": "',
  '"}}]',
];

/** `auto` reads every format, so its text is made of every format's markup. */
function fragmentsFor(name: string, protocol: ToolCallProtocol): string[] {
  const markup =
    name === 'auto'
      ? protocols.flatMap(([, each]) => markupFragments(each))
      : markupFragments(protocol);
  return [...new Set([...FRAGMENTS, ...markup])];
}

describe.each(protocols)('%s: invariants', (name, protocol) => {
  const tools = TOOLS;
  const fragments = fragmentsFor(name, protocol);
  const outputText = fc
    .array(fc.constantFrom(...fragments), { maxLength: 40 })
    .map((parts) => parts.join(''));

  it('is total and chunk-invariant on arbitrary output, split anywhere', () => {
    fc.assert(
      fc.property(outputText, fc.array(fc.nat(), { maxLength: 8 }), (text, cuts) => {
        const whole = streamEvents(protocol, [text], { tools });
        const split = streamEvents(protocol, splitAt(text, cuts), { tools });
        expect(contentOf(split)).toEqual(contentOf(whole));
        expect(streamingViolations(split)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('gives the same result for every single split point and one character at a time', () => {
    fc.assert(
      fc.property(outputText, (text) => {
        const whole = contentOf(streamEvents(protocol, [text], { tools }));
        for (let cut = 1; cut < text.length; cut++) {
          expect(
            contentOf(streamEvents(protocol, [text.slice(0, cut), text.slice(cut)], { tools })),
          ).toEqual(whole);
        }
        expect(contentOf(streamEvents(protocol, [...text], { tools }))).toEqual(whole);
      }),
      { numRuns: 120 },
    );
  });

  it('is total and chunk-invariant with nesting of any kind up to 100,000 levels', () => {
    const nesting = fc
      .tuple(
        fc.integer({ min: 1, max: 100_000 }),
        fc.constantFrom('[', '{"a":', "{'a':", '<a>', '<city>', '<options>'),
        fc.boolean(),
      )
      .map(([depth, opener, closed]) => {
        const close = opener.startsWith('<')
          ? `</${opener.slice(1)}`
          : opener.startsWith('{')
            ? '}'
            : ']';
        return opener.repeat(depth) + (closed ? close.repeat(depth) : '');
      });
    fc.assert(
      fc.property(outputText, nesting, outputText, fc.nat(), (before, nested, after, cut) => {
        const text = before + nested + after;
        const whole = streamEvents(protocol, [text], { tools });
        const split = streamEvents(protocol, splitAt(text, [cut % (text.length + 1)]), { tools });
        expect(contentOf(split)).toEqual(contentOf(whole));
        expect(streamingViolations(split)).toEqual([]);
      }),
      { numRuns: 25 },
    );
  });

  it('loses nothing: text with no call or reasoning markup comes out exactly', () => {
    const proseFragments = FRAGMENTS.filter(
      (fragment) =>
        !/^<(think|thinking|get_weather|write_file|attempt_completion|tool_call|execute|search)\b/.test(
          fragment,
        ) &&
        !fragment.startsWith('{"name"') &&
        !fragment.startsWith('[{"name"') &&
        !fragment.startsWith('```'),
    );
    const prose = fc
      .array(fc.constantFrom(...proseFragments), { maxLength: 40 })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(prose, fc.array(fc.nat(), { maxLength: 5 }), (text, cuts) => {
        const content = contentOf(streamEvents(protocol, splitAt(text, cuts), READ_AS_TEXT(tools)));
        const texts = content.filter((part) => (part as { type: string }).type === 'text');
        expect(texts.map((part) => (part as { text: string }).text).join('')).toBe(text);
        expect(content.length).toBe(texts.length);
      }),
      { numRuns: 250 },
    );
  });

  it('loses nothing in documents of prose, reasoning and calls, and reads every call back', () => {
    const safeProse = fc
      .array(
        fc.constantFrom(
          'a',
          ' ',
          '\n',
          'Hi.',
          '<',
          '>',
          '&',
          '<b>x</b>',
          '</think>',
          '"',
          '}',
          ']',
        ),
        { maxLength: 8 },
      )
      .map((parts) => parts.join(''));
    const reasoning = fc
      .array(fc.constantFrom('a', ' ', '<get_weather>', '<tool_call>', '<execute>', '{', '&'), {
        maxLength: 6,
      })
      .map((parts) => `<think>${parts.join('')}</think>`);
    const call = fc.record({
      city: fc.string({
        unit: fc.constantFrom('a', 'é', ' x', '<', '&', '"', '</city>', ']]>', '\n', '\\'),
      }),
      days: fc.integer({ min: -5, max: 400 }),
    });
    const segment = fc.oneof(
      safeProse.map((text) => ({ kind: 'text' as const, text })),
      reasoning.map((text) => ({ kind: 'reasoning' as const, text })),
      call.map((input) => ({ kind: 'call' as const, input })),
    );
    fc.assert(
      fc.property(
        fc.array(segment, { maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        (segments, cuts) => {
          const source = segments
            .map((part) =>
              part.kind === 'call'
                ? protocol.formatToolCall({ toolName: 'get_weather', input: part.input })
                : part.text,
            )
            .join('');
          const events = streamEvents(protocol, splitAt(source, cuts), READ_AS_TEXT(tools));
          expect(streamingViolations(events)).toEqual([]);
          const content = contentOf(events) as { type: string; text?: string; input?: string }[];
          const expectedText = segments
            .filter((part) => part.kind === 'text')
            .map((part) => part.text)
            .join('');
          expect(
            content
              .filter((part) => part.type === 'text')
              .map((part) => part.text)
              .join(''),
          ).toBe(expectedText);
          expect(
            content
              .filter((part) => part.type === 'reasoning')
              .map((part) => `<think>${part.text}</think>`),
          ).toEqual(segments.filter((part) => part.kind === 'reasoning').map((part) => part.text));
          const expectedCalls = segments
            .filter((part) => part.kind === 'call')
            .map((part) => part.input);
          const calls = content
            .filter((part) => part.type === 'tool-call')
            .map((part) => parseJsonText(part.input!));
          // Every city value (edge white space, `</city>`, `]]>` included) comes back exact.
          expect(calls).toEqual(expectedCalls);
          expect(content.some((part) => part.type === 'error')).toBe(false);
        },
      ),
      { numRuns: 250 },
    );
  });

  it('round-trips formatToolCall → parse for arbitrary argument values', () => {
    fc.assert(
      fc.property(argumentsWithSchema(name), ({ value, schema }) => {
        const tool: ToolDefinition = { name: 'probe_tool', inputSchema: schema };
        const text = protocol.formatToolCall({ toolName: 'probe_tool', input: value });
        const content = protocol.parseGeneratedText(text, READ_AS_TEXT([tool]));
        const calls = content.filter((part) => part.type === 'tool-call');
        expect(calls).toHaveLength(1);
        // Same value (JSON text normalises -0); XML may write array parameters last.
        expect(parseJsonText(calls[0]!.input)).toEqual(parseJsonText(JSON.stringify(value)));
        expect(calls[0]!.problems).toBeUndefined();
        expect(content.filter((part) => part.type !== 'tool-call')).toEqual([]);
      }),
      { numRuns: 250 },
    );
  });
});

const XML_KEY = fc.stringMatching(/^[a-z_][a-z0-9_]{0,8}$/).filter((key) => key !== 'item');
const ANY_KEY = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.constantFrom('__proto__', 'constructor', 'toString'),
);

const LEAF_STRING = fc.string({
  unit: fc.oneof(
    fc.constantFrom(
      '<',
      '>',
      '&',
      ']]>',
      '</x>',
      '</item>',
      '<item>',
      '&amp;',
      '<![CDATA[',
      '\n',
      ' ',
      '\t',
      '"',
      "'",
      '\\',
      '😀',
      '\u0000',
      '\ud800',
    ),
    fc.string({ minLength: 1, maxLength: 1, unit: 'binary' }),
  ),
  maxLength: 20,
});

type Generated = { value: unknown; schema: JsonSchema };

/** Python keyword arguments: a format writing `f(city="Oslo")` can only name identifiers. */
const IDENTIFIER_KEY = fc.stringMatching(/^[a-z_][a-z0-9_]{0,8}$/);

/** The argument names a format can write: any string in JSON, names in XML and Python. */
function topLevelKeys(name: string): fc.Arbitrary<string> {
  if (name === 'xml') return XML_KEY;
  if (name === 'pythonic') return IDENTIFIER_KEY;
  return ANY_KEY;
}

/** A value and the schema that describes it (arrays homogeneous), so coercion is the identity. */
function argumentsWithSchema(
  name: string,
): fc.Arbitrary<{ value: Record<string, unknown>; schema: JsonSchema }> {
  const topKey = topLevelKeys(name);
  // Nested objects are values (JSON objects or Python dicts), except in XML, where they are tags.
  const key = name === 'xml' ? XML_KEY : ANY_KEY;
  const leaf: fc.Arbitrary<Generated> = fc.oneof(
    LEAF_STRING.map((value) => ({ value, schema: { type: 'string' } })),
    fc.integer().map((value) => ({ value, schema: { type: 'integer' } })),
    fc
      .double({ noNaN: true, noDefaultInfinity: true })
      .map((value) => ({ value, schema: { type: 'number' } })),
    fc.boolean().map((value) => ({ value, schema: { type: 'boolean' } })),
    fc.constant({ value: null, schema: { type: 'null' } }),
  );
  const tree = fc.letrec<{ node: Generated }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      fc.dictionary(key, tie('node'), { maxKeys: 3 }).map((members) => objectOf(members)),
      fc.tuple(leaf, fc.nat({ max: 3 })).map(([first, count]) => ({
        value: Array.from({ length: count }, () => first.value),
        schema: { type: 'array', items: first.schema },
      })),
    ),
  }));
  return fc.dictionary(topKey, tree.node, { maxKeys: 4 }).map((members) => {
    const { value, schema } = objectOf(members);
    return { value: value as Record<string, unknown>, schema };
  });
}

function objectOf(members: Record<string, Generated>): Generated {
  const value: Record<string, unknown> = {};
  const properties: Record<string, JsonSchema> = {};
  for (const [name, member] of Object.entries(members)) {
    Object.defineProperty(value, name, {
      value: member.value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
    Object.defineProperty(properties, name, {
      value: member.schema,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return { value, schema: { type: 'object', properties } };
}
