/**
 * Reasoning tags beyond a literal pair: other literals that end a block (`closeAlternatives`,
 * Kimi K3's `<|open|>response<|sep|>`), checked through a spec that is nobody's format.
 */
import { describe, expect, it } from 'vitest';
import { autoProtocol, type ToolDefinition } from '../../../src/index.ts';
import { checkLiterals } from '../../../src/protocols/engine/stream-engine.ts';
import {
  defineFormat,
  FormatSpecError,
  readFormatSpec,
} from '../../../src/protocols/spec/define.ts';
import type { FormatSpec, ReasoningSpec } from '../../../src/protocols/spec/types.ts';
import { expectLinearEngineWork } from '../../support/growth.ts';
import { readAtEverySplit } from '../formats/tagged-spec-checks.ts';
import { weatherTool } from '../helpers.ts';

const tools: ToolDefinition[] = [weatherTool];

function specWith(reasoning: readonly ReasoningSpec[]): FormatSpec {
  return {
    spec: 1,
    name: 'test-reasoning-tags',
    reasoning,
    calls: [{ codec: 'json', open: '<call>', close: '</call>' }],
    write: { call: '<call>{"name": {name_json}, "arguments": {arguments}}</call>' },
    results: { each: '<result>{output}</result>' },
  };
}

const CALL = '<call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</call>';

describe('closeAlternatives', () => {
  const protocol = defineFormat(
    specWith([{ open: '<t>', close: '</t>', closeAlternatives: ['<answer>'] }]),
  );

  it('ends a block the output opened at an alternative, consumed like the closer', () => {
    expect(readAtEverySplit(protocol, `<t>hmm<answer>Oslo.${CALL}`, { tools })).toEqual({
      calls: [['get_weather', { city: 'Oslo' }]],
      text: 'Oslo.',
      reasoning: 'hmm',
      errors: [],
    });
    expect(readAtEverySplit(protocol, '<t>hmm</t>Oslo.<answer>', { tools })).toMatchObject({
      text: 'Oslo.<answer>',
      reasoning: 'hmm',
    });
  });

  it('ends a block the prompt opened at an alternative', () => {
    expect(
      readAtEverySplit(protocol, `hmm<answer>Oslo.${CALL}`, { tools, startInReasoning: true }),
    ).toEqual({
      calls: [['get_weather', { city: 'Oslo' }]],
      text: 'Oslo.',
      reasoning: 'hmm',
      errors: [],
    });
  });

  it('is validated: readFormatSpec names an empty alternative', () => {
    const spec = specWith([{ open: '<t>', close: '</t>', closeAlternatives: ['<a>', ''] }]);
    expect(() => readFormatSpec(spec)).toThrow(FormatSpecError);
    expect(() => readFormatSpec(spec)).toThrow(/reasoning\[0\]\.closeAlternatives\[1\]/);
    expect(() =>
      readFormatSpec(specWith([{ open: '<t>', close: '</t>', closeAlternatives: 'x' } as never])),
    ).toThrow(/reasoning\[0\]\.closeAlternatives/);
  });

  it('refuses an empty alternative in an engine grammar, as it refuses an empty closer', () => {
    expect(() =>
      checkLiterals('test', [], [{ open: '<t>', close: '</t>', closeAlternatives: [''] }]),
    ).toThrow(/empty closing literal/);
  });
});

describe('auto, combining reasoning tags', () => {
  it("keeps a tag's alternatives with it (Kimi K3's response element ends its think element)", () => {
    const text = '<|open|>think<|sep|>Need code.<|open|>response<|sep|>Running.';
    expect(readAtEverySplit(autoProtocol(), text, { tools })).toMatchObject({
      text: 'Running.',
      reasoning: 'Need code.',
    });
  });
});

describe('suffixed', () => {
  const SUFFIXED: ReasoningSpec = { open: '<think', close: '</think', suffixed: true };
  const plain = defineFormat(specWith([SUFFIXED, { open: '<thinking>', close: '</thinking>' }]));
  // The same with its calls read inside reasoning: the closers are searched for by a trie there.
  const withCallsInReasoning = defineFormat({
    ...specWith([SUFFIXED, { open: '<thinking>', close: '</thinking>' }]),
    calls: [{ codec: 'json', open: '<call>', close: '</call>', inReasoning: true }],
  });

  describe.each([
    ['closers searched for alone', plain],
    ['closers searched for with openers read inside reasoning', withCallsInReasoning],
  ])('%s', (_name, protocol) => {
    const read = (text: string, startInReasoning = false) =>
      readAtEverySplit(protocol, text, { tools, startInReasoning });

    it('ends a block at its closer with the same suffix', () => {
      expect(read('<think:6124c78e>a</think:6124c78e>b')).toEqual({
        calls: [],
        text: 'b',
        reasoning: 'a',
        errors: [],
      });
      expect(read('<think>a</think>b')).toMatchObject({ text: 'b', reasoning: 'a' });
      expect(read('<thinking>a</thinking>b')).toMatchObject({ text: 'b', reasoning: 'a' });
    });

    it('reads a closer with another suffix as reasoning: the block runs to the end', () => {
      expect(read('<think:x>a</think:y>b')).toMatchObject({ text: '', reasoning: 'a</think:y>b' });
      expect(read('<think:x>a</think>b')).toMatchObject({ text: '', reasoning: 'a</think>b' });
    });

    it('reads the literal as text when no suffix follows it', () => {
      for (const text of [
        'use a <thinkpad> here',
        'a <think: x> b',
        'a <think:> b',
        `a <think:${'s'.repeat(65)}> b`,
        'a <think',
        'a <think:abc',
      ]) {
        expect(read(text), text).toMatchObject({ text, reasoning: '' });
      }
      const longest = `<think:${'s'.repeat(64)}>a</think:${'s'.repeat(64)}>b`;
      expect(read(longest)).toMatchObject({ text: 'b', reasoning: 'a' });
    });

    it('ends a block the prompt opened at the closer with any suffix, or none', () => {
      expect(read('a</think:opensource>b', true)).toMatchObject({ text: 'b', reasoning: 'a' });
      expect(read('a</think>b', true)).toMatchObject({ text: 'b', reasoning: 'a' });
      expect(read('a</thinking>b', true)).toMatchObject({ text: 'b', reasoning: 'a' });
      expect(read('a</thinker>b</think:z>c', true)).toMatchObject({
        text: 'c',
        reasoning: 'a</thinker>b',
      });
      expect(read('a</think:o p>b', true)).toMatchObject({ text: '', reasoning: 'a</think:o p>b' });
      expect(read('a</think:sfx', true)).toMatchObject({ text: '', reasoning: 'a</think:sfx' });
    });

    it('drops an opener the prompt already wrote, with its suffix', () => {
      expect(read('<think:6124c78e>a</think:6124c78e>b', true)).toMatchObject({
        text: 'b',
        reasoning: 'a',
      });
      expect(read('<thinkpad>a</think>b', true)).toMatchObject({
        text: 'b',
        reasoning: '<thinkpad>a',
      });
    });

    it('reads many `<think:` openers in linear work', () => {
      const parse = (text: string) => {
        const parser = protocol.createStreamParser({ tools });
        parser.push(text);
        parser.end();
      };
      const make = (size: number) => `a <think:${'x'.repeat(40)} `.repeat(size);
      expectLinearEngineWork(make, parse, 200);
      // A suffix cut by every chunk's end is held and read again: a bounded amount per chunk.
      const byCharacter = (text: string) => {
        const parser = protocol.createStreamParser({ tools });
        for (const character of text) parser.push(character);
        parser.end();
      };
      expectLinearEngineWork(make, byCharacter, 50);
      const inside = (size: number) => `</think:${'x'.repeat(40)} `.repeat(size);
      expectLinearEngineWork(
        inside,
        (text) => {
          const parser = protocol.createStreamParser({ tools, startInReasoning: true });
          parser.push(text);
          parser.end();
        },
        200,
      );
    });
  });

  it('is validated: readFormatSpec names the bad field', () => {
    expect(() =>
      readFormatSpec(specWith([{ open: '<think', close: '</think', suffixed: 'yes' } as never])),
    ).toThrow(/reasoning\[0\]\.suffixed/);
    expect(() =>
      readFormatSpec(specWith([{ open: '<think>', close: '</think', suffixed: true }])),
    ).toThrow(/reasoning\[0\]\.open/);
    expect(() =>
      readFormatSpec(specWith([{ open: '<think', close: '</think>', suffixed: true }])),
    ).toThrow(/reasoning\[0\]\.close/);
  });
});
