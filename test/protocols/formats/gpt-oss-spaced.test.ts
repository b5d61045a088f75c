/**
 * Harmony with horizontal white space after its special tokens (LLM-jp 4.1 writes
 * `<|channel|> commentary`): read as the unspaced header, and nothing else is accepted.
 */
import { describe, expect, it } from 'vitest';
import { gptOssProtocol } from '../../../src/protocols/gpt-oss/index.ts';
import { callsIn, errorsIn, partsOf, reasoningIn, textIn } from './json-format-checks.ts';

const harmony = gptOssProtocol();
const weather = { name: 'get_weather', input: { city: 'Oslo' } };

describe('gpt-oss: spaces after special tokens', () => {
  it.each([
    [
      'one space',
      '<|channel|> commentary to=functions.get_weather <|constrain|> json<|message|> {"city": "Oslo"}<|call|>',
    ],
    [
      'tabs and runs',
      '<|channel|>\t  commentary \tto=functions.get_weather\t<|constrain|>json<|message|>\t{"city": "Oslo"}<|call|>',
    ],
    [
      'after <|start|>',
      '<|start|> assistant<|channel|> commentary to=functions.get_weather<|message|>{"city": "Oslo"}<|call|>',
    ],
    [
      'recipient in the role header',
      '<|start|>  assistant to=functions.get_weather<|channel|> commentary json<|message|>{"city": "Oslo"}<|call|>',
    ],
    [
      'on the analysis channel',
      '<|channel|> analysis to=functions.get_weather <|constrain|>json<|message|>{"city": "Oslo"}<|call|>',
    ],
  ])('reads the call: %s', (_label, text) => {
    const parts = partsOf(harmony, text);
    expect(callsIn(parts)).toEqual([weather]);
    expect(textIn(parts)).toBe('');
    expect(errorsIn(parts)).toEqual([]);
  });

  it('reads spaced message headers: analysis as reasoning, final as the answer', () => {
    const parts = partsOf(
      harmony,
      '<|channel|> analysis<|message|> Think.<|end|><|start|> assistant<|channel|> final <|message|> Hi.<|return|>',
    );
    expect(reasoningIn(parts)).toBe('Think.');
    expect(textIn(parts)).toBe('Hi.');
  });

  it('accepts nothing else new: other words, spaces inside the recipient, no recipient', () => {
    for (const text of [
      '<|channel|> chat to=functions.get_weather<|message|>{"city": "Oslo"}',
      '<|channel|> commentary to = functions.get_weather<|message|>{"city": "Oslo"}',
      '<|channel|> commentaryto=functions.get_weather<|message|>{"city": "Oslo"}',
      '<|start|> user<|message|>hello',
      'a <|channel|> \n commentary b',
    ]) {
      const parts = partsOf(harmony, text);
      expect(callsIn(parts), text).toEqual([]);
    }
    // A header that is not one stays as written.
    expect(textIn(partsOf(harmony, 'a <|channel|>  chat b'))).toBe('a <|channel|>  chat b');
    expect(textIn(partsOf(harmony, '<|start|> user: hi'))).toBe('<|start|> user: hi');
  });
});
