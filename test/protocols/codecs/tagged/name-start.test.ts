/**
 * A format whose opener is followed by the tool's name (GLM's `<tool_call>NAME`): a first
 * character no declared tool's name starts with ends the body there, as not a call, rather than
 * reading on to the closer as an undeclared tool's call (hermes's `<tool_call>\n{…}`).
 */
import { describe, expect, it } from 'vitest';
import { protocolByName } from '../../../../src/index.ts';
import { countedFormat } from '../../auto/counted-bodies.ts';
import { contentAtEverySplit, TOOLS } from '../../helpers.ts';

const HERMES_CALL =
  '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>';

describe('tagged codec: the name after the opener', () => {
  const glm = countedFormat(protocolByName('glm'));

  it('gives up at a first character no declared name starts with, reading no further', () => {
    for (const [text, read] of [
      [HERMES_CALL, 0],
      ['<tool_call>{"name": "get_weather"}</tool_call>', 0],
      ['<tool_call>  [1, 2]</tool_call>', 0],
    ] as const) {
      glm.reset();
      expect(glm.protocol.parseGeneratedText(text, { tools: TOOLS })).toEqual([
        { type: 'text', text },
      ]);
      expect(glm.read()).toBe(read);
    }
  });

  it('leaves the same text at every split', () => {
    expect(
      contentAtEverySplit(protocolByName('glm'), `Hi ${HERMES_CALL} bye`, { tools: TOOLS }),
    ).toEqual([{ type: 'text', text: `Hi ${HERMES_CALL} bye` }]);
  });

  it('reads on past a first character a declared name starts with, or a reference', () => {
    const call =
      '<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Oslo</arg_value>\n</tool_call>';
    const parts = protocolByName('glm').parseGeneratedText(call, { tools: TOOLS });
    expect(parts.map((part) => part.type)).toEqual(['tool-call']);
    const referenced = call.replace('get_weather', '&#103;et_weather');
    const again = protocolByName('glm').parseGeneratedText(referenced, { tools: TOOLS });
    expect(again.map((part) => part.type)).toEqual(['tool-call']);
    // An undeclared name that begins as a declared one does is still read to its closer (text).
    const undeclared = call.replace('get_weather', 'get_time');
    glm.reset();
    expect(glm.protocol.parseGeneratedText(undeclared, { tools: TOOLS })).toEqual([
      { type: 'text', text: undeclared },
    ]);
    expect(glm.read()).toBe(undeclared.length - '<tool_call>'.length);
  });
});
