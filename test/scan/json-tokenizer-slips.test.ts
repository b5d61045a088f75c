/**
 * The three slips loose JSON reads (see JsonTokenizerOptions.strict), each decided by the
 * character that follows it: escapes JSON does not define, unescaped inner quotes, doubled braces.
 * Seen in real outputs: `\$` and regex escapes in code arguments (vLLM and llama.cpp issues),
 * `"He said "hello" to me"` (repaired by @ai-sdk-tool/parser since 4.1.25), and
 * `{{"name": …, "arguments": {{…}}}}` copied from a prompt whose braces a template escaped.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonText } from '../../src/core/parse-json.ts';
import { UNCONSTRAINED_POLICY } from '../../src/core/value-policy.ts';
import { createJsonTokenizer } from '../../src/scan/json-tokenizer.ts';
import { createJsonValueStreamer } from '../../src/scan/json-value-streamer.ts';
import { readLenientJson } from '../../src/scan/lenient-json.ts';
import { splitAt } from '../support/chunks.ts';

/** The value the tokenizer reads from `chunks`, or its failure. */
function read(chunks: readonly string[]): { value?: unknown; failure?: string } {
  const value = createJsonValueStreamer(UNCONSTRAINED_POLICY, () => {});
  const tokenizer = createJsonTokenizer(value);
  for (const chunk of chunks) tokenizer.write(chunk);
  if (!tokenizer.finish()) return { failure: tokenizer.failure?.message };
  return { value: value.value };
}

/** Reads `text` whole, a character at a time and cut in two everywhere: all must agree. */
function readEverySplit(text: string): { value?: unknown; failure?: string } {
  const whole = read([text]);
  expect(read(text.split('')), `${text} by character`).toEqual(whole);
  for (let cut = 1; cut < text.length; cut++) {
    expect(read(splitAt(text, [cut])), `${text} cut at ${cut}`).toEqual(whole);
  }
  return whole;
}

describe('escapes JSON does not define', () => {
  it.each([
    ['{"command": "echo \\$HOME"}', { command: 'echo \\$HOME' }],
    ['{"pattern": "\\d+\\.\\d+"}', { pattern: '\\d+\\.\\d+' }],
    ['{"path": "C:\\users\\me"}', { path: 'C:\\users\\me' }],
    ['{"path": "C:\\u12"}', { path: 'C:\\u12' }],
    ['{"text": "it\\\'s"}', { text: "it's" }],
    ['{"text": "\\u00e9\\n\\(x\\)"}', { text: 'é\n\\(x\\)' }],
  ])('keeps the backslash: %s', (text, value) => {
    expect(readEverySplit(text)).toEqual({ value });
  });
});

describe('unescaped inner quotes', () => {
  it.each([
    ['{"text": "He said "hello" to me"}', { text: 'He said "hello" to me' }],
    ['{"code": "print("hi")", "n": 1}', { code: 'print("hi")', n: 1 }],
    ['{"text": "a "quoted"", "b": ["x "y" z"]}', { text: 'a "quoted"', b: ['x "y" z'] }],
    ["{'text': 'it's fine'}", { text: "it's fine" }],
    ['{"text": "She said "no"\n}', { text: 'She said "no' }],
  ])('reads the quote as content when what follows cannot follow a string: %s', (text, value) => {
    expect(readEverySplit(text)).toEqual({ value });
  });

  it('ends the string where JSON goes on, whatever white space comes between', () => {
    expect(readEverySplit('{"a": "x"   \n  , "b": "y"  }')).toEqual({ value: { a: 'x', b: 'y' } });
    expect(readEverySplit('{"a": "x" "b": 2}')).toEqual({ value: { a: 'x', b: 2 } });
  });

  it('guesses nothing else: strings joined with +, a slip in a key, a quote then a comma', () => {
    expect(readEverySplit('{"a": "x" + "y"}').failure).toContain('offset 10');
    expect(readEverySplit('{"k"ey": 1}').failure).toBeDefined();
    // `"hello",` ends the string there; what follows is not JSON.
    expect(readEverySplit('{"a": "say "hello", then go"}').failure).toBeDefined();
  });

  it("ends the string before markup: a block's closer after JSON cut short", () => {
    const failure = readEverySplit('{"city": "Oslo"<|tool_call_end|>').failure;
    expect(failure).toContain('unexpected "<" at offset 15');
    expect(readEverySplit('{"city": "Oslo"```').failure).toContain('unexpected "`"');
  });

  it('reports the end of a string where inner quotes are not read at once, without waiting', () => {
    const events: string[] = [];
    const tokenizer = createJsonTokenizer(
      {
        startObject: () => events.push('{'),
        endObject: () => events.push('}'),
        startArray: () => events.push('['),
        endArray: () => events.push(']'),
        key: (name) => events.push(`key ${name}`),
        startString: () => events.push('string('),
        stringChunk: (text) => events.push(text),
        endString: () => events.push(')string'),
        primitive: (value) => events.push(String(value)),
      },
      { innerQuotesAt: (depth) => depth > 1 },
    );
    tokenizer.write('{"name": "get_weather"');
    expect(events).toEqual(['{', 'key name', 'string(', 'get_weather', ')string']);
    tokenizer.write(', "arguments": {"text": "say "hi""}}');
    expect(events.slice(5)).toEqual([
      'key arguments',
      '{',
      'key text',
      'string(',
      'say "hi"',
      ')string',
      '}',
      '}',
    ]);
  });

  it('never changes what valid JSON means', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.array(fc.nat(), { maxLength: 3 }), (value, cuts) => {
        const text = JSON.stringify(value, null, 1);
        expect(read(splitAt(text, cuts))).toEqual({ value: parseJsonText(text) });
      }),
      { numRuns: 500 },
    );
  });
});

describe('doubled braces', () => {
  it('reads a value whose every brace is doubled, split anywhere', () => {
    expect(readEverySplit('{{"name": "get_weather", "arguments": {{"city": "{x}"}}}}')).toEqual({
      value: { name: 'get_weather', arguments: { city: '{x}' } },
    });
    expect(readEverySplit('[{{"a": {{}}}}, {{"b": [1]}}]')).toEqual({
      value: [{ a: {} }, { b: [1] }],
    });
  });

  it('refuses a value whose braces are doubled only in part', () => {
    for (const text of [
      '{{"name": "f", "arguments": {"a": 1}}}',
      '{{"name": "f", "arguments": {{"a": 1}}}',
      '{"name": "f", "arguments": {{"a": 1}}}',
      '{{"a": 1} }',
    ]) {
      expect(readEverySplit(text).failure, text).toBeDefined();
    }
  });

  it('closes doubled braces in pairs when a repair closes what was left open', () => {
    expect(readLenientJson('{{"a": {{"b": 1')).toMatchObject({
      ok: true,
      value: { a: { b: 1 } },
    });
    expect(readLenientJson('{{"a": {{"b": 1}')).toMatchObject({ ok: true, value: { a: { b: 1 } } });
    // The first brace waits for the next character; a repair still closes it.
    expect(readLenientJson('{')).toMatchObject({ ok: true, value: {} });
    expect(readLenientJson('[{')).toMatchObject({ ok: true, value: [{}] });
  });
});
