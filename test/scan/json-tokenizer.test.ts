import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonText } from '../../src/core/parse-json.ts';
import {
  createJsonTokenizer,
  type JsonTokenHandler,
  type JsonTokenizer,
  type JsonTokenizerOptions,
} from '../../src/scan/json-tokenizer.ts';
import { splitAt } from '../support/chunks.ts';

/** A handler that records every call as a short readable string. */
function createRecorder(): JsonTokenHandler & { readonly events: string[] } {
  const events: string[] = [];
  return {
    events,
    startObject: () => events.push('{'),
    endObject: () => events.push('}'),
    startArray: () => events.push('['),
    endArray: () => events.push(']'),
    key: (name) => events.push(`key ${JSON.stringify(name)}`),
    startString: () => events.push('string('),
    stringChunk: (decoded) => events.push(`chunk ${JSON.stringify(decoded)}`),
    endString: () => events.push(')string'),
    primitive: (value) => events.push(`primitive ${Object.is(value, -0) ? '-0' : String(value)}`),
  };
}

interface Run {
  readonly events: string[];
  /** What each write returned. */
  readonly returns: number[];
  readonly tokenizer: JsonTokenizer;
  readonly finished: boolean;
}

function run(
  chunks: string | readonly string[],
  options?: JsonTokenizerOptions & { finish?: boolean },
): Run {
  const recorder = createRecorder();
  const tokenizer = createJsonTokenizer(recorder, options);
  const returns = (typeof chunks === 'string' ? [chunks] : chunks).map((chunk) =>
    tokenizer.write(chunk),
  );
  const finished = options?.finish === false ? false : tokenizer.finish();
  return { events: recorder.events, returns, tokenizer, finished };
}

/** Events with consecutive string pieces joined: what any chunking must agree on. */
function mergeStringChunks(events: readonly string[]): string[] {
  const merged: string[] = [];
  let pending = '';
  for (const event of events) {
    if (event.startsWith('chunk ')) {
      pending += parseJsonText(event.slice(6)) as string;
      continue;
    }
    if (pending !== '') merged.push(`chunk ${JSON.stringify(pending)}`);
    pending = '';
    merged.push(event);
  }
  return merged;
}

describe('createJsonTokenizer: plain JSON', () => {
  it('reports every token of a nested value in order', () => {
    const { events, tokenizer } = run('{"a": [1, -2.5e3, true, false, null, "x"], "b": {}}');
    expect(events).toEqual([
      '{',
      'key "a"',
      '[',
      'primitive 1',
      'primitive -2500',
      'primitive true',
      'primitive false',
      'primitive null',
      'string(',
      'chunk "x"',
      ')string',
      ']',
      'key "b"',
      '{',
      '}',
      '}',
    ]);
    expect(tokenizer.status).toBe('complete');
    expect(tokenizer.failure).toBeUndefined();
  });

  it('reads every number form of the JSON grammar', () => {
    for (const text of ['0', '-0', '12', '-12', '0.5', '1.25', '1e3', '1E+3', '2e-2', '-0.0e0']) {
      const { events, finished } = run(`[${text}]`);
      expect(finished).toBe(true);
      expect(events).toEqual([
        '[',
        `primitive ${Object.is(Number(text), -0) ? '-0' : Number(text)}`,
        ']',
      ]);
    }
  });

  it('does not report an empty string piece', () => {
    expect(run('""').events).toEqual(['string(', ')string']);
    expect(run(['"', '"']).events).toEqual(['string(', ')string']);
  });

  it('decodes every escape', () => {
    const { events } = run(String.raw`"\" \\ \/ \b \f \n \r \t \u00e9 \u20AC \ud83d\ude00"`);
    expect(events).toEqual([
      'string(',
      `chunk ${JSON.stringify('" \\ / \b \f \n \r \t é € 😀')}`,
      ')string',
    ]);
  });

  it('decodes escapes in keys', () => {
    expect(run(String.raw`{"a\"b\u0063": 1}`).events).toEqual([
      '{',
      'key "a\\"bc"',
      'primitive 1',
      '}',
    ]);
  });

  it('skips white space before and between tokens', () => {
    const { events, returns } = run(' \n\t\r{ "a" :\n1 ,\t"b" : [ ] } ');
    expect(events).toEqual(['{', 'key "a"', 'primitive 1', 'key "b"', '[', ']', '}']);
    expect(returns).toEqual([27]);
  });
});

describe('createJsonTokenizer: where the value ends', () => {
  it('returns the index just after the value when text follows it', () => {
    expect(run('{"a":1}</tool_call>').returns).toEqual([7]);
    expect(run('[1, 2]  more').returns).toEqual([6]);
    expect(run('"text"</arg>').returns).toEqual([6]);
    expect(run('true</arg>').returns).toEqual([4]);
    expect(run('None,').returns).toEqual([4]);
  });

  it('ends a top-level number at the first character that cannot continue it', () => {
    const { events, returns } = run('12.5</tool_call>');
    expect(returns).toEqual([4]);
    expect(events).toEqual(['primitive 12.5']);
  });

  it('returns -1 while the value is unfinished, then the index in the chunk that ends it', () => {
    expect(run(['{"a"', ': [1', ']}', '</tool_call>']).returns).toEqual([-1, -1, 2, 0]);
  });

  it('reads nothing once complete: write returns where it was asked to start', () => {
    const recorder = createRecorder();
    const tokenizer = createJsonTokenizer(recorder);
    expect(tokenizer.write('{}')).toBe(2);
    expect(tokenizer.write('{"more": 1}', 3)).toBe(3);
    expect(recorder.events).toEqual(['{', '}']);
    expect(tokenizer.finish()).toBe(true);
  });

  it('reads only text[start, end)', () => {
    const recorder = createRecorder();
    const tokenizer = createJsonTokenizer(recorder);
    const text = 'xx{"a": "bcd"}yy';
    expect(tokenizer.write(text, 2, 10)).toBe(-1);
    expect(recorder.events).toEqual(['{', 'key "a"', 'string(', 'chunk "b"']);
    expect(tokenizer.write(text, 10, 12)).toBe(-1);
    expect(tokenizer.write(text, 12)).toBe(14);
    expect(mergeStringChunks(recorder.events)).toEqual([
      '{',
      'key "a"',
      'string(',
      'chunk "bcd"',
      ')string',
      '}',
    ]);
  });

  it('treats an empty range as nothing written', () => {
    const recorder = createRecorder();
    const tokenizer = createJsonTokenizer(recorder);
    expect(tokenizer.write('')).toBe(-1);
    expect(tokenizer.write('abc', 2, 2)).toBe(-1);
    expect(tokenizer.status).toBe('pending');
  });

  it('completes a top-level number at finish()', () => {
    const recorder = createRecorder();
    const tokenizer = createJsonTokenizer(recorder);
    expect(tokenizer.write('4')).toBe(-1);
    expect(tokenizer.write('2')).toBe(-1);
    expect(recorder.events).toEqual([]);
    expect(tokenizer.status).toBe('pending');
    expect(tokenizer.finish()).toBe(true);
    expect(recorder.events).toEqual(['primitive 42']);
    expect(tokenizer.status).toBe('complete');
  });

  it('fails at finish() when the value is unfinished', () => {
    const cases: [string, string][] = [
      ['', 'unexpected end of input at offset 0, expected a value'],
      ['{"a": 1', 'unexpected end of input at offset 7, expected "," or "}"'],
      ['[1,', 'unexpected end of input at offset 3, expected a value or "]"'],
      ['{"a"', 'unexpected end of input at offset 4, expected ":"'],
      ['"abc', 'unexpected end of input at offset 4, inside a string'],
      ['{"ab', 'unexpected end of input at offset 4, inside a key'],
      ['-', 'unexpected end of input at offset 1, inside a number'],
      ['1.', 'unexpected end of input at offset 2, inside a number'],
      ['[1', 'unexpected end of input at offset 2, expected "," or "]"'],
      ['tru', 'unexpected end of input at offset 3, expected "true"'],
      ['{a', 'unexpected end of input at offset 2, expected ":"'],
      ['[1 /* open', 'unexpected end of input at offset 10, inside a comment, expected "," or "]"'],
    ];
    for (const [text, message] of cases) {
      const { finished, tokenizer } = run(text);
      expect(finished, text).toBe(false);
      expect(tokenizer.status, text).toBe('failed');
      expect(tokenizer.failure?.message, text).toBe(message);
    }
  });
});

describe('createJsonTokenizer: strings arrive in pieces', () => {
  it('reports the part of a string seen so far at each chunk end', () => {
    expect(run(['"hello wor', 'ld', '"']).events).toEqual([
      'string(',
      'chunk "hello wor"',
      'chunk "ld"',
      ')string',
    ]);
  });

  it('joins the pieces of one chunk into one, escapes included', () => {
    expect(run(String.raw`"a\nb\tc"`).events).toEqual(['string(', 'chunk "a\\nb\\tc"', ')string']);
  });

  it('holds an escape split across writes until it is complete', () => {
    expect(run(['"a\\', 'nb"']).events).toEqual([
      'string(',
      'chunk "a"',
      'chunk "\\nb"',
      ')string',
    ]);
    expect(run(['"a\\u0', '0', 'e9b"']).events).toEqual([
      'string(',
      'chunk "a"',
      'chunk "éb"',
      ')string',
    ]);
  });

  it('never reports half of a surrogate pair, escaped or raw', () => {
    const emoji = '😀';
    const escaped = run(['"x\\ud83d', '\\ude00"']).events;
    expect(escaped).toEqual(['string(', 'chunk "x"', `chunk "${emoji}"`, ')string']);
    const raw = run([`"x${emoji[0]}`, `${emoji[1]}y"`]).events;
    expect(raw).toEqual(['string(', 'chunk "x"', `chunk "${emoji}y"`, ')string']);
    const alone = run(['"\\ud83d', '\\ude00', '"']).events;
    expect(alone).toEqual(['string(', `chunk "${emoji}"`, ')string']);
  });

  it('passes lone surrogates through once it is clear they are lone', () => {
    const high = run(['"\\ud800', 'x"']).events;
    expect(high).toEqual(['string(', `chunk ${JSON.stringify('\ud800x')}`, ')string']);
    const atEnd = run(['"\\ud800', '"']).events;
    expect(atEnd).toEqual(['string(', `chunk ${JSON.stringify('\ud800')}`, ')string']);
    const low = run('"\\udc00"').events;
    expect(low).toEqual(['string(', `chunk ${JSON.stringify('\udc00')}`, ')string']);
  });

  it('reads a key split across writes', () => {
    expect(run(['{"ke', 'y": 1}']).events).toEqual(['{', 'key "key"', 'primitive 1', '}']);
  });

  it('reads numbers and literals split across writes', () => {
    expect(run(['[12', '34.', '5e', '1, tr', 'ue, n', 'ull]']).events).toEqual([
      '[',
      'primitive 12345',
      'primitive true',
      'primitive null',
      ']',
    ]);
  });
});

describe('createJsonTokenizer: leniency', () => {
  it('accepts trailing commas in objects and arrays', () => {
    expect(run('{"a": [1, 2,], "b": {"c": 3,},}').events).toEqual([
      '{',
      'key "a"',
      '[',
      'primitive 1',
      'primitive 2',
      ']',
      'key "b"',
      '{',
      'key "c"',
      'primitive 3',
      '}',
      '}',
    ]);
    expect(run('[{},]').tokenizer.status).toBe('complete');
  });

  it("accepts single-quoted strings and keys, with \\' escapes and bare double quotes", () => {
    expect(run(`{'city': 'it\\'s "Seoul"'}`).events).toEqual([
      '{',
      'key "city"',
      'string(',
      `chunk ${JSON.stringify(`it's "Seoul"`)}`,
      ')string',
      '}',
    ]);
  });

  it("accepts \\' inside double-quoted strings too", () => {
    expect(run(`"it\\'s"`).events).toEqual(['string(', `chunk "it's"`, ')string']);
  });

  it('accepts unquoted identifier keys', () => {
    expect(run('{city: "Seoul", _private1: 1, $ref: 2, null: 3}').events).toEqual([
      '{',
      'key "city"',
      'string(',
      'chunk "Seoul"',
      ')string',
      'key "_private1"',
      'primitive 1',
      'key "$ref"',
      'primitive 2',
      'key "null"',
      'primitive 3',
      '}',
    ]);
    expect(run(['{ci', 'ty', ':1}']).events).toEqual(['{', 'key "city"', 'primitive 1', '}']);
    expect(run(['{city', ' : 1}']).events).toEqual(['{', 'key "city"', 'primitive 1', '}']);
  });

  it('accepts Python literals True, False and None', () => {
    expect(run('[True, False, None]').events).toEqual([
      '[',
      'primitive true',
      'primitive false',
      'primitive null',
      ']',
    ]);
  });

  it('accepts raw control characters inside strings as themselves', () => {
    const { events } = run('"line one\nline\ttwo\r\u0000"');
    expect(events).toEqual([
      'string(',
      `chunk ${JSON.stringify('line one\nline\ttwo\r\u0000')}`,
      ')string',
    ]);
  });

  it('accepts raw control characters next to escapes in a string that closes in one write', () => {
    const { events } = run('["tab\there \\"quoted\\" \\u00e9\nend", "\\n\\\\"]');
    expect(events).toEqual([
      '[',
      'string(',
      `chunk ${JSON.stringify('tab\there "quoted" é\nend')}`,
      ')string',
      'string(',
      `chunk ${JSON.stringify('\n\\')}`,
      ')string',
      ']',
    ]);
  });

  it('accepts // and /* */ comments wherever white space may go', () => {
    const text = [
      '// leading comment',
      '/* block */ { // after brace',
      '  "a" /* before colon */ : /* before value */ 1 /* after value */, // after comma',
      '  "b": [ /* in array */ 2 /** stars **/ ] /***/',
      '}',
    ].join('\n');
    expect(run(text).events).toEqual([
      '{',
      'key "a"',
      'primitive 1',
      'key "b"',
      '[',
      'primitive 2',
      ']',
      '}',
    ]);
  });

  it('reads comments split across writes', () => {
    expect(run(['[1 /', '/ x', '\n, 2 /', '* y *', '', '/ ]']).events).toEqual([
      '[',
      'primitive 1',
      'primitive 2',
      ']',
    ]);
    expect(run(['[1 /* a *', '*', '/ ]']).events).toEqual(['[', 'primitive 1', ']']);
    expect(run(['[1 // a\r', ']']).events).toEqual(['[', 'primitive 1', ']']);
  });

  it('keeps comment markers inside strings as text', () => {
    expect(run('"a // b /* c */"').events).toEqual([
      'string(',
      'chunk "a // b /* c */"',
      ')string',
    ]);
  });
});

describe('createJsonTokenizer: failures', () => {
  const cases: [text: string, message: string][] = [
    ['{"city": "Seoul", "n": 1 <tool_call>', 'unexpected "<" at offset 25, expected "," or "}"'],
    ['[1 hello]', 'unexpected "h" at offset 3, expected "," or "]"'],
    ['[1,,2]', 'unexpected "," at offset 3, expected a value or "]"'],
    ['[,1]', 'unexpected "," at offset 1, expected a value or "]"'],
    ['{,}', 'unexpected "," at offset 1, expected a key or "}"'],
    ['{"a" 1}', 'unexpected "1" at offset 5, expected ":"'],
    ['{"a":}', 'unexpected "}" at offset 5, expected a value'],
    ['{"a":1]', 'unexpected "]" at offset 6, expected "," or "}"'],
    ['[1}', 'unexpected "}" at offset 2, expected "," or "]"'],
    ['{1: 2}', 'unexpected "1" at offset 1, expected a key or "}"'],
    ['}', 'unexpected "}" at offset 0, expected a value'],
    ['<tool_call>', 'unexpected "<" at offset 0, expected a value'],
    ['[01]', 'unexpected "1" at offset 2, expected "." or an exponent after a leading 0'],
    ['[1.]', 'unexpected "]" at offset 3, expected a digit after "."'],
    ['[.5]', 'unexpected "." at offset 1, expected a value or "]"'],
    ['[+1]', 'unexpected "+" at offset 1, expected a value or "]"'],
    ['[-x]', 'unexpected "x" at offset 2, expected a digit'],
    ['[1e]', 'unexpected "]" at offset 3, expected a digit or sign in the exponent'],
    ['[1e+]', 'unexpected "]" at offset 4, expected a digit in the exponent'],
    ['[NaN]', 'unexpected "a" at offset 2, expected "None"'],
    ['[undefined]', 'unexpected "u" at offset 1, expected a value or "]"'],
    ['[tru]', 'unexpected "]" at offset 4, expected "true"'],
    ['[truex]', 'unexpected "x" at offset 5, expected "," or "]"'],
    ['{"unit": celsius}', 'unexpected "c" at offset 9, expected a value'],
    ['[1 / 2]', 'unexpected " " at offset 4, expected "/" or "*" to begin a comment'],
    ['[😀]', 'unexpected "\\ud83d" at offset 1, expected a value or "]"'],
  ];

  for (const [text, message] of cases) {
    it(`fails on ${JSON.stringify(text)}`, () => {
      const recorder = createRecorder();
      const tokenizer = createJsonTokenizer(recorder);
      expect(tokenizer.write(text)).toBe(-1);
      expect(tokenizer.status).toBe('failed');
      expect(tokenizer.failure?.message).toBe(message);
      expect(message).toContain(`offset ${tokenizer.failure?.offset}`);
    });
  }

  it('counts the failure offset over everything written, from each start', () => {
    const tokenizer = createJsonTokenizer(createRecorder());
    tokenizer.write('{"a":');
    tokenizer.write('<tool_call> 1 ;', 12);
    expect(tokenizer.failure).toEqual({
      message: 'unexpected ";" at offset 7, expected "," or "}"',
      offset: 7,
    });
  });

  it('stops at the failure: later writes return -1 and report nothing', () => {
    const recorder = createRecorder();
    const tokenizer = createJsonTokenizer(recorder);
    tokenizer.write('[1 x');
    const eventsAtFailure = [...recorder.events];
    expect(tokenizer.write(', 2]')).toBe(-1);
    expect(tokenizer.finish()).toBe(false);
    expect(recorder.events).toEqual(eventsAtFailure);
    expect(tokenizer.failure?.message).toBe('unexpected "x" at offset 3, expected "," or "]"');
  });
});

describe('createJsonTokenizer: depth cap', () => {
  it('accepts nesting up to maxDepth (1000 by default)', () => {
    const depth = 1000;
    const { tokenizer } = run('['.repeat(depth) + ']'.repeat(depth));
    expect(tokenizer.status).toBe('complete');
  });

  it('fails past maxDepth instead of growing without bound', () => {
    const { tokenizer } = run('['.repeat(100_000));
    expect(tokenizer.status).toBe('failed');
    expect(tokenizer.failure).toEqual({
      message: 'nesting deeper than 1000 levels at offset 1000',
      offset: 1000,
      tooDeep: true,
    });
  });

  it('honours a custom maxDepth, objects and arrays alike', () => {
    expect(run('{"a": [1]}', { maxDepth: 2 }).tokenizer.status).toBe('complete');
    expect(run('{"a": [{}]}', { maxDepth: 2 }).tokenizer.failure?.message).toBe(
      'nesting deeper than 2 levels at offset 7',
    );
  });
});

describe('createJsonTokenizer: properties', () => {
  /** Characters that exercise every state, so random text reaches deep into the grammar. */
  const jsonishCharacter = fc.constantFrom(
    ...'{}[],:"\'\\/*u0123456789e.-+ \n\ttrueflsnTFNoxa$_'.split(''),
    '\ud83d',
    '\ude00',
  );

  it('gives the same tokens, status and failure whatever the chunking', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: jsonishCharacter, maxLength: 40 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        (text, cuts) => {
          const whole = run(text);
          const chunked = run(splitAt(text, cuts));
          expect(mergeStringChunks(chunked.events)).toEqual(mergeStringChunks(whole.events));
          expect(chunked.tokenizer.status).toBe(whole.tokenizer.status);
          expect(chunked.tokenizer.failure).toEqual(whole.tokenizer.failure);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('reads a string the same in small pieces (one pass each) as in long ones, strict or not', () => {
    // Pieces shorter than the one-pass span and longer ones, quotes, escapes and raw controls at
    // every place, single-quoted strings too: one chunking must agree with any other.
    const unit = fc.constantFrom('a', 'b', ' ', '"', "'", '\\', 'n', 'u', '0', '\n', '<', 'é');
    fc.assert(
      fc.property(
        fc.string({ unit, minLength: 10, maxLength: 90 }),
        fc.constantFrom('"', "'"),
        fc.integer({ min: 1, max: 40 }),
        fc.boolean(),
        (content, quote, size, strict) => {
          const text = `{"k": ${quote}${content}${quote}, "z": 1}`;
          const pieces: string[] = [];
          for (let at = 0; at < text.length; at += size) pieces.push(text.slice(at, at + size));
          const whole = run(text, { strict });
          const chunked = run(pieces, { strict });
          expect(mergeStringChunks(chunked.events)).toEqual(mergeStringChunks(whole.events));
          expect(chunked.tokenizer.status).toBe(whole.tokenizer.status);
          expect(chunked.tokenizer.failure).toEqual(whole.tokenizer.failure);
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('decodes a string written at once exactly as one fed a character at a time', () => {
    // Written at once, a string that closes in the same write is decoded natively when it is
    // strict JSON; a character at a time, always escape by escape. Both must agree, failures too.
    const unit = fc.constantFrom(
      'a',
      'é',
      '😀',
      '\ud83d',
      '\n',
      '\t',
      '\u0000',
      "'",
      '\\\\',
      '\\"',
      "\\'",
      '\\/',
      '\\n',
      '\\u00e9',
      '\\u20AC',
      '\\ud83d',
      '\\ude00',
      '\\x',
      '\\u12g4',
      '"',
    );
    const piece = fc.array(unit, { maxLength: 40 }).map((units) => units.join(''));
    fc.assert(
      fc.property(piece, piece, fc.array(fc.nat(), { maxLength: 3 }), (key, value, cuts) => {
        const text = `{"${key}": "${value}", "k": ["${value}"]}`;
        const byCharacter = run(text.split(''));
        // Whole, and in a few long writes (content cut anywhere, inside escapes too).
        for (const chunks of [[text], splitAt(text, cuts)]) {
          const written = run(chunks);
          expect(mergeStringChunks(written.events)).toEqual(mergeStringChunks(byCharacter.events));
          expect(written.tokenizer.status).toBe(byCharacter.tokenizer.status);
          expect(written.tokenizer.failure).toEqual(byCharacter.tokenizer.failure);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('decodes a long string cut anywhere into two writes as one fed a character at a time', () => {
    const unit = fc.constantFrom(
      'ab',
      '😀',
      '\n',
      '"',
      '\\\\',
      '\\"',
      '\\n',
      '\\u00e9',
      '\\ud83d',
      "\\'",
    );
    const text = fc
      .array(unit, { minLength: 16, maxLength: 40 })
      .map((units) => `"${units.join('')}"`);
    fc.assert(
      fc.property(text, (text) => {
        const byCharacter = run(text.split(''));
        for (let cut = 1; cut < text.length; cut++) {
          const written = run([text.slice(0, cut), text.slice(cut)]);
          expect(mergeStringChunks(written.events)).toEqual(mergeStringChunks(byCharacter.events));
          expect(written.tokenizer.failure).toEqual(byCharacter.tokenizer.failure);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('never throws, and completes every text JSON.parse accepts at the same place', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: jsonishCharacter, maxLength: 30 }),
          fc.json().map((json) => ` ${json} `),
          fc.string({ unit: 'binary', maxLength: 20 }),
        ),
        (text) => {
          let parsed = true;
          try {
            parseJsonText(text);
          } catch {
            parsed = false;
          }
          const { tokenizer, returns } = run(text);
          if (parsed) {
            expect(tokenizer.status).toBe('complete');
            const after = returns[0] === -1 ? text.length : returns[0]!;
            expect(text.slice(after).trim()).toBe('');
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('createJsonTokenizer: strict mode', () => {
  it.each([
    ['[1, 2,]', 'a trailing comma'],
    ['{"a": 1,}', 'a trailing comma'],
    ["{'a': 1}", 'a single-quoted key'],
    ["['a']", 'a single-quoted string'],
    ['{a: 1}', 'an unquoted key'],
    ['[True]', "Python's True"],
    ['[None]', "Python's None"],
    ['[1 /* c */]', 'a comment'],
    ['["a\nb"]', 'a raw control character in a string'],
    [`["${'x'.repeat(40)}\\n${'y'.repeat(40)}\t"]`, 'a raw control character in a string'],
    ['["it\\\'s"]', "the escape \\'"],
    ['["a\\$b"]', 'invalid escape "\\\\$"'],
    ['["C:\\users"]', 'a hex digit in a \\u escape'],
    ['["say "hi" now"]', '"h"'],
    ['{{"a": 1}}', '"{"'],
  ])('refuses %j (%s) and says where', (text, what) => {
    const { tokenizer } = run(text, { strict: true });
    expect(tokenizer.status).toBe('failed');
    expect(tokenizer.failure?.message).toContain(what);
    expect(tokenizer.failure?.message).toContain(`at offset ${tokenizer.failure?.offset}`);
    // The same text is read when loose syntax is allowed.
    expect(run(text).tokenizer.status).toBe('complete');
  });

  it('accepts valid JSON, empty containers included, split anywhere', () => {
    const text = '{"a": [], "b": {}, "c": [1, {"d": "e\\n\\u00e9"}], "f": true, "g": null}';
    for (let cut = 0; cut <= text.length; cut++) {
      const { tokenizer } = run([text.slice(0, cut), text.slice(cut)], { strict: true });
      expect(tokenizer.status, `cut ${cut}`).toBe('complete');
    }
  });

  it('agrees with JSON.parse on JSON-like text', () => {
    const piece = fc.constantFrom(...'{}[],:"\'\\ \nTtrue1a/'.split(''), '"x"', 'null', ',]', ',}');
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 20 }).map((parts) => parts.join('')),
        (text) => {
          let valid = true;
          try {
            parseJsonText(text);
          } catch {
            valid = false;
          }
          const { tokenizer, returns } = run(text, { strict: true });
          // The tokenizer reads one value; what follows it is its caller's.
          const rest = returns[0] === undefined || returns[0] === -1 ? '' : text.slice(returns[0]);
          expect(tokenizer.status === 'complete' && rest.trim() === '', text).toBe(valid);
        },
      ),
      { numRuns: 5000 },
    );
  });
});

describe('createJsonTokenizer: a comma left out', () => {
  it('reads the next member where a comma was left out, never in strict mode', () => {
    for (const text of ['{"a": 1 "b": 2}', "{'a': 'x'\n'b': 'y'}", '[1 2 "x" {"a": []} [3]]']) {
      for (let cut = 0; cut <= text.length; cut++) {
        const { tokenizer } = run([text.slice(0, cut), text.slice(cut)]);
        expect(tokenizer.status, `${text} cut ${cut}`).toBe('complete');
      }
      expect(run(text, { strict: true }).tokenizer.status).toBe('failed');
    }
  });

  it('reads unquoted keys and literals there too, and fails on what is not a member', () => {
    expect(run('{"a": 1 b: 2}').tokenizer.status).toBe('complete');
    expect(run('[1 true None]').tokenizer.status).toBe('complete');
    expect(run('{"a": 1 "b"}').tokenizer.status).toBe('failed');
    expect(run('[1 hello]').tokenizer.status).toBe('failed');
    expect(run('{"a": 1 : 2}').tokenizer.status).toBe('failed');
  });
});
