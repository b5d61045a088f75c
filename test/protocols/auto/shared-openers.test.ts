/**
 * Formats that share an opener literal, read through `auto`: `<tool_calls>` opens Hunyuan-A13B,
 * Jamba and Apriel (a JSON list), MiniMax-M1 (JSON lines) and Hy3/Hy4 (`<tool_call>` elements);
 * `<tool_call>` opens hermes (JSON), Qwen3-Coder (`<function=…>`) and GLM (a bare name);
 * `<function name="…">` opens MiniCPM (`<param>` elements) and hermes (JSON). Whichever format
 * wrote the call, auto reads it as that format read by name does, at every chunk split.
 */
import { describe, expect, it } from 'vitest';
import { autoProtocol, protocolByName } from '../../../src/index.ts';
import type { CandidateGroup } from '../../../src/protocols/auto/choice-body.ts';
import { grammarOf } from '../../../src/protocols/define/define-protocol.ts';
import { resolveParseOptions } from '../../../src/protocols/engine/stream-engine.ts';
import { contentAtEverySplit, TOOLS } from '../helpers.ts';

const auto = autoProtocol();
/** Apriel's template opens reasoning; here the formats are compared on the calls alone. */
const OPTIONS = { tools: TOOLS, startInReasoning: false };
const CALLS = [
  { toolName: 'get_weather', input: { city: 'Oslo' } },
  { toolName: 'get_weather', input: { city: 'Rome', days: 2 } },
];

describe('auto: formats sharing an opener are told apart by what follows it', () => {
  for (const name of [
    'jamba',
    'hunyuan-a13b',
    'apriel',
    'minimax-m1',
    'hunyuan-hy',
    'hermes',
    'qwen3-coder',
    'glm',
    'minicpm',
  ]) {
    it(`${name}: two calls, with text around them, at every split`, () => {
      const named = protocolByName(name);
      const text = `Checking.\n${named.formatToolCall(CALLS)}\nDone.`;
      const expected = contentAtEverySplit(named, text, OPTIONS);
      const calls = expected.filter((part) => (part as { type: string }).type === 'tool-call');
      expect(calls).toHaveLength(2);
      expect(contentAtEverySplit(auto, text, OPTIONS)).toEqual(expected);
    });
  }

  it('reads hermes JSON after <function name="…"> as hermes, MiniCPM params as MiniCPM', () => {
    const hermes = '<function name="get_weather">{"city": "Oslo"}</function>';
    const minicpm = '<function name="get_weather"><param name="city">Oslo</param></function>';
    for (const [text, format] of [
      [hermes, 'hermes'],
      [minicpm, 'minicpm'],
    ] as const) {
      expect(contentAtEverySplit(auto, text, { tools: TOOLS })).toEqual(
        contentAtEverySplit(protocolByName(format), text, { tools: TOOLS }),
      );
    }
  });

  it('decides a JSON list after <tool_calls> by its first character, once, without probes', () => {
    const text = protocolByName('jamba').formatToolCall(CALLS);
    const parsed = autoProtocol();
    expect(contentAtEverySplit(parsed, text, OPTIONS)).toEqual(
      contentAtEverySplit(protocolByName('jamba'), text, OPTIONS),
    );
    const openers = grammarOf(parsed)!.callOpeners(resolveParseOptions(OPTIONS));
    const literal = openers
      .map((opener) => opener.literal)
      .filter((candidate) => text.startsWith(candidate))
      .sort((a, b) => b.length - a.length)[0]!;
    expect(literal).toBe('<tool_calls>');
    const group = openers.find((opener) => opener.literal === literal)!.data as CandidateGroup;
    const start = text.slice(literal.length, literal.length + 1);
    expect(start).toBe('[');
    // Hunyuan-A13B, Jamba and Apriel read the list alike: the first of them reads it alone.
    expect(group.decisions.get(start)).toHaveLength(1);
  });
});
