/**
 * Chunk invariance of the tagged codec (qwen3-coder) where a call written without its block is
 * followed by a tag of no call (`<param name="path">`, not qwen3-coder's `<parameter=`): found
 * by the property test of test/protocols/invariants.test.ts. The call's own tag alone, then a
 * tag that is not the call's, is a mention: the text stays text, wherever the chunks end.
 */
import { describe, expect, it } from 'vitest';
import { autoProtocol, protocolByName, type ToolDefinition } from '../../../../src/index.ts';
import { contentAtEverySplit, TOOLS } from '../../helpers.ts';

/** The tools of the property test that found it: no argument required. */
const OPEN_TOOLS: readonly ToolDefinition[] = [
  {
    name: 'get_weather',
    inputSchema: {
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer' } },
    },
  },
  {
    name: 'write_file',
    inputSchema: {
      type: 'object',
      properties: { path: { type: 'string' }, content: { type: 'string' } },
    },
  },
];

const MENTIONS = [
  '</param></function>\n<function name="write_file"><param name="path"><function name="get_weat',
  '<function=write_file><param name="path"><function name="get_weat',
  '<function name="write_file"><param name="path"><function=get_weat',
  '<function=get_weather><param name="city">Paris</param></function>',
  '<function name="get_weather"><param name="city"><function name="write_file">',
  '<function=write_file><param name="path">x',
];

/**
 * The mentions that are MiniCPM's own syntax (`<function name="…"><param name="…">`) cut off:
 * MiniCPM, and `auto`, which reads MiniCPM, report them as its calls cut off; qwen3-coder leaves
 * them text.
 */
const MINICPM_CUT_CALLS = new Set([MENTIONS[0], MENTIONS[2], MENTIONS[4]]);

describe('parameter tags: a tag of no call after a bare call opener', () => {
  for (const tools of [OPEN_TOOLS, TOOLS]) {
    for (const text of MENTIONS) {
      it(`qwen3-coder: ${JSON.stringify(text)} is text at every split (${tools.length} tools)`, () => {
        expect(contentAtEverySplit(protocolByName('qwen3-coder'), text, { tools })).toEqual([
          { type: 'text', text },
        ]);
      });
      it(`auto: ${JSON.stringify(text)} reads as MiniCPM reads it, at every split (${tools.length} tools)`, () => {
        const content = contentAtEverySplit(autoProtocol(), text, { tools });
        expect(content).toEqual(contentAtEverySplit(protocolByName('minicpm'), text, { tools }));
        if (!MINICPM_CUT_CALLS.has(text)) expect(content).toEqual([{ type: 'text', text }]);
        else {
          const types = content.map((part) => (part as { type: string }).type);
          expect(types).toContain('error');
          expect(types).not.toContain('tool-call');
        }
      });
    }
  }

  it('reads a call that follows the mention', () => {
    const mention = '<function name="write_file"><param name="path">';
    const call = '<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>';
    const content = contentAtEverySplit(protocolByName('qwen3-coder'), mention + call, {
      tools: TOOLS,
    });
    expect(content).toEqual([
      { type: 'text', text: mention },
      { type: 'tool-call', toolName: 'get_weather', input: '{"city":"Paris"}' },
    ]);
  });

  it('still reads a bare call whose parameters are its own', () => {
    const text = '<function=write_file>\n<parameter=path>\na.txt\n</parameter>\n</function>';
    expect(contentAtEverySplit(protocolByName('qwen3-coder'), text, { tools: OPEN_TOOLS })).toEqual(
      [{ type: 'tool-call', toolName: 'write_file', input: '{"path":"a.txt"}' }],
    );
  });
});
