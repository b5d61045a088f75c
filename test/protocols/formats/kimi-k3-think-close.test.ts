/**
 * Kimi K3 turns whose `<|close|>think<|sep|>` the model left out. vLLM #53246 / #53249: K3 omits
 * it in about 5% of tool-calling turns (4/75 replaying a captured request, 8/170 on a real
 * harness), and the whole turn, its calls included, was returned as reasoning; vLLM's fix takes
 * `<|open|>response<|sep|>`, `<|close|>response<|sep|>` and `<|open|>tools<|sep|>` as the end of
 * the think channel. Vectors: Dynamo's live K3 tests (ai-dynamo/dynamo `lib/parsers`,
 * `test_kimi_k3_live_multi_argument_call_is_chunk_boundary_independent`,
 * `test_kimi_k3_live_parallel_calls_are_chunk_boundary_independent`), and the template's turn
 * without its think close. Also a call written without its tools element around it (Dynamo's
 * `test_kimi_k3_live_bare_call_recovers_missing_outer_tools_wrapper`).
 */
import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../../src/index.ts';
import { kimiK3Spec } from '../../../src/protocols/formats/kimi-k3.ts';
import { defineFormat } from '../../../src/protocols/spec/define.ts';
import { readAtEverySplit } from './tagged-spec-checks.ts';

const protocol = defineFormat(kimiK3Spec);

const tools: ToolDefinition[] = [
  {
    name: 'add_numbers',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
  },
  { name: 'fetch_url', inputSchema: { type: 'object', properties: { url: { type: 'string' } } } },
  { name: 'python', inputSchema: { type: 'object', properties: { code: { type: 'string' } } } },
];

describe('kimi-k3, a think element the model did not close', () => {
  it("reads Dynamo's live multi-argument call: the tools element ends the reasoning", () => {
    const text = [
      'Now call add_numbers.',
      '<|open|>tools<|sep|>',
      '<|open|>call tool="add_numbers" index="1"<|sep|>',
      '<|open|>argument key="a" type="number"<|sep|>17',
      '<|close|>argument<|sep|>',
      '<|open|>argument key="b" type="number"<|sep|>19',
      '<|close|>argument<|sep|>',
      '<|close|>call<|sep|>',
      '<|close|>tools<|sep|>',
      '<|close|>message<|sep|>',
      '<|end_of_msg|>',
    ].join('');
    expect(readAtEverySplit(protocol, text, { tools })).toEqual({
      calls: [['add_numbers', { a: 17, b: 19 }]],
      text: '',
      reasoning: 'Now call add_numbers.',
      errors: [],
    });
  });

  it("reads Dynamo's live parallel calls", () => {
    const text = [
      'Fetch both URLs.',
      '<|open|>tools<|sep|>',
      '<|open|>call tool="fetch_url" index="1"<|sep|>',
      '<|open|>argument key="url" type="string"<|sep|>https://a.example/x',
      '<|close|>argument<|sep|><|close|>call<|sep|>',
      '<|open|>call tool="fetch_url" index="2"<|sep|>',
      '<|open|>argument key="url" type="string"<|sep|>https://b.example/y',
      '<|close|>argument<|sep|><|close|>call<|sep|>',
      '<|close|>tools<|sep|>',
      '<|close|>message<|sep|><|end_of_msg|>',
    ].join('');
    expect(readAtEverySplit(protocol, text, { tools })).toEqual({
      calls: [
        ['fetch_url', { url: 'https://a.example/x' }],
        ['fetch_url', { url: 'https://b.example/y' }],
      ],
      text: '',
      reasoning: 'Fetch both URLs.',
      errors: [],
    });
  });

  it('ends the reasoning at the response element, whose text is the answer', () => {
    const text =
      'Need to run code.<|open|>response<|sep|>Running.<|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool="python" index="1"<|sep|><|open|>argument key="code" type="string"<|sep|>x = 1<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|><|end_of_msg|>';
    expect(readAtEverySplit(protocol, text, { tools })).toEqual({
      calls: [['python', { code: 'x = 1' }]],
      text: 'Running.',
      reasoning: 'Need to run code.',
      errors: [],
    });
  });

  it('still reads a closed think element, and an answer with no calls', () => {
    const text =
      'Think.<|close|>think<|sep|><|open|>response<|sep|>Hi.<|close|>response<|sep|><|close|>message<|sep|><|end_of_msg|>';
    expect(readAtEverySplit(protocol, text, { tools })).toEqual({
      calls: [],
      text: 'Hi.',
      reasoning: 'Think.',
      errors: [],
    });
  });
});

describe('kimi-k3, a call without its tools element', () => {
  const calc: ToolDefinition = {
    name: 'calc',
    inputSchema: { type: 'object', properties: { x: { type: 'number' } } },
  };
  it("reads Dynamo's live bare call, inside the unclosed think element or after it", () => {
    const call = [
      '<|open|>call tool="calc" index="1"<|sep|>',
      '<|open|>argument key="x" type="number"<|sep|>5',
      '<|close|>argument<|sep|><|close|>call<|sep|>',
    ].join('');
    const text = `Call the calculator.${call}<|close|>message<|sep|><|end_of_msg|>`;
    expect(readAtEverySplit(protocol, text, { tools: [calc] })).toEqual({
      calls: [['calc', { x: 5 }]],
      text: '',
      reasoning: 'Call the calculator.',
      errors: [],
    });
    const answered = `Done.<|close|>think<|sep|>Calling.${call}<|close|>tools<|sep|>`;
    expect(readAtEverySplit(protocol, answered, { tools: [calc] })).toEqual({
      calls: [['calc', { x: 5 }]],
      text: 'Calling.',
      reasoning: 'Done.',
      errors: [],
    });
  });

  it('keeps prose that names the call token as text', () => {
    const text = 'The element <|open|>call is a special token.';
    expect(readAtEverySplit(protocol, text, { tools, startInReasoning: false })).toMatchObject({
      calls: [],
      text,
      errors: [],
    });
  });

  it('ends a think element the output opened itself at the response element, spaced or not', () => {
    const call =
      '<|open|>tools<|sep|><|open|>call tool="python" index="1"<|sep|><|open|>argument key="code" type="string"<|sep|>x = 1<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>';
    const own = { tools, startInReasoning: false };
    const text = `<|open|>think<|sep|>Need code.<|open|>response<|sep|>Running.<|close|>response<|sep|>${call}`;
    expect(readAtEverySplit(protocol, text, own)).toEqual({
      calls: [['python', { code: 'x = 1' }]],
      text: 'Running.',
      reasoning: 'Need code.',
      errors: [],
    });
    const spaced = '<|open|> think <|sep|>Need code.<|open|> response <|sep|>Running.';
    expect(readAtEverySplit(protocol, spaced, own)).toEqual({
      calls: [],
      text: 'Running.',
      reasoning: 'Need code.',
      errors: [],
    });
  });
});
