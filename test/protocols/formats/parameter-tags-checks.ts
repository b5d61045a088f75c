/**
 * Checks shared by the formats read by ParameterTagsBody (qwen3-coder, seed-oss, minimax, glm):
 * round trip, totality and chunk invariance on the format's own markup, and linear time.
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { parseJsonText } from '../../../src/core/parse-json.ts';
import type { JsonSchema, ToolCallProtocol, ToolDefinition } from '../../../src/index.ts';
import { expectLinearGrowth } from '../../support/growth.ts';
import { contentOf, splitAt, streamEvents, streamingViolations, TOOLS } from '../helpers.ts';

/** Strings that markup, escapes and white space make hard to carry as a raw value. */
export const VALUE_STRING = fc.string({
  unit: fc.oneof(
    fc.constantFrom(
      '<',
      '>',
      '&',
      '&amp;',
      '</x>',
      '<b>',
      '\n',
      '\r',
      ' ',
      '\t',
      '"',
      "'",
      '😀',
      'é',
    ),
    fc.string({ minLength: 1, maxLength: 1 }),
  ),
  maxLength: 24,
});

/** Argument names, plain and not (`__proto__`, spaces, markup characters). */
export const KEY = fc.oneof(
  fc.stringMatching(/^[a-z_][a-z0-9_]{0,8}$/),
  fc.string({ maxLength: 6 }),
  fc.constantFrom('__proto__', 'a b', ' x', 'k>', 'q"'),
);

export type Member = { value: unknown; schema: JsonSchema };

/**
 * A value and its schema. `untyped`: a value other than a string may come with a schema that
 * says nothing of its type; `integerArrays`: arrays of integers too.
 */
export function memberOf(
  strings: fc.Arbitrary<string>,
  options: { readonly untyped?: boolean; readonly integerArrays?: boolean } = {},
): fc.Arbitrary<Member> {
  const typedOrNot = (arbitrary: fc.Arbitrary<Member>) =>
    options.untyped
      ? fc
          .tuple(arbitrary, fc.boolean())
          .map(([each, bare]) => (bare ? { ...each, schema: {} } : each))
      : arbitrary;
  const members = [
    strings.map((value) => ({ value, schema: { type: 'string' } })),
    typedOrNot(fc.integer().map((value) => ({ value, schema: { type: 'integer' } }))),
    typedOrNot(
      fc
        .double({ noNaN: true, noDefaultInfinity: true })
        .map((value) => ({ value, schema: { type: 'number' } })),
    ),
    typedOrNot(fc.boolean().map((value) => ({ value, schema: { type: 'boolean' } }))),
    typedOrNot(fc.constant({ value: null, schema: { type: 'null' } })),
    fc
      .array(strings, { maxLength: 3 })
      .map((value) => ({ value, schema: { type: 'array', items: { type: 'string' } } })),
    typedOrNot(
      fc
        .dictionary(fc.string({ maxLength: 4 }), fc.integer(), { maxKeys: 3 })
        .map((value) => ({ value, schema: { type: 'object' } })),
    ),
  ];
  if (options.integerArrays) {
    members.push(
      typedOrNot(
        fc
          .array(fc.integer(), { maxLength: 3 })
          .map((value) => ({ value, schema: { type: 'array', items: { type: 'integer' } } })),
      ),
    );
  }
  return fc.oneof(...members);
}

const MEMBER = memberOf(VALUE_STRING);

/** Whether a string value holds markup that no raw layout can carry (documented limit). */
function writable(value: string, closers: readonly string[]): boolean {
  return !closers.some((closer) => value.includes(closer));
}

export function parameterTagsChecks(
  protocol: ToolCallProtocol,
  /** Tags a raw value cannot hold (its own closer, the next parameter's opener…). */
  markup: readonly string[],
): void {
  it('round-trips formatToolCall → parse for arbitrary names and values', () => {
    fc.assert(
      fc.property(fc.dictionary(KEY, MEMBER, { maxKeys: 4 }), (members) => {
        const value: Record<string, unknown> = {};
        const properties: Record<string, JsonSchema> = {};
        for (const [key, member] of Object.entries(members)) {
          Object.defineProperty(value, key, { value: member.value, enumerable: true });
          Object.defineProperty(properties, key, { value: member.schema, enumerable: true });
        }
        fc.pre(
          Object.values(value).every(
            (member) => typeof member !== 'string' || writable(member, markup),
          ),
        );
        const tool: ToolDefinition = {
          name: 'probe_tool',
          inputSchema: { type: 'object', properties },
        };
        const text = protocol.formatToolCall({ toolName: 'probe_tool', input: value });
        const content = protocol.parseGeneratedText(text, { tools: [tool] });
        expect(content.filter((part) => part.type !== 'tool-call')).toEqual([]);
        const calls = content.filter((part) => part.type === 'tool-call');
        expect(calls).toHaveLength(1);
        expect(parseJsonText(calls[0]!.input)).toEqual(parseJsonText(JSON.stringify(value)));
        expect(calls[0]!.problems).toBeUndefined();
      }),
      { numRuns: 600 },
    );
  });

  it('is total and chunk-invariant on text made of its own markup, split anywhere', () =>
    expectTotalAndChunkInvariant(protocol, fragmentsOf(protocol, markup), 400));

  it('reads many openers, and a large argument, in linear time', () => {
    const read = (text: string) => streamEvents(protocol, [text], { tools: TOOLS });
    const opener = sample(protocol).slice(0, 12);
    expectLinearGrowth((count) => `${opener}x `.repeat(count), read, 1_000);
    const argument = (size: number) =>
      protocol.formatToolCall({
        toolName: 'write_file',
        input: { path: 'p', content: 'line <b>x</b> & y\n'.repeat(size / 18) },
      });
    expectLinearGrowth(argument, read, 1 << 15);
  });
}

/** Pieces of the writer's own calls, whole and halved, with `markup` and a few plain strings. */
export function fragmentsOf(protocol: ToolCallProtocol, markup: readonly string[]): string[] {
  const sample = protocol.formatToolCall([
    { toolName: 'get_weather', input: { city: 'Qq', days: 7 } },
    { toolName: 'write_file', input: { path: 'Pp', content: 'Zz' } },
  ]);
  const pieces = sample.split(/Qq|7|Pp|Zz/).filter((piece) => piece.length > 0);
  return [
    ...new Set([
      ...pieces,
      ...pieces.flatMap((piece) => [
        piece.slice(0, piece.length >> 1),
        piece.slice(piece.length >> 1),
      ]),
      ...markup,
      '<think>',
      '</think>',
      '\n',
      ' ',
      'Oslo',
      '12',
      '{"a": 1}',
      '<',
      '>',
      '&lt;',
    ]),
  ];
}

/**
 * Text made of `fragments`, whole, split anywhere and one character at a time, ended or
 * interrupted: the same content every time, the streaming contract kept, nothing thrown, and
 * (unless `textNoLongerThanOutput` is false, for a caller that checks it apart) no more text
 * read than there was output.
 */
export function expectTotalAndChunkInvariant(
  protocol: ToolCallProtocol,
  fragments: readonly string[],
  numRuns: number,
  { textNoLongerThanOutput = true }: { readonly textNoLongerThanOutput?: boolean } = {},
): void {
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom(...fragments), { maxLength: 30 }).map((parts) => parts.join('')),
      fc.array(fc.nat(), { maxLength: 6 }),
      fc.boolean(),
      (text, cuts, interrupted) => {
        const run = (chunks: string[]) => {
          const parser = protocol.createStreamParser({ tools: TOOLS, generateId: counter() });
          const events = chunks.flatMap((chunk) => parser.push(chunk));
          events.push(...parser.end({ interrupted }));
          return events;
        };
        const whole = run([text]);
        const split = run(splitAt(text, cuts));
        expect(contentOf(split)).toEqual(contentOf(whole));
        expect(contentOf(run([...text]))).toEqual(contentOf(whole));
        expect(streamingViolations(split)).toEqual([]);
        if (!textNoLongerThanOutput) return;
        // Nothing lost: every character is text, reasoning, a call's, or in an error's raw text.
        const covered = contentOf(whole) as { type: string; text?: string }[];
        const plain = covered
          .filter((part) => part.type === 'text')
          .map((part) => part.text)
          .join('');
        expect(plain.length).toBeLessThanOrEqual(text.length);
      },
    ),
    { numRuns },
  );
}

function sample(protocol: ToolCallProtocol): string {
  return protocol.formatToolCall({ toolName: 'get_weather', input: { city: 'Oslo' } });
}

function counter(): () => string {
  let next = 0;
  return () => `id${next++}`;
}

export type Part = {
  type: string;
  text?: string;
  toolName?: string;
  input?: string;
  problems?: unknown[];
  error?: { code: string; raw: string; message: string };
};
