/**
 * Checks shared by the tests of spec-built JSON formats (arrow-calls; the 2026 families run them
 * through family-checks.ts): results are never read back as calls, and the format's wrapper
 * markup never stays in the text once its calls are read.
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { parseJsonText } from '../../../src/core/parse-json.ts';
import type { ToolCallProtocol, ToolDefinition } from '../../../src/index.ts';
import { contentOf, splitAt, streamEvents, streamingViolations, TOOLS } from '../helpers.ts';

/**
 * A result holding the family's own call markup (as text, inside a JSON value, as an error) is
 * written by `formatToolResponse` so that parsing it gives no call, whole or in any chunks.
 */
export function itNeverReadsResultsAsCalls(
  protocol: ToolCallProtocol,
  markup: readonly string[],
  tools: readonly ToolDefinition[] = TOOLS,
): void {
  it('never reads a result holding its call markup as a call', () => {
    const call = protocol.formatToolCall([
      { toolName: 'get_weather', input: { city: 'Oslo' } },
      { toolName: 'search', input: { query: 'q' } },
    ]);
    const outputs: unknown[] = [call, `Here: ${call} done`, { file: call }, [call]];
    for (const literal of markup) outputs.push(literal, `${literal}\n${call}`);
    for (const output of outputs) {
      for (const isError of [false, true]) {
        const text = protocol.formatToolResponse([
          { toolName: 'get_weather', output, ...(isError ? { isError } : {}) },
          { toolName: 'search', output: 'plain' },
        ]);
        for (const startInReasoning of [false, true]) {
          const parts = protocol.parseGeneratedText(text, { tools, startInReasoning });
          expect(
            parts.filter((part) => part.type === 'tool-call'),
            `${JSON.stringify(text)} (startInReasoning ${startInReasoning})`,
          ).toEqual([]);
        }
      }
    }
  });
}

/** Once calls are read, none of `wrappers` stays in the text. */
export function expectNoWrapperIn(text: string, wrappers: readonly string[]): void {
  for (const wrapper of wrappers) expect(text, wrapper).not.toContain(wrapper);
}

/**
 * An output read from its first character as text (`startInReasoning: false`), made of prose and
 * the writer's own calls in any order: the prose comes out exactly as written, every call is
 * read back, in order, and nothing else (no framing left in the text, no fault), split anywhere.
 * The writer's framing must read as framing wherever the writer puts it.
 */
export function itReadsProseAndItsOwnCallsBack(protocol: ToolCallProtocol): void {
  it('reads prose and its own calls back from an output read as text, split anywhere', () =>
    expectProseAndItsOwnCallsReadBack(protocol));
}

/** The property of `itReadsProseAndItsOwnCallsBack`, for a test that registers it itself. */
export function expectProseAndItsOwnCallsReadBack(protocol: ToolCallProtocol): void {
  const prose = fc
    .array(fc.constantFrom('a', ' ', '\n', 'Hi.', '<', '>', '&', '"', '}', ']', '\t'), {
      minLength: 1,
      maxLength: 6,
    })
    .map((parts) => parts.join(''));
  const input = fc.record({
    city: fc.string({ unit: fc.constantFrom('a', 'é', ' ', '<', '"', '\n', '\\', ']') }),
    days: fc.integer({ min: -5, max: 400 }),
  });
  const segment = fc.oneof(
    prose.map((text) => ({ kind: 'text' as const, text })),
    input.map((value) => ({ kind: 'call' as const, value })),
  );
  fc.assert(
    fc.property(
      fc.array(segment, { maxLength: 5 }),
      fc.array(fc.nat(), { maxLength: 5 }),
      (segments, cuts) => {
        const source = segments
          .map((part) =>
            part.kind === 'call'
              ? protocol.formatToolCall({ toolName: 'get_weather', input: part.value })
              : part.text,
          )
          .join('');
        const events = streamEvents(protocol, splitAt(source, cuts), {
          tools: TOOLS,
          startInReasoning: false,
        });
        expect(streamingViolations(events)).toEqual([]);
        const content = contentOf(events) as { type: string; text?: string; input?: string }[];
        expect(
          content
            .filter((part) => part.type === 'text')
            .map((part) => part.text)
            .join(''),
          JSON.stringify(source),
        ).toBe(
          segments
            .filter((part) => part.kind === 'text')
            .map((part) => part.text)
            .join(''),
        );
        expect(
          content
            .filter((part) => part.type === 'tool-call')
            .map((part) => parseJsonText(part.input!)),
        ).toEqual(segments.filter((part) => part.kind === 'call').map((part) => part.value));
        expect(content.filter((part) => part.type !== 'text' && part.type !== 'tool-call')).toEqual(
          [],
        );
      },
    ),
    { numRuns: 200 },
  );
}
