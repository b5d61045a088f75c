/**
 * Call forms that share an opener, told apart by the first character after it (`starts`): each
 * reads its own calls, white space before that character goes with the call however the text is
 * split, a character no form takes leaves the opener as text, and the output ending right after
 * the opener is what the form that takes anything says.
 */
import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../../src/index.ts';
import {
  defineFormat,
  FormatSpecError,
  readFormatSpec,
} from '../../../src/protocols/spec/define.ts';
import type { FormatSpec } from '../../../src/protocols/spec/types.ts';
import { readAtEverySplit } from '../formats/tagged-spec-checks.ts';
import { weatherTool } from '../helpers.ts';

const tools: ToolDefinition[] = [weatherTool];

const LIST_OR_TAGS: FormatSpec = {
  spec: 1,
  name: 'test-first-character',
  calls: [
    { codec: 'json', open: '<calls>', close: '</calls>', starts: '[' },
    {
      codec: 'tagged',
      open: '<calls>',
      close: '</calls>',
      starts: '<',
      syntax: {
        callOpen: '<function',
        callClose: '</function>',
        parameterOpen: '<parameter',
        parameterClose: '</parameter>',
        layout: 'inline',
      },
    },
  ],
  write: {
    form: 1,
    call: '<calls><function={name}>{arguments}</function></calls>',
    parameter: '<parameter={key}>{value}</parameter>',
  },
  results: { each: '<result>{output}</result>' },
};

const OSLO = [['get_weather', { city: 'Oslo' }]];

describe('forms sharing an opener, chosen by the first character', () => {
  const protocol = defineFormat(LIST_OR_TAGS);

  it.each([
    ['<calls>[{"name": "get_weather", "arguments": {"city": "Oslo"}}]</calls>'],
    ['<calls> \n [{"name": "get_weather", "arguments": {"city": "Oslo"}}]</calls>'],
    ['<calls><function=get_weather><parameter=city>Oslo</parameter></function></calls>'],
    ['<calls>\n\n<function=get_weather>\n<parameter=city>Oslo</parameter>\n</function>\n</calls>'],
  ])('reads %j at every split', (text) => {
    expect(readAtEverySplit(protocol, text, { tools })).toEqual({
      calls: OSLO,
      text: '',
      reasoning: '',
      errors: [],
    });
  });

  it('leaves the opener and its white space as text when no form takes the character', () => {
    const text =
      'see <calls> \n and more <calls>[{"name": "get_weather", "arguments": {"city": "Oslo"}}]</calls>';
    expect(readAtEverySplit(protocol, text, { tools })).toEqual({
      calls: OSLO,
      text: 'see <calls> \n and more ',
      reasoning: '',
      errors: [],
    });
  });

  it('a form that declares no first character takes any, after the others', () => {
    const anyJson = defineFormat({
      ...LIST_OR_TAGS,
      calls: [LIST_OR_TAGS.calls[1]!, { codec: 'json', open: '<calls>', close: '</calls>' }],
    });
    for (const text of [
      '<calls> {"name": "get_weather", "arguments": {"city": "Oslo"}}</calls>',
      '<calls><function=get_weather><parameter=city>Oslo</parameter></function></calls>',
    ]) {
      expect(readAtEverySplit(anyJson, text, { tools }), text).toEqual({
        calls: OSLO,
        text: '',
        reasoning: '',
        errors: [],
      });
    }
  });

  it('an output that ends after the opener is as the first form reads it', () => {
    const alone = defineFormat({
      ...LIST_OR_TAGS,
      calls: [LIST_OR_TAGS.calls[0]!],
      write: { call: '<calls>[{"name": {name_json}, "arguments": {arguments}}]</calls>' },
    });
    for (const text of ['<calls>', '<calls>\n ']) {
      expect(readAtEverySplit(protocol, text, { tools }), text).toEqual(
        readAtEverySplit(alone, text, { tools }),
      );
    }
  });

  it('the forms must agree on being read inside reasoning', () => {
    const spec = {
      ...LIST_OR_TAGS,
      calls: [LIST_OR_TAGS.calls[0], { ...LIST_OR_TAGS.calls[1], inReasoning: true }],
    };
    let caught: unknown;
    try {
      readFormatSpec(spec);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(FormatSpecError);
    expect((caught as FormatSpecError).path).toBe('calls[1].inReasoning');
  });
});

describe('framingBefore: a section opener that calls may follow without their own opener', () => {
  const spec: FormatSpec = {
    spec: 1,
    name: 'test-framing-before',
    markup: ['<end>'],
    calls: [
      { codec: 'json', open: '<call>', nameHeader: { end: '|' }, close: '</call>' },
      {
        codec: 'json',
        open: '<section>',
        nameHeader: { end: '|' },
        close: '</call>',
        framingBefore: '<',
      },
    ],
    write: { call: '<call>{name}|{arguments}</call>' },
    results: { each: '<result>{output}</result>' },
  };
  const protocol = defineFormat(spec);

  it.each([
    ['<section>\n<call>get_weather|{"city": "Oslo"}</call><end>'],
    ['<section>get_weather|{"city": "Oslo"}</call><end>'],
    ['<section> get_weather|{"city": "Oslo"}</call>'],
  ])('reads %j at every split', (text) => {
    expect(readAtEverySplit(protocol, text, { tools })).toEqual({
      calls: OSLO,
      text: '',
      reasoning: '',
      errors: [],
    });
  });

  it('drops the section opener alone at the end of the output', () => {
    expect(readAtEverySplit(protocol, 'done<section>\n', { tools })).toEqual({
      calls: [],
      text: 'done',
      reasoning: '',
      errors: [],
    });
  });

  it('refuses white space in it', () => {
    expect(() =>
      readFormatSpec({ ...spec, calls: [{ ...spec.calls[1], framingBefore: '< ' }] }),
    ).toThrow(/calls\[0\]\.framingBefore/);
  });
});
