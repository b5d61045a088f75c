/**
 * Openers a grammar declares `inReasoning` (special tokens, written only to call) are read inside
 * reasoning blocks; plain-text openers there stay the model's thinking. A format made here has
 * both: `<|call|>{…}</call>` (a special token) and `<call>{…}</call>` (plain text).
 */
import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../../src/index.ts';
import { JsonCallsBody } from '../../../src/protocols/codecs/json/json-calls-body.ts';
import { defineProtocol } from '../../../src/protocols/define/define-protocol.ts';
import { THINK_TAGS } from '../../../src/protocols/engine/reasoning-tags.ts';
import type { CallOpener } from '../../../src/protocols/engine/stream-engine.ts';
import { contentAtEverySplit } from '../helpers.ts';

const listFiles: ToolDefinition = {
  name: 'list_files',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};
const tools = [listFiles];

const OPENERS: readonly CallOpener<null>[] = [
  { literal: '<|call|>', delimited: false, inReasoning: true, data: null },
  { literal: '<call>', delimited: false, data: null },
];

const tokens = defineProtocol<null>({
  name: 'tokens',
  grammar: {
    reasoningTags: THINK_TAGS,
    callOpeners: () => OPENERS,
    openCall: (_data, context) =>
      new JsonCallsBody(context, {
        shape: { nameKeys: ['name'], argumentKeys: ['arguments'] },
        closer: '</call>',
        speculative: false,
      }),
  },
  formatTools: () => '',
  formatToolCall: () => '',
  formatToolResponse: () => '',
});

const json = (path: string) => `{"name": "list_files", "arguments": {"path": "${path}"}}`;
const special = (path: string) => `<|call|>${json(path)}</call>`;
const plain = (path: string) => `<call>${json(path)}</call>`;

type Part = { type: string; text?: string; input?: string; error?: { inReasoning?: boolean } };
const read = (text: string) => contentAtEverySplit(tokens, text, { tools }) as Part[];

describe('openers declared inReasoning', () => {
  it('are read inside a closed reasoning block; plain-text openers there are not', () => {
    const parts = read(`<think>Plan ${plain('a')} then ${special('b')} more</think>Done.`);
    expect(parts.map((part) => part.type)).toEqual(['reasoning', 'tool-call', 'reasoning', 'text']);
    expect(parts[0]!.text).toBe(`Plan ${plain('a')} then `);
    expect(parts[1]!.input).toBe('{"path":"b"}');
    expect(parts[2]!.text).toBe(' more');
  });

  it('run once in a block that never closes, where the plain-text calls run at its end', () => {
    const text = `<think>A ${plain('a')} B ${special('b')} C ${plain('c')}`;
    const calls = read(text).filter((part) => part.type === 'tool-call');
    expect(calls.map((call) => call.input)).toEqual([
      '{"path":"b"}',
      '{"path":"a"}',
      '{"path":"c"}',
    ]);
    // Each call's span is found where it stands, on either side of the special one.
    expect(tokens.extractToolCallSegments(text, { tools }).sort()).toEqual(
      [plain('a'), special('b'), plain('c')].sort(),
    );
  });

  it('at the start of the output in reasoning (startInReasoning), and text that only looks like one', () => {
    const parts = contentAtEverySplit(tokens, `x ${special('b')} <|call y</think>z`, {
      tools,
      startInReasoning: true,
    }) as Part[];
    expect(parts.map((part) => part.type)).toEqual(['reasoning', 'tool-call', 'reasoning', 'text']);
    expect(parts[2]!.text).toBe(' <|call y');
  });

  it('report a broken call as in reasoning, its raw text shown there', () => {
    const broken = '<|call|>{"name": "list_files", "arguments": {"path": </call>';
    const parts = read(`<think>Try ${broken} again</think>`);
    expect(parts.filter((part) => part.type === 'tool-call')).toEqual([]);
    const error = parts.find((part) => part.type === 'error');
    expect(error?.error?.inReasoning).toBe(true);
    expect(parts.filter((part) => part.type === 'text')).toEqual([]);
  });
});
