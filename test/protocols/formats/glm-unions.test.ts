import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonSchema, ToolDefinition } from '../../../src/core/index.ts';
import { parseJsonText } from '../../../src/core/parse-json.ts';
import { glmProtocol } from '../../../src/protocols/glm/index.ts';
import { contentAtEverySplit } from '../helpers.ts';
import type { Part } from './parameter-tags-checks.ts';

// GLM writes every value as text between <arg_value> tags; where a schema allows several types
// the value is typed by the one rule of src/schema (coerceText). The three cases of issue 20
// (llama.cpp and vLLM type them the same way), each as a type list, anyOf and oneOf.

const protocol = glmProtocol();

function toolWith(schema: JsonSchema): ToolDefinition {
  return {
    name: 'set',
    description: 'Sets a value.',
    inputSchema: { type: 'object', properties: { value: schema }, required: ['value'] },
  };
}

function callText(value: string): string {
  return `<tool_call>set\n<arg_key>value</arg_key>\n<arg_value>${value}</arg_value>\n</tool_call>`;
}

/** The `value` of every call read from the text, at every split of it. */
function valuesRead(schema: JsonSchema, value: string): unknown[] {
  const content = contentAtEverySplit(protocol, callText(value), {
    tools: [toolWith(schema)],
  }) as Part[];
  expect(content.filter((part) => part.type === 'error')).toEqual([]);
  return content
    .filter((part) => part.type === 'tool-call')
    .map((part) => (parseJsonText(part.input!) as { value: unknown }).value);
}

function spellings(other: string): [string, JsonSchema][] {
  return [
    ['type list', { type: ['string', other] }],
    ['anyOf', { anyOf: [{ type: 'string' }, { type: other }] }],
    ['oneOf', { oneOf: [{ type: other }, { type: 'string' }] }],
  ];
}

describe('glm: values of union types', () => {
  it.each(spellings('object'))(
    '["string","object"] with {"a": 1} is the object (%s)',
    (_n, schema) => {
      expect(valuesRead(schema, '{"a": 1}')).toEqual([{ a: 1 }]);
      expect(valuesRead(schema, 'a {"a": 1}')).toEqual(['a {"a": 1}']);
    },
  );

  it.each(spellings('integer'))('["string","integer"] with 7 is the number (%s)', (_n, schema) => {
    expect(valuesRead(schema, '7')).toEqual([7]);
    expect(valuesRead(schema, '7 days')).toEqual(['7 days']);
    expect(valuesRead(schema, '7.5')).toEqual(['7.5']);
  });

  it.each([
    ...spellings('null'),
    ['nullable', { type: 'string', nullable: true }] as [string, JsonSchema],
  ])('["string","null"] with null is null (%s)', (_n, schema) => {
    expect(valuesRead(schema, 'null')).toEqual([null]);
    expect(valuesRead(schema, 'nullable')).toEqual(['nullable']);
    expect(valuesRead(schema, 'None')).toEqual(['None']);
  });

  it('keeps a plain string exactly, trailing line break included', () => {
    expect(valuesRead({ type: 'string' }, '7')).toEqual(['7']);
    expect(valuesRead({ type: ['string', 'null'] }, 'line\n')).toEqual(['line\n']);
  });

  it('round-trips any string that would not type as another alternative of its union', () => {
    const unions: JsonSchema[] = [
      { type: ['string', 'integer'] },
      { type: ['string', 'null'] },
      { anyOf: [{ type: 'string' }, { type: 'object' }, { type: 'boolean' }] },
    ];
    // Text a GLM value can hold (its closing tag aside), with JSON-looking text among it.
    const value = fc
      .oneof(
        fc.string({ unit: 'grapheme', maxLength: 20 }),
        fc.constantFrom('null', 'true', '7', '{"a":1}', '[1]', ' 7', 'null\n', 'x\n'),
      )
      .filter((text) => !text.includes('<'));
    fc.assert(
      fc.property(fc.constantFrom(...unions), value, (schema, text) => {
        let json: unknown;
        try {
          json = parseJsonText(text);
        } catch {
          json = undefined;
        }
        const typed = json !== undefined && typeof json !== 'string';
        const read = valuesRead(schema, text);
        expect(read.length).toBeGreaterThan(0);
        for (const result of read) {
          if (typeof result === 'string' || !typed) expect(result).toBe(text);
          else expect(result).toEqual(json);
        }
      }),
      { numRuns: 60 },
    );
  });
});
