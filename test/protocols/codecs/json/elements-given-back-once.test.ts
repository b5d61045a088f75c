/**
 * A block of JSON calls whose elements are not calls is given back once: each element where it
 * stood when the block goes on to make calls or ends well, or the whole block as one fault when
 * it breaks or is cut off with no call. Never both (the element's text twice in the output).
 */
import { describe, expect, it } from 'vitest';
import type { ParsedContent } from '../../../../src/core/index.ts';
import { protocolByName } from '../../../../src/protocols/index.ts';
import { contentAtEverySplit, TOOLS } from '../../helpers.ts';

function givenBack(content: readonly ParsedContent[]): { text: string; faults: string[] } {
  return {
    text: content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join(''),
    faults: content.flatMap((part) => (part.type === 'error' ? [part.error.raw ?? ''] : [])),
  };
}

const read = (format: string, text: string) =>
  givenBack(contentAtEverySplit(protocolByName(format), text, { tools: TOOLS }) as ParsedContent[]);

describe('elements that are not calls are given back once', () => {
  it.each([
    ['hermes', '<tool_call>{"city": "Oslo"}{"a": 1}', 1],
    ['hermes', '<tool_call>{"a": 1}{"b": 2}</tool_call>', 1],
    ['hermes', '<tool_call>[{"a": 1}', 1],
    ['hermes', '<tool_call>[{"a": 1}, {"b"', 1],
    ['jamba', '<tool_calls>[{"a": 1}', 1],
    ['longcat', '<longcat_tool_call>{"city": "Oslo"}{"a": 1}', 1],
    // Broken before its closer with nothing named: text, as a mention would be.
    ['hunyuan-a13b', '<tool_calls>[{"name": "get_we"}}]</to', 0],
    ['minimax-m1', '<tool_calls>\n}}\n{"name": "write_file"', 1],
  ] as const)(
    '%s: a block with no call, broken or cut off, is given back whole: %j',
    (format, output, faults) => {
      expect(read(format, output)).toEqual({ text: output, faults: faults === 1 ? [output] : [] });
    },
  );

  it('an element before a call is reported where it stood, once', () => {
    const output =
      '<tool_call>[{"a": 1},{"name": "get_weather", "arguments": {"city": "Oslo"}}]</tool_call>';
    const content = contentAtEverySplit(protocolByName('hermes'), output, {
      tools: TOOLS,
    }) as ParsedContent[];
    expect(content.map((part) => part.type)).toEqual(['error', 'text', 'tool-call']);
    expect(givenBack(content)).toEqual({ text: '{"a": 1}', faults: ['{"a": 1}'] });
  });

  it('a block that ends well with no call gives back each element, once', () => {
    const output = '<tool_call>[{"a": 1},{"b": 2}]</tool_call>';
    expect(read('hermes', output)).toEqual({
      text: '{"a": 1}{"b": 2}',
      faults: ['{"a": 1}', '{"b": 2}'],
    });
  });
});
