/**
 * Openers that begin with a letter (`call:`, `functools[`, `Action: ```json`,
 * `function call<|role_sep|>`) are searched for whole, not at every letter of prose: found
 * wherever they stand, held back when a chunk ends inside one (also when a shorter opener, `<`
 * or a backtick, begins inside it), and a prefix at the output's end is text.
 */
import { describe, expect, it } from 'vitest';
import { autoProtocol, protocolByName } from '../../../src/index.ts';
import { contentAtEverySplit, TOOLS } from '../helpers.ts';

const CALL = { toolName: 'get_weather', input: { city: 'Oslo' } };
const OPTIONS = { tools: TOOLS, startInReasoning: false };

describe('openers that begin with a letter', () => {
  for (const name of ['command-r', 'gigachat', 'firefunction', 'arrow-calls', 'gemma4']) {
    it(`${name}: read in prose full of its first letter, at every split, named and in auto`, () => {
      const named = protocolByName(name);
      const call = named.formatToolCall(CALL);
      const text = `fact: a cool call for code, fine.\n${call}\nfin`;
      const expected = contentAtEverySplit(named, text, OPTIONS) as { type: string }[];
      expect(expected.filter((part) => part.type === 'tool-call')).toHaveLength(1);
      expect(contentAtEverySplit(autoProtocol(), text, OPTIONS)).toEqual(expected);
    });
  }

  it('keeps the start of such an opener at the end of the output as text', () => {
    for (const text of ['see Action: ``', 'so function call<|', 'x functools']) {
      expect(contentAtEverySplit(autoProtocol(), text, OPTIONS)).toEqual([{ type: 'text', text }]);
    }
  });
});
