/**
 * `<tool_call>` opens hermes (JSON), Qwen3-Coder and GLM (the tool's name right after the tag).
 * GLM's name reader gives up at a first character no declared tool's name starts with, so on a
 * hermes call auto's GLM reading stops at its `{` instead of reading the call to its end.
 */
import { describe, expect, it } from 'vitest';
import { autoProtocol, protocolByName } from '../../../src/index.ts';
import type { CandidateGroup } from '../../../src/protocols/auto/choice-body.ts';
import { grammarOf } from '../../../src/protocols/define/define-protocol.ts';
import { resolveParseOptions } from '../../../src/protocols/engine/stream-engine.ts';
import { chunksOf, contentOf, streamEvents, TOOLS } from '../helpers.ts';
import { countedFormat } from './counted-bodies.ts';

const CALLS = Array.from({ length: 8 }, (_, index) => ({
  toolName: 'get_weather',
  input: { city: `City ${index}`, days: index },
}));

describe('auto: GLM gives up on a hermes call at its first character', () => {
  const hermes = protocolByName('hermes');
  const glm = countedFormat(protocolByName('glm'));
  const auto = autoProtocol({ formats: [hermes, glm.protocol, protocolByName('qwen3-coder')] });
  const text = `Checking.\n${hermes.formatToolCall(CALLS)}\nDone.`;
  // hermes writes `<tool_call>\n{`: GLM may hold the line break, never read past the `{`.
  const spaceBeforeEachCall = 1;

  for (const size of [1, 8, 64, text.length]) {
    it(`reads the calls as hermes does, GLM reading no more than the white space (chunks of ${size})`, () => {
      glm.reset();
      const events = streamEvents(auto, chunksOf(text, size), { tools: TOOLS });
      expect(contentOf(events)).toEqual(
        contentOf(streamEvents(hermes, chunksOf(text, size), { tools: TOOLS })),
      );
      expect(glm.read()).toBeLessThanOrEqual(CALLS.length * spaceBeforeEachCall);
    });
  }

  it('decides `<tool_call>\\n{` for hermes alone, once, in the full auto', () => {
    const parsed = autoProtocol();
    parsed.parseGeneratedText(text, { tools: TOOLS });
    const openers = grammarOf(parsed)!.callOpeners(resolveParseOptions({ tools: TOOLS }));
    const group = openers.find((opener) => opener.literal === '<tool_call>')!
      .data as CandidateGroup;
    const decision = group.decisions.get('\n{');
    // hermes is first in precedence (auto prompts in it): its candidate is the group's first.
    expect(decision).toEqual([group.all[0]]);
    expect(group.all[0]!.order).toBe(0);
  });
});
