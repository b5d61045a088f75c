import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  TAG_PREVIEW_CHARS,
  type TagUse,
  type XmlTokenHandler,
  XmlTokenizer,
} from '../../src/stream/xml-tokenizer.ts';
import { everySplit, splitAt } from './helpers.ts';

/** One call the tokenizer made, as a tuple (easy to compare and to read in a failure). */
type Token =
  | readonly ['use', string]
  | readonly ['text' | 'cdata' | 'reference', string]
  | readonly ['open', string, Record<string, string>, boolean, number]
  | readonly ['close', string, number, string]
  | readonly ['too-long', string, number, boolean]
  | readonly ['malformed', string, number, string]
  | readonly ['unfinished', string, number, string, Record<string, string>]
  | readonly ['unclosed-cdata', number];

interface Reading {
  /** How each start tag is read (default: `t`, `a`, `b` are tags, names starting `block` blocks). */
  readonly use?: (name: string) => TagUse;
  /** Whether a malformed read tag is reported (default yes). */
  readonly report?: (name: string) => boolean;
  readonly maxTagChars?: number;
}

function defaultUse(name: string): TagUse {
  if (name.startsWith('block')) return 'block';
  return name === 't' || name === 'a' || name === 'b' ? 'tag' : 'text';
}

function recorder(tokens: Token[], reading: Reading): XmlTokenHandler {
  const use = reading.use ?? defaultUse;
  return {
    tagUse: (name) => {
      tokens.push(['use', name]);
      return use(name);
    },
    text: (text) => tokens.push(['text', text]),
    cdata: (text) => tokens.push(['cdata', text]),
    reference: (text) => tokens.push(['reference', text]),
    openTag: (name, attributes, selfClosing, offset) =>
      tokens.push(['open', name, { ...attributes }, selfClosing, offset]),
    closeTag: (name, offset, raw) => tokens.push(['close', name, offset, raw]),
    tagTooLong: (name, offset, opensContent) =>
      tokens.push(['too-long', name, offset, opensContent]),
    malformedTag: (name, offset, preview) => {
      tokens.push(['malformed', name, offset, preview]);
      return reading.report?.(name) ?? true;
    },
    unfinishedTag: (name, offset, preview, attributes) =>
      tokens.push(['unfinished', name, offset, preview, { ...attributes }]),
    unclosedCdata: (offset) => tokens.push(['unclosed-cdata', offset]),
  };
}

/** Every call for `chunks` written in order, then `end`. */
function tokenize(chunks: string | readonly string[], reading: Reading = {}): Token[] {
  const tokens: Token[] = [];
  const tokenizer = new XmlTokenizer(recorder(tokens, reading), {
    maxTagChars: reading.maxTagChars ?? 1 << 20,
  });
  for (const chunk of typeof chunks === 'string' ? [chunks] : chunks) tokenizer.write(chunk);
  tokenizer.end();
  return tokens;
}

/** Adjacent text (and adjacent CDATA) as one token: how a run is cut depends on the chunking. */
function merged(tokens: readonly Token[]): Token[] {
  const out: Token[] = [];
  for (const token of tokens) {
    const last = out[out.length - 1];
    if (last && (token[0] === 'text' || token[0] === 'cdata') && last[0] === token[0]) {
      out[out.length - 1] = [token[0], (last[1] as string) + token[1]];
      continue;
    }
    out.push(token);
  }
  return out;
}

describe('tokenizer: tokens', () => {
  it('gives text, and references decoded; an & that starts no reference is text', () => {
    expect(merged(tokenize('a &amp; b&#x41;&#32;&bogus; &'))).toEqual([
      ['text', 'a '],
      ['reference', '&'],
      ['text', ' b'],
      ['reference', 'A'],
      ['reference', ' '],
      ['text', '&bogus; &'],
    ]);
  });

  it('gives the content of a CDATA section, brackets and markup included', () => {
    expect(merged(tokenize('x<![CDATA[<a> ]] ]]]>y'))).toEqual([
      ['text', 'x'],
      ['cdata', '<a> ]] ]'],
      ['text', 'y'],
    ]);
  });

  it('asks how to read each start tag, and collects the attributes of a read one', () => {
    expect(tokenize(`<t a="1" b='x&amp;y &#60;' c = "&no"/>`)).toEqual([
      ['use', 't'],
      ['open', 't', { a: '1', b: 'x&y <', c: '&no' }, true, 0],
    ]);
    expect(tokenize('hi<a>')).toEqual([
      ['text', 'hi'],
      ['use', 'a'],
      ['open', 'a', {}, false, 2],
    ]);
  });

  it('gives an unread start tag back as text, exactly as written', () => {
    expect(merged(tokenize('<u x = "1"\n y=\'2\' >'))).toEqual([
      ['use', 'u'],
      ['text', '<u x = "1"\n y=\'2\' >'],
    ]);
  });

  it('gives every end tag with its text, read or not', () => {
    expect(tokenize('</t ></u>')).toEqual([
      ['close', 't', 0, '</t >'],
      ['close', 'u', 5, '</u>'],
    ]);
  });

  it('reads what is not a tag as text: a < b, <!DOCTYPE>, </ 1>, a name past 256 characters', () => {
    const long = `<${'n'.repeat(300)}>`;
    for (const input of ['a < b', '<!DOCTYPE x>', '</ 1>', '<1>', long, '<![CDAT x'])
      expect(merged(tokenize(input))).toEqual([['text', input]]);
  });

  it('reports a malformed read tag, or gives it back as text when the handler says so', () => {
    expect(merged(tokenize('<t a=1>'))).toEqual([
      ['use', 't'],
      ['malformed', 't', 0, '<t a='],
      ['text', '1>'],
    ]);
    expect(merged(tokenize('<t a=1>', { report: () => false }))).toEqual([
      ['use', 't'],
      ['malformed', 't', 0, '<t a='],
      ['text', '<t a=1>'],
    ]);
    // A malformed end tag or unread tag is text.
    expect(merged(tokenize('</t x><u a=1>'))).toEqual([
      ['text', '</t x>'],
      ['use', 'u'],
      ['text', '<u a=1>'],
    ]);
  });

  it('a block tag keeps only a preview of its raw text, so a malformed one is always reported', () => {
    const value = 'v'.repeat(3 * TAG_PREVIEW_CHARS);
    const input = `<block a="${value}" !>`;
    for (const chunks of [[input], splitAt(input, [5, 2000, 2100])]) {
      const tokens = merged(tokenize(chunks, { report: () => false }));
      expect(tokens).toEqual([
        ['use', 'block'],
        ['malformed', 'block', 0, `${input.slice(0, TAG_PREVIEW_CHARS)}…`],
        ['text', '!>'],
      ]);
    }
  });

  it('drops a start tag whose attributes pass maxTagChars, saying whether content follows', () => {
    expect(tokenize('<t a="12345">', { maxTagChars: 4 })).toEqual([
      ['use', 't'],
      ['too-long', 't', 0, true],
    ]);
    expect(tokenize('<u a="12345"/>', { maxTagChars: 4 })).toEqual([
      ['use', 'u'],
      ['too-long', 'u', 0, false],
    ]);
    // Attribute names and reference bodies count too; a tag within the cap is read.
    expect(tokenize('<t a="&amp;"/>', { maxTagChars: 3 })[1]?.[0]).toBe('too-long');
    expect(tokenize('<t a="123"/>', { maxTagChars: 4 })[1]?.[0]).toBe('open');
  });

  it('at the end: a read tag is unfinished, an unread one is text, a CDATA section unclosed', () => {
    expect(tokenize('<t a="1" b="2')).toEqual([
      ['use', 't'],
      ['unfinished', 't', 0, '<t a="1" b="2', { a: '1' }],
    ]);
    expect(merged(tokenize('x<u a="1'))).toEqual([
      ['text', 'x'],
      ['use', 'u'],
      ['text', '<u a="1'],
    ]);
    expect(merged(tokenize('<![CDATA[ab]'))).toEqual([
      ['cdata', 'ab]'],
      ['unclosed-cdata', 0],
    ]);
    expect(merged(tokenize('a&am'))).toEqual([['text', 'a&am']]);
  });

  it('counts offsets over every chunk written, and from zero again after reset', () => {
    const tokens: Token[] = [];
    const tokenizer = new XmlTokenizer(recorder(tokens, {}), { maxTagChars: 100 });
    tokenizer.write('abc');
    tokenizer.write('de<t>');
    tokenizer.reset();
    tokenizer.write('<t>');
    expect(tokens.filter((token) => token[0] === 'open')).toEqual([
      ['open', 't', {}, false, 5],
      ['open', 't', {}, false, 0],
    ]);
  });
});

// ── properties ───────────────────────────────────────────────────────────────────────────────

const samples = [
  'a &amp; b &#x1F600; &bogus; & <![CDATA[x]]]y]]> <t a="1" b=\'&lt;\'/> </t >',
  '<u a="1">text</u><block x="&quot;{}&quot;">body</block><a>&#10;</a>',
  '<t a=1><![CDATA[ ]]]]><![CDATA[> ]]><!DOCTYPE x><b c = "d"\n/><block',
  '<t a="12345678901234567890"><u b="123456789012345678901"/>x</t a>',
  '<![CDATA[unclosed ]',
];

const piece = fc.constantFrom(
  '<t',
  '<a ',
  '<block',
  '<u',
  '</t>',
  '</block >',
  '</',
  '<',
  '>',
  '/>',
  ' x="1"',
  " y='&amp;'",
  '="',
  '"',
  "'",
  '=',
  '&',
  '&lt;',
  '&#x41;',
  '&#',
  ';',
  '<![CDATA[',
  ']]>',
  ']',
  '<!',
  ' ',
  '\n',
  'text',
  '😀',
  'v'.repeat(30),
);
const noise = fc
  .array(fc.oneof({ weight: 5, arbitrary: piece }, { weight: 1, arbitrary: fc.string() }), {
    maxLength: 40,
  })
  .map((parts) => parts.join(''));

describe('tokenizer: the chunking never changes the tokens', () => {
  it('every cut into two pieces, and pieces of 1, 2, 3 and 7 characters', () => {
    for (const sample of samples) {
      for (const maxTagChars of [8, 20, 1000]) {
        const whole = merged(tokenize(sample, { maxTagChars }));
        for (const chunks of everySplit(sample))
          expect(merged(tokenize(chunks, { maxTagChars }))).toEqual(whole);
      }
    }
  });

  it('any input cut anywhere, with any cap', () => {
    fc.assert(
      fc.property(
        noise,
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.nat({ max: 40 }),
        (input, points, cap) => {
          const reading = { maxTagChars: 2 + cap, report: (name: string) => name !== 'a' };
          expect(merged(tokenize(splitAt(input, points), reading))).toEqual(
            merged(tokenize(input, reading)),
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('tokenizer: what it gives back is what was written', () => {
  it('read as text throughout, input without CDATA or & comes back whole', () => {
    fc.assert(
      fc.property(
        noise.map((input) => input.replaceAll('&', '').replaceAll('<![CDATA[', '')),
        fc.array(fc.nat(), { maxLength: 8 }),
        (input, points) => {
          const tokens = tokenize(splitAt(input, points), { use: () => 'text' });
          const text = tokens
            .map((token) => (token[0] === 'text' || token[0] === 'close' ? token.at(-1) : ''))
            .join('');
          expect(text).toBe(input);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('every tag offset points at its <, and an end tag at its raw text', () => {
    fc.assert(
      fc.property(noise, fc.array(fc.nat(), { maxLength: 8 }), (input, points) => {
        for (const token of tokenize(splitAt(input, points))) {
          if (token[0] === 'close') expect(input.startsWith(token[3], token[2])).toBe(true);
          if (token[0] === 'open') expect(input.startsWith(`<${token[1]}`, token[4])).toBe(true);
          if (token[0] === 'too-long' || token[0] === 'malformed' || token[0] === 'unfinished')
            expect(input.startsWith(`<${token[1]}`, token[2])).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });
});
