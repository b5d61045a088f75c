/**
 * MiniMax-M3's namespaced, element-named calls. Vectors from vLLM's
 * `tests/tool_parsers/test_minimax_m3_tool_parser.py` (`build_order_call`).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonText } from '../../../src/core/parse-json.ts';
import type { JsonSchema, ToolDefinition } from '../../../src/index.ts';
import { minimaxM3Format, minimaxM3Spec } from '../../../src/protocols/formats/minimax-m3.ts';
import { defineFormat } from '../../../src/protocols/spec/define.ts';
import { expectLinearGrowth } from '../../support/growth.ts';
import { streamEvents } from '../helpers.ts';
import { createOrder, NS, ORDER_INPUT, orderCall } from './minimax-m3-order.ts';
import { expectTotalAndChunkInvariant } from './parameter-tags-checks.ts';
import { readAtEverySplit } from './tagged-spec-checks.ts';

const protocol = defineFormat(minimaxM3Spec);
const tools = [createOrder];
const el = (key: string, value: string) => `${NS}<${key}>${value}${NS}</${key}>`;
const ORDER = orderCall(NS);

describe('minimax-m3', () => {
  it('reads the vLLM order call: nested objects, item arrays, a repeated key, schema types', () => {
    const text = `I will create it.\n${NS}<tool_call>\n${ORDER}\n${NS}</tool_call>`;
    // Every split of a 1 kB text: checked on the whole, one character at a time and in two.
    expect(readAtEverySplit(protocol, text, { tools })).toEqual({
      calls: [['create_order', ORDER_INPUT]],
      text: 'I will create it.\n',
      reasoning: '',
      errors: [],
    });
  });

  it('reads two invokes in one block, an empty invoke, and a partial opener as text', () => {
    const one = (id: string) =>
      `${NS}<invoke name="create_order">${el('user_id', id)}${NS}</invoke>`;
    expect(
      readAtEverySplit(protocol, `${NS}<tool_call>\n${one('1')}\n${one('2')}\n${NS}</tool_call>`, {
        tools,
      }).calls,
    ).toEqual([
      ['create_order', { user_id: 1 }],
      ['create_order', { user_id: 2 }],
    ]);
    expect(
      readAtEverySplit(
        protocol,
        `${NS}<tool_call>${NS}<invoke name="create_order">${NS}</invoke>${NS}</tool_call>`,
        {
          tools,
        },
      ).calls,
    ).toEqual([['create_order', {}]]);
    expect(readAtEverySplit(protocol, `plain ${NS}<tool_ca`, { tools })).toMatchObject({
      calls: [],
      text: `plain ${NS}<tool_ca`,
    });
  });

  it('reads values without a schema: item children an array, other children an object, text JSON or text', () => {
    const open: ToolDefinition = { name: 'free', inputSchema: { type: 'object' } };
    const text = `${NS}<tool_call>${NS}<invoke name="free">${el('list', el('item', '1') + el('item', 'x'))}${el('obj', el('a', 'true'))}${el('n', '3.5')}${el('s', 'hello')}${NS}</invoke>${NS}</tool_call>`;
    expect(readAtEverySplit(protocol, text, { tools: [open] }).calls).toEqual([
      ['free', { list: [1, 'x'], obj: { a: true }, n: 3.5, s: 'hello' }],
    ]);
  });

  it('runs nothing from a cut-off call, reports it with its raw text, and leaves an undeclared tool as text', () => {
    const cut = `${NS}<tool_call>\n${NS}<invoke name="create_order">${NS}<note>Plea`;
    expect(readAtEverySplit(protocol, cut, { tools })).toMatchObject({
      calls: [],
      errors: [{ code: 'incomplete-call', raw: cut }],
    });
    const undeclared = `${NS}<tool_call>${NS}<invoke name="shell">${el('c', 'ls')}${NS}</invoke>${NS}</tool_call>`;
    expect(readAtEverySplit(protocol, undeclared, { tools })).toMatchObject({
      calls: [],
      text: undeclared,
    });
  });

  it('round-trips formatToolCall → parse for identifier keys and any values', () => {
    const member = fc.oneof(
      fc
        .string({ maxLength: 12 })
        .filter((value) => !value.includes(NS.slice(0, 3)))
        .map((value) => ({ value, schema: { type: 'string' } as JsonSchema })),
      fc.integer().map((value) => ({ value, schema: { type: 'integer' } as JsonSchema })),
      fc.boolean().map((value) => ({ value, schema: { type: 'boolean' } as JsonSchema })),
      fc.array(fc.integer(), { maxLength: 3 }).map((value) => ({
        value,
        schema: { type: 'array', items: { type: 'integer' } } as JsonSchema,
      })),
      fc
        .dictionary(fc.stringMatching(/^[a-z]{1,4}$/), fc.integer(), { maxKeys: 3 })
        .map((value) => ({ value, schema: { type: 'object' } as JsonSchema })),
    );
    fc.assert(
      fc.property(
        fc.dictionary(fc.stringMatching(/^[a-z_][a-z0-9_]{0,8}$/), member, { maxKeys: 4 }),
        (members) => {
          const input = Object.fromEntries(
            Object.entries(members).map(([key, { value }]) => [key, value]),
          );
          const properties = Object.fromEntries(
            Object.entries(members).map(([key, { schema }]) => [key, schema]),
          );
          const tool: ToolDefinition = {
            name: 'probe_tool',
            inputSchema: { type: 'object', properties },
          };
          const text = protocol.formatToolCall({ toolName: 'probe_tool', input });
          const parts = protocol.parseGeneratedText(text, { tools: [tool] });
          expect(parts.filter((part) => part.type !== 'tool-call')).toEqual([]);
          const calls = parts.filter((part) => part.type === 'tool-call');
          expect(calls).toHaveLength(1);
          expect(parseJsonText(calls[0]!.input)).toEqual(input);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('round-trips keys that begin with a slash, which would otherwise read as closing tags', () => {
    const tool: ToolDefinition = { name: 'free', inputSchema: { type: 'object' } };
    const input = { '/': 0, '/x': 'a', 'y/': [1] };
    const text = protocol.formatToolCall({ toolName: 'free', input });
    expect(readAtEverySplit(protocol, text, { tools: [tool] }).calls).toEqual([['free', input]]);
  });

  it('writes an object or array result in {"result": …}, which no JSON reader takes for a call', () => {
    expect(protocol.formatToolResponse({ toolName: 'x', output: 'sunny' })).toBe(
      '<response>sunny</response>',
    );
    expect(minimaxM3Format.create().formatToolResponse({ toolName: 'x', output: [1] })).toBe(
      '<response>{"result":[1]}</response>',
    );
  });

  it('is total and chunk-invariant on text made of its own markup', () => {
    const fragments = [
      `${NS}<tool_call>`,
      `${NS}</tool_call>`,
      `${NS}<invoke name="get_weather">`,
      `${NS}</invoke>`,
      `${NS}<city>`,
      `${NS}</city>`,
      `${NS}<item>`,
      `${NS}</item>`,
      `${NS}<`,
      `${NS}</`,
      NS,
      ']<]',
      '<',
      '>',
      '\n',
      ' ',
      'Oslo',
      '12',
      '{"a": 1}',
    ];
    expectTotalAndChunkInvariant(protocol, fragments, 300);
  });

  it('reads many openers, a large argument and many nested items in linear time', () => {
    const read = (text: string) => streamEvents(protocol, [text], { tools });
    expectLinearGrowth((count) => `${NS}<tool_call>x `.repeat(count), read, 1_000);
    const note = (size: number) =>
      protocol.formatToolCall({
        toolName: 'create_order',
        input: { note: 'a <b> ]<] c\n'.repeat(size / 14) },
      });
    expectLinearGrowth(note, read, 1 << 15);
    const items = (count: number) =>
      `${NS}<tool_call>${NS}<invoke name="create_order">${el('items', el('item', el('sku', 'x') + el('qty', '1')).repeat(count))}${NS}</invoke>${NS}</tool_call>`;
    expectLinearGrowth(items, read, 1_000);
  });

  it('never reads a result as a call, and is registered for its model ids', () => {
    const calls = protocol.formatToolCall({ toolName: 'create_order', input: { user_id: 1 } });
    for (const output of [calls, { text: calls }]) {
      const written = protocol.formatToolResponse({ toolName: 'create_order', output });
      expect(
        protocol.parseGeneratedText(written, { tools }).filter((part) => part.type === 'tool-call'),
      ).toEqual([]);
    }
    expect(minimaxM3Format.models.some((pattern) => pattern.test('minimaxai/minimax-m3'))).toBe(
      true,
    );
    expect(minimaxM3Format.toolNamesIn!(calls)).toEqual(['create_order']);
  });
});
