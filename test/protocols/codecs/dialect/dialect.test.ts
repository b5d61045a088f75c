/**
 * The dialect codec on its own, with forms other than Gemma's: strings between any delimiter
 * pair (one character, different open and close, overlapping ones), quoted JSON strings or not,
 * closers and their alternatives, explicit and speculative openers. The reader, the body and the
 * writer must agree for every form, not only for the two Gemma ones.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isErrorOfKind } from '../../../../src/core/errors.ts';
import { parseJsonText } from '../../../../src/core/parse-json.ts';
import type { ToolCallProtocol, ToolDefinition } from '../../../../src/index.ts';
import { DialectCallBody } from '../../../../src/protocols/codecs/dialect/call-body.ts';
import {
  DialectStringError,
  writeDialectArguments,
} from '../../../../src/protocols/codecs/dialect/write.ts';
import { defineProtocol } from '../../../../src/protocols/define/define-protocol.ts';
import type { DialectCallForm } from '../../../../src/protocols/spec/types.ts';
import { callsIn, errorsIn, partsOf, textIn } from '../../formats/json-format-checks.ts';
import { contentOf, splitAt, streamEvents, streamingViolations, TOOLS } from '../../helpers.ts';

/** A protocol of one or more dialect forms, written with the first. */
function dialectProtocol(...forms: DialectCallForm[]): ToolCallProtocol {
  const first = forms[0]!;
  // The same array every time: the engine compiles it once.
  const openers = forms.map((form) => ({ literal: form.open, delimited: false, data: form }));
  return defineProtocol<DialectCallForm>({
    name: 'dialect-test',
    grammar: {
      reasoningTags: [],
      callOpeners: () => openers,
      openCall: (form, context) => new DialectCallBody(context, form),
    },
    formatTools: () => '',
    formatToolCall: (calls) =>
      calls
        .map(
          (call) =>
            `${first.open}${first.namePrefix ?? ''}${call.toolName}${writeDialectArguments(call.input, first)}${first.close ?? ''}`,
        )
        .join(''),
    formatToolResponse: () => '',
  });
}

const GUILLEMETS: DialectCallForm = {
  codec: 'dialect',
  open: '<fn>',
  close: '</fn>',
  closeAlternatives: ['<end>'],
  stringDelimiters: ['«', '»'],
};

const TAGGED_STRINGS: DialectCallForm = {
  codec: 'dialect',
  open: '@@',
  namePrefix: 'run ',
  stringDelimiters: ['<s>', '</s>'],
  quotedStrings: true,
};

/** A delimiter with a border (`aba`): a string ending in `ab` would end early. */
const OVERLAPPING: DialectCallForm = {
  codec: 'dialect',
  open: '<fn>',
  close: '</fn>',
  stringDelimiters: ['aba', 'aba'],
};

const SPECULATIVE: DialectCallForm = {
  codec: 'dialect',
  open: 'do:',
  stringDelimiters: ['«', '»'],
  certainty: 'speculative',
};

const tools = TOOLS;

describe('reading', () => {
  const protocol = dialectProtocol(GUILLEMETS, TAGGED_STRINGS, SPECULATIVE);

  it.each([
    [
      'one-character delimiters',
      '<fn>get_weather{city:«Oslo»,days:2}</fn>',
      { city: 'Oslo', days: 2 },
    ],
    ['a closer alternative', '<fn>get_weather{city:«Oslo»}<end>', { city: 'Oslo' }],
    [
      'white space around parts',
      '<fn> get_weather{ city : «Oslo» , days : 2 } </fn>',
      { city: 'Oslo', days: 2 },
    ],
    ['a delimited key', '<fn>get_weather{«city»:«a»}</fn>', { city: 'a' }],
    [
      'Python literals',
      '<fn>search{query:«q»,allow_tests:True,path:None}</fn>',
      { query: 'q', allow_tests: true, path: null },
    ],
    [
      'different open and close delimiters, no closer',
      '@@run write_file{path:<s>a</s>,content:<s><s>x</s>}',
      { path: 'a', content: '<s>x' },
    ],
    [
      'a quoted JSON string with escapes',
      '@@run write_file{path:"a\\"\\u00e9\\n",content:<s>x</s>}',
      { path: 'a"é\n', content: 'x' },
    ],
    [
      'a quoted key',
      '@@run write_file{"path":<s>p</s>,content:<s>c</s>}',
      { path: 'p', content: 'c' },
    ],
    [
      'a speculative call with bare text',
      'do:get_weather{city:New York,days:3}',
      { city: 'New York', days: 3 },
    ],
  ])('%s', (_label, text, input) => {
    const parts = partsOf(protocol, text, { tools });
    expect(errorsIn(parts)).toEqual([]);
    expect(callsIn(parts).map((call) => call.input)).toEqual([input]);
    expect(textIn(parts).trim()).toBe('');
  });

  it.each([
    [
      'a quote where quoted strings are not read',
      '<fn>get_weather{city:"Oslo"}</fn>',
      'malformed-call',
    ],
    ['a bare word', '<fn>get_weather{city:Oslo}</fn>', 'malformed-call'],
    ['a trailing comma', '<fn>get_weather{city:«a»,}</fn>', 'malformed-call'],
    ['an unknown escape', '@@run write_file{path:"\\q"}', 'malformed-call'],
    ['a cut unicode escape', '@@run write_file{path:"\\u00g"}', 'malformed-call'],
    ['no prefix', '@@write_file{}', 'malformed-call'],
    ['an unterminated string', '<fn>get_weather{city:«Oslo', 'incomplete-call'],
    ['an unterminated quoted string', '@@run write_file{path:"a', 'incomplete-call'],
  ])('%s is a fault with its raw text', (_label, text, code) => {
    const parts = partsOf(protocol, text, { tools });
    expect(callsIn(parts)).toEqual([]);
    expect(errorsIn(parts)).toMatchObject([{ code }]);
    expect(textIn(parts)).toContain(text.slice(0, 4));
  });

  it.each([
    'do:unknown{a:1}',
    'do:get_weather{city:«Oslo»',
    'do:get_weather{city:"Oslo"}',
    'do: get_weather{}',
    // Speculative calls count only as the rest of the output.
    'do:get_weather{city:«Oslo»} and more',
    'do:get_weather{city:«Oslo»}do:unknown{}',
    '<fn>unknown{a:«x</fn>»}</fn>',
  ])('%s is text', (text) => {
    const parts = partsOf(protocol, text, { tools });
    expect(callsIn(parts)).toEqual([]);
    expect(errorsIn(parts)).toEqual([]);
    expect(textIn(parts)).toBe(text);
  });

  it('reads speculative calls one after another to the end of the output', () => {
    const parts = partsOf(protocol, 'Sure: do:get_weather{city:«Oslo»}\ndo:search{query:q}', {
      tools,
    });
    expect(callsIn(parts).map((call) => call.name)).toEqual(['get_weather', 'search']);
    expect(textIn(parts)).toBe('Sure: ');
  });

  it('hands back a closer begun and broken off: it may begin the next call', () => {
    const parts = partsOf(
      dialectProtocol({ ...GUILLEMETS, close: '<fn/>', closeAlternatives: [] }),
      '<fn>get_weather{city:«a»}<fn>get_weather{city:«b»}<fn/>',
      { tools },
    );
    expect(errorsIn(parts)).toMatchObject([
      { code: 'malformed-call', raw: '<fn>get_weather{city:«a»}' },
    ]);
    expect(callsIn(parts).map((call) => call.input)).toEqual([{ city: 'b' }]);
  });

  it('types values by the schema', () => {
    const parts = partsOf(protocol, '<fn>get_weather{city:«Oslo»,days:«4»}</fn>', { tools });
    expect(callsIn(parts)).toEqual([{ name: 'get_weather', input: { city: 'Oslo', days: 4 } }]);
  });

  it('is total and chunk-invariant on text made of its markup, split anywhere', () => {
    const pieces = fc.constantFrom(
      '<fn>',
      '</fn>',
      '<end>',
      '<en',
      '@@',
      'run ',
      'do:',
      'get_weather',
      'write_file',
      'unknown',
      'city',
      'path',
      '{',
      '}',
      '[',
      ']',
      ':',
      ',',
      '«',
      '»',
      '<s>',
      '</s>',
      '<s',
      '"',
      '\\',
      'u00e9',
      'Oslo',
      ' ',
      '\n',
      '1',
      'true',
    );
    const text = fc.array(pieces, { maxLength: 30 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(text, fc.array(fc.nat(), { maxLength: 6 }), (output, cuts) => {
        const whole = streamEvents(protocol, [output], { tools });
        const split = streamEvents(protocol, splitAt(output, cuts), { tools });
        expect(contentOf(split)).toEqual(contentOf(whole));
        expect(streamingViolations(split)).toEqual([]);
        const cut = protocol.createStreamParser({ tools });
        cut.push(output);
        cut.end({ interrupted: true });
      }),
      { numRuns: 500 },
    );
  });
});

describe('writing', () => {
  it('writes bare keys, strings between the delimiters, and bare numbers and literals', () => {
    expect(
      writeDialectArguments(
        {
          city: 'Oslo',
          n: -1.5,
          ok: true,
          none: null,
          list: [1, 'a'],
          nested: { 'my key': {} },
          '00': 0,
        },
        GUILLEMETS,
      ),
    ).toBe('{city:«Oslo»,n:-1.5,ok:true,none:null,list:[1,«a»],nested:{«my key»:{}},«00»:0}');
  });

  it('normalises the input as JSON, and writes {} for anything but an object', () => {
    expect(writeDialectArguments('{"a": 1}', GUILLEMETS)).toBe('{a:1}');
    expect(writeDialectArguments({ a: undefined, b: Number.NaN }, GUILLEMETS)).toBe('{b:null}');
    for (const input of [undefined, null, 3, 'text', [1, 2]]) {
      expect(writeDialectArguments(input, GUILLEMETS)).toBe('{}');
    }
  });

  it('quotes a string holding the closing delimiter where the form reads quoted strings', () => {
    expect(writeDialectArguments({ a: 'x</s>y' }, TAGGED_STRINGS)).toBe('{a:"x</s>y"}');
  });

  it('refuses such a string where it does not, naming the delimiter', () => {
    const write = () => writeDialectArguments({ a: 'x»y' }, GUILLEMETS);
    expect(write).toThrow(DialectStringError);
    expect(write).toThrow(/»/);
    try {
      write();
    } catch (error) {
      expect(isErrorOfKind(error, 'invalid-tool-input')).toBe(true);
    }
  });

  it('refuses a string whose end would run into an overlapping delimiter', () => {
    // `ab` + `aba` reads back as `` followed by `ba`…: the first `aba` is not the one written.
    expect(() => writeDialectArguments({ a: 'ab' }, OVERLAPPING)).toThrow(DialectStringError);
    // A key that begins with the delimiter's first character is a string too.
    expect(writeDialectArguments({ a: 'b' }, OVERLAPPING)).toBe('{abaaaba:abababa}');
  });

  it.each([
    ['one-character delimiters', GUILLEMETS],
    ['quoted strings as the fallback', TAGGED_STRINGS],
    ['overlapping delimiters', OVERLAPPING],
  ])('round-trips what it writes: %s', (_label, form) => {
    const protocol = dialectProtocol(form);
    const anyTools: ToolDefinition[] = [{ name: 'f', inputSchema: {} }];
    const text = fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.constantFrom('«', '»', '</s>', '<s>', 'ab', 'aba', 'b', '"', '\\', '{', '}'),
    );
    const value = fc.letrec<{ value: unknown }>((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        text,
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('value'), { maxLength: 3 }),
        fc.dictionary(text, tie('value'), { maxKeys: 3 }),
      ),
    })).value;
    fc.assert(
      fc.property(fc.dictionary(text, value, { maxKeys: 4 }), (input) => {
        let written: string;
        try {
          written = protocol.formatToolCall({ toolName: 'f', input });
        } catch (error) {
          // Only a string the form cannot write is refused.
          expect(error).toBeInstanceOf(DialectStringError);
          return;
        }
        const parts = partsOf(protocol, written, { tools: anyTools });
        expect(callsIn(parts)).toEqual([
          { name: 'f', input: parseJsonText(JSON.stringify(input)) },
        ]);
      }),
      { numRuns: 150 },
    );
  });
});
