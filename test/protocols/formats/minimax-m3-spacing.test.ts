/**
 * MiniMax-M3 with white space after the `]<]minimax[>[` prefix (NS). SGLang's `minimax_m3.py`
 * reads it (`TAG_SPACING_RE`: NS, then spaces or line breaks, before `<`, is NS); a detokenizer
 * that joins special tokens with spaces writes it (NS set off on both sides). Vectors: vLLM's
 * `build_order_call` (tests/tool_parsers/test_minimax_m3_tool_parser.py) with one space after
 * every NS, and the same call joined as that detokenizer joins it
 * (test/fixtures/families/minimax-m3-spaced.txt, provenance beside it). And M3's reasoning tags,
 * `<mm:think>…</mm:think>` (the model card's "chain of thought wrapped in <mm:think>", SGLang's
 * M3 renderer, a parser test vector `<mm:think>A plan.</mm:think>` before the calls).
 */

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { autoProtocol } from '../../../src/index.ts';
import { minimaxM3Format, minimaxM3Spec } from '../../../src/protocols/formats/minimax-m3.ts';
import { defineFormat } from '../../../src/protocols/spec/define.ts';
import { createOrder, NS, ORDER_INPUT, orderCall } from './minimax-m3-order.ts';
import { expectTotalAndChunkInvariant } from './parameter-tags-checks.ts';
import { readAtEverySplit } from './tagged-spec-checks.ts';

const protocol = defineFormat(minimaxM3Spec);
/** NS as SGLang's normaliser reads it: with one space before the tag. */
const SP = `${NS} `;
const tools = [createOrder];
const ORDER = orderCall(SP);

const fixture = (name: string) =>
  readFileSync(new URL(`../../fixtures/families/${name}`, import.meta.url), 'utf8').trimEnd();

describe('minimax-m3, white space after the prefix', () => {
  it("reads vLLM's order call with a space after every prefix, and drops the markup", () => {
    const text = `I will create it.\n${SP}<tool_call>\n${ORDER}\n${SP}</tool_call>`;
    expect(readAtEverySplit(protocol, text, { tools })).toEqual({
      calls: [['create_order', ORDER_INPUT]],
      text: 'I will create it.\n',
      reasoning: '',
      errors: [],
    });
  });

  it('reads a call whose prefix a detokenizer set off with spaces on both sides', () => {
    const read = readAtEverySplit(protocol, fixture('minimax-m3-spaced.txt'), { tools });
    expect(read.errors).toEqual([]);
    expect(read.text).toBe('I will create it.\n ');
    // Typed values are read by the schema; a string keeps the space before the prefix, as
    // SGLang keeps it (only the white space after the prefix is layout).
    expect(read.calls).toEqual([
      [
        'create_order',
        {
          user_id: 42,
          note: 'Leave it at the desk. ',
          shipping: { city: 'Singapore ', zip: 18956 },
          items: [{ sku: 'book-001 ', qty: 2 }],
        },
      ],
    ]);
  });

  it('is read by auto too', () => {
    const read = readAtEverySplit(autoProtocol(), fixture('minimax-m3-spaced.txt'), { tools });
    expect(read.calls.map(([name]) => name)).toEqual(['create_order']);
    expect(read.text).toBe('I will create it.\n ');
  });

  it('keeps prose after a bare prefix as text, and a cut-off spaced call runs nothing', () => {
    for (const text of [`plain ${SP}hello`, `plain ${SP}<tool_ca`]) {
      expect(readAtEverySplit(protocol, text, { tools })).toMatchObject({ calls: [], text });
    }
    const cut = `${SP}<tool_call>\n${SP}<invoke name="create_order">${SP}<user_id>4`;
    expect(readAtEverySplit(protocol, cut, { tools })).toMatchObject({
      calls: [],
      errors: [{ code: 'incomplete-call', raw: cut }],
    });
  });

  it('never reads a result holding spaced calls as a call, and names their tools', () => {
    const spaced = `${SP}<tool_call>\n${ORDER}\n${SP}</tool_call>`;
    const written = protocol.formatToolResponse({ toolName: 'create_order', output: spaced });
    expect(
      protocol.parseGeneratedText(written, { tools }).filter((part) => part.type === 'tool-call'),
    ).toEqual([]);
    expect(minimaxM3Format.toolNamesIn!(spaced)).toEqual(['create_order']);
  });

  it('is total and chunk-invariant on text made of its spaced markup', () => {
    const fragments = [
      `${SP}<tool_call>`,
      `${SP}</tool_call>`,
      `${SP}<invoke name="get_weather">`,
      `${SP}</invoke>`,
      `${SP}<city>`,
      `${SP}</city>`,
      `${NS}<city>`,
      `${SP}<`,
      `${SP}</`,
      SP,
      NS,
      '<',
      '>',
      '\n',
      ' ',
      'Oslo',
      '12',
    ];
    expectTotalAndChunkInvariant(protocol, fragments, 200);
  });
});

describe('minimax-m3, reasoning', () => {
  it('reads reasoning in <mm:think>, the tags MiniMax-M3 writes its chain of thought in', () => {
    // A parser test vector seen in the corpora: `<mm:think>A plan.</mm:think>` then the calls.
    const text = `<mm:think>A plan.</mm:think>${NS}<tool_call>\n${NS}<invoke name="create_order">${NS}<user_id>7${NS}</user_id>${NS}</invoke>\n${NS}</tool_call>`;
    expect(readAtEverySplit(protocol, text, { tools })).toEqual({
      calls: [['create_order', { user_id: 7 }]],
      text: '',
      reasoning: 'A plan.',
      errors: [],
    });
    // The template prefills `<mm:think>` when thinking is on: the output starts inside it.
    expect(
      readAtEverySplit(protocol, 'Plan.</mm:think>Done.', { tools, startInReasoning: true }),
    ).toMatchObject({ reasoning: 'Plan.', text: 'Done.' });
  });
});
