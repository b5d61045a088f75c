/**
 * FunctionGemma's reader stays linear in its input, for text pushed in chunks and for a whole
 * text pushed at once: many calls, many failed openers, a bare block of many calls, one large
 * argument, and the shapes that make its line opener (`call:` at the start of the output) look back.
 */
import { describe, it } from 'vitest';
import { functionGemmaProtocol } from '../../../src/protocols/functiongemma/index.ts';
import { expectLinearGrowth } from '../../support/growth.ts';
import { TOOLS } from '../helpers.ts';
import { itStaysLinear } from './json-format-checks.ts';

const gemma = functionGemmaProtocol();

function parseWhole(text: string): () => void {
  return () => {
    const parser = gemma.createStreamParser({ tools: TOOLS });
    parser.push(text);
    parser.end();
  };
}

describe('linear time', () => {
  itStaysLinear(
    gemma,
    (index) =>
      `<start_function_call>call:get_weather{city:<escape>c${index}<escape>,days:${index}}<end_function_call>`,
    (argument) =>
      `<start_function_call>call:write_file{path:<escape>a<escape>,content:<escape>${argument}<escape>}<end_function_call>`,
  );

  it.each([
    [
      'explicit calls',
      5_000,
      (n: number) => '<start_function_call>call:get_weather{days:1}<end_function_call>'.repeat(n),
    ],
    ['failed openers', 25_000, (n: number) => '<start_function_call>'.repeat(n)],
    [
      'a bare block of calls',
      5_000,
      (n: number) => 'call:get_weather{city:Oslo,days:1}\n'.repeat(n),
    ],
    ['bare calls after text', 50_000, (n: number) => `x${'call:get_weather{city:Oslo}'.repeat(n)}`],
    ['Gemma 4 tokens', 25_000, (n: number) => '<|tool_call>'.repeat(n)],
    [
      'Gemma 4 blocks',
      25_000,
      (n: number) => '<|tool_call>call:f{a:<|"|>x<|"|>}<tool_call|>'.repeat(n),
    ],
    ['name lines before tags', 200_000, (n: number) => 'call:\n<'.repeat(n)],
    ['line starts', 200_000, (n: number) => '\ncall'.repeat(n)],
    [
      'cut escape tokens in a string',
      200_000,
      (n: number) => `<start_function_call>call:write_file{content:<escape>${'<escap'.repeat(n)}`,
    ],
  ])('%s, pushed whole', (_label, size, shape) => {
    expectLinearGrowth(shape, (text) => parseWhole(text)(), size / 8);
  });
});
