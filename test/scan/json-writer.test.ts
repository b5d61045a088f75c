import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type CanonicalJsonWriter,
  createCanonicalJsonWriter,
  jsonStringText,
  jsonValueText,
} from '../../src/scan/json-writer.ts';
import { splitAt } from '../support/chunks.ts';

function createCollectingWriter(): { writer: CanonicalJsonWriter; deltas: string[] } {
  const deltas: string[] = [];
  return { writer: createCanonicalJsonWriter((delta) => deltas.push(delta)), deltas };
}

/** Describes `value` to the writer, cutting each string at the given fractions. */
function describeValue(
  writer: CanonicalJsonWriter,
  value: unknown,
  cutString: (text: string) => string[],
): void {
  if (typeof value === 'string') {
    writer.startString();
    for (const piece of cutString(value)) writer.stringChunk(piece);
    writer.endString();
  } else if (Array.isArray(value)) {
    writer.startArray();
    for (const item of value) describeValue(writer, item, cutString);
    writer.endArray();
  } else if (value !== null && typeof value === 'object') {
    writer.startObject();
    for (const [key, item] of Object.entries(value)) {
      writer.key(key);
      describeValue(writer, item, cutString);
    }
    writer.endObject();
  } else {
    writer.value(value);
  }
}

describe('createCanonicalJsonWriter', () => {
  it('writes a nested value exactly as JSON.stringify, commas included', () => {
    const value = { a: [1, 'two', { three: null }, [], {}], b: true, c: '' };
    const { writer, deltas } = createCollectingWriter();
    describeValue(writer, value, (text) => [text]);
    expect(deltas.join('')).toBe(JSON.stringify(value));
  });

  it('sends openings with what follows them, and never an empty delta', () => {
    const { writer, deltas } = createCollectingWriter();
    writer.startObject();
    writer.key('city');
    writer.startString();
    expect(deltas).toEqual([]);
    writer.stringChunk('');
    expect(deltas).toEqual([]);
    writer.stringChunk('Seo');
    writer.stringChunk('ul');
    writer.endString();
    writer.key('days');
    writer.value(3);
    writer.endObject();
    expect(deltas).toEqual(['{"city":"Seo', 'ul', '"', ',"days":3', '}']);
  });

  it('writes empty containers and strings', () => {
    const { writer, deltas } = createCollectingWriter();
    writer.startArray();
    writer.startObject();
    writer.endObject();
    writer.startArray();
    writer.endArray();
    writer.startString();
    writer.endString();
    writer.endArray();
    expect(deltas.join('')).toBe('[{},[],""]');
  });

  it('escapes keys and string content as JSON.stringify does', () => {
    const awkward =
      'quote " backslash \\ controls \b\f\n\r\t\u0000\u001f del \u007f sep \u2028 </tool_call> é 😀';
    const { writer, deltas } = createCollectingWriter();
    writer.startObject();
    writer.key(awkward);
    writer.startString();
    for (const character of awkward) writer.stringChunk(character);
    writer.endString();
    writer.endObject();
    expect(deltas.join('')).toBe(JSON.stringify({ [awkward]: awkward }));
  });

  it('escapes short pieces exactly at the edges of what JSON escapes', () => {
    // Each side of every boundary the short-piece check tests: controls / space, the quote, the
    // backslash, the surrogates; alone and inside a short piece.
    const edges = [
      '\u001f',
      ' ',
      '!',
      '"',
      '#',
      '[',
      '\\',
      ']',
      '\u007f',
      '\ud7ff',
      '\ud800',
      '\udbff',
      '\udc00',
      '\udfff',
      '\ue000',
    ];
    for (const edge of edges) {
      for (const piece of [edge, `ab${edge}cd`, `${edge}x`.repeat(20)]) {
        const { writer, deltas } = createCollectingWriter();
        writer.startString();
        writer.stringChunk(piece);
        writer.endString();
        expect(deltas.join('')).toBe(JSON.stringify(piece));
        expect(jsonStringText(piece)).toBe(JSON.stringify(piece));
      }
    }
  });

  it('writes keys as JSON.stringify does however often they repeat, and however many there are', () => {
    const names = ['city', 'a"b', '\u2028', ''];
    for (let index = 0; index < 1500; index++) names.push(`key ${index}`, 'city', 'a"b');
    names.push('long '.repeat(40));
    const value: Record<string, number>[] = names.map((name, index) => ({ [name]: index }));
    const { writer, deltas } = createCollectingWriter();
    describeValue(writer, value, (text) => [text]);
    expect(deltas.join('')).toBe(JSON.stringify(value));
  });

  it('writes a surrogate pair split across pieces as the pair, not as two escapes', () => {
    const { writer, deltas } = createCollectingWriter();
    writer.startString();
    writer.stringChunk('a\ud83d');
    expect(deltas).toEqual(['"a']);
    writer.stringChunk('\ude00b');
    writer.endString();
    expect(deltas.join('')).toBe('"a😀b"');
  });

  it('escapes lone surrogates as \\udXXX, wherever they fall', () => {
    for (const pieces of [
      ['\ud800'],
      ['x\ud800'],
      ['\ud800', 'x'],
      ['\udc00'],
      ['\ud800', '\ud800'],
    ]) {
      const { writer, deltas } = createCollectingWriter();
      writer.startString();
      for (const piece of pieces) writer.stringChunk(piece);
      writer.endString();
      expect(deltas.join('')).toBe(JSON.stringify(pieces.join('')));
    }
    expect(JSON.stringify('\ud800')).toBe('"\\ud800"');
  });

  it('writes whole values with JSON.stringify, undefined as null', () => {
    const { writer, deltas } = createCollectingWriter();
    writer.startArray();
    writer.value({ nested: [1, 'x'] });
    writer.value(undefined);
    writer.value(-0);
    writer.value(Number.POSITIVE_INFINITY);
    writer.value('s"');
    writer.endArray();
    expect(deltas.join('')).toBe('[{"nested":[1,"x"]},null,0,null,"s\\""]');
  });

  it('writes a top-level primitive in one delta', () => {
    const { writer, deltas } = createCollectingWriter();
    writer.value(42);
    expect(deltas).toEqual(['42']);
  });

  it('escapes long pieces as JSON.stringify does, whether or not they need escaping', () => {
    const unit = fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom('a', 'b', ' ', 'é', '😀') },
      { weight: 1, arbitrary: fc.constantFrom('"', '\\', '\n', '\u0000', '\ud83d', '\ude00') },
    );
    fc.assert(
      fc.property(fc.string({ unit, minLength: 60, maxLength: 300 }), fc.nat(), (text, cut) => {
        const at = cut % (text.length + 1);
        const { writer, deltas } = createCollectingWriter();
        writer.startString();
        writer.stringChunk(text.slice(0, at));
        writer.stringChunk(text.slice(at));
        writer.endString();
        expect(deltas.join('')).toBe(JSON.stringify(text));
      }),
      { numRuns: 500 },
    );
  });

  it('adds up to JSON.stringify for any value and any cutting of its strings', () => {
    const cutter = fc
      .array(fc.nat(), { maxLength: 4 })
      .map((cuts) => (text: string) => splitAt(text, cuts));
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: 'binary' }), cutter, (value, cutString) => {
        const { writer, deltas } = createCollectingWriter();
        describeValue(writer, value, cutString);
        expect(deltas.join('')).toBe(JSON.stringify(value));
        expect(deltas.every((delta) => delta !== '')).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('jsonValueText', () => {
  it('is JSON.stringify, null where that gives nothing', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary' }),
          fc.string({ unit: 'grapheme-ascii', maxLength: 80 }),
          fc.double(),
          fc.boolean(),
          fc.constant(undefined),
          fc.constant(-0),
          fc.jsonValue(),
        ),
        (value) => {
          expect(jsonValueText(value)).toBe(JSON.stringify(value) ?? 'null');
          if (typeof value === 'string') expect(jsonStringText(value)).toBe(JSON.stringify(value));
        },
      ),
      { numRuns: 3000 },
    );
  });
});
