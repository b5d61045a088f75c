import { describe, expect, it } from 'vitest';
import { protocolByName } from '../../../../src/index.ts';
import { expectLinearEngineWork } from '../../../support/growth.ts';
import { searchTool, TOOLS, weatherTool } from '../../helpers.ts';

/**
 * Many small calls in one whole text (the bench's linearity pair, bench/floor.ts): the work the
 * parser counts grows as the text does, and so does what its parts hold. What the bench sees on
 * top (100k calls taking more than ten times 10k) is the collector's cost of the parts kept
 * alive to the end, which no count shows (see /work/requests/speed.md).
 */

const hermes = protocolByName('hermes');

function manyCalls(calls: number): string {
  const parts: string[] = [];
  for (let index = 0; index < calls; index++) {
    const call =
      index % 2 === 0
        ? { toolName: weatherTool.name, input: { city: 'Paris', days: 1 + (index % 14) } }
        : { toolName: searchTool.name, input: { query: `cache ${index} "retry"` } };
    parts.push(`Step ${index}: checking.\n`, hermes.formatToolCall(call), '\n');
  }
  return parts.join('');
}

describe('hermes: many calls in one whole text', () => {
  it('counts work linear in the number of calls', () => {
    expectLinearEngineWork(
      manyCalls,
      (text) => hermes.parseGeneratedText(text, { tools: TOOLS }),
      500,
    );
  });

  it('gives parts that hold text linear in the number of calls, every call read', () => {
    const held = (calls: number) => {
      const parts = hermes.parseGeneratedText(manyCalls(calls), { tools: TOOLS });
      expect(parts.filter((part) => part.type === 'tool-call')).toHaveLength(calls);
      let characters = 0;
      for (const part of parts) {
        if (part.type === 'text') characters += part.text.length;
        else if (part.type === 'tool-call')
          characters += part.input.length + part.toolCallId.length + part.toolName.length;
      }
      return { parts: parts.length, characters };
    };
    const small = held(500);
    const large = held(8000);
    // A text part before each call and one after the last.
    expect([small.parts, large.parts]).toEqual([2 * 500 + 1, 2 * 8000 + 1]);
    expect(large.characters).toBeLessThanOrEqual(17 * small.characters);
  });
});
