import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DecodedEvent } from '../../src/stream/blocks.ts';
import { XmlBlockDecoder, type XmlBlockDecoderOptions } from '../../src/stream/xml-decoder.ts';
import { TAG_PREVIEW_CHARS } from '../../src/stream/xml-tokenizer.ts';
import { everySplit, mergeDeltas, problemsOf, splitAt } from './helpers.ts';

/** Every push's events, then end's. */
function decode(chunks: readonly string[], options: XmlBlockDecoderOptions = {}): DecodedEvent[] {
  const decoder = new XmlBlockDecoder(options);
  const events: DecodedEvent[] = [];
  for (const chunk of chunks) events.push(...decoder.push(chunk));
  events.push(...decoder.end());
  return events;
}

describe('XmlBlockDecoder: push, end, reset', () => {
  it('gives each push the events it completes, one delta per push', () => {
    const decoder = new XmlBlockDecoder();
    expect(decoder.push('<content-block-text><![CDATA[Hel')).toEqual([
      { type: 'text-start' },
      { type: 'text-delta', delta: 'Hel' },
    ]);
    expect(decoder.push('lo]]><![CDATA[, you]]>')).toEqual([
      { type: 'text-delta', delta: 'lo, you' },
    ]);
    expect(decoder.push('</content-block-text>')).toEqual([{ type: 'text-end' }]);
    expect(decoder.end()).toEqual([]);
  });

  it('pushInto appends to the caller’s array', () => {
    const decoder = new XmlBlockDecoder();
    const sink: DecodedEvent[] = [{ type: 'text-start' }];
    decoder.pushInto('stray', sink);
    expect(sink).toEqual([{ type: 'text-start' }, { type: 'stray-text', text: 'stray' }]);
  });

  it('says which top-level block is being received', () => {
    const decoder = new XmlBlockDecoder();
    expect(decoder.receiving).toBeUndefined();
    decoder.push('ab<content-block-tool_result id="r" name="n"><text>');
    expect(decoder.receiving).toEqual({
      tag: 'content-block-tool_result',
      attributes: { id: 'r', name: 'n' },
      offset: 2,
    });
    decoder.push('x</text></content-block-tool_result>');
    expect(decoder.receiving).toBeUndefined();
  });

  it('end closes what is open and reports it; the decoder is then as new', () => {
    const decoder = new XmlBlockDecoder();
    expect(decoder.push('<content-block-thinking>hm')).toEqual([
      { type: 'thinking-start' },
      { type: 'thinking-delta', delta: 'hm' },
    ]);
    expect(decoder.end()).toEqual([
      { type: 'thinking-end' },
      {
        type: 'decode-error',
        problem: {
          code: 'unclosed-block',
          message: '<content-block-thinking> was not closed: the stream ended (at 0)',
          offset: 0,
          tag: 'content-block-thinking',
          attributes: {},
        },
      },
    ]);
    const again = '<content-block-text>a</content-block-text>';
    expect([...decoder.push(again), ...decoder.end()]).toEqual(decode([again]));
  });

  it('reset forgets a half-read tag and its offsets', () => {
    const decoder = new XmlBlockDecoder();
    decoder.push('xyz<content-block-text');
    decoder.reset();
    expect([...decoder.push('<meta_init data="x"/>'), ...decoder.end()]).toEqual([
      {
        type: 'decode-error',
        problem: {
          code: 'invalid-json',
          message: 'the data attribute of <meta_init> is not a JSON object (at 0)',
          offset: 0,
          raw: 'x',
          tag: 'meta_init',
          attributes: { data: 'x' },
        },
      },
    ]);
  });
});

describe('XmlBlockDecoder: tags the tokenizer hands over', () => {
  it('a broken <chart> in text is text; a broken <citation> is reported', () => {
    expect(
      mergeDeltas(decode(['<content-block-text>a <chart x=1> b</content-block-text>'])),
    ).toEqual([
      { type: 'text-start' },
      { type: 'text-delta', delta: 'a <chart x=1> b' },
      { type: 'text-end' },
    ]);
    expect(problemsOf(decode(['<citations><citation x=1></citations>']))[0]).toEqual({
      code: 'malformed-tag',
      message: '<citation> is not well formed (at 11)',
      offset: 11,
      raw: '<citation x=',
      tag: 'citation',
    });
  });

  it('a block tag past the cap is dropped with its content and end tag', () => {
    const events = decode(
      ['<content-block-error a="0123456789">{"x":1}</content-block-error>tail'],
      { maxBlockChars: 8 },
    );
    expect(events).toEqual([
      {
        type: 'decode-error',
        problem: {
          code: 'too-large',
          message:
            'the <content-block-error> tag is longer than 8 characters; it was dropped (at 0)',
          offset: 0,
          tag: 'content-block-error',
        },
      },
      { type: 'stray-text', text: 'tail' },
    ]);
  });

  it('the stream ended inside a long block tag: the report carries the start of its raw text', () => {
    // Changed with the tokenizer split: it used to carry no raw text past 1,024 characters.
    const tag = `<content-block-tool_call id="a" arguments="${'x'.repeat(2 * TAG_PREVIEW_CHARS)}`;
    for (const chunks of [[tag], splitAt(tag, [10, 500, 1500])])
      expect(problemsOf(decode(chunks))).toEqual([
        {
          code: 'unclosed-block',
          message: 'the stream ended inside the <content-block-tool_call> tag (at 0)',
          offset: 0,
          raw: `${tag.slice(0, TAG_PREVIEW_CHARS)}…`,
          tag: 'content-block-tool_call',
          attributes: { id: 'a' },
        },
      ]);
  });

  it('an end tag of no open block: a block tag is reported, any other is text', () => {
    expect(decode(['</content-block-text></b>'])).toEqual([
      {
        type: 'decode-error',
        problem: {
          code: 'unexpected-end-tag',
          message: '</content-block-text> closes a block that is not open (at 0)',
          offset: 0,
          raw: '</content-block-text>',
          tag: 'content-block-text',
        },
      },
      { type: 'stray-text', text: '</b>' },
    ]);
  });
});

// ── properties ───────────────────────────────────────────────────────────────────────────────

const samples = [
  '<meta_init data="{&quot;format&quot;:&quot;xml&quot;}"></meta_init><content-block-text>Hi &amp; <chart a="1"><![CDATA[1,2]]></chart> there</content-block-text>',
  '<content-block-tool_call id="c" name="f"><![CDATA[{"a":]]><![CDATA[1}]]></content-block-tool_call><content-block-tool_result id="c" name="f">\n <text><![CDATA[ok]]></text>\n <image src="s" media_type="m"/>\n</content-block-tool_result>',
  '<citations>\n<citation type="web_search_result_location" url="u" title="t"><![CDATA[q]]></citation>\n</citations><content-block-error><![CDATA[{"type":"x"}]]></content-block-error>',
  'stray <b>text</b> <content-block-thinking>th<![CDATA[in]]]]><![CDATA[>k</content-block-thinking><content-block-text>open',
  '<content-block-text><chart a=1>x</content-block-text></content-block-tool_call><meta_final data="{"/><content-block-tool_result id="r"><![CDATA[0123456789abcdef]]></content-block-tool_result>',
];

describe('XmlBlockDecoder: the chunking never changes the events', () => {
  it('every cut into two pieces, and pieces of 1, 2, 3 and 7 characters', () => {
    for (const sample of samples) {
      for (const maxBlockChars of [12, 1 << 24]) {
        const whole = mergeDeltas(decode([sample], { maxBlockChars }));
        for (const chunks of everySplit(sample))
          expect(mergeDeltas(decode(chunks, { maxBlockChars }))).toEqual(whole);
      }
    }
  });

  it('the samples joined in any order, cut anywhere', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...samples), { minLength: 1, maxLength: 4 }),
        fc.array(fc.nat(), { maxLength: 16 }),
        (parts, points) => {
          const input = parts.join('');
          expect(mergeDeltas(decode(splitAt(input, points)))).toEqual(mergeDeltas(decode([input])));
        },
      ),
      { numRuns: 200 },
    );
  });
});
