/**
 * A streamed chunk read without a parse must say what a parse would: its delta's text, when it
 * is the learned chunk with another string; otherwise nothing (and the chunk is parsed in full).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonText } from '../../src/core/parse-json.ts';
import { ContentChunkTemplate } from '../../src/proxy/content-chunk-template.ts';

const chunk = (content: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'qwen3',
    choices: [{ index: 0, delta: { content }, logprobs: null, finish_reason: null }],
    ...extra,
  });

/** The delta's text as a full parse reads it. */
const parsedText = (data: string): unknown =>
  (parseJsonText(data) as { choices: { delta: { content: unknown } }[] }).choices[0]!.delta.content;

function learned(from = chunk('Hello')): ContentChunkTemplate {
  const template = new ContentChunkTemplate();
  template.learn(from, parsedText(from) as string);
  return template;
}

describe('ContentChunkTemplate', () => {
  it('reads the next chunk of the same shape, escapes and all', () => {
    const template = learned();
    expect(template.read(chunk(' world'))).toBe(' world');
    expect(template.read(chunk('a "quoted" \\ line\nbreak'))).toBe('a "quoted" \\ line\nbreak');
    expect(template.read(chunk('é – 😀'))).toBe('é – 😀');
    expect(template.read(chunk(''))).toBe('');
  });

  it('reads nothing from a chunk that differs anywhere else', () => {
    const template = learned();
    expect(template.read(chunk('x', { usage: { prompt_tokens: 1 } }))).toBeUndefined();
    expect(
      template.read(chunk('x').replace('"finish_reason":null', '"finish_reason":"stop"')),
    ).toBeUndefined();
    expect(template.read(chunk('x').replace('"created":1', '"created":2'))).toBeUndefined();
    expect(template.read(chunk(null))).toBeUndefined();
    expect(template.read(chunk(['x']))).toBeUndefined();
    // A middle that is not one string: two strings, or a string that ends early.
    const prefix = chunk('Q').slice(0, chunk('Q').indexOf('"Q"'));
    const suffix = chunk('Q').slice(chunk('Q').indexOf('"Q"') + 3);
    expect(template.read(`${prefix}"a","b"${suffix}`)).toBeUndefined();
    expect(template.read(`${prefix}"a"b"${suffix}`)).toBeUndefined();
    expect(template.read(`${prefix}"a${suffix}`)).toBeUndefined();
    expect(template.read(`${prefix}"a\u0001"${suffix}`)).toBeUndefined();
  });

  it('learns nothing from a chunk whose content key is not the one place the text is', () => {
    const twice = chunk('hi', { extra: { content: 'hi' } });
    expect(learned(twice).read(chunk('x', { extra: { content: 'hi' } }))).toBeUndefined();
    // A key spelled with an escape could hide the delta's own: no template around escapes.
    const escapedKey = chunk('hi').replace('"delta":{"content"', '"delta":{"cont\\u0065nt"');
    const other = `${escapedKey.slice(0, -1)},"x":{"content":"hi"}}`;
    expect(parsedText(other)).toBe('hi');
    expect(
      learned(other).read(other.replace('"x":{"content":"hi"}', '"x":{"content":"no"}')),
    ).toBeUndefined();
    const spaced = chunk('hi').replace('"content":', '"content" :');
    expect(learned(spaced).read(spaced.replace('"hi"', '"x"'))).toBeUndefined();
  });

  it('agrees with a full parse on any chunk after any learned one (property)', () => {
    const text = fc.string({ unit: 'grapheme', maxLength: 12 });
    const shape = fc.record({
      id: fc.string({ maxLength: 8 }),
      created: fc.nat(),
      fingerprint: fc.option(fc.string({ maxLength: 6 })),
    });
    fc.assert(
      fc.property(shape, text, shape, text, (firstShape, first, nextShape, next) => {
        const build = (s: typeof firstShape, content: string) =>
          JSON.stringify({
            id: s.id,
            created: s.created,
            ...(s.fingerprint === null ? {} : { system_fingerprint: s.fingerprint }),
            choices: [{ index: 0, delta: { content }, finish_reason: null }],
          });
        const template = new ContentChunkTemplate();
        const learnedFrom = build(firstShape, first);
        template.learn(learnedFrom, first);
        const data = build(nextShape, next);
        const read = template.read(data);
        if (read !== undefined) expect(read).toBe(parsedText(data));
        // The same shape is always read.
        if (
          JSON.stringify(firstShape) === JSON.stringify(nextShape) &&
          !learnedFrom.slice(0, learnedFrom.indexOf('"content":')).includes('\\')
        )
          expect(read).toBe(next);
      }),
      { numRuns: 2000 },
    );
  });
});
