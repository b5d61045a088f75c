/**
 * xml writes values as text, like GLM's parameter tags: where a schema admits strings and other
 * types, the value is typed by the one rule of src/schema (coerceText), whether the call streams
 * or is read whole.
 */
import { describe, expect, it } from 'vitest';
import type { JsonSchema, ToolDefinition } from '../../../src/core/index.ts';
import { protocolByName } from '../../../src/protocols/index.ts';
import { contentAtEverySplit } from '../helpers.ts';

const xml = protocolByName('xml');

function toolWith(schema: JsonSchema): ToolDefinition {
  return {
    name: 'set',
    inputSchema: {
      type: 'object',
      properties: { value: schema, note: { type: 'string' } },
      required: ['value'],
    },
  };
}

/** The `value` of every call read from `<set><value>…</value><note>n</note></set>`, at every split. */
function valuesRead(schema: JsonSchema, value: string): unknown[] {
  const text = `<set>\n<value>${value}</value>\n<note>n</note>\n</set>`;
  const content = contentAtEverySplit(xml, text, { tools: [toolWith(schema)] }) as {
    type: string;
    input?: string;
  }[];
  return content
    .filter((part) => part.type === 'tool-call')
    .map((part) => (JSON.parse(part.input!) as { value: unknown }).value);
}

describe('xml: values of union types', () => {
  const cases: [JsonSchema, string, unknown][] = [
    [{ type: ['string', 'integer'] }, '7', 7],
    [{ type: ['string', 'integer'] }, '7 apples', '7 apples'],
    [{ anyOf: [{ type: 'string' }, { type: 'null' }] }, 'null', null],
    [{ type: ['string', 'null'] }, 'none', 'none'],
    [{ oneOf: [{ type: 'object' }, { type: 'string' }] }, '{"a": 1}', { a: 1 }],
    [{ type: ['string', 'boolean'] }, 'true', true],
    [{ type: 'string' }, '7', '7'],
  ];
  it.each(cases)('%j with %s', (schema, value, expected) => {
    const read = valuesRead(schema, value);
    expect(read.length).toBeGreaterThan(0);
    for (const item of read) expect(item).toEqual(expected);
  });
});
