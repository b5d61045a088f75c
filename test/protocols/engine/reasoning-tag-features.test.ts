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
import { readAtEverySplit } from '../formats/tagged-spec-checks.ts';

const tools: ToolDefinition[] = [
  {
    name: 'get_weather',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
  },
];

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
