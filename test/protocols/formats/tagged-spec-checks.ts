/**
 * Checks shared by the spec-built formats of the tagged codec (Kimi K3, MiniCPM, GCML, …): the
 * ParameterTagsBody checks (round trip, totality and chunk invariance on the format's own
 * markup, linear time) and the rule that a result is never read as a call.
 */
import { expect, it } from 'vitest';
import type {
  ParsedContent,
  ParseOptions,
  ToolCallProtocol,
  ToolDefinition,
} from '../../../src/index.ts';
import { contentAtEverySplit, TOOLS, weatherTool, writeFileTool } from '../helpers.ts';
import { type Reading, readingOf } from './family-checks.ts';
import { parameterTagsChecks } from './parameter-tags-checks.ts';

/** A parse at every split into two chunks and one character at a time: calls, text, errors. */
export function readAtEverySplit(
  protocol: ToolCallProtocol,
  text: string,
  options: ParseOptions,
  endOptions?: { readonly interrupted?: boolean },
): Reading {
  return readingOf(contentAtEverySplit(protocol, text, options, endOptions) as ParsedContent[]);
}

export function taggedSpecChecks(
  protocol: ToolCallProtocol,
  /** Tags a raw value cannot hold (its own closer, the next parameter's opener…). */
  markup: readonly string[],
  options: Partial<ParseOptions> = {},
): void {
  parameterTagsChecks(protocol, markup);

  it('never reads a result as a call, even one that holds its own calls', () => {
    const calls = protocol.formatToolCall([
      { toolName: 'get_weather', input: { city: 'Oslo', days: 2 } },
      { toolName: 'write_file', input: { path: 'a', content: 'b' } },
    ]);
    const tools: readonly ToolDefinition[] = [...TOOLS, weatherTool, writeFileTool];
    for (const output of [calls, { text: calls }, [calls, calls], `x ${calls} y`]) {
      for (const isError of [false, true]) {
        const written = protocol.formatToolResponse({ toolName: 'get_weather', output, isError });
        const parts = protocol.parseGeneratedText(written, { tools, ...options });
        expect(parts.filter((part) => part.type === 'tool-call')).toEqual([]);
      }
    }
  });
}
