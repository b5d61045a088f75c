/**
 * `constraintFields`: which body fields go to which server, for every format, without a server:
 * when none is wanted, which field each kind gets, and the fallbacks where a format has no
 * grammar of a syntax.
 */
import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../src/core/index.ts';
import { grammarFor } from '../../src/protocols/grammar/index.ts';
import { PROTOCOL_NAMES, protocolByName } from '../../src/protocols/index.ts';
import {
  CLIENT_CONSTRAINT_FIELDS,
  type ConstraintRequest,
  clientConstraintField,
  constraintFields,
  constraintOptions,
  constraintWanted,
  ollamaTakesJsonSchema,
  vllmTakesStructuredOutputs,
} from '../../src/proxy/upstream-constraint.ts';
import { UPSTREAM_KINDS } from '../../src/proxy/upstream-kind.ts';
import { grammarSupported } from '../support/xgrammar.ts';
import { gbnfProblems } from '../support/xgrammar-gbnf-rules.ts';

const WEATHER: ToolDefinition = {
  name: 'get_weather',
  inputSchema: {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  },
};
const STRICT_WEATHER = { ...WEATHER, strict: true };

const FORMATS = PROTOCOL_NAMES.filter((name) => name !== 'auto');

describe('toolwire/proxy', () => {
  it('exports constraintFields, constraintOptions, the client fields, and the modes and kinds', async () => {
    const entry = await import('../../src/proxy/index.ts');
    expect(entry.constraintFields).toBe(constraintFields);
    expect(entry.constraintOptions).toBe(constraintOptions);
    expect(entry.CLIENT_CONSTRAINT_FIELDS).toBe(CLIENT_CONSTRAINT_FIELDS);
    expect(entry.CONSTRAIN_MODES).toEqual(['off', 'demanded', 'always']);
    expect(entry.UPSTREAM_KINDS).toBe(UPSTREAM_KINDS);
  });
});

describe('constraintWanted', () => {
  const wanted = (request: Partial<ConstraintRequest>) =>
    constraintWanted({ tools: [WEATHER], mode: 'demanded', ...request });
  it('follows the mode and the choice', () => {
    expect(wanted({ toolChoice: 'required' })).toBe(true);
    expect(wanted({ toolChoice: { toolName: 'get_weather' } })).toBe(true);
    expect(wanted({ toolChoice: 'auto' })).toBe(false);
    expect(wanted({})).toBe(false);
    expect(wanted({ tools: [STRICT_WEATHER] })).toBe(true);
    expect(wanted({ mode: 'always' })).toBe(true);
    expect(wanted({ mode: 'always', toolChoice: 'none' })).toBe(false);
    expect(wanted({ mode: 'off', toolChoice: 'required' })).toBe(false);
    expect(wanted({ mode: 'always', tools: [] })).toBe(false);
  });
});

describe('vllmTakesStructuredOutputs', () => {
  it('is 0.12 and later, or a version it cannot read', () => {
    expect(vllmTakesStructuredOutputs('0.11.2')).toBe(false);
    expect(vllmTakesStructuredOutputs('0.9.0rc1')).toBe(false);
    expect(vllmTakesStructuredOutputs('0.12.0')).toBe(true);
    expect(vllmTakesStructuredOutputs('0.13.1.dev12+g1234')).toBe(true);
    expect(vllmTakesStructuredOutputs('1.0.0')).toBe(true);
    expect(vllmTakesStructuredOutputs(undefined)).toBe(true);
    expect(vllmTakesStructuredOutputs('main')).toBe(true);
  });
});

describe('ollamaTakesJsonSchema', () => {
  it('is 0.5.0 and later (ollama 630e7dc6f), a build from source, or a version it cannot read', () => {
    expect(ollamaTakesJsonSchema('0.4.7')).toBe(false);
    expect(ollamaTakesJsonSchema('0.3.14')).toBe(false);
    expect(ollamaTakesJsonSchema('0.5.0')).toBe(true);
    expect(ollamaTakesJsonSchema('0.5.0-rc1')).toBe(true);
    expect(ollamaTakesJsonSchema('0.12.6')).toBe(true);
    expect(ollamaTakesJsonSchema('0.0.0')).toBe(true);
    expect(ollamaTakesJsonSchema(undefined)).toBe(true);
  });
});

describe('constraintOptions', () => {
  const request: ConstraintRequest = {
    tools: [WEATHER],
    toolChoice: 'required',
    mode: 'demanded',
  };
  it('gives vLLM and SGLang the structural tag, then a grammar; the others one field', () => {
    const hermes = protocolByName('hermes');
    const fields = (kind: (typeof UPSTREAM_KINDS)[number], more: Partial<ConstraintRequest> = {}) =>
      constraintOptions(kind, hermes, { ...request, ...more }).map((option) => option.field);
    expect(fields('vllm')).toEqual([
      'response_format.structural_tag',
      'structured_outputs.grammar',
    ]);
    expect(fields('vllm', { version: '0.11.0' })).toEqual(['guided_grammar']);
    expect(fields('sglang')).toEqual(['response_format.structural_tag', 'ebnf']);
    expect(fields('llama.cpp')).toEqual(['grammar']);
    expect(fields('openai')).toEqual([]);
    const xlam = protocolByName('xlam');
    expect(constraintOptions('ollama', xlam, request).map((option) => option.field)).toEqual([
      'response_format.json_schema',
    ]);
    expect(constraintOptions('ollama', xlam, { ...request, version: '0.4.7' })).toEqual([]);
    for (const kind of UPSTREAM_KINDS)
      for (const option of constraintOptions(kind, hermes, request))
        for (const value of Object.values(option.fields)) expect(value).not.toBe('');
  });
});

describe('clientConstraintField', () => {
  it("finds a client's own field of each kind, guided_ by its prefix", () => {
    expect(clientConstraintField('llama.cpp', { json_schema: {} })).toBe('json_schema');
    expect(clientConstraintField('llama.cpp', { temperature: 0 })).toBeUndefined();
    expect(clientConstraintField('vllm', { guided_regex: '.*' })).toBe('guided_regex');
    expect(clientConstraintField('vllm', { structured_outputs: {} })).toBe('structured_outputs');
    expect(clientConstraintField('sglang', { regex: '.*' })).toBe('regex');
    expect(clientConstraintField('ollama', { format: 'json' })).toBe('format');
    for (const kind of UPSTREAM_KINDS)
      expect(CLIENT_CONSTRAINT_FIELDS[kind]).toContain('response_format');
  });
});

describe('nothing is sent', () => {
  it('to openai, with mode off, for choice none, or auto under demanded without a strict tool', () => {
    const hermes = protocolByName('hermes');
    const fields = (kind: (typeof UPSTREAM_KINDS)[number], request: Partial<ConstraintRequest>) =>
      constraintFields(kind, hermes, { tools: [WEATHER], mode: 'demanded', ...request });
    for (const kind of UPSTREAM_KINDS) {
      expect(fields(kind, { mode: 'off', toolChoice: 'required' })).toBeUndefined();
      expect(fields(kind, { mode: 'always', toolChoice: 'none' })).toBeUndefined();
      expect(fields(kind, { toolChoice: 'auto' })).toBeUndefined();
    }
    expect(fields('openai', { toolChoice: 'required' })).toBeUndefined();
    expect(fields('openai', { mode: 'always' })).toBeUndefined();
  });

  it('for a format without the grammar the server takes (the request goes unconstrained)', () => {
    // Hermes's calls sit in tags, so no JSON Schema holds its whole reply.
    const hermes = protocolByName('hermes');
    const request = { tools: [WEATHER], toolChoice: 'required', mode: 'demanded' } as const;
    expect(grammarSupported(() => grammarFor(hermes, { ...request, syntax: 'json-schema' }))).toBe(
      false,
    );
    expect(constraintFields('ollama', hermes, request)).toBeUndefined();
    expect(constraintFields('lmstudio', hermes, request)).toBeUndefined();
    expect(constraintFields('llama.cpp', hermes, request)).toHaveProperty('grammar');
  });
});

describe('every format, each kind', () => {
  it.each(FORMATS)('%s', (name) => {
    const protocol = protocolByName(name);
    for (const toolChoice of ['required', 'auto'] as const) {
      const request: ConstraintRequest = { tools: [WEATHER], toolChoice, mode: 'always' };
      const grammar = (syntax: 'gbnf' | 'ebnf' | 'structural-tag' | 'json-schema') => () =>
        grammarFor(protocol, { tools: [WEATHER], toolChoice, syntax });
      const hasTag = grammarSupported(grammar('structural-tag'));
      const hasEbnf = grammarSupported(grammar('ebnf'));
      const llama = constraintFields('llama.cpp', protocol, request);
      // llama.cpp's chat completions takes a whole-reply grammar only: GBNF, or the EBNF (in the
      // subset both parse) under auto; either way it must pass llama.cpp's own grammar parser.
      const llamaSyntax = toolChoice === 'auto' ? 'ebnf' : 'gbnf';
      if (grammarSupported(grammar(llamaSyntax))) {
        expect(Object.keys(llama ?? {})).toEqual(['grammar']);
        expect(gbnfProblems(llama!.grammar as string), `${name} ${toolChoice}`).toEqual([]);
      } else expect(llama).toBeUndefined();

      for (const kind of ['vllm', 'sglang'] as const) {
        const fields = constraintFields(kind, protocol, request);
        const fallback = kind === 'vllm' ? 'structured_outputs' : 'ebnf';
        const expected = hasTag ? 'response_format' : hasEbnf ? fallback : undefined;
        expect(
          fields === undefined ? undefined : Object.keys(fields)[0],
          `${kind} ${toolChoice}`,
        ).toBe(expected);
      }
      const old = constraintFields('vllm', protocol, { ...request, version: '0.11.0' });
      expect(old === undefined ? undefined : Object.keys(old)).toEqual(
        hasEbnf ? ['guided_grammar'] : undefined,
      );

      const hasSchema = toolChoice !== 'auto' && grammarSupported(grammar('json-schema'));
      for (const kind of ['ollama', 'lmstudio'] as const) {
        const fields = constraintFields(kind, protocol, request);
        if (!hasSchema) expect(fields).toBeUndefined();
        else
          expect(fields).toEqual({
            response_format: {
              type: 'json_schema',
              json_schema: { name: 'tool_calls', strict: true, schema: expect.any(Object) },
            },
          });
      }
    }
  });
});
