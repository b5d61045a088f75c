import { describe, expect, it } from 'vitest';
import { findUndeclaredToolNames, invalidInputMessage } from '../../src/agent/feedback.ts';
import { FORMATS, protocolByName } from '../../src/protocols/index.ts';
import { xmlToolNamesIn } from '../../src/protocols/xml/tool-names.ts';
import { expectLinearGrowth } from '../support/growth.ts';

const declared = new Set(['get_weather']);

describe('findUndeclaredToolNames', () => {
  it('xml: an undeclared tag holding parameter tags and closed later', () => {
    const xml = protocolByName('xml');
    expect(
      findUndeclaredToolNames(xml, '<get_forecast>\n<city>Oslo</city>\n</get_forecast>', declared),
    ).toEqual(['get_forecast']);
    // Never closed, declared, reasoning, or prose: not a tool the model meant.
    expect(findUndeclaredToolNames(xml, '<get_forecast><city>Oslo</city>', declared)).toEqual([]);
    expect(
      findUndeclaredToolNames(xml, '<get_weather><city>x</city></get_weather>', declared),
    ).toEqual([]);
    expect(findUndeclaredToolNames(xml, '<think><b>x</b></think>', declared)).toEqual([]);
    expect(findUndeclaredToolNames(xml, 'a < b and c > d', declared)).toEqual([]);
  });

  it('json protocols: undeclared "name" values, each once', () => {
    const text =
      '<tool_call>{"name": "get_forecast", "arguments": {}}</tool_call>' +
      '<tool_call>{"name": "get_forecast", "arguments": {}}</tool_call>' +
      '<tool_call>{"name": "get_weather", "arguments": {}}</tool_call>';
    expect(findUndeclaredToolNames(protocolByName('hermes'), text, declared)).toEqual([
      'get_forecast',
    ]);
  });
});

describe('findUndeclaredToolNames: the format says how its text names tools', () => {
  it("uses every registered format's own reader (FormatEntry.toolNamesIn), leaving out declared tools", () => {
    for (const entry of FORMATS.filter((format) => format.toolNamesIn)) {
      const protocol = entry.create();
      const text = `${entry.example}\n${protocol.formatToolCall({ toolName: 'get_forecast', input: { city: 'Oslo' } })}`;
      const named = entry.toolNamesIn!(text);
      expect(named, entry.name).toContain('get_forecast');
      expect(findUndeclaredToolNames(protocol, text, declared), entry.name).toEqual(
        named.filter((name) => !declared.has(name)),
      );
    }
  });

  it('a protocol the registry does not know: JSON "name" values', () => {
    const own = { ...protocolByName('xml'), name: 'my-own-xml' };
    const text = '<get_forecast><city>Oslo</city></get_forecast> {"name": "lookup", "x": 1}';
    expect(findUndeclaredToolNames(own, text, declared)).toEqual(['lookup']);
  });
});

describe('xmlToolNamesIn', () => {
  it('names each tag that holds a parameter tag and is closed later, once, in order', () => {
    const text =
      '<get_forecast>\n<city>Oslo</city>\n</get_forecast> then <get_weather> <city>x</city></get_weather>' +
      ' and <get_forecast><days>2</days></get_forecast>';
    expect(xmlToolNamesIn(text)).toEqual(['get_forecast', 'get_weather']);
  });

  it('leaves out tags never closed, reasoning and result tags, and prose', () => {
    expect(xmlToolNamesIn('<get_forecast><city>Oslo</city>')).toEqual([]);
    for (const tag of ['think', 'thinking', 'result', 'item', 'tool_result']) {
      expect(xmlToolNamesIn(`<${tag}><b>x</b></${tag}>`), tag).toEqual([]);
    }
    expect(xmlToolNamesIn('a < b and c > d; <br> <hr>')).toEqual([]);
    expect(xmlToolNamesIn('')).toEqual([]);
  });

  it('reads a long text full of tags in linear time', () => {
    const unit = '<a.b-c><x>1</x>';
    expect(xmlToolNamesIn(`${unit.repeat(1_000)}</a.b-c>`)).toEqual(['a.b-c']);
    // CPU time, best of several runs, 16 times the text (test/support/growth.ts).
    expectLinearGrowth(
      (count) => `${unit.repeat(count)}</a.b-c>`,
      (text) => xmlToolNamesIn(text),
      10_000,
    );
  });
});

describe('feedback messages', () => {
  it('names every problem by parameter', () => {
    const message = invalidInputMessage('get_weather', [
      { path: '/city', keyword: 'required', message: 'missing required parameter "city"' },
      { path: '/options/days', keyword: 'type', message: 'must be integer' },
      { path: '', keyword: 'additionalProperties', message: 'unknown parameter "x"' },
    ]);
    expect(message).toContain('- city: missing required parameter "city"');
    expect(message).toContain('- options.days: must be integer');
    expect(message).toContain('- unknown parameter "x"');
  });
});
