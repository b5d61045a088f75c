/**
 * Hermes blocks as models write them besides the canonical one: several call objects in one
 * tag, a closer left after a bare call, braces doubled by a template's escaping.
 */
import { describe, expect, it } from 'vitest';
import { hermesProtocol } from '../../../src/protocols/hermes/index.ts';
import { callsIn, errorsIn, partsOf, textIn } from './json-format-checks.ts';

const hermes = hermesProtocol();
const call = (city: string) => `{"name": "get_weather", "arguments": {"city": "${city}"}}`;
const weather = (city: string) => ({ name: 'get_weather', input: { city } });

describe('hermes: several objects in one tag', () => {
  it.each([
    ['one per line', `<tool_call>\n${call('Oslo')}\n${call('Rome')}\n</tool_call>`],
    ['run together', `<tool_call>${call('Oslo')}${call('Rome')}</tool_call>`],
    ['in an alternative tag', `<tools>${call('Oslo')}\n${call('Rome')}</tools>`],
  ])('runs every call and leaves no closer in the text: %s', (_label, text) => {
    const parts = partsOf(hermes, text);
    expect(callsIn(parts)).toEqual([weather('Oslo'), weather('Rome')]);
    expect(textIn(parts)).toBe('');
    expect(errorsIn(parts)).toEqual([]);
  });

  it('keeps an object that is not a call as text, and reports one that names no tool', () => {
    const unknown = '{"name": "nope", "arguments": {}}';
    const parts = partsOf(
      hermes,
      `<tool_call>${call('Oslo')}\n${unknown}\n${call('Rome')}</tool_call>`,
    );
    expect(callsIn(parts)).toEqual([weather('Oslo'), weather('Rome')]);
    expect(textIn(parts)).toBe(unknown);
    const nameless = partsOf(hermes, `<tool_call>${call('Oslo')}\n{"city": "Rome"}</tool_call>`);
    expect(callsIn(nameless)).toEqual([weather('Oslo')]);
    expect(errorsIn(nameless).map((error) => error.raw)).toEqual(['{"city": "Rome"}']);
  });

  it('runs nothing of a second object that breaks, and reports it', () => {
    const parts = partsOf(
      hermes,
      `<tool_call>${call('Oslo')}\n{"name": "get_weather", "arguments": {"city": }}</tool_call>`,
    );
    expect(callsIn(parts)).toEqual([weather('Oslo')]);
    expect(errorsIn(parts).map((error) => error.raw)).toEqual([
      '{"name": "get_weather", "arguments": {"city": }}',
    ]);
  });
});

describe('hermes: a closer left after a bare call', () => {
  it('consumes it when only white space comes between', () => {
    for (const text of [
      `${call('Rome')}</tool_call>`,
      `${call('Rome')}\n</tool_call>`,
      `<tool_call>${call('Oslo')}</tool_call>\n${call('Rome')}\n</tool_call>`,
    ]) {
      const parts = partsOf(hermes, text);
      expect(textIn(parts), text).not.toContain('</tool_call>');
      expect(callsIn(parts).at(-1), text).toEqual(weather('Rome'));
    }
  });

  it('keeps anything else after the call as text, a closer cut short included', () => {
    const cases = [
      [`${call('Rome')}\n</tool_cal`, '\n</tool_cal'],
      [`${call('Rome')}\n</tool_response>`, '\n</tool_response>'],
      [`${call('Rome')} and </tool_call>`, ' and </tool_call>'],
      [`${call('Rome')}\n\n`, '\n\n'],
    ] as const;
    for (const [text, rest] of cases) {
      const parts = partsOf(hermes, text);
      expect(callsIn(parts), text).toEqual([weather('Rome')]);
      expect(textIn(parts), text).toBe(rest);
    }
  });
});

describe('hermes: doubled braces', () => {
  it('reads a call whose every brace is doubled, in a tag or bare', () => {
    const doubled = '{{"name": "get_weather", "arguments": {{"city": "Oslo"}}}}';
    for (const text of [`<tool_call>\n${doubled}\n</tool_call>`, `Sure: ${doubled}`]) {
      expect(callsIn(partsOf(hermes, text)), text).toEqual([weather('Oslo')]);
    }
  });

  it('never guesses at braces doubled only in part: the tag is reported, the bare text stays', () => {
    const partial = '{{"name": "get_weather", "arguments": {"city": "Oslo"}}}';
    const tagged = partsOf(hermes, `<tool_call>${partial}</tool_call>`);
    expect(callsIn(tagged)).toEqual([]);
    expect(errorsIn(tagged).map((error) => error.code)).toEqual(['malformed-call']);
    const bare = partsOf(hermes, `Sure: ${partial}`);
    expect(callsIn(bare)).toEqual([]);
    expect(textIn(bare)).toBe(`Sure: ${partial}`);
  });
});
