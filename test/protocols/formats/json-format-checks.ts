/**
 * Checks shared by the tests of the JSON-array formats (mistral, granite, command-r,
 * firefunction, xlam, apertus): the stream invariants on text made of the format's markup, the
 * formatToolCall → parse round trip, and linear time on many openers and one large argument.
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { parseJsonText } from '../../../src/core/parse-json.ts';
import type { ParsedContent, ToolCallProtocol, ToolDefinition } from '../../../src/index.ts';
import { expectLinearGrowth } from '../../support/growth.ts';
import {
  contentAtEverySplit,
  contentOf,
  splitAt,
  streamEvents,
  streamingViolations,
  TOOLS,
} from '../helpers.ts';

export { TOOLS };

/** The parts of a whole-text parse, ids removed, after checking every split of it. */
export function partsOf(
  protocol: ToolCallProtocol,
  text: string,
  options: { tools?: readonly ToolDefinition[]; interrupted?: boolean } = {},
): ParsedContent[] {
  return contentAtEverySplit(
    protocol,
    text,
    { tools: options.tools ?? TOOLS },
    { interrupted: options.interrupted ?? false },
  ) as ParsedContent[];
}

export function callsIn(parts: readonly ParsedContent[]): { name: string; input: unknown }[] {
  return parts.flatMap((part) =>
    part.type === 'tool-call' ? [{ name: part.toolName, input: parseJsonText(part.input) }] : [],
  );
}

export function textIn(parts: readonly ParsedContent[]): string {
  return parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
}

export function reasoningIn(parts: readonly ParsedContent[]): string {
  return parts.flatMap((part) => (part.type === 'reasoning' ? [part.text] : [])).join('');
}

export function errorsIn(parts: readonly ParsedContent[]) {
  return parts.flatMap((part) => (part.type === 'error' ? [part.error] : []));
}

/** Fragments any format's test text is made of, beside the format's own markup. */
export const COMMON_FRAGMENTS = [
  '[',
  ']',
  '{',
  '}',
  '"',
  ':',
  ',',
  ' ',
  '\n',
  'a',
  '```',
  '```json\n',
  '\\',
  'é',
  '<think>',
  '</think>',
  '"get_weather"',
  '"name"',
  '"arguments"',
  '{"city": "Oslo"}',
  'get_weather',
];

/** Property tests of the stream invariants, for a format whose markup is `fragments`. */
export function itIsChunkInvariantOnItsMarkup(
  protocol: ToolCallProtocol,
  fragments: readonly string[],
  tools: readonly ToolDefinition[] = TOOLS,
): void {
  const sample = protocol.formatToolCall([
    { toolName: 'get_weather', input: { city: 'Qq', days: 7 } },
    { toolName: 'write_file', input: { path: 'Pp', content: 'Zz' } },
  ]);
  const pieces = sample.split(/Qq|7|Pp|Zz/).filter((piece) => piece.length > 0);
  const all = [...new Set([...COMMON_FRAGMENTS, ...fragments, ...pieces])];
  const outputText = fc
    .array(fc.constantFrom(...all), { maxLength: 30 })
    .map((parts) => parts.join(''));

  it('is total and chunk-invariant on text made of its markup, split anywhere', () => {
    fc.assert(
      fc.property(outputText, fc.array(fc.nat(), { maxLength: 6 }), (text, cuts) => {
        const whole = streamEvents(protocol, [text], { tools });
        const split = streamEvents(protocol, splitAt(text, cuts), { tools });
        expect(contentOf(split)).toEqual(contentOf(whole));
        expect(streamingViolations(split)).toEqual([]);
        // An interrupted output must not throw either.
        const cut = protocol.createStreamParser({ tools });
        cut.push(text);
        cut.end({ interrupted: true });
      }),
      { numRuns: 600 },
    );
  });
}

/** Chunk invariance on the format's markup and the round trip of `formatToolCall`. */
export function itKeepsTheStreamInvariants(
  protocol: ToolCallProtocol,
  fragments: readonly string[],
): void {
  itIsChunkInvariantOnItsMarkup(protocol, fragments);

  it('round-trips formatToolCall → parse for arbitrary argument values', () => {
    const value = fc.dictionary(
      fc.string({ maxLength: 6 }),
      fc.oneof(
        fc.string({
          unit: fc.constantFrom('a', '"', '\\', '\n', '<', ']', '}', '[TOOL_CALLS]', 'é'),
        }),
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.array(fc.integer(), { maxLength: 3 }),
      ),
      { maxKeys: 4 },
    );
    const tool: ToolDefinition = { name: 'probe_tool', inputSchema: { type: 'object' } };
    fc.assert(
      fc.property(fc.array(value, { minLength: 1, maxLength: 3 }), (inputs) => {
        const text = protocol.formatToolCall(
          inputs.map((input) => ({ toolName: 'probe_tool', input })),
        );
        const content = protocol.parseGeneratedText(text, { tools: [tool] });
        const calls = content.filter((part) => part.type === 'tool-call');
        expect(calls.map((call) => parseJsonText(call.input))).toEqual(
          inputs.map((input) => parseJsonText(JSON.stringify(input))),
        );
        expect(content.filter((part) => part.type !== 'tool-call')).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
}

/**
 * Parsing stays linear: sixteen times the calls (or the argument) takes about sixteen times the
 * CPU time, loosely (test/support/growth.ts: the bound is far under a quadratic reader's 256).
 * `call(i)` is one call of the format; `bigCall(text)` one call whose argument is `text`.
 */
export function itStaysLinear(
  protocol: ToolCallProtocol,
  call: (index: number) => string,
  bigCall: (argument: string) => string,
): void {
  const tools = TOOLS;
  const parseInChunks = (chunk: number) => (source: string) => {
    const parser = protocol.createStreamParser({ tools });
    for (let at = 0; at < source.length; at += chunk) parser.push(source.slice(at, at + chunk));
    parser.end();
  };

  it('parses many calls in time linear in their count', () => {
    const text = (count: number) =>
      Array.from({ length: count }, (_, index) => call(index)).join('\n');
    expectLinearGrowth(text, parseInChunks(4096), 1_000);
  });

  it('parses a large argument in time linear in its size', () => {
    expectLinearGrowth((size) => bigCall('x'.repeat(size)), parseInChunks(8192), 1 << 17);
  });
}
