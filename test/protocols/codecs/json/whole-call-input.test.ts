import { describe, expect, it } from 'vitest';
import { protocolByName } from '../../../../src/index.ts';
import { streamEvents, TOOLS } from '../../helpers.ts';

/**
 * A call read whole gives as its input `JSON.stringify` of the settled value, as the streaming
 * path's writer does (the whole-call reader writes it at once, a flat string rather than a tree
 * of pieces of the source, which a text of many calls kept alive): escapes written in other
 * forms, surrogates, held values coerced by the schema, properties left out.
 */

const hermes = protocolByName('hermes');

const SOURCES = [
  '{"name":"search","arguments":{"query":"\\u0041\\/\\u00e9\\ud83d\\ude00\\n\\u001f\\u0022\\\\u0041"}}',
  '{"name":"search","arguments":{"query":"a\\ud800b\udc00 <\\u003c>"}}',
  '{"name":"get_weather","arguments":{"city":"Oslo","days":"4","unit":" Celsius "}}',
  '{"name":"search","arguments":{"query":"q","options":{"depth":1.0,"exact":true},"extra":[1e2,-0,1E400]}}',
  '{"arguments":{"query":"q","tags":"a"},"name":"search"}',
  '{"name":"write_file","arguments":{"path":"a.ts","content":"if (a < b) {\\n\\t\\"x\\\\y\\";\\n}"}}',
];

describe('whole JSON call: the input text', () => {
  it.each(SOURCES)('%s', (json) => {
    const text = `<tool_call>${json}</tool_call>`;
    const calls = hermes
      .parseGeneratedText(text, { tools: TOOLS })
      .filter((part) => part.type === 'tool-call');
    expect(calls).toHaveLength(1);
    const input = calls[0]!.input;
    expect(input).toBe(JSON.stringify(JSON.parse(input)));
    // The streaming path, a character at a time, writes the same text.
    const streamed = streamEvents(hermes, [...text], { tools: TOOLS }).filter(
      (event) => event.type === 'tool-call',
    );
    expect(streamed.map((event) => event.input)).toEqual([input]);
  });
});
