/**
 * A malformed call that stands in `auto` (every other format gave up on it) reads the same
 * however the text was chunked: its raw text runs to where the last format gave up, whether or
 * not a chunk ended there. Found by the split property of test/protocols/invariants.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { autoProtocol } from '../../../src/index.ts';
import { contentAtEverySplit, TOOLS } from '../helpers.ts';

describe('auto: a malformed call that stands', () => {
  it.each([
    '<|tool_call>call:ge}<tool_call|><|tool_call>',
    '<|tool_call>call:ge}<tool_call|>',
    '<|tool_call>call:ge}<tool_call|>then prose',
    'Let me check. <|tool_call>call:get_weather}<tool_call|> <|tool_call>call:ge',
  ])('reads %j the same at every split', (text) => {
    const content = contentAtEverySplit(autoProtocol(), text, { tools: TOOLS }) as {
      type: string;
      text?: string;
      error?: { raw?: string };
    }[];
    // Nothing lost: the text given back is the output.
    expect(content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('')).toBe(
      text,
    );
    expect(content.some((part) => part.type === 'error')).toBe(true);
  });
});
