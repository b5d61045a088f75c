/**
 * Where several formats read a call after the same telling start (xLAM's `[{"name"` is read by
 * hermes, FireFunction and xLAM), auto keeps the beginning on which one of them committed first:
 * a later call that begins the same way is that format's without any format reading it again,
 * and while a call so far begins such a beginning (cut by a chunk), no format probes it.
 */
import { describe, expect, it } from 'vitest';
import { autoProtocol, protocolByName } from '../../../src/index.ts';
import { FirstCommits, POSSIBLE } from '../../../src/protocols/auto/first-commits.ts';
import { chunksOf, contentAtEverySplit, contentOf, streamEvents, TOOLS } from '../helpers.ts';
import { countedFormat } from './counted-bodies.ts';

describe('FirstCommits', () => {
  it('finds the value kept for a beginning, across the part in earlier writes', () => {
    const kept = new FirstCommits<string>();
    kept.keep(':', ':"get_weather","arguments":{"city":"O', 'hermes');
    kept.keep(':', ':"search","arguments":{"query":"a', 'xlam');
    const call = ':"get_weather","arguments":{"city":"Oslo"}}]';
    expect(kept.find(':', '', call, 0, call.length)).toBe('hermes');
    expect(kept.find(':', call.slice(0, 10), call, 10, call.length)).toBe('hermes');
    expect(kept.find(':', call.slice(0, 40), call, 40, call.length)).toBe('hermes');
    // Possible while the call so far begins a kept beginning; unknown once it differs.
    expect(kept.find(':', '', call, 0, 20)).toBe(POSSIBLE);
    expect(kept.find(':', call.slice(0, 5), call, 5, 20)).toBe(POSSIBLE);
    expect(kept.find(':', '', call.replace('O', 'R'), 0, call.length)).toBe(undefined);
    expect(kept.find(' :', '', call, 0, call.length)).toBe(undefined);
    const other = ':"search","arguments":{"query":"abc"}}]';
    expect(kept.find(':', '', other, 0, other.length)).toBe('xlam');
  });

  it('keeps the first value for a beginning, and nothing longer than a call begins with', () => {
    const kept = new FirstCommits<string>();
    kept.keep(':', ':"a"', 'first');
    kept.keep(':', ':"a"', 'second');
    kept.keep(':', ':"a", "b"', 'longer');
    expect(kept.find(':', '', ':"a", "b"', 0, 9)).toBe('first');
    kept.keep(':', `:${'x'.repeat(300)}`, 'long');
    expect(kept.find(':', '', `:${'x'.repeat(300)}`, 0, 301)).toBe(undefined);
  });
});

describe('auto: a beginning another call committed on is not read again', () => {
  const hermes = protocolByName('hermes');
  const xlam = protocolByName('xlam');
  const firefunction = countedFormat(protocolByName('firefunction'));
  const countedXlam = countedFormat(xlam);
  const auto = autoProtocol({
    prompt: hermes,
    formats: [hermes, firefunction.protocol, countedXlam.protocol],
  });
  const textOf = (count: number) =>
    Array.from({ length: count }, (_, index) =>
      xlam.formatToolCall([{ toolName: 'get_weather', input: { city: `Oslo ${index}` } }]),
    ).join('\nThen:\n');

  for (const size of [1, 8, 64, Number.POSITIVE_INFINITY]) {
    it(`reads each call as xLAM does, (chunks of ${size})`, () => {
      const reads = [4, 16].map((count) => {
        const text = textOf(count);
        const parsed = autoProtocol({
          prompt: hermes,
          formats: [hermes, firefunction.protocol, countedXlam.protocol],
        });
        firefunction.reset();
        countedXlam.reset();
        const chunks = size === Number.POSITIVE_INFINITY ? [text] : chunksOf(text, size);
        const content = contentOf(streamEvents(parsed, chunks, { tools: TOOLS }));
        expect(content).toEqual(contentOf(streamEvents(xlam, chunks, { tools: TOOLS })));
        expect(
          content.filter((part) => (part as { type: string }).type === 'tool-call'),
        ).toHaveLength(count);
        return firefunction.read() + countedXlam.read();
      });
      // The probes read the first call; the others are known by how they begin, however cut.
      expect(reads[0]).toBeGreaterThan(0);
      expect(reads[1]).toBe(reads[0]);
    });
  }

  it('is kept per list of tools, for every parser of it', () => {
    const text = textOf(2);
    firefunction.reset();
    auto.parseGeneratedText(text, { tools: TOOLS });
    const first = firefunction.read();
    firefunction.reset();
    auto.parseGeneratedText(text, { tools: TOOLS });
    expect(first).toBeGreaterThan(0);
    expect(firefunction.read()).toBe(0);
  });

  it('reads as auto without kept beginnings does, where a call departs from one or ends in it', () => {
    const oslo = xlam.formatToolCall([{ toolName: 'get_weather', input: { city: 'Oslo' } }]);
    const texts = [
      // Departs after most of a kept beginning: the held formats read what was held, then on.
      `${oslo}\n${oslo.replace('Oslo', 'Rome')}`,
      `${oslo}\n${oslo.replace('"city"', '"town"')}`,
      `${oslo}\n${oslo.replace('get_weather', 'no_such_tool')}`,
      `${oslo}\n${oslo.replace('"arguments":{', '"arguments":[')}`,
      // Ends inside a kept beginning, or just after it.
      `${oslo}\n${oslo.slice(0, oslo.indexOf('Oslo'))}`,
      `${oslo}\n${oslo.slice(0, oslo.indexOf('Oslo') + 1)}`,
    ];
    for (const text of texts) {
      const fresh = () =>
        autoProtocol({ prompt: hermes, formats: [hermes, protocolByName('firefunction'), xlam] });
      const expected = contentOf(streamEvents(fresh(), [text], { tools: TOOLS }));
      // One protocol for every split: the first split keeps the beginnings the others meet.
      expect(contentAtEverySplit(fresh(), text, { tools: TOOLS }), text).toEqual(expected);
    }
  });
});
