import { describe, expect, it } from 'vitest';
import { findUndeclaredToolNames, invalidInputMessage } from '../../src/agent/feedback.ts';
import { protocolByName } from '../../src/protocols/index.ts';

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
