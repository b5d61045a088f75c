/**
 * xml is a spec: its forms are opened per declared tool (`<NAME`, and NAME alone on a line), read
 * by the element reader through the spec's `callBody` hook. Its openers are no longer delimited
 * tag names: the element reader refuses a longer name, so a call is still read only where a name
 * delimiter follows the tool's name.
 */
import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../../../src/index.ts';
import { specOf } from '../../../../src/protocols/spec/define.ts';
import { xmlProtocol, xmlSpec } from '../../../../src/protocols/xml/index.ts';
import { weatherTool } from '../../helpers.ts';
import { readAtEverySplit } from '../tagged-spec-checks.ts';

const tools: ToolDefinition[] = [
  weatherTool,
  { name: 'get', inputSchema: { type: 'object', properties: { id: { type: 'string' } } } },
];
const xml = xmlProtocol();

describe('xml as a spec', () => {
  it('gives its spec back', () => {
    expect(specOf(xml)).toBe(xmlSpec);
    expect(xmlSpec.actionsPerTurn).toBe('one');
  });

  it('reads a call only where a name delimiter follows the tool name', () => {
    expect(
      readAtEverySplit(xml, 'a <get_weather_x>b</get_weather_x> <getter/> c', { tools }),
    ).toEqual({
      calls: [],
      text: 'a <get_weather_x>b</get_weather_x> <getter/> c',
      reasoning: '',
      errors: [],
    });
    expect(
      readAtEverySplit(xml, '<get id="1"/><get_weather>\n<city>Oslo</city>\n</get_weather>', {
        tools,
      }).calls,
    ).toEqual([
      ['get', { id: '1' }],
      ['get_weather', { city: 'Oslo' }],
    ]);
  });

  it('reads the tool name alone on a line, not a longer word there', () => {
    expect(
      readAtEverySplit(xml, 'Now:\nget_weather\n<city>Oslo</city>\n', { tools }).calls,
    ).toEqual([['get_weather', { city: 'Oslo' }]]);
    expect(readAtEverySplit(xml, 'Now:\ngetting there', { tools })).toMatchObject({
      calls: [],
      text: 'Now:\ngetting there',
    });
  });
});
