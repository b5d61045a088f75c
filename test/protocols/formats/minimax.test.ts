import { describe, expect, it } from 'vitest';
import { minimaxFormat, minimaxProtocol } from '../../../src/protocols/minimax/index.ts';
import { contentAtEverySplit, weatherTool, writeFileTool } from '../helpers.ts';
import { type Part, parameterTagsChecks } from './parameter-tags-checks.ts';

const protocol = minimaxProtocol();
const tools = [weatherTool, writeFileTool];

function read(text: string) {
  const content = contentAtEverySplit(protocol, text, { tools }) as Part[];
  return {
    calls: content
      .filter((part) => part.type === 'tool-call')
      .map((part) => [part.toolName, JSON.parse(part.input!)]),
    text: content
      .filter((part) => part.type === 'text')
      .map((part) => part.text)
      .join(''),
    errors: content.filter((part) => part.type === 'error').map((part) => part.error!.code),
  };
}

describe('minimax', () => {
  it('reads several invokes in one block, with text before and after', () => {
    const result = read(
      'Let me check.\n<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Beijing</parameter>\n<parameter name="days">2</parameter>\n</invoke>\n<invoke name="write_file">\n<parameter name="path">a</parameter>\n<parameter name="content"><html>&amp;</html></parameter>\n</invoke>\n</minimax:tool_call>\nThe weather will be...',
    );
    expect(result.calls).toEqual([
      ['get_weather', { city: 'Beijing', days: 2 }],
      ['write_file', { path: 'a', content: '<html>&amp;</html>' }],
    ]);
    expect(result.text).toBe('Let me check.\n\nThe weather will be...');
  });

  it('reads compact output, and invokes whose block token was stripped', () => {
    expect(
      read(
        '<minimax:tool_call><invoke name="get_weather"><parameter name="city">X</parameter></invoke></minimax:tool_call>',
      ).calls,
    ).toHaveLength(1);
    expect(
      read(
        '<invoke name="get_weather">\n<parameter name="city">X</parameter>\n</invoke>\n</minimax:tool_call>',
      ),
    ).toEqual({
      calls: [['get_weather', { city: 'X' }]],
      text: '',
      errors: [],
    });
  });

  it('implies a missing </invoke> from the next invoke, and reports a second call cut off', () => {
    const result = read(
      '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">A</parameter>\n<invoke name="get_weather">\n<parameter name="city">B',
    );
    expect(result.calls).toEqual([['get_weather', { city: 'A' }]]);
    expect(result.errors).toEqual(['incomplete-call']);
  });

  it('leaves an invoke of an undeclared tool as text', () => {
    const text =
      '<minimax:tool_call>\n<invoke name="shell">\n<parameter name="c">ls</parameter>\n</invoke>\n</minimax:tool_call>';
    expect(read(text)).toEqual({ calls: [], text, errors: [] });
  });

  it('is registered for its model names and renders its history convention', () => {
    expect(minimaxFormat.models.some((pattern) => pattern.test('minimaxai/minimax-m2'))).toBe(true);
    expect(protocol.formatToolResponse({ toolName: 'get_weather', output: 'sunny' })).toBe(
      '<response>sunny</response>',
    );
    // Hermes reads JSON calls in `<response>`: an object or array result goes in `{"result": …}`.
    expect(
      protocol.formatToolResponse({
        toolName: 'get_weather',
        output: [{ name: 'get_weather', arguments: {} }],
      }),
    ).toBe('<response>{"result":[{"\\u006eame":"get_weather","arguments":{}}]}</response>');
    expect(protocol.formatTools([weatherTool])).toContain('<tools>\n<tool>{"name":"get_weather"');
  });

  parameterTagsChecks(protocol, [
    '</parameter>',
    '<parameter',
    '</invoke>',
    '</minimax:tool_call>',
    '<invoke',
  ]);
});
