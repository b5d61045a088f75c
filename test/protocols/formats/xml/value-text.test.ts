import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeReferences,
  EntityDecoder,
  TrimmingSink,
} from '../../../../src/protocols/xml/value-text.ts';
import { splitAt } from '../../../support/chunks.ts';

/** Decodes and trims `text` fed in the given chunks, as a streamed string value is. */
function streamValue(chunks: readonly string[]): string {
  const parts: string[] = [];
  const trimmer = new TrimmingSink((text) => parts.push(text));
  const decoder = new EntityDecoder(trimmer);
  for (const chunk of chunks) decoder.write(chunk);
  decoder.end();
  trimmer.end();
  return parts.join('');
}

/** Trims a whole value given as pieces (literal text, or content such as CDATA). */
function trimValueText(pieces: readonly { text: string; isContent: boolean }[]): string {
  const parts: string[] = [];
  const sink = new TrimmingSink((text) => parts.push(text));
  for (const piece of pieces) {
    if (piece.isContent) sink.content(piece.text);
    else sink.literal(piece.text);
  }
  sink.end();
  return parts.join('');
}

const literal = (text: string) => ({ text, isContent: false });
const content = (text: string) => ({ text, isContent: true });

describe('trimming rule', () => {
  it('drops white space around a single-line value', () => {
    expect(trimValueText([literal('  ./src  ')])).toBe('./src');
    expect(trimValueText([literal('\n    authentication\n  ')])).toBe('authentication');
  });

  it('keeps the first line indentation of a multi-line value', () => {
    expect(trimValueText([literal('  indented line\n  another line')])).toBe(
      '  indented line\n  another line',
    );
    expect(trimValueText([literal('\n    def f():\n        return 1\n')])).toBe(
      '    def f():\n        return 1',
    );
  });

  it('drops only the line break after the tag of a multi-line value', () => {
    expect(trimValueText([literal('\nfirst line\nlast line\n')])).toBe('first line\nlast line');
  });

  it('never trims content (CDATA, character references)', () => {
    expect(trimValueText([literal('  '), content('  x  '), literal(' \n')])).toBe('  x  ');
    expect(trimValueText([content('\n')])).toBe('\n');
  });

  it('gives the empty string for white space only', () => {
    expect(trimValueText([literal(' \n\t ')])).toBe('');
  });
});

describe('entity decoding', () => {
  it('decodes the five predefined entities', () => {
    expect(streamValue(['a &lt; b &gt; c &amp; &quot;d&quot; &apos;e&apos;'])).toBe(
      'a < b > c & "d" \'e\'',
    );
  });

  it('decodes in one pass, so &amp;lt; is &lt;', () => {
    expect(streamValue(['&amp;lt;'])).toBe('&lt;');
    expect(streamValue(['&amp;amp;'])).toBe('&amp;');
  });

  it('decodes numeric character references', () => {
    expect(streamValue(['&#60;&#x3e;&#128512;'])).toBe('<>😀');
  });

  it('leaves unknown entities and bare ampersands alone', () => {
    expect(streamValue(['a & b &nbsp; &copy; &#xZZ; &'])).toBe('a & b &nbsp; &copy; &#xZZ; &');
  });

  it('keeps references to code points a value cannot hold as written', () => {
    // The content-block decoder reads a surrogate as U+FFFD; a tool argument keeps the text.
    expect(streamValue(['a&#xD800;b&#0;c&#x110000;d'])).toBe('a&#xD800;b&#0;c&#x110000;d');
    expect(streamValue(['&#x10FFFF;'])).toBe('\u{10FFFF}');
  });

  it('does not expand entities beyond the predefined ones', () => {
    expect(streamValue(['&xxe;'])).toBe('&xxe;');
  });

  it('gives the same result for any chunking', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('a', ' ', '\n', '&amp;', '&lt;', '&#32;', '&', ';', 'x y'), {
          maxLength: 20,
        }),
        fc.array(fc.nat(), { maxLength: 6 }),
        (pieces, cuts) => {
          const text = pieces.join('');
          const chunks = splitAt(text, cuts);
          expect(streamValue(chunks)).toBe(streamValue([text]));
        },
      ),
    );
  });
});

describe('decodeReferences', () => {
  it('decodes what EntityDecoder decodes, in one pass, leaving the rest as written', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.constantFrom(
            'a',
            ' ',
            '&',
            ';',
            '&amp;',
            '&lt;',
            '&#10;',
            '&#x41;',
            '&#0;',
            '&#xD800;',
            '&bogus;',
            '&amp',
            '#',
            'x',
          ),
          { maxLength: 12 },
        ),
        (pieces) => {
          const text = pieces.join('');
          let streamed = '';
          const decoder = new EntityDecoder({
            literal: (piece) => {
              streamed += piece;
            },
            content: (piece) => {
              streamed += piece;
            },
            end: () => {},
          });
          decoder.write(text);
          decoder.end();
          expect(decodeReferences(text)).toBe(streamed);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
