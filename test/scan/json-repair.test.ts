import { describe, expect, it } from 'vitest';
import { type JsonRepairResult, repairJson } from '../../src/scan/json-repair.ts';

function repair(text: string, options: { maxDepth?: number; requireComplete?: boolean } = {}) {
  return repairJson(text, {
    maxDepth: options.maxDepth ?? 1000,
    requireComplete: options.requireComplete ?? false,
  });
}

/** The value the repaired text stands for; fails the test when the text was refused. */
function repairedValue(text: string, options?: { maxDepth?: number; requireComplete?: boolean }) {
  const result = repair(text, options);
  if (!result.ok) throw new Error(`refused ${JSON.stringify(text)}: ${result.message}`);
  return JSON.parse(result.json) as unknown;
}

function failureOf(text: string, options?: { maxDepth?: number; requireComplete?: boolean }) {
  const result: JsonRepairResult = repair(text, options);
  if (result.ok) throw new Error(`accepted ${JSON.stringify(text)} as ${result.json}`);
  return result;
}

describe('repairJson: loose syntax that holds all its data', () => {
  it('drops trailing commas', () => {
    expect(repairedValue('[1, 2,]')).toEqual([1, 2]);
    expect(repairedValue('{"a": 1,}')).toEqual({ a: 1 });
    expect(repairedValue('{"a": [1, {"b": 2,},],}')).toEqual({ a: [1, { b: 2 }] });
  });

  it('adds a comma missing between members or elements, and nothing else', () => {
    expect(repairedValue('{"a":1 "b":2}')).toEqual({ a: 1, b: 2 });
    expect(repairedValue('[1 2 -3]')).toEqual([1, 2, -3]);
    expect(repairedValue('["a" \'b\']')).toEqual(['a', 'b']);
    expect(repairedValue('[{"a": 1}\n{"b": 2} [3]]')).toEqual([{ a: 1 }, { b: 2 }, [3]]);
    expect(repairedValue('{"a": {"b": 1}\n  c: true}')).toEqual({ a: { b: 1 }, c: true });
  });

  it('reads single-quoted strings, their quotes and escapes', () => {
    expect(repairedValue("{'a': 'b'}")).toEqual({ a: 'b' });
    expect(repairedValue(`['say "hi"', 'it\\'s', "it\\'s", 'tab\\tand\\u00e9']`)).toEqual([
      'say "hi"',
      "it's",
      "it's",
      'tab\tand\u00e9',
    ]);
  });

  it('escapes control characters written raw inside a string', () => {
    expect(repairedValue('{"a": "line\nbreak\ttab\u0001"}')).toEqual({
      a: 'line\nbreak\ttab\u0001',
    });
    expect(repairedValue("['x\r\ny']")).toEqual(['x\r\ny']);
  });

  it('keeps the backslash of an escape JSON does not know, rather than guessing', () => {
    expect(repairedValue(String.raw`{"a": "x\q", "b": "\u12 and \x41", "c": 'C:\Users'}`)).toEqual({
      a: String.raw`x\q`,
      b: String.raw`\u12 and \x41`,
      c: String.raw`C:\Users`,
    });
  });

  it('quotes unquoted keys up to their colon', () => {
    expect(repairedValue('{city: "Oslo"}')).toEqual({ city: 'Oslo' });
    expect(repairedValue('{first_name: 1, $id: 2, some-key: 3, "b": 4, a b : 5, c\n: 6}')).toEqual({
      first_name: 1,
      $id: 2,
      'some-key': 3,
      b: 4,
      'a b': 5,
      c: 6,
    });
  });

  it('reads Python and JavaScript literals, undefined as null', () => {
    expect(
      repairedValue('{"a": True, "b": False, "c": None, "d": undefined, "e": [true, null]}'),
    ).toEqual({ a: true, b: false, c: null, d: null, e: [true, null] });
  });

  it('reads unquoted words inside an object or array as the text they are', () => {
    expect(repairedValue('{"unit": celsius, "note": hello world }')).toEqual({
      unit: 'celsius',
      note: 'hello world',
    });
    expect(repairedValue('[Paris, London]')).toEqual(['Paris', 'London']);
    expect(repairedValue('{"url": http://x.com/a?b=1, "path": /src/main.ts}')).toEqual({
      url: 'http://x.com/a?b=1',
      path: '/src/main.ts',
    });
    expect(repairedValue('{"time": 10:30, "ref": @me, "é": café}')).toEqual({
      time: '10:30',
      ref: '@me',
      é: 'café',
    });
    // Not JSON numbers: kept as written, never turned into another number.
    expect(repairedValue('[01, 1.2.3, 0x10, NaN, -Infinity, .5, 12a, trueish]')).toEqual([
      '01',
      '1.2.3',
      '0x10',
      'NaN',
      '-Infinity',
      '.5',
      '12a',
      'trueish',
    ]);
  });

  it('skips comments between tokens', () => {
    const text = `/* head */ {
      // a line comment
      "a": 1, /* between */ "b": [2 /* in */, 3], // trailing
      "c": hello // after a word
    } // tail`;
    expect(repairedValue(text)).toEqual({ a: 1, b: [2, 3], c: 'hello' });
  });

  it('strips a markdown fence around the text', () => {
    expect(repairedValue('```json\n{"a": 1}\n```')).toEqual({ a: 1 });
    expect(repairedValue('  ```\n[1, 2]\n```  \n')).toEqual([1, 2]);
    expect(repairedValue('```json\n{"a": [1, 2\n```')).toEqual({ a: [1, 2] });
  });

  it('drops stray closing brackets after the value', () => {
    expect(repairedValue('{"a": 1}}')).toEqual({ a: 1 });
    expect(repairedValue('[1]] ]\n')).toEqual([1]);
  });

  it('takes white space JSON does not know as white space', () => {
    expect(repairedValue('\ufeff{"a":\u00a01,\u2003"b": 2}')).toEqual({ a: 1, b: 2 });
  });

  it('closes brackets left open when the caller does not require a complete text', () => {
    expect(repairedValue('{"a": [1, 2')).toEqual({ a: [1, 2] });
    expect(repairedValue('{"a": 1,')).toEqual({ a: 1 });
    expect(repairedValue('{"a": {"b": hello')).toEqual({ a: { b: 'hello' } });
    expect(repairedValue('[')).toEqual([]);
    expect(repairedValue('{"a": 1 /* a comment never closed')).toEqual({ a: 1 });
  });

  it('writes __proto__ keys so that they stay own properties', () => {
    const value = repairedValue("{'__proto__': {'x': 1}, __proto__: 2,}") as object;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.hasOwn(value, '__proto__')).toBe(true);
  });
});

describe('repairJson: refuses what would need data the text does not hold', () => {
  const cases: readonly [text: string, offset: number, says: string][] = [
    ['{"file": }', 9, 'the value of the key "file" (offset 1) is missing at offset 9'],
    ['{"a": , "b": 2}', 6, 'the value of the key "a" (offset 1) is missing'],
    ['{"a": 1, "b":}', 13, 'the value of the key "b" (offset 9) is missing'],
    ['{"a":', 5, 'the value of the key "a" (offset 1) is missing at the end of the text'],
    ['[1,,2]', 3, 'an array element is missing at offset 3 (between two commas)'],
    ['[,1]', 1, 'an array element is missing at offset 1 (before the first element)'],
    ['{: 1}', 1, 'a key is missing before the ":" at offset 1'],
    ['{"a":1, : 2}', 8, 'a key is missing before the ":" at offset 8'],
    ['{,"a": 1}', 1, 'an object member is missing at offset 1 (before the first member)'],
    ['{"a": 1,,}', 8, 'an object member is missing at offset 8 (between two commas)'],
    ['{"a"}', 4, 'the key "a" (offset 1) has no value'],
    ['{"a", "b": 1}', 4, 'the key "a" (offset 1) has no value'],
    ['{"a": 1, b}', 10, 'the key "b" (offset 9) has no value'],
    ['{"a"', 4, 'the key "a" (offset 1) has no value'],
    ['{"a": tru', 6, 'the literal "tru" at offset 6 is cut short'],
    ['{"a": tru}', 6, 'the literal "tru" at offset 6 is cut short'],
    ['[Non, fals, nul, undef, n]', 1, 'the literal "Non" at offset 1 is cut short'],
    ['{"a": -}', 6, 'the number "-" at offset 6 is cut short'],
    ['{"a": 1e}', 6, 'the number "1e" at offset 6 is cut short'],
    ['{"a": 1e+ }', 6, 'the number "1e+" at offset 6 is cut short'],
    ['{"a": 1.}', 6, 'the number "1." at offset 6 is cut short'],
    ['[2, -', 4, 'the number "-" at offset 4 is cut short'],
  ];

  it.each(cases)('%j is missing data at offset %i', (text, offset, says) => {
    const failure = failureOf(text);
    expect(failure).toMatchObject({ reason: 'missing-data', offset });
    expect(failure.message).toContain(says);
  });

  it('refuses an operator between values', () => {
    expect(failureOf('{"a": "x" + "y"}')).toMatchObject({
      reason: 'not-json',
      offset: 10,
      message: 'unexpected "+" at offset 10, expected "," or "}"',
    });
    expect(failureOf('["x" + "y"]')).toMatchObject({ reason: 'not-json', offset: 5 });
    expect(failureOf('{"a": 2 * 3}')).toMatchObject({ reason: 'not-json', offset: 8 });
    expect(failureOf('{"a": +1}')).toMatchObject({ reason: 'not-json', offset: 6 });
  });

  it('refuses text that is not JSON, saying where', () => {
    const cases: readonly [string, number, string][] = [
      ['{"a" 1}', 5, 'expected ":" after the key "a"'],
      ['{"city" "Paris" :: }', 8, 'expected ":" after the key "city"'],
      ['{"a":: 1}', 5, 'unexpected ":" at offset 5'],
      ['{"a": [1}', 8, 'expected "," or "]"'],
      ['{"a": 1]', 7, 'expected "," or "}"'],
      ['hello', 0, 'found unquoted text "hello"'],
      ['get_weather(city="Paris")', 0, 'found unquoted text'],
      ['{"a":1}{"b":2}', 7, 'after the JSON value that ended at offset 7'],
      ['{"a":1},\n{"b":2}', 7, 'after the JSON value'],
      ['{"a": 1} trailing', 9, 'after the JSON value'],
      ['{"a": 1}\n```', 9, 'after the JSON value'],
      ['', 0, 'no JSON value'],
      ['  \n', 3, 'no JSON value'],
    ];
    for (const [text, offset, says] of cases) {
      const failure = failureOf(text);
      expect(failure, text).toMatchObject({ reason: 'not-json', offset });
      expect(failure.message, text).toContain(says);
    }
  });

  it('never closes a string the text left open: where it was meant to end cannot be told', () => {
    expect(failureOf('{"a": "hel')).toMatchObject({
      reason: 'incomplete',
      offset: 10,
      message:
        'the text ends at offset 10 before the JSON is complete: the string opened at offset 6 is not closed',
    });
    expect(failureOf('{"a": "x}')).toMatchObject({ reason: 'incomplete' });
    expect(failureOf('["a\\')).toMatchObject({ reason: 'incomplete' });
  });
});

describe('repairJson: complete or cut off', () => {
  const cutOff = [
    '{"a": "hel',
    '{"a": [1, 2',
    '{"name":"get_weather","argu',
    '{"name":"get_weather","arguments":{',
    '{"a": tru',
    '{"a": 1e',
    '{"a": -',
    '{"a":',
    '{"a"',
    '{a',
    '[1,',
    '[',
    '',
    '{"a": 1} /* a comment',
    '```json\n{"a": 1',
  ];

  it.each(cutOff)('%j is incomplete when the text must be complete', (text) => {
    const failure = failureOf(text, { requireComplete: true });
    expect(failure.reason).toBe('incomplete');
    expect(failure.offset).toBe(text.length);
    expect(failure.message).toMatch(/^the text ends at offset \d+ before the JSON is complete: /);
  });

  it('says which bracket is still open', () => {
    expect(failureOf('{"a": [1, 2', { requireComplete: true }).message).toBe(
      'the text ends at offset 11 before the JSON is complete: 2 brackets are not closed (the innermost is the "[" at offset 6)',
    );
  });

  it('accepts complete text, loose or not, when the text must be complete', () => {
    expect(repairedValue('{"a": 1}', { requireComplete: true })).toEqual({ a: 1 });
    expect(repairedValue("{'a': [1, 2,], b: None,} // done", { requireComplete: true })).toEqual({
      a: [1, 2],
      b: null,
    });
    expect(repairedValue('```json\n{"a": 1}\n```', { requireComplete: true })).toEqual({ a: 1 });
    expect(repairedValue('12', { requireComplete: true })).toBe(12);
  });

  it('reports the first problem in the text, before the end', () => {
    expect(failureOf('{"a": , "b": [1', { requireComplete: true })).toMatchObject({
      reason: 'missing-data',
      offset: 6,
    });
  });
});

describe('repairJson: nesting', () => {
  it('refuses nesting deeper than maxDepth at the bracket that goes too deep', () => {
    expect(repairedValue("[[['x']]]", { maxDepth: 3 })).toEqual([[['x']]]);
    expect(failureOf("[[[['x']]]]", { maxDepth: 3 })).toMatchObject({
      reason: 'too-deep',
      offset: 3,
      message: 'JSON nested deeper than 3 levels at offset 3',
    });
    expect(failureOf("{a: {b: [{'c': 1}]}}", { maxDepth: 3 })).toMatchObject({
      reason: 'too-deep',
      offset: 9,
    });
    expect(failureOf('[1]', { maxDepth: 0 })).toMatchObject({ reason: 'too-deep', offset: 0 });
    expect(repairedValue('1', { maxDepth: 0 })).toBe(1);
  });

  it('reads 100,000 open brackets without recursion, stopping at the cap', () => {
    const open = '['.repeat(100_000);
    expect(failureOf(open)).toMatchObject({ reason: 'too-deep', offset: 1000 });
    expect(failureOf('{"a":'.repeat(100_000))).toMatchObject({ reason: 'too-deep', offset: 5000 });
    expect(failureOf(open, { maxDepth: 200_000, requireComplete: true }).reason).toBe('incomplete');
    expect(repair(open, { maxDepth: 200_000 }).ok).toBe(true);
  });
});
