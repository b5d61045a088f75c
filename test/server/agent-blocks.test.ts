import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CompletionTextReader } from '../../src/agent/completion-text.ts';
import type { AgentEvent, AgentResult } from '../../src/agent/index.ts';
import { ModelCallError } from '../../src/core/model-call-error.ts';
import { AgentBlockAdapter, resultContent } from '../../src/server/index.ts';
import {
  BlockEncoder,
  type BlockEvent,
  decodeBlocks,
  encodeBlocks,
} from '../../src/stream/index.ts';
import { usageText } from '../../web/src/usage-text.ts';

function adapt(events: readonly AgentEvent[], result?: Partial<AgentResult>): BlockEvent[] {
  const adapter = new AgentBlockAdapter({
    describeError: (error) => ({ type: 'described', kind: error.kind, message: error.message }),
  });
  const out = events.flatMap((event) => adapter.push(event));
  if (result) out.push(...adapter.finish({ ...RESULT, ...result }));
  // Every sequence must be one the encoder accepts (one open block at a time, closed).
  const encoder = new BlockEncoder();
  for (const block of out) encoder.encode(block);
  expect(encoder.openBlock).toBeUndefined();
  return out;
}

const RESULT: AgentResult = {
  runId: 'r',
  stopReason: 'completed',
  steps: 2,
  usage: { inputTokens: 30, outputTokens: 12 },
  conversation: [{ type: 'user', content: 'hi' }],
};

const input = (id: string, toolName: string, ...deltas: string[]): AgentEvent[] => [
  { type: 'tool-input-start', id, toolName },
  ...deltas.map((delta): AgentEvent => ({ type: 'tool-input-delta', id, delta })),
  { type: 'tool-input-end', id },
];

describe('AgentBlockAdapter', () => {
  it('streams reasoning as thinking and text as text, one block open at a time', () => {
    const out = adapt([
      { type: 'reasoning-start', id: 'r' },
      { type: 'reasoning-delta', id: 'r', delta: 'Let me ' },
      { type: 'reasoning-delta', id: 'r', delta: 'think.' },
      { type: 'reasoning-end', id: 'r' },
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'Hello' },
      { type: 'text-end', id: 't' },
    ]);
    expect(out).toEqual([
      { type: 'thinking-start' },
      { type: 'thinking-delta', delta: 'Let me ' },
      { type: 'thinking-delta', delta: 'think.' },
      { type: 'thinking-end' },
      { type: 'text-start' },
      { type: 'text-delta', delta: 'Hello' },
      { type: 'text-end' },
    ]);
  });

  it('opens no text block for white space alone, and keeps it when text follows', () => {
    expect(
      adapt([
        { type: 'text-delta', id: 't', delta: '\n' },
        ...input('c1', 'search', '{"query":"x"}'),
      ]).map((block) => block.type),
    ).toEqual(['tool-call-start', 'tool-call-delta', 'tool-call-end']);
    expect(
      adapt(
        [
          { type: 'text-delta', id: 't', delta: '\n ' },
          { type: 'text-delta', id: 't', delta: 'Hi' },
          { type: 'text-delta', id: 't', delta: ' ' },
        ],
        { stopReason: 'awaiting-tools' },
      ),
    ).toEqual([
      { type: 'text-start' },
      { type: 'text-delta', delta: '\n Hi' },
      { type: 'text-delta', delta: ' ' },
      { type: 'text-end' },
    ]);
  });

  it('streams a call, its result, and sends final arguments only when they differ', () => {
    const same = adapt([
      ...input('c1', 'search', '{"query":', '"login"}'),
      { type: 'tool-call', toolCallId: 'c1', toolName: 'search', input: { query: 'login' } },
      { type: 'tool-result', toolCallId: 'c1', toolName: 'search', output: 'found' },
    ]);
    expect(same).toEqual([
      { type: 'tool-call-start', kind: 'client', id: 'c1', name: 'search' },
      { type: 'tool-call-delta', id: 'c1', delta: '{"query":' },
      { type: 'tool-call-delta', id: 'c1', delta: '"login"}' },
      { type: 'tool-call-end', id: 'c1' },
      { type: 'tool-result', kind: 'client', id: 'c1', name: 'search', content: 'found' },
    ]);
    const coerced = adapt([
      ...input('c2', 'extract', '{"line":"4"}'),
      { type: 'tool-call', toolCallId: 'c2', toolName: 'extract', input: { line: 4 } },
    ]);
    expect(coerced.at(-1)).toEqual({
      type: 'tool-call',
      kind: 'client',
      id: 'c2',
      name: 'extract',
      arguments: '{"line":4}',
    });
    // A call that never streamed comes whole.
    expect(
      adapt([{ type: 'tool-call', toolCallId: 'c3', toolName: 'search', input: { query: 'q' } }]),
    ).toEqual([
      { type: 'tool-call', kind: 'client', id: 'c3', name: 'search', arguments: '{"query":"q"}' },
    ]);
  });

  it('turns tool errors into failed results', () => {
    expect(
      adapt([
        {
          type: 'tool-error',
          toolCallId: 'c1',
          toolName: 'search',
          kind: 'timeout',
          error: 'timed out',
        },
      ]),
    ).toEqual([
      {
        type: 'tool-result',
        kind: 'client',
        id: 'c1',
        name: 'search',
        content: 'timed out',
        isError: true,
      },
    ]);
  });

  it('streams the completion call’s result as the answer text, not as a call', () => {
    const out = adapt(
      [
        ...input('c9', 'attempt_completion', '{"res', 'ult":"The an', 'swer \\"quoted\\"', '"}'),
        {
          type: 'tool-call',
          toolCallId: 'c9',
          toolName: 'attempt_completion',
          input: { result: 'The answer "quoted"' },
        },
      ],
      { answer: 'The answer "quoted"' },
    );
    expect(out.slice(0, -1)).toEqual([
      { type: 'text-start' },
      { type: 'text-delta', delta: 'The an' },
      { type: 'text-delta', delta: 'swer "quoted"' },
      { type: 'text-end' },
    ]);
    expect(out.at(-1)).toMatchObject({ type: 'meta-final' });
  });

  it('sends a completion given whole (or not a string) as one text block', () => {
    expect(
      adapt([
        {
          type: 'tool-call',
          toolCallId: 'c1',
          toolName: 'attempt_completion',
          input: { result: 'Done.' },
        },
      ]),
    ).toEqual([
      { type: 'text-start' },
      { type: 'text-delta', delta: 'Done.' },
      { type: 'text-end' },
    ]);
    expect(
      adapt([
        ...input('c2', 'attempt_completion', '{"result":{"n":1}}'),
        {
          type: 'tool-call',
          toolCallId: 'c2',
          toolName: 'attempt_completion',
          input: { result: { n: 1 } },
        },
      ]),
    ).toEqual([
      { type: 'text-start' },
      { type: 'text-delta', delta: '{"n":1}' },
      { type: 'text-end' },
    ]);
  });

  it('shows an invalid completion call as a call, so its error has a place', () => {
    const out = adapt([
      {
        type: 'tool-call',
        toolCallId: 'c1',
        toolName: 'attempt_completion',
        input: {},
        problems: [{ path: '', message: 'result is required', keyword: 'required' }],
      },
    ]);
    expect(out).toEqual([
      { type: 'tool-call', kind: 'client', id: 'c1', name: 'attempt_completion', arguments: '{}' },
    ]);
  });

  it('reports malformed call markup: on the call when it streamed, else as an error block', () => {
    const fault = {
      code: 'malformed-call' as const,
      message: 'the call is not closed',
      raw: '<search><query>x',
      offset: 0,
    };
    expect(
      adapt([
        ...input('c1', 'search', '{"query":"x'),
        {
          type: 'protocol-error',
          fault: { ...fault, toolCallId: 'c1', toolName: 'search' },
        },
      ]).at(-1),
    ).toEqual({
      type: 'tool-result',
      kind: 'client',
      id: 'c1',
      name: 'search',
      content: 'the call is not closed\n\n<search><query>x',
      isError: true,
    });
    expect(adapt([{ type: 'protocol-error', fault }])).toEqual([
      {
        type: 'error',
        error: { type: 'malformed_call', message: fault.message, raw: fault.raw },
      },
    ]);
  });

  it('asks the page for front-end tools and ends a paused run without meta_final', () => {
    const out = adapt(
      [
        { type: 'text-delta', id: 't', delta: 'One question first.' },
        {
          type: 'awaiting-tools',
          calls: [{ toolCallId: 'c1', toolName: 'ask_user', input: { question: 'Which?' } }],
          state: {} as never,
        },
      ],
      { stopReason: 'awaiting-tools' },
    );
    expect(out.slice(-2)).toEqual([
      { type: 'text-end' },
      {
        type: 'awaiting-frontend-tools',
        tools: [{ tool_use_id: 'c1', name: 'ask_user', input: { question: 'Which?' } }],
      },
    ]);
  });

  it('ends a completed run with meta_final: history, stop reason, steps, usage, cost', () => {
    const out = adapt([], { cost: 0.25, answer: 'A' });
    expect(out).toEqual([
      {
        type: 'meta-final',
        data: {
          conversation_history: [{ type: 'user', content: 'hi' }],
          stop_reason: 'completed',
          total_steps: 2,
          generated_files: null,
          cost: 0.25,
          cumulative_usage: { input_tokens: 30, output_tokens: 12 },
          answer: 'A',
        },
      },
    ]);
  });

  it('usage a server did not report is null in meta_final, and the page says "usage unknown"', () => {
    const unknown = adapt([], { usage: { inputTokens: undefined, outputTokens: undefined } });
    const data = (unknown[0] as Extract<BlockEvent, { type: 'meta-final' }>).data;
    expect(data.cumulative_usage).toEqual({ input_tokens: null, output_tokens: null });
    // Through the wire format and back, as the page receives it.
    const decoded = decodeBlocks(encodeBlocks(unknown));
    const final = decoded.find((event) => event.type === 'meta-final') as
      | Extract<BlockEvent, { type: 'meta-final' }>
      | undefined;
    expect(final?.data.cumulative_usage).toEqual({ input_tokens: null, output_tokens: null });
    expect(usageText(final?.data.cumulative_usage)).toBe('usage unknown');

    const partly = adapt([], { usage: { inputTokens: 30, outputTokens: undefined } });
    const partlyData = (partly[0] as Extract<BlockEvent, { type: 'meta-final' }>).data;
    expect(usageText(partlyData.cumulative_usage)).toBe('30 input / unknown output tokens');
    const known = adapt([], {})[0] as Extract<BlockEvent, { type: 'meta-final' }>;
    expect(usageText(known.data.cumulative_usage)).toBe('30 input / 12 output tokens');
  });

  it('the page shows usage unknown for a missing or malformed cumulative_usage', () => {
    expect(usageText(null)).toBe('usage unknown');
    expect(usageText(undefined)).toBe('usage unknown');
    expect(usageText({})).toBe('usage unknown');
    expect(usageText([1, 2])).toBe('usage unknown');
    expect(usageText({ input_tokens: '5', output_tokens: null })).toBe('usage unknown');
    expect(usageText({ input_tokens: 0, output_tokens: 0 })).toBe('0 input / 0 output tokens');
  });

  it('ends any other stop with an error block saying why, the open block closed first', () => {
    expect(
      adapt([{ type: 'reasoning-delta', id: 'r', delta: 'hm' }], {
        stopReason: 'aborted',
        message: 'the run was aborted',
      }),
    ).toEqual([
      { type: 'thinking-start' },
      { type: 'thinking-delta', delta: 'hm' },
      { type: 'thinking-end' },
      { type: 'error', error: { type: 'aborted', message: 'the run was aborted' } },
    ]);
    expect(adapt([], { stopReason: 'max-steps', message: 'stopped after 2 steps' })).toEqual([
      { type: 'error', error: { type: 'max-steps', message: 'stopped after 2 steps' } },
    ]);
    // A failed run's error goes out once: at the error event, described from the typed error.
    const failure = new ModelCallError('model-http-status', { status: 500, detail: 'boom' });
    const described = { type: 'described', kind: 'model-http-status', message: failure.message };
    expect(
      adapt([{ type: 'error', error: failure }], {
        stopReason: 'error',
        message: failure.message,
        error: failure,
      }),
    ).toEqual([{ type: 'error', error: described }]);
    // A result that carries the error alone (no event) is described the same way.
    expect(adapt([], { stopReason: 'error', message: failure.message, error: failure })).toEqual([
      { type: 'error', error: described },
    ]);
    // A result made by hand with only words: they are shown as they are.
    expect(adapt([], { stopReason: 'error', message: 'odd' })).toEqual([
      { type: 'error', error: { type: 'run_error', message: 'odd' } },
    ]);
  });
});

describe('resultContent', () => {
  it('keeps text, makes text and image parts multimodal, and JSON of the rest', () => {
    expect(resultContent('plain')).toBe('plain');
    expect(resultContent({ a: [1, 2] })).toBe('{"a":[1,2]}');
    expect(resultContent(undefined)).toBe('null');
    expect(
      resultContent([
        { type: 'text', text: 'A chart:' },
        { type: 'image', data: 'AAAA', mediaType: 'image/png' },
        { type: 'image', url: 'https://example.com/x.jpg', media_type: 'image/jpeg' },
      ]),
    ).toEqual([
      { type: 'text', text: 'A chart:' },
      { type: 'image', src: 'data:image/png;base64,AAAA', mediaType: 'image/png' },
      { type: 'image', src: 'https://example.com/x.jpg', mediaType: 'image/jpeg' },
    ]);
    // A list that is not all parts is data.
    expect(resultContent([{ type: 'text', text: 'a' }, 3])).toBe('[{"type":"text","text":"a"},3]');
  });
});

describe('CompletionTextReader', () => {
  it('gives the result string whatever the chunking', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme' }),
        fc.string(),
        fc.array(fc.nat(), { maxLength: 20 }),
        (result, other, cuts) => {
          const json = JSON.stringify({ before: other, result, nested: { result: 'no' } });
          const points = [...new Set(cuts.map((cut) => cut % (json.length + 1)))].sort(
            (a, b) => a - b,
          );
          const reader = new CompletionTextReader();
          let text = '';
          let last = 0;
          for (const point of [...points, json.length]) {
            text += reader.push(json.slice(last, point));
            last = point;
          }
          expect(text).toBe(result);
          expect(reader.text).toBe(result);
        },
      ),
    );
  });
});
