/**
 * What a spec's compiled openers declare to a reader of several formats (`auto`): their kind
 * (a form's certainty, a bare array, markup, a hook's reader) and the characters their calls
 * start with (`starts`, or `{` for JSON lines); and that `starts` is checked.
 */
import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../../src/index.ts';
import { resolveParseOptions } from '../../../src/protocols/engine/stream-engine.ts';
import { aprielSpec } from '../../../src/protocols/formats/apriel.ts';
import { hunyuanA13bSpec } from '../../../src/protocols/formats/hunyuan-a13b.ts';
import { hunyuanHySpec } from '../../../src/protocols/formats/hunyuan-hy.ts';
import { jambaSpec } from '../../../src/protocols/formats/jamba.ts';
import { compileGrammar } from '../../../src/protocols/spec/compile.ts';
import { FormatSpecError, readFormatSpec } from '../../../src/protocols/spec/define.ts';
import type { FormatSpec } from '../../../src/protocols/spec/types.ts';

const TOOLS: ToolDefinition[] = [{ name: 'get_weather', inputSchema: { type: 'object' } }];
const OPTIONS = resolveParseOptions({ tools: TOOLS });

const SPEC: FormatSpec = {
  spec: 1,
  name: 'test-declarations',
  markup: ['<|end|>'],
  calls: [
    { codec: 'json', open: '<call>', close: '</call>', bareArrays: ['name'] },
    { codec: 'json', open: '```json', close: '```', certainty: 'speculative' },
    { codec: 'json', open: '<lines>', close: '</lines>', perLine: true },
    { codec: 'json', open: '<list>', close: '</list>', starts: '[' },
    { codec: 'python', open: '{name}(', perTool: true, single: true, certainty: 'speculative' },
  ],
  write: { call: '<call>{"name": {name_json}, "arguments": {arguments}}</call>' },
  results: { each: '<result>{output}</result>' },
};

function declarations(spec: FormatSpec, readers: Parameters<typeof compileGrammar>[1] = []) {
  return compileGrammar(spec, readers)
    .callOpeners(OPTIONS)
    .map(({ literal, kind, callStarts }) => ({ literal, kind, callStarts }));
}

describe('compiled openers declare their kind and first characters', () => {
  it('for every opener a spec builds', () => {
    expect(declarations(SPEC)).toEqual([
      { literal: '<call>', kind: 'call', callStarts: undefined },
      { literal: '```json', kind: 'speculative', callStarts: undefined },
      { literal: '<lines>', kind: 'call', callStarts: '{' },
      { literal: '<list>', kind: 'call', callStarts: '[' },
      // The bare arrays `bareArrays` adds: prose unless a list of calls follows.
      ...declarations(SPEC)
        .filter(({ literal }) => literal.startsWith('['))
        .map(({ literal }) => ({ literal, kind: 'speculative', callStarts: undefined })),
      { literal: '<|end|>', kind: 'framing', callStarts: undefined },
      { literal: 'get_weather(', kind: 'speculative', callStarts: undefined },
    ]);
    expect(declarations(SPEC).filter(({ literal }) => literal.startsWith('['))).not.toEqual([]);
  });

  it('JSON lines whose opener holds the JSON start anywhere', () => {
    const spec: FormatSpec = {
      ...SPEC,
      markup: [],
      calls: [{ codec: 'json', open: '<lines>{', openHoldsJson: '{', perLine: true }],
    };
    expect(declarations(spec)).toEqual([
      { literal: '<lines>{', kind: 'call', callStarts: undefined },
    ]);
  });

  it("a hook's reader is a call unless it says otherwise", () => {
    const read = () => {
      throw new Error('not read here');
    };
    const spec: FormatSpec = { ...SPEC, markup: [], calls: [SPEC.calls[0]!] };
    const readers = [
      { name: 'answer', open: ['{"answer"'], read },
      { name: 'maybe', open: ['{"maybe"'], kind: 'speculative' as const, read },
    ];
    expect(declarations(spec, readers).slice(-2)).toEqual([
      { literal: '{"answer"', kind: 'call', callStarts: undefined },
      { literal: '{"maybe"', kind: 'speculative', callStarts: undefined },
    ]);
  });

  it("Hunyuan-A13B's, Jamba's and Apriel's <tool_calls> hold a JSON list", () => {
    for (const spec of [hunyuanA13bSpec, jambaSpec, aprielSpec]) {
      const opener = compileGrammar(spec)
        .callOpeners(OPTIONS)
        .find(({ literal }) => literal === '<tool_calls>');
      expect(opener?.callStarts, spec.name).toBe('[');
      expect(opener?.kind, spec.name).toBe('call');
    }
  });
});

it("Hy3/Hy4's block starts with a tag, or with the suffix of its tags", () => {
  const openers = compileGrammar(hunyuanHySpec).callOpeners(OPTIONS);
  const startsOf = (literal: string) =>
    openers.find((opener) => opener.literal === literal)?.callStarts;
  expect(startsOf('<tool_calls>')).toBe('<');
  expect(startsOf('<tool_calls')).toBe(':');
});

describe('starts is checked', () => {
  const withStarts = (starts: unknown) => ({
    ...SPEC,
    calls: [{ codec: 'json', open: '<call>', starts }],
  });

  it.each([[''], [' ['], ['[\n'], [7]])('refuses %j', (starts) => {
    let caught: unknown;
    try {
      readFormatSpec(withStarts(starts));
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(FormatSpecError);
    expect((caught as FormatSpecError).path).toBe('calls[0].starts');
  });

  it('takes characters without white space', () => {
    expect(readFormatSpec(withStarts('[{')).calls[0]?.starts).toBe('[{');
  });
});
