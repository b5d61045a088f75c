/**
 * Granite answering with bare Python calls, one per line and nothing else
 * (`get_weather(city="Paris")\nget_time(zone="UTC")`): read when each line is one whole call of a
 * declared tool, from the output's start; prose that mentions a call is never one.
 */
import { describe, expect, it } from 'vitest';
import { graniteProtocol } from '../../../src/protocols/granite/index.ts';
import { pythonicProtocol } from '../../../src/protocols/pythonic/index.ts';
import { callsIn, errorsIn, partsOf, textIn } from './json-format-checks.ts';

const granite = graniteProtocol();
const paris = { name: 'get_weather', input: { city: 'Paris' } };
const utc = { name: 'search', input: { query: 'UTC' } };

describe('granite: bare Python calls, one per line', () => {
  it.each([
    ['two lines', 'get_weather(city="Paris")\nsearch(query="UTC")'],
    ['CRLF and a blank line', 'get_weather(city="Paris")\r\n\r\nsearch(query="UTC")\r\n'],
    ['spaces at the line ends', 'get_weather(city = "Paris")  \nsearch(query="UTC")\t'],
  ])('runs every line: %s', (_label, text) => {
    const parts = partsOf(granite, text);
    expect(callsIn(parts)).toEqual([paris, utc]);
    expect(errorsIn(parts)).toEqual([]);
    expect(textIn(parts)).toBe('');
  });

  it('keeps the text after the calls, its line break with it', () => {
    const parts = partsOf(granite, 'get_weather(city="Paris")\nThanks!');
    expect(callsIn(parts)).toEqual([paris]);
    expect(textIn(parts)).toBe('\nThanks!');
  });

  it('never runs a call that text follows on its line: it is reported with its text', () => {
    const text = 'get_weather(city="Paris") is the call to use.';
    const parts = partsOf(granite, text);
    expect(callsIn(parts)).toEqual([]);
    expect(errorsIn(parts).map((error) => error.code)).toEqual(['malformed-call']);
    expect(textIn(parts)).toBe(text);
  });

  it('never runs a call whose line the output was cut off in', () => {
    const parts = partsOf(granite, 'get_weather(city="Paris")', { interrupted: true });
    expect(callsIn(parts)).toEqual([]);
    expect(errorsIn(parts).map((error) => error.code)).toEqual(['incomplete-call']);
  });

  it('reads no prose as a call: mentions, undeclared names, positional arguments', () => {
    for (const text of [
      'use print(x) to debug',
      'Use get_weather(city="Paris") to check.',
      'print(x)\nget_weather(city="Paris")',
      'get_weather("Paris")',
      'Sure.\nget_weather(city="Paris")',
    ]) {
      const parts = partsOf(granite, text);
      expect(callsIn(parts), text).toEqual([]);
      expect(textIn(parts), text).toBe(text);
    }
  });
});

describe('python calls one per line: text after them is kept', () => {
  it("keeps a line that is not a call after Olmo 3's calls, where it was lost", () => {
    const parts = partsOf(pythonicProtocol(), '<function_calls>get_weather(city="Paris")\nThanks!');
    expect(callsIn(parts)).toEqual([paris]);
    expect(textIn(parts)).toContain('Thanks');
  });
});
