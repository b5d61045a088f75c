import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonText } from '../../src/core/parse-json.ts';
import { UNCONSTRAINED_POLICY } from '../../src/core/value-policy.ts';
import {
  createJsonTokenizer,
  decodeCanonicalString,
  type JsonTokenHandler,
} from '../../src/scan/json-tokenizer.ts';
import { createJsonValueStreamer } from '../../src/scan/json-value-streamer.ts';
import { canonicalStringContent, createCanonicalJsonWriter } from '../../src/scan/json-writer.ts';
import { splitAt } from '../support/chunks.ts';

/**
 * Source pieces (`sourceStrings`): long string content passes as JSON.stringify writes it,
 * taken from the source rather than decoded and escaped again. Whatever the pieces and the
 * cuts, the decoded text must be the one the usual path reads, and every source piece must be
 * exactly JSON.stringify's text for what it decodes to.
 */

const LONG = 'x'.repeat(70);
const CODE = 'const a = "b";\n\tif (x) {\n  return `$y`;\n}\n';

/** JSON documents whose strings take every path: plain, short escapes, `\u`, `\/`, surrogates. */
const DOCUMENTS: readonly string[] = [
  JSON.stringify({ content: LONG }),
  JSON.stringify({ content: CODE.repeat(4) }),
  JSON.stringify({ content: `${CODE}<tag>a</tag>`.repeat(3) })
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003E'),
  `{"content": "${'a\\/b'.repeat(20)}"}`,
  `{"content": "${'\\u0041\\u00e9\\u4e2d\\u0022\\u005c\\u0001\\u001F'.repeat(6)}"}`,
  `{"content": "${'pair \\ud83d\\ude00 '.repeat(8)}"}`,
  `{"content": "${'raw 😀 pair '.repeat(8)}"}`,
  `{"content": "${'lone \\ud83d end '.repeat(8)}"}`,
  `{"content": "${'lone \\ude00 end '.repeat(8)}"}`,
  `{"content": "${'escaped backslash then u: \\\\u0041 and \\\\/ '.repeat(4)}"}`,
  `{"content": "${'a'.repeat(40)}", "key \\u0041 long enough to be a piece if keys were": 1}`,
  `["${'\\n'.repeat(40)}", "${'\\t\\"'.repeat(30)}", {"k": "${LONG}"}]`,
  `"${LONG}\\n${LONG}"`,
];

/** Loose JSON: what is not JSON's own must still come decoded, never as a source piece. */
const LOOSE_DOCUMENTS: readonly string[] = [
  `{"content": "${'C:\\users\\dir \\d+ '.repeat(6)}"}`,
  `{"content": "${'bad \\u12 '.repeat(8)}"}`,
  `{"content": "${'raw\tcontrol '.repeat(8)}"}`,
  `{"content": '${"single 'quoted' \\' ".repeat(6)}'}`,
  `{"content": "${'He said "hi" to me, '.repeat(5)}"}`,
];

interface Pieces {
  /** Each string's decoded text, pieces of both kinds joined. */
  readonly strings: string[];
  readonly keys: string[];
  readonly sourcePieces: string[];
}

function read(chunks: readonly string[], sourceStrings: boolean): Pieces {
  const strings: string[] = [];
  const keys: string[] = [];
  const sourcePieces: string[] = [];
  let current = '';
  const handler: JsonTokenHandler = {
    startObject() {},
    endObject() {},
    startArray() {},
    endArray() {},
    key: (name) => keys.push(name),
    startString: () => {
      current = '';
    },
    stringChunk: (decoded) => {
      current += decoded;
    },
    stringSource: (escaped) => {
      sourcePieces.push(escaped);
      current += decodeCanonicalString(escaped);
    },
    endString: () => strings.push(current),
    primitive() {},
  };
  const tokenizer = createJsonTokenizer(handler, { sourceStrings });
  for (const chunk of chunks) tokenizer.write(chunk);
  tokenizer.finish();
  expect(tokenizer.status).toBe('complete');
  return { strings, keys, sourcePieces };
}

function cutsOf(text: string): string[][] {
  const cuts: string[][] = [[text]];
  for (let cut = 1; cut < text.length; cut++) cuts.push([text.slice(0, cut), text.slice(cut)]);
  return cuts;
}

function expectCanonical(pieces: readonly string[]): void {
  for (const piece of pieces) {
    expect(JSON.stringify(decodeCanonicalString(piece))).toBe(`"${piece}"`);
  }
}

describe('json tokenizer: source pieces', () => {
  it('reads every string as the usual path does, at every cut, and every source piece is canonical', () => {
    for (const document of [...DOCUMENTS, ...LOOSE_DOCUMENTS]) {
      const expected = read([document], false);
      for (const chunks of cutsOf(document)) {
        const got = read(chunks, true);
        expect(got.strings, `${JSON.stringify(chunks)}`).toEqual(expected.strings);
        expect(got.keys).toEqual(expected.keys);
        expectCanonical(got.sourcePieces);
      }
    }
  });

  it('passes long canonical content from the source, and nothing from loose JSON or keys', () => {
    for (const document of DOCUMENTS.slice(0, 5)) {
      expect(read([document], true).sourcePieces.length, document).toBeGreaterThan(0);
    }
    for (const document of LOOSE_DOCUMENTS) {
      expect(read([document], true).sourcePieces, document).toEqual([]);
    }
    // `\u003c` is written as `<`, as JSON.stringify writes it.
    expect(read([DOCUMENTS[2]!], true).sourcePieces.join('')).toContain('<tag>');
    // Surrogates, escaped or raw, are left to the usual path.
    for (const document of DOCUMENTS.slice(5, 9)) {
      expect(read([document], true).sourcePieces, document).toEqual([]);
    }
  });

  it('reads in chunks of every size from 1 to 40 as it reads whole', () => {
    for (const document of DOCUMENTS) {
      const expected = read([document], false);
      for (let size = 1; size <= 40; size++) {
        const chunks: string[] = [];
        for (let start = 0; start < document.length; start += size)
          chunks.push(document.slice(start, start + size));
        expect(read(chunks, true).strings).toEqual(expected.strings);
      }
    }
  });

  it('reads arbitrary strings written by JSON.stringify, with some characters as \\u escapes, cut anywhere', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: 'binary', maxLength: 120 }), { minLength: 1, maxLength: 3 }),
        fc.array(fc.nat(), { maxLength: 4 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        (values, escapeAt, cuts) => {
          let document = JSON.stringify(values);
          // Write some ASCII characters of the text as `\u` escapes (outside escapes only).
          for (const point of escapeAt) {
            const at = point % document.length;
            const code = document.charCodeAt(at);
            if (code < 0x61 || code > 0x7a || document.charCodeAt(at - 1) === 0x5c) continue;
            document = `${document.slice(0, at)}\\u00${code.toString(16)}${document.slice(at + 1)}`;
          }
          const expected = read([document], false);
          const got = read(splitAt(document, cuts), true);
          expect(got.strings).toEqual(expected.strings);
          expectCanonical(got.sourcePieces);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('canonicalStringContent', () => {
  it('rewrites \\u and \\/ escapes as JSON.stringify writes their characters', () => {
    expect(canonicalStringContent('a\\u003cb\\u003E')).toBe('a<b>');
    expect(canonicalStringContent('\\u0022\\u005c\\u000a\\u0001\\u001F')).toBe(
      '\\"\\\\\\n\\u0001\\u001f',
    );
    expect(canonicalStringContent('a\\/b')).toBe('a/b');
    expect(canonicalStringContent('\\u00e9\\u4E2D')).toBe('é中');
    expect(canonicalStringContent('x\\n\\t\\"\\\\y')).toBe('x\\n\\t\\"\\\\y');
    // An escaped backslash before `u` is not an escape of `u`.
    expect(canonicalStringContent('\\\\u0041')).toBe('\\\\u0041');
  });

  it('refuses what takes more than rewriting escapes', () => {
    for (const source of ['\\ud83d\\ude00', '\\ud83d', 'a\tb', '😀', '\\d', '\\u12', '\\u12G4']) {
      expect(canonicalStringContent(source), source).toBeUndefined();
    }
  });

  it('is JSON.stringify of what JSON.parse reads, wherever it answers', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), fc.array(fc.nat()), (value, at) => {
        let source = JSON.stringify(value).slice(1, -1);
        for (const point of at) {
          const index = point % (source.length + 1);
          const code = source.charCodeAt(index);
          if (Number.isNaN(code) || source.charCodeAt(index - 1) === 0x5c) continue;
          source = `${source.slice(0, index)}\\u${code.toString(16).padStart(4, '0')}${source.slice(index + 1)}`;
        }
        const canonical = canonicalStringContent(source);
        if (canonical !== undefined) {
          expect(canonical).toBe(JSON.stringify(JSON.parse(`"${source}"`)).slice(1, -1));
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('writer and value streamer: source pieces', () => {
  it('writes a piece as it is, escaping a high surrogate held before it as a lone one', () => {
    const deltas: string[] = [];
    const writer = createCanonicalJsonWriter((delta) => deltas.push(delta));
    writer.startString();
    writer.stringChunk('a\ud83d');
    writer.stringSource('b\\n');
    writer.endString();
    expect(deltas.join('')).toBe(JSON.stringify('a\ud83db\n'));
  });

  it('streams the same deltas either way; stops keeping strings only for a caller that reads back', () => {
    const document = DOCUMENTS[2]!;
    const deltasOf = (sourceStrings: boolean, maxKeptStringChars?: number) => {
      const deltas: string[] = [];
      const streamer = createJsonValueStreamer(
        UNCONSTRAINED_POLICY,
        (delta) => deltas.push(delta),
        maxKeptStringChars === undefined ? {} : { maxKeptStringChars },
      );
      const tokenizer = createJsonTokenizer(streamer, { sourceStrings });
      tokenizer.write(document);
      return { json: deltas.join(''), streamer };
    };
    const plain = deltasOf(false);
    expect(plain.json).toBe(JSON.stringify(parseJsonText(document)));
    const keeping = deltasOf(true);
    expect(keeping.json).toBe(plain.json);
    expect(keeping.streamer.keptStreamedStrings).toBe(true);
    expect(keeping.streamer.value).toEqual(parseJsonText(document));
    const readingBack = deltasOf(true, 1 << 20);
    expect(readingBack.json).toBe(plain.json);
    expect(readingBack.streamer.keptStreamedStrings).toBe(false);
  });
});
