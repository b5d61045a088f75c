/**
 * Checks shared by the tests of the spec-built JSON families (internlm, hunyuan-a13b, jamba,
 * minimax-m1, apriel, gigachat): results are never read back as calls, and the family's wrapper
 * markup never stays in the text once its calls are read.
 */
import { expect, it } from 'vitest';
import type { ToolCallProtocol, ToolDefinition } from '../../../src/index.ts';
import { TOOLS } from '../helpers.ts';

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
