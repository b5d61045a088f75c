import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonText } from '../../src/core/parse-json.ts';
import { UNCONSTRAINED_POLICY, type ValuePolicy } from '../../src/core/value-policy.ts';
import { createJsonTokenizer } from '../../src/scan/json-tokenizer.ts';
import { createJsonValueStreamer } from '../../src/scan/json-value-streamer.ts';
import { createValuePolicy } from '../../src/schema/index.ts';
import { splitAt } from '../support/chunks.ts';

interface StreamRun {
  /** Every delta, in order. */
  readonly deltas: string[];
  /** The concatenated deltas after each write. */
  readonly afterEachWrite: string[];
  readonly value: unknown;
  readonly isComplete: boolean;
  readonly status: string;
}

function streamChunks(chunks: readonly string[], policy: ValuePolicy = UNCONSTRAINED_POLICY) {
  const deltas: string[] = [];
  const streamer = createJsonValueStreamer(policy, (delta) => deltas.push(delta));
  const tokenizer = createJsonTokenizer(streamer);
  const afterEachWrite: string[] = [];
  for (const chunk of chunks) {
    tokenizer.write(chunk);
    afterEachWrite.push(deltas.join(''));
  }
  tokenizer.finish();
  return {
    deltas,
    afterEachWrite,
    value: streamer.value,
    isComplete: streamer.isComplete,
    status: tokenizer.status,
  } satisfies StreamRun;
}

/** The whole text, every split into two chunks, and the given random multi-chunk splits. */
function chunkings(text: string, randomCuts: readonly (readonly number[])[]): string[][] {
  const result: string[][] = [[text]];
  for (let cut = 0; cut <= text.length; cut++) result.push([text.slice(0, cut), text.slice(cut)]);
  for (const cuts of randomCuts) result.push(splitAt(text, cuts));
  return result;
}

/** Every snapshot is a prefix of the next, and of the final text. */
function expectGrowingPrefix(run: StreamRun): void {
  const final = run.deltas.join('');
  let previous = '';
  for (const snapshot of run.afterEachWrite) {
    expect(snapshot.startsWith(previous)).toBe(true);
    previous = snapshot;
  }
  expect(final.startsWith(previous)).toBe(true);
}

/** Strings that stress escaping and the tag syntax a protocol wraps JSON in. */
const awkwardStringUnit = fc.oneof(
  fc.constantFrom('"', "'", '\\', '/', '</tool_call>', '\n', '\t', '\u0000', '\u2028', 'é'),
  fc.constantFrom('😀', '\ud83d', '\ude00', '\\u0041', '\\"'),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 3 }),
);

const jsonValues = fc.jsonValue({ maxDepth: 4, stringUnit: awkwardStringUnit });
const randomCutLists = fc.array(fc.array(fc.nat(), { maxLength: 12 }), { maxLength: 4 });

/** A small deterministic generator, so a rendering choice follows from a fast-check seed. */
function createChooser(seed: number): (choices: number) => number {
  let state = seed >>> 0 || 1;
  return (choices) => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % choices;
  };
}

/**
 * Writes `value` the way a careless model might, using every leniency the tokenizer accepts:
 * single quotes, bare keys, trailing commas, Python literals, comments, raw control characters
 * and needless escapes.
 */
function renderLeniently(value: unknown, choose: (choices: number) => number): string {
  const gap = () => [' ', '', '\n  ', ' /* note */ ', ' // note\n'][choose(5)]!;
  const renderString = (text: string, isKey: boolean): string => {
    if (isKey && /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(text) && choose(2) === 0) return text;
    const quote = choose(3) === 0 ? "'" : '"';
    let out = quote;
    for (let index = 0; index < text.length; index++) {
      const character = text[index]!;
      const code = text.charCodeAt(index);
      if (character === quote || character === '\\') out += `\\${character}`;
      else if (choose(6) === 0) out += `\\u${code.toString(16).padStart(4, '0')}`;
      else if (character === '\n' && choose(2) === 0) out += '\\n';
      else out += character;
    }
    return out + quote;
  };
  const render = (item: unknown): string => {
    if (typeof item === 'string') return renderString(item, false);
    if (item === true) return choose(2) === 0 ? 'True' : 'true';
    if (item === false) return choose(2) === 0 ? 'False' : 'false';
    if (item === null) return choose(2) === 0 ? 'None' : 'null';
    if (typeof item === 'number') return JSON.stringify(item);
    const trailing = () => (choose(3) === 0 ? ',' : '');
    if (Array.isArray(item)) {
      if (item.length === 0) return `[${gap()}]`;
      return `[${item.map((element) => gap() + render(element)).join(',')}${trailing()}${gap()}]`;
    }
    const entries = Object.entries(item as Record<string, unknown>);
    if (entries.length === 0) return `{${gap()}}`;
    const members = entries.map(
      ([key, element]) => `${gap()}${renderString(key, true)}${gap()}:${gap()}${render(element)}`,
    );
    return `{${members.join(',')}${trailing()}${gap()}}`;
  };
  return gap() + render(value);
}

/** A policy that holds or streams each place at random and coerces held values in odd ways. */
function createRandomPolicy(seed: number, path = ''): ValuePolicy {
  const hash = (text: string): number => {
    let result = 2166136261 ^ seed;
    for (let index = 0; index < text.length; index++) {
      result = Math.imul(result ^ text.charCodeAt(index), 16777619);
    }
    return result >>> 0;
  };
  const coercion = hash(path) % 6;
  return {
    streams: (kind) => hash(`${path}#${kind}`) % 3 !== 0,
    property: (key) => createRandomPolicy(seed, `${path}/${key}`),
    item: (index) => createRandomPolicy(seed, `${path}/${index}`),
    coerce(value) {
      switch (coercion) {
        case 0:
          return value;
        case 1:
          return typeof value === 'number' ? String(value) : value;
        case 2:
          return typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
        case 3:
          return [value];
        case 4:
          return undefined;
        default:
          return { held: value };
      }
    },
  };
}

/** Holds `count` (written as text) and coerces numeric text to a number; the rest streams. */
const countAsNumberPolicy: ValuePolicy = {
  streams: () => true,
  property: (key) => (key === 'count' ? numberPolicy : UNCONSTRAINED_POLICY),
  item: () => UNCONSTRAINED_POLICY,
  coerce: (value) => value,
};
const numberPolicy: ValuePolicy = {
  streams: () => false,
  property: () => UNCONSTRAINED_POLICY,
  item: () => UNCONSTRAINED_POLICY,
  coerce: (value) =>
    typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value,
};

describe('createJsonValueStreamer: streaming', () => {
  it('streams strings as they arrive and holds primitives until their token ends', () => {
    const run = streamChunks(['{"text": "Hel', 'lo", "n": 1', '2, "ok": tr', 'ue}']);
    expect(run.afterEachWrite).toEqual([
      '{"text":"Hel',
      '{"text":"Hello"',
      '{"text":"Hello","n":12',
      '{"text":"Hello","n":12,"ok":true}',
    ]);
    expect(run.value).toEqual({ text: 'Hello', n: 12, ok: true });
    expect(run.isComplete).toBe(true);
  });

  it('writes canonical JSON from lenient input', () => {
    const run = streamChunks([`{city: 'Seoul', days: [1, 2,], metric: True, /* c */ note: None,}`]);
    expect(run.deltas.join('')).toBe('{"city":"Seoul","days":[1,2],"metric":true,"note":null}');
    expect(run.value).toEqual({ city: 'Seoul', days: [1, 2], metric: true, note: null });
  });

  it('completes a top-level number only at finish', () => {
    const deltas: string[] = [];
    const streamer = createJsonValueStreamer(UNCONSTRAINED_POLICY, (delta) => deltas.push(delta));
    const tokenizer = createJsonTokenizer(streamer);
    tokenizer.write('4');
    tokenizer.write('2');
    expect(streamer.isComplete).toBe(false);
    expect(deltas).toEqual([]);
    tokenizer.finish();
    expect(streamer.isComplete).toBe(true);
    expect(streamer.value).toBe(42);
    expect(deltas).toEqual(['42']);
  });

  it('is not complete, and has no value, while the input is unfinished', () => {
    const run = streamChunks(['{"a": [1, "x']);
    expect(run.isComplete).toBe(false);
    expect(run.value).toBeUndefined();
    expect(run.status).toBe('failed');
  });

  it('can be driven directly, without a tokenizer', () => {
    const deltas: string[] = [];
    const streamer = createJsonValueStreamer(UNCONSTRAINED_POLICY, (delta) => deltas.push(delta));
    streamer.startObject();
    streamer.key('city');
    streamer.startString();
    streamer.stringChunk('Se');
    streamer.stringChunk('oul');
    streamer.endString();
    streamer.key('days');
    streamer.primitive(3);
    streamer.endObject();
    expect(deltas.join('')).toBe('{"city":"Seoul","days":3}');
    expect(streamer.value).toEqual({ city: 'Seoul', days: 3 });
    expect(streamer.isComplete).toBe(true);
  });

  it('can leave streamed strings out of the value when the caller keeps the deltas', () => {
    const deltas: string[] = [];
    const policy = createValuePolicy({
      type: 'object',
      properties: { path: { type: 'string' }, days: { type: 'integer' } },
    });
    const streamer = createJsonValueStreamer(policy, (delta) => deltas.push(delta), {
      keepStreamedStrings: false,
    });
    const tokenizer = createJsonTokenizer(streamer);
    tokenizer.write('{"path": "src/a\\nb.ts", "days": "3"}');
    // The string streamed, so only the deltas carry it; the held number was coerced and kept.
    expect(streamer.value).toEqual({ path: '', days: 3 });
    expect(parseJsonText(deltas.join(''))).toEqual({ path: 'src/a\nb.ts', days: 3 });
  });

  it('ignores calls that do not fit where it is, without throwing', () => {
    const deltas: string[] = [];
    const streamer = createJsonValueStreamer(UNCONSTRAINED_POLICY, (delta) => deltas.push(delta));
    streamer.endObject();
    streamer.endString();
    streamer.stringChunk('stray');
    streamer.key('stray');
    streamer.startArray();
    streamer.key('not in an object');
    streamer.endObject();
    streamer.primitive(1);
    streamer.endArray();
    streamer.startObject();
    streamer.primitive(2);
    expect(deltas.join('')).toBe('[1]');
    expect(streamer.value).toEqual([1]);
    expect(streamer.isComplete).toBe(true);
  });
});

describe('createJsonValueStreamer: safety', () => {
  it('keeps __proto__ as an own property and never touches a prototype', () => {
    const text = '{"__proto__": {"polluted": true}, "a": {"__proto__": [1]}}';
    const run = streamChunks([text]);
    const value = run.value as Record<string, unknown>;
    expect(Object.hasOwn(value, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(run.deltas.join('')).toBe(JSON.stringify(parseJsonText(text)));
  });

  it('keeps the first value of a repeated key and streams nothing for the repeat', () => {
    const text = '{"a": "first", "a": {"x": [1, "second"]}, "b": 2, "b": "again", "a": 3}';
    const run = streamChunks(splitAt(text, [5, 9, 20, 33]));
    expect(run.value).toEqual({ a: 'first', b: 2 });
    expect(run.deltas.join('')).toBe('{"a":"first","b":2}');
    expectGrowingPrefix(run);
  });

  it('keeps the first value of a repeated key inside a held value too', () => {
    const seen: unknown[] = [];
    const holdEverything: ValuePolicy = {
      streams: () => false,
      property: () => holdEverything,
      item: () => holdEverything,
      coerce: (value) => {
        seen.push(structuredClone(value));
        return value;
      },
    };
    const run = streamChunks(['{"a": 1, "a": {"b": 2}, "c": {"d": 1, "d": 2}}'], holdEverything);
    expect(seen).toEqual([{ a: 1, c: { d: 1 } }]);
    expect(run.deltas).toEqual(['{"a":1,"c":{"d":1}}']);
  });
});

describe('createJsonValueStreamer: held values', () => {
  it('holds a value its policy would coerce, and emits it coerced and whole', () => {
    const text = '{"name": "widget", "count": "5", "note": "n"}';
    for (const chunks of chunkings(text, [])) {
      const run = streamChunks(chunks, countAsNumberPolicy);
      expect(run.value).toEqual({ name: 'widget', count: 5, note: 'n' });
      expect(run.deltas.join('')).toBe('{"name":"widget","count":5,"note":"n"}');
      // The raw text "5" never streams: it would contradict the coerced 5.
      expect(run.afterEachWrite.some((snapshot) => snapshot.includes('"count":"'))).toBe(false);
      expectGrowingPrefix(run);
    }
  });

  it('asks the policy for each property and item, once per value', () => {
    const calls: string[] = [];
    const tracing = (path: string): ValuePolicy => ({
      streams: (kind) => {
        calls.push(`${path} streams ${kind}`);
        return kind !== 'array';
      },
      property: (key) => tracing(`${path}/${key}`),
      item: (index) => tracing(`${path}/${index}`),
      coerce: (value) => {
        calls.push(`${path} coerce ${JSON.stringify(value)}`);
        return value;
      },
    });
    const run = streamChunks(['{"a": [1, {"b": 2}], "c": ["x"], "d": "y", "e": 5}'], tracing(''));
    expect(calls).toEqual([
      ' streams object',
      '/a streams array',
      '/a coerce [1,{"b":2}]',
      '/c streams array',
      '/c coerce ["x"]',
      '/d streams string',
      '/e coerce 5',
    ]);
    expect(run.deltas.join('')).toBe('{"a":[1,{"b":2}],"c":["x"],"d":"y","e":5}');
  });

  it('passes item indexes to the policy', () => {
    const indexes: number[] = [];
    const policy: ValuePolicy = {
      streams: () => true,
      property: () => policy,
      item: (index) => {
        indexes.push(index);
        return UNCONSTRAINED_POLICY;
      },
      coerce: (value) => value,
    };
    streamChunks(['[10, "a", [], {}, null]'], policy);
    expect(indexes).toEqual([0, 1, 2, 3, 4]);
  });

  it('drops a property coerced to undefined and writes null for an item or the root', () => {
    const dropNumbers = (base: ValuePolicy): ValuePolicy => ({
      ...base,
      property: () => dropNumbers(base),
      item: () => dropNumbers(base),
      coerce: (value) => (typeof value === 'number' ? undefined : value),
    });
    const run = streamChunks(
      ['{"a": 1, "b": [2, "x"], "c": 3}'],
      dropNumbers(UNCONSTRAINED_POLICY),
    );
    expect(run.value).toEqual({ b: [null, 'x'] });
    expect(run.deltas.join('')).toBe('{"b":[null,"x"]}');
    const root = streamChunks(['7'], dropNumbers(UNCONSTRAINED_POLICY));
    expect(root.value).toBeNull();
    expect(root.deltas.join('')).toBe('null');
  });

  it('coerces a held root value', () => {
    const wrapInArray: ValuePolicy = {
      streams: () => false,
      property: () => UNCONSTRAINED_POLICY,
      item: () => UNCONSTRAINED_POLICY,
      coerce: (value) => (Array.isArray(value) ? value : [value]),
    };
    const run = streamChunks(['{"a":', ' "b"}'], wrapInArray);
    expect(run.afterEachWrite).toEqual(['', '[{"a":"b"}]']);
    expect(run.value).toEqual([{ a: 'b' }]);
  });
});

describe('createJsonValueStreamer: properties', () => {
  it('(a) unconstrained: deltas are JSON.stringify of JSON.parse, for every chunking', () => {
    fc.assert(
      fc.property(jsonValues, randomCutLists, (value, randomCuts) => {
        const text = JSON.stringify(value);
        const expectedText = JSON.stringify(parseJsonText(text));
        const expectedValue = parseJsonText(text);
        for (const chunks of chunkings(text, randomCuts)) {
          const run = streamChunks(chunks);
          expect(run.isComplete).toBe(true);
          expect(run.deltas.join('')).toBe(expectedText);
          expect(run.value).toEqual(expectedValue);
          expectGrowingPrefix(run);
        }
      }),
      { numRuns: 100 },
    );
  });

  it('(a) unconstrained: the same from pretty-printed and lenient renderings', () => {
    fc.assert(
      fc.property(jsonValues, fc.integer(), randomCutLists, (value, seed, randomCuts) => {
        const expectedText = JSON.stringify(value);
        const expectedValue = parseJsonText(expectedText);
        for (const text of [
          JSON.stringify(value, null, 2),
          renderLeniently(value, createChooser(seed)),
        ]) {
          for (const chunks of [[text], ...randomCuts.map((cuts) => splitAt(text, cuts))]) {
            const run = streamChunks(chunks);
            expect(run.status, text).toBe('complete');
            expect(run.deltas.join('')).toBe(expectedText);
            expect(run.value).toEqual(expectedValue);
            expectGrowingPrefix(run);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('(b, c, d) any policy: deltas add up to JSON.stringify(value), grow, and ignore chunking', () => {
    fc.assert(
      fc.property(jsonValues, fc.integer(), randomCutLists, (value, seed, randomCuts) => {
        const text = JSON.stringify(value);
        const policy = createRandomPolicy(seed);
        const [whole, ...others] = chunkings(text, randomCuts).map((chunks) =>
          streamChunks(chunks, policy),
        );
        expect(whole!.isComplete).toBe(true);
        expect(whole!.deltas.join('')).toBe(JSON.stringify(whole!.value));
        for (const run of others) {
          expect(run.deltas.join('')).toBe(whole!.deltas.join(''));
          expect(run.value).toEqual(whole!.value);
          expectGrowingPrefix(run);
        }
      }),
      { numRuns: 100 },
    );
  });

  it('(b) any policy, lenient input with repeated keys: deltas add up to JSON.stringify(value)', () => {
    const withRepeats = fc
      .tuple(jsonValues, fc.string({ maxLength: 2 }), jsonValues)
      .map(([first, key, second]) => {
        const name = JSON.stringify(key);
        return `{${name}: ${JSON.stringify(first)}, ${name}: ${JSON.stringify(second)}}`;
      });
    fc.assert(
      fc.property(withRepeats, fc.integer(), randomCutLists, (text, seed, randomCuts) => {
        const policy = createRandomPolicy(seed);
        const whole = streamChunks([text], policy);
        expect(whole.isComplete).toBe(true);
        expect(whole.deltas.join('')).toBe(JSON.stringify(whole.value));
        for (const cuts of randomCuts) {
          const run = streamChunks(splitAt(text, cuts), policy);
          expect(run.deltas.join('')).toBe(whole.deltas.join(''));
          expectGrowingPrefix(run);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('createJsonValueStreamer: the value read back', () => {
  it('(e) any policy: a complete value is what JSON.parse reads back from the deltas', () => {
    fc.assert(
      fc.property(jsonValues, fc.integer(), randomCutLists, (value, seed, randomCuts) => {
        const text = JSON.stringify(value);
        const policy = createRandomPolicy(seed);
        for (const chunks of [[text], ...randomCuts.map((cuts) => splitAt(text, cuts))]) {
          const run = streamChunks(chunks, policy);
          expect(run.isComplete).toBe(true);
          expect(run.value).toEqual(parseJsonText(run.deltas.join('')));
        }
      }),
      { numRuns: 200 },
    );
  });

  it('holds numbers JSON cannot write as JSON.parse reads them back', () => {
    const run = streamChunks(['{"big": 1e400, "small": -1e400, "zero": -0, "list": [-0.0, 1]}']);
    expect(run.deltas.join('')).toBe('{"big":null,"small":null,"zero":0,"list":[0,1]}');
    expect(run.value).toEqual({ big: null, small: null, zero: 0, list: [0, 1] });
  });

  it('stops keeping streamed strings past the limit, and says so', () => {
    const deltas: string[] = [];
    const streamer = createJsonValueStreamer(UNCONSTRAINED_POLICY, (delta) => deltas.push(delta), {
      maxKeptStringChars: 8,
    });
    const tokenizer = createJsonTokenizer(streamer);
    tokenizer.write('{"a": "four", "b": 1, "c": "fo');
    expect(streamer.keptStreamedStrings).toBe(true);
    tokenizer.write('ur", "d": "more", "e": "x"}');
    expect(streamer.isComplete).toBe(true);
    // "four" + "four" fit in 8 characters, "more" does not: it and every later string are dropped.
    expect(streamer.keptStreamedStrings).toBe(false);
    expect(streamer.value).toEqual({ a: 'four', b: 1, c: 'four', d: '', e: '' });
    expect(parseJsonText(deltas.join(''))).toEqual({
      a: 'four',
      b: 1,
      c: 'four',
      d: 'more',
      e: 'x',
    });
  });

  it('keeps held strings whatever the limit: coercion needs them', () => {
    const policy = createValuePolicy({
      type: 'object',
      properties: { n: { type: 'integer' }, s: { type: 'string' } },
    });
    const deltas: string[] = [];
    const streamer = createJsonValueStreamer(policy, (delta) => deltas.push(delta), {
      maxKeptStringChars: 0,
    });
    createJsonTokenizer(streamer).write('{"n": "12345", "s": "abc"}');
    expect(deltas.join('')).toBe('{"n":12345,"s":"abc"}');
    expect(streamer.value).toEqual({ n: 12345, s: '' });
    expect(streamer.keptStreamedStrings).toBe(false);
  });

  it('says whether streamed strings were kept at all', () => {
    const keeping = createJsonValueStreamer(UNCONSTRAINED_POLICY, () => {});
    const leaving = createJsonValueStreamer(UNCONSTRAINED_POLICY, () => {}, {
      keepStreamedStrings: false,
    });
    createJsonTokenizer(keeping).write('{"s": "abc"}');
    createJsonTokenizer(leaving).write('{"s": "abc"}');
    expect([keeping.keptStreamedStrings, leaving.keptStreamedStrings]).toEqual([true, false]);
    expect([keeping.value, leaving.value]).toEqual([{ s: 'abc' }, { s: '' }]);
  });
});

describe('createJsonValueStreamer: linear work', () => {
  it('streams a 2 MB string argument fed in 8-character chunks', () => {
    const pattern = 'plain text, "quotes", back\\slash, new\nline, tab\t, é, 😀, </tool_call> ';
    const content = pattern.repeat(Math.ceil((2 * 1024 * 1024) / pattern.length));
    const text = JSON.stringify({ path: 'notes.txt', content });
    const deltas: string[] = [];
    const streamer = createJsonValueStreamer(UNCONSTRAINED_POLICY, (delta) => deltas.push(delta));
    const tokenizer = createJsonTokenizer(streamer);
    let returned = -1;
    for (let start = 0; start < text.length; start += 8) {
      returned = tokenizer.write(text.slice(start, start + 8));
    }
    expect(returned).toBe(((text.length - 1) % 8) + 1);
    expect(streamer.isComplete).toBe(true);
    expect((streamer.value as { content: string }).content === content).toBe(true);
    expect(deltas.join('') === text).toBe(true);
  });
});
