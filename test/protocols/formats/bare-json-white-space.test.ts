/**
 * Bare JSON calls in any layout of JSON white space: xLAM's bare list (and the other bare-list
 * formats, through the JSON codec's openers) and Llama 3's bare object. A server that constrains
 * the reply with a JSON Schema (Ollama's `format`, LM Studio's `response_format`) lets white space
 * stand between any two tokens (`[ \t {\t"name" :`); the readers read what they read in the
 * compact layout, and text that begins like JSON but is not a call stays text as before.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ParseEvent, ToolCallProtocol } from '../../../src/index.ts';
import { autoProtocol } from '../../../src/protocols/auto/index.ts';
import {
  commandRProtocol,
  firefunctionProtocol,
  graniteProtocol,
  mistralProtocol,
} from '../../../src/protocols/formats.ts';
import { llama3Protocol } from '../../../src/protocols/llama3/index.ts';
import { xlamProtocol } from '../../../src/protocols/xlam/index.ts';
import { expectLinearEngineWork } from '../../support/growth.ts';
import { callsIn, errorsIn, partsOf, TOOLS, textIn } from './json-format-checks.ts';

const xlam = xlamProtocol();
const llama3 = llama3Protocol();

/** JSON white space runs, taken in turn wherever JSON allows one. */
const spaceRuns = fc.array(fc.stringMatching(/^[ \t\n\r]{0,3}$/), { minLength: 1, maxLength: 40 });

/** `value` as JSON with the next white-space run before and after every token. */
function laidOut(value: unknown, runs: readonly string[]): string {
  let turn = 0;
  const space = () => runs[turn++ % runs.length] as string;
  const write = (item: unknown): string => {
    if (Array.isArray(item)) {
      return `[${space()}${item.map((element) => write(element)).join(`${space()},${space()}`)}${space()}]`;
    }
    if (item !== null && typeof item === 'object') {
      const members = Object.entries(item).map(
        ([key, member]) => `${JSON.stringify(key)}${space()}:${space()}${write(member)}`,
      );
      return `{${space()}${members.join(`${space()},${space()}`)}${space()}}`;
    }
    return JSON.stringify(item);
  };
  return write(value);
}

const call = fc.oneof(
  fc
    .record({ city: fc.string({ maxLength: 6 }), days: fc.integer() }, { requiredKeys: ['city'] })
    .map((input) => ({ name: 'get_weather', input })),
  fc
    .record(
      { query: fc.string({ maxLength: 6 }), tags: fc.array(fc.string({ maxLength: 3 })) },
      { requiredKeys: ['query'] },
    )
    .map((input) => ({ name: 'search', input })),
);

describe('bare JSON calls in any layout of white space', () => {
  // The bare-list openers are the JSON codec's: every format that reads bare lists reads them so.
  it.each([
    ['xlam', xlam, (name: string, input: object) => ({ name, arguments: input })],
    ['granite', graniteProtocol(), (name: string, input: object) => ({ name, arguments: input })],
    [
      'firefunction',
      firefunctionProtocol(),
      (name: string, input: object) => ({ name, arguments: input }),
    ],
    ['mistral', mistralProtocol(), (name: string, input: object) => ({ name, arguments: input })],
    [
      'command-r',
      commandRProtocol(),
      (name: string, input: object) => ({ tool_call_id: '0', tool_name: name, parameters: input }),
    ],
  ] as const)(
    '%s: a list of calls laid out with any JSON white space reads back as the same calls, at every split',
    (_name, protocol, callObject) => {
      fc.assert(
        fc.property(fc.array(call, { minLength: 1, maxLength: 2 }), spaceRuns, (calls, runs) => {
          const text = laidOut(
            calls.map(({ name, input }) => callObject(name, input)),
            runs,
          );
          const parts = partsOf(protocol, text);
          expect(callsIn(parts), text).toEqual(calls);
          expect(errorsIn(parts), text).toEqual([]);
          expect(textIn(parts), text).toBe('');
        }),
        { numRuns: 25 },
      );
    },
  );

  it('llama3: a call object, or calls joined by `;`, laid out with any JSON white space read back, at every split', () => {
    fc.assert(
      fc.property(fc.array(call, { minLength: 1, maxLength: 2 }), spaceRuns, (calls, runs) => {
        const text = calls
          .map(({ name, input }) => laidOut({ name, parameters: input }, runs))
          .join(`${runs[0]};${runs[runs.length - 1]}`);
        const parts = partsOf(llama3, text);
        expect(callsIn(parts), text).toEqual(calls);
        expect(errorsIn(parts), text).toEqual([]);
        expect(textIn(parts).trim(), text).toBe('');
      }),
      { numRuns: 40 },
    );
  });

  const byName: Record<string, ToolCallProtocol> = { xlam, llama3, granite: graniteProtocol() };

  it.each([
    ['xlam', '[ \t {\t"name" : "get_weather" , "arguments" : { "city" : "Oslo" } } ]'],
    ['xlam', '[\n\n\n{\r\n"arguments": {"city": "Oslo"}, "name": "get_weather"}]'],
    ['granite', '[\t{"name": "get_weather", "arguments": {"city": "Oslo"}}]'],
    ['llama3', '{\t"name":"get_weather","parameters":{"city":"Oslo"}}'],
    ['llama3', '{   "type": "function", "name": "get_weather", "parameters": {"city": "Oslo"}}'],
    ['llama3', '{{\n\n"name": "get_weather", "parameters": {{"city": "Oslo"}}}}'],
  ])('%s reads %j', (name, text) => {
    const parts = partsOf(byName[name] as ToolCallProtocol, text);
    expect(callsIn(parts)).toEqual([{ name: 'get_weather', input: { city: 'Oslo' } }]);
    expect(errorsIn(parts)).toEqual([]);
  });

  it("xlam reads llama.cpp's generic answers in any layout, at every split", () => {
    const weather = [{ name: 'get_weather', input: { city: 'Oslo' } }];
    for (const [text, calls, answer] of [
      [
        '{\t\t"tool_calls" : [ {"name": "get_weather", "arguments": {"city": "Oslo"}}]}',
        weather,
        '',
      ],
      ['{\n   "tool_call":{"name": "get_weather", "arguments": {"city": "Oslo"}}}', weather, ''],
      ['{\r\n  "response" : "Hi there"\n}', [], 'Hi there'],
      ['{\t"other": 1}', [], '{\t"other": 1}'],
      ['{  "tool_callx": 1}', [], '{  "tool_callx": 1}'],
      ['{ \t', [], '{ \t'],
    ] as const) {
      const parts = partsOf(xlam, text);
      expect(callsIn(parts), text).toEqual(calls);
      expect(errorsIn(parts), text).toEqual([]);
      expect(textIn(parts), text).toBe(answer);
    }
  });

  // What a literal opener refused before is refused in any layout: data, prose, code.
  it.each([
    ['xlam', '[ {"name": "Ada", "age": 36}]'],
    ['xlam', '[\n  \n  {"city": "Oslo"}]'],
    ['xlam', '[ 1, 2 ]'],
    ['xlam', '[\t"name", "get_weather"]'],
    ['llama3', '{  "city": "Oslo"}'],
    ['llama3', 'if (x) {\n  return [ ];\n}'],
    ['llama3', '{\t"names": 1}'],
    ['llama3', '{ \n "na"}'],
  ])('%s keeps %j as text', (name, text) => {
    const parts = partsOf(byName[name] as ToolCallProtocol, text);
    expect(callsIn(parts)).toEqual([]);
    expect(errorsIn(parts)).toEqual([]);
    expect(textIn(parts)).toBe(text);
  });

  it('reads another opener inside a lead that is not a call\'s (`[ {"tool_calls"`)', () => {
    const text = '[ {"tool_calls": [{"name": "get_weather", "arguments": {"city": "Oslo"}}]}]';
    const parts = partsOf(xlam, text);
    expect(callsIn(parts)).toEqual([{ name: 'get_weather', input: { city: 'Oslo' } }]);
    expect(textIn(parts)).toBe('[ ]');
  });
});

describe('leads that are not calls', () => {
  const parse = (protocol: ToolCallProtocol) => (text: string) => {
    const parser = protocol.createStreamParser({ tools: TOOLS });
    for (let at = 0; at < text.length; at += 512) parser.push(text.slice(at, at + 512));
    parser.end();
  };

  it('cost work linear in their length, however many there are', () => {
    // Each refused lead hands back its white space, which is read again once.
    expectLinearEngineWork((size) => '[ \n {\t'.repeat(size), parse(xlam), 1000);
    expectLinearEngineWork((size) => '{ \t{\n'.repeat(size), parse(llama3), 1000);
    expectLinearEngineWork((size) => `[${' '.repeat(size)}x`, parse(xlam), 1000);
  });
});

/** The text of the events. */
function textOf(events: readonly ParseEvent[]): string {
  return events.map((event) => (event.type === 'text-delta' ? event.delta : '')).join('');
}

// The white space after `{` or `[` is held until the next character decides (a lead may go on
// there); that character decides as a literal opener's did.
describe('auto: text that begins like bare JSON is given back where it shows it is no call', () => {
  const auto = autoProtocol();

  it.each([
    ['[ {"a": 1}', '[ {"a"'],
    ['{\n  "city": "Oslo"', '{\n  "c'],
    ['{\t\treturn x; }', '{\t\tr'],
    ['[\n\n  1,', '[\n\n  1'],
  ])('gives %j back as text once %j shows it is no call', (text, decided) => {
    const parser = auto.createStreamParser({ tools: TOOLS });
    let out = '';
    for (let index = 0; index < text.length; index++) {
      out += textOf(parser.push(text[index] as string));
      if (index + 1 >= decided.length) {
        expect(out.length, `after ${JSON.stringify(text.slice(0, index + 1))}`).toBeGreaterThan(0);
      }
    }
    out += textOf(parser.end());
    expect(out).toBe(text);
  });

  it('reads the spaced layouts as calls, as the formats do', () => {
    for (const text of [
      '[ \t {\t"name" : "get_weather" , "arguments" : { "city" : "Oslo" } } ]',
      '{\t"name": "get_weather", "parameters": {"city": "Oslo"}}',
    ]) {
      const parts = partsOf(auto, text);
      expect(callsIn(parts), text).toEqual([{ name: 'get_weather', input: { city: 'Oslo' } }]);
    }
  });
});
