/**
 * Gemma 4's reader stays linear in its input, pushed in chunks and whole: many calls, many
 * openers that are not calls, bare calls held until they are whole, one large argument, and
 * delimiters and closers cut over and over.
 */
import { describe, it } from 'vitest';
import { gemma4Protocol } from '../../../src/protocols/formats/gemma4.ts';
import { expectLinearEngineWork, expectLinearGrowth } from '../../support/growth.ts';
import { TOOLS } from '../helpers.ts';

const gemma = gemma4Protocol();

function parseWhole(text: string): void {
  const parser = gemma.createStreamParser({ tools: TOOLS });
  parser.push(text);
  parser.end();
}

function parseInChunks(text: string): void {
  const parser = gemma.createStreamParser({ tools: TOOLS });
  for (let at = 0; at < text.length; at += 7) parser.push(text.slice(at, at + 7));
  parser.end();
}

describe('linear time', () => {
  // Many calls and one large argument, as every family: describeFamilyChecks in gemma4.test.ts.
  const shapes: [string, number, (n: number) => string][] = [
    ['calls', 5_000, (n) => '<|tool_call>call:get_weather{days:1}<tool_call|>'.repeat(n)],
    ['openers alone', 25_000, (n) => '<|tool_call>'.repeat(n)],
    ['bare openers in prose', 50_000, (n) => 'call: '.repeat(n)],
    ['bare calls', 5_000, (n) => 'call:get_weather{city:Oslo,days:1} '.repeat(n)],
    ['<call> fragments', 25_000, (n) => '<call>'.repeat(n)],
    ['parenthesis calls', 5_000, (n) => '<|tool_call>call:get_weather(city="Oslo")'.repeat(n)],
    ['tool_code fences', 5_000, (n) => '```tool_code\nget_weather(city="Oslo")\n```\n'.repeat(n)],
    [
      'cut delimiters in a string',
      200_000,
      (n) => `<|tool_call>call:write_file{content:<|"|>${'<|"|'.repeat(n)}`,
    ],
    [
      'cut closers after the arguments',
      50_000,
      (n) => `${'<|tool_call>call:get_weather{}<tool_'.repeat(n)}`,
    ],
    [
      'a large held bare argument',
      200_000,
      (n) => `call:write_file{path:<|"|>a<|"|>,content:<|"|>${'x'.repeat(n)}<|"|>}`,
    ],
    ['deep nesting', 200_000, (n) => `<|tool_call>call:get_weather{city:${'['.repeat(n)}`],
  ];

  it.each(shapes)('%s, pushed whole', (_label, size, shape) => {
    expectLinearGrowth(shape, parseWhole, size / 8);
  });

  it.each(shapes)('%s, pushed in 7-character chunks', (_label, size, shape) => {
    expectLinearGrowth(shape, parseInChunks, size / 8);
  });

  it.each(shapes)('%s: the engine counts linear work', (_label, size, shape) => {
    expectLinearEngineWork(shape, parseInChunks, size / 16);
  });
});
