/**
 * Llama 3 joins calls with `;` (`{…}; {…}`, as its model card's prompt asks): the separator is
 * dropped like white space when a call follows it, and is text otherwise.
 */
import { describe, expect, it } from 'vitest';
import { llama3Protocol } from '../../../src/protocols/llama3/index.ts';
import { callsIn, errorsIn, partsOf, textIn } from './json-format-checks.ts';

const llama3 = llama3Protocol();
const call = (city: string) => `{"name": "get_weather", "parameters": {"city": "${city}"}}`;
const weather = (city: string) => ({ name: 'get_weather', input: { city } });

describe('llama3: calls joined by ;', () => {
  it.each([
    ['no space', `${call('Oslo')};${call('Rome')}`],
    ['a space', `${call('Oslo')}; ${call('Rome')}`],
    ['space before, line break after', `${call('Oslo')} ;\n${call('Rome')}`],
    ['after <|python_tag|>', `<|python_tag|>${call('Oslo')}; ${call('Rome')}<|eom_id|>`],
  ])('reads both calls and drops the separator: %s', (_label, text) => {
    const parts = partsOf(llama3, text);
    expect(callsIn(parts)).toEqual([weather('Oslo'), weather('Rome')]);
    expect(textIn(parts)).toBe('');
    expect(errorsIn(parts)).toEqual([]);
  });

  it('reads three calls and keeps the text after them', () => {
    const parts = partsOf(llama3, `${call('A')}; ${call('B')}; ${call('C')}\nDone.`);
    expect(callsIn(parts)).toEqual([weather('A'), weather('B'), weather('C')]);
    expect(textIn(parts)).toBe('\nDone.');
  });

  it('keeps a separator that no call follows as text', () => {
    for (const [text, rest] of [
      [`${call('Oslo')}; then I stop.`, '; then I stop.'],
      [`${call('Oslo')};`, ';'],
      [`${call('Oslo')}; {"city": "Rome"} is data`, '; {"city": "Rome"} is data'],
      [
        `${call('Oslo')}; {"name": "unknown", "parameters": {}}`,
        '; {"name": "unknown", "parameters": {}}',
      ],
      [`${call('Oslo')}; {not json} ok`, '; {not json} ok'],
    ] as const) {
      const parts = partsOf(llama3, text);
      expect(callsIn(parts), text).toEqual([weather('Oslo')]);
      expect(textIn(parts), text).toBe(rest);
      expect(errorsIn(parts), text).toEqual([]);
    }
  });

  it('never runs a call cut off after a separator: it is reported with its text', () => {
    const text = `${call('Oslo')}; {"name": "get_weather", "parameters": {"city": "Ro`;
    const parts = partsOf(llama3, text);
    expect(callsIn(parts)).toEqual([weather('Oslo')]);
    const errors = errorsIn(parts);
    expect(errors.map((error) => error.code)).toEqual(['incomplete-call']);
    expect(errors[0]!.raw).toBe('; {"name": "get_weather", "parameters": {"city": "Ro');
  });
});
