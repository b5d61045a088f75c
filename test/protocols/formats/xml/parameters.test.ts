/**
 * What a closing tag ends in an XML call: an undeclared parameter never merges into the value
 * before it, and a second closing tag is stray markup, dropped and reported.
 */
import { describe, expect, it } from 'vitest';
import { type ToolDefinition, xmlProtocol } from '../../../../src/index.ts';
import { callsOf, contentAtEverySplit, weatherTool, writeFileTool } from '../../helpers.ts';

const xml = xmlProtocol();
const commandTool: ToolDefinition = {
  name: 'execute_command',
  inputSchema: {
    type: 'object',
    properties: { command: { type: 'array', items: { type: 'string' } } },
    required: ['command'],
  },
};
const looseWeather: ToolDefinition = {
  name: 'get_weather',
  inputSchema: {
    type: 'object',
    properties: { city: { type: 'string' }, days: { type: 'integer' } },
    required: ['city'],
  },
};

function calls(content: unknown[]) {
  return content
    .filter((part) => (part as { type: string }).type === 'tool-call')
    .map((part) => {
      const call = part as { toolName: string; input: string; problems?: unknown[] };
      return { toolName: call.toolName, input: JSON.parse(call.input), problems: call.problems };
    });
}

function errors(content: unknown[]) {
  return content
    .filter((part) => (part as { type: string }).type === 'error')
    .map((part) => (part as { error: { code: string; raw: string } }).error);
}

describe('xml: an undeclared parameter is its own key', () => {
  it('ends the value before it on the same line', () => {
    const content = contentAtEverySplit(
      xml,
      '<get_weather><city>Oslo</city><colour>red</colour></get_weather>',
      { tools: [looseWeather] },
    );
    expect(calls(content)).toEqual([
      { toolName: 'get_weather', input: { city: 'Oslo', colour: 'red' }, problems: undefined },
    ]);
  });

  it('does not swallow the held value before it (the 3 of days is kept)', () => {
    const content = contentAtEverySplit(
      xml,
      '<get_weather><city>Oslo</city><days>3</days><colour>red</colour></get_weather>',
      { tools: [looseWeather] },
    );
    expect(calls(content)[0]!.input).toEqual({ city: 'Oslo', days: 3, colour: 'red' });
  });

  it('lets the schema decide: additionalProperties false names the unknown parameter', () => {
    const content = contentAtEverySplit(
      xml,
      '<get_weather><city>Oslo</city><colour>red</colour></get_weather>',
      { tools: [weatherTool] },
    );
    const [call] = calls(content);
    expect(call!.input).toEqual({ city: 'Oslo', colour: 'red' });
    expect(JSON.stringify(call!.problems)).toContain('colour');
  });

  it('reads the same call written on one line and over several lines alike', () => {
    const oneLine = calls(
      contentAtEverySplit(
        xml,
        '<get_weather><city>Oslo</city><note>x</note><days>2</days></get_weather>',
        {
          tools: [looseWeather],
        },
      ),
    );
    const lines = calls(
      contentAtEverySplit(
        xml,
        '<get_weather>\n<city>Oslo</city>\n<note>x</note>\n<days>2</days>\n</get_weather>',
        { tools: [looseWeather] },
      ),
    );
    expect(oneLine).toEqual(lines);
    expect(oneLine[0]!.input).toEqual({ city: 'Oslo', note: 'x', days: 2 });
  });

  it('ends a value at its closing tag followed by a self-closing or attributed tag', () => {
    const content = contentAtEverySplit(
      xml,
      '<get_weather><city>Oslo</city><flag/><days>1</days></get_weather>',
      { tools: [looseWeather] },
    );
    expect(calls(content)[0]!.input).toEqual({ city: 'Oslo', flag: '', days: 1 });
  });

  it("still keeps tags that are not after the value's own closing tag as content", () => {
    const content = contentAtEverySplit(
      xml,
      '<write_file><path>a.html</path><content><div><b>x</b></div></content></write_file>',
      { tools: [writeFileTool] },
    );
    expect(calls(content)[0]!.input).toEqual({ path: 'a.html', content: '<div><b>x</b></div>' });
  });
});

describe('xml: a stray extra closing tag', () => {
  it('is dropped and reported after a repeated parameter', () => {
    const text =
      '<execute_command><command>ls</command><command>app</command></command></execute_command>';
    const content = contentAtEverySplit(xml, text, { tools: [commandTool] });
    expect(calls(content)).toEqual([
      { toolName: 'execute_command', input: { command: ['ls', 'app'] }, problems: undefined },
    ]);
    expect(errors(content)).toMatchObject([
      { code: 'stray-markup', raw: '</command>', dropped: true },
    ]);
  });

  it('is dropped and reported after a string value, and never appended to it', () => {
    const text = '<get_weather><city>Oslo</city></city>\n<days>2</days></get_weather>';
    const content = contentAtEverySplit(xml, text, { tools: [looseWeather] });
    expect(calls(content)[0]!.input).toEqual({ city: 'Oslo', days: 2 });
    expect(errors(content)).toMatchObject([{ code: 'stray-markup', raw: '</city>' }]);
  });

  it('between parameters, a closing tag of another name is reported too', () => {
    const text = '<get_weather><city>Oslo</city>\n</days>\n</get_weather>';
    const content = contentAtEverySplit(xml, text, { tools: [looseWeather] });
    expect(calls(content)[0]!.input).toEqual({ city: 'Oslo' });
    expect(errors(content)).toMatchObject([{ code: 'stray-markup', raw: '</days>' }]);
  });

  it("keeps balanced nested tags of the parameter's own name as content", () => {
    const text = '<write_file><path>p</path><content><content>x</content></content></write_file>';
    const content = contentAtEverySplit(xml, text, { tools: [writeFileTool] });
    expect(calls(content)[0]!.input).toEqual({ path: 'p', content: '<content>x</content>' });
    expect(errors(content)).toEqual([]);
  });
});

describe('xml: a parameter given as an attribute and as a tag', () => {
  it('keeps the first value and says the parameter was given twice', () => {
    const calls = callsOf(
      xmlProtocol(),
      '<get_weather city="Oslo"><city>Lima</city></get_weather>',
      [weatherTool],
    );
    expect(calls).toEqual([
      {
        toolName: 'get_weather',
        input: { city: 'Oslo' },
        problems: [expect.objectContaining({ path: '/city', keyword: 'duplicate' })],
      },
    ]);
  });
});
