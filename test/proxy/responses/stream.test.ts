import { APIError } from 'openai';
import { ResponseStream } from 'openai/lib/responses/ResponseStream';
import { describe, expect, it } from 'vitest';
import { HttpError } from '../../../src/http/http-error.ts';
import type { ReplyEvent } from '../../../src/proxy/reply-events.ts';
import type { ReplyEnd } from '../../../src/proxy/reply-run.ts';
import { readResponsesRequest } from '../../../src/proxy/responses/request.ts';
import { ResponseBuilder, type ResponseObject } from '../../../src/proxy/responses/response.ts';
import { ResponseEvents } from '../../../src/proxy/responses/stream.ts';
import { counter, identity, stop, usage } from './helpers.ts';

const weather = {
  type: 'function',
  name: 'get_weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } } },
};
const toolCalls: ReplyEnd = { finishReason: 'tool_calls', calls: 1, usage };

interface StreamEvent {
  readonly type: string;
  readonly sequence_number: number;
  readonly [field: string]: unknown;
}

/** The events of a stream's text, each checked to be named by its type. */
function parse(text: string): StreamEvent[] {
  expect(text.endsWith('\n\n')).toBe(true);
  return text
    .slice(0, -2)
    .split('\n\n')
    .map((frame) => {
      const [eventLine, dataLine, ...rest] = frame.split('\n');
      expect(rest).toEqual([]);
      expect(eventLine).toMatch(/^event: /);
      expect(dataLine).toMatch(/^data: /);
      const data = JSON.parse(dataLine!.slice(6)) as StreamEvent;
      expect(data.type).toBe(eventLine!.slice(7));
      return data;
    });
}

/** A stream of the reply given in batches, as the route writes it. */
function streamed(
  body: Record<string, unknown>,
  batches: readonly (readonly ReplyEvent[])[],
  end: ReplyEnd | HttpError = stop,
): { events: StreamEvent[]; finished: ResponseObject[] } {
  const request = readResponsesRequest({ model: 'qwen3', ...body });
  const finished: ResponseObject[] = [];
  const writer = new ResponseEvents({ identity, request, newId: counter() });
  let text = writer.start();
  for (const batch of batches) text += writer.encode(batch);
  if (end instanceof HttpError) text += writer.error(end);
  else {
    const { response } = writer.ended(end);
    finished.push(response);
    text += writer.completed(response);
  }
  return { events: parse(text), finished };
}

function whole(
  body: Record<string, unknown>,
  events: readonly ReplyEvent[],
  end: ReplyEnd = stop,
): ResponseObject {
  const builder = new ResponseBuilder(readResponsesRequest({ model: 'qwen3', ...body }), counter());
  builder.add(events);
  return builder.build(identity, end);
}

/** The response the official client's stream helper assembles from the events. */
async function assembled(events: readonly StreamEvent[]) {
  const lines = `${events.map((event) => JSON.stringify(event)).join('\n')}\n`;
  const readable = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(lines));
      controller.close();
    },
  });
  return ResponseStream.fromReadableStream(readable).finalResponse();
}

const withoutTimes = (response: object) => ({ ...response, completed_at: 'time' });

const TEXT_AND_CALL: ReplyEvent[][] = [
  [],
  [
    { type: 'reasoning', delta: 'The user wants ' },
    { type: 'reasoning', delta: 'weather.' },
  ],
  [{ type: 'text', delta: 'Let me ' }],
  [{ type: 'text', delta: 'check.\n' }],
  [
    { type: 'call-start', id: 'call_a', name: 'get_weather' },
    { type: 'call-delta', id: 'call_a', delta: '{"city":' },
  ],
  [{ type: 'call-delta', id: 'call_a', delta: '"Oslo"}' }],
  [
    { type: 'call-end', id: 'call_a', name: 'get_weather', input: '{"city":"Oslo"}' },
    { type: 'text', delta: '\n' },
  ],
];

describe('streaming a response as Responses events', () => {
  it('writes the whole sequence OpenAI sends, each event numbered in order', () => {
    const { events } = streamed({ input: 'Weather?', tools: [weather] }, TEXT_AND_CALL, toolCalls);
    expect(events.map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.reasoning_text.delta',
      'response.reasoning_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    expect(events[0]!.response).toMatchObject({
      id: 'resp_1',
      object: 'response',
      status: 'in_progress',
      output: [],
      completed_at: null,
    });
  });

  it('names each item by its output_index and item_id; the deltas add up to the done texts', () => {
    const { events } = streamed({ input: 'Weather?', tools: [weather] }, TEXT_AND_CALL, toolCalls);
    const byItem = new Map<string, { deltas: string; done?: string }>();
    for (const event of events) {
      if (event.type === 'response.output_item.added') {
        const item = event.item as { id: string };
        byItem.set(item.id, { deltas: '' });
        continue;
      }
      if (typeof event.item_id !== 'string') continue;
      const entry = byItem.get(event.item_id);
      expect(entry, `${event.type} names an item that was added`).toBeDefined();
      if (event.type.endsWith('.delta')) entry!.deltas += event.delta as string;
      if (event.type.endsWith('text.done')) entry!.done = event.text as string;
      if (event.type === 'response.function_call_arguments.done')
        entry!.done = event.arguments as string;
    }
    expect([...byItem.values()]).toEqual([
      { deltas: 'The user wants weather.', done: 'The user wants weather.' },
      { deltas: 'Let me check.\n', done: 'Let me check.\n' },
      { deltas: '{"city":"Oslo"}', done: '{"city":"Oslo"}' },
    ]);
    const indexes = events
      .filter((event) => event.type === 'response.output_item.added')
      .map((event) => event.output_index);
    expect(indexes).toEqual([0, 1, 2]);
    const call = events.find(
      (event) => event.type === 'response.output_item.added' && event.output_index === 2,
    );
    expect(call!.item).toEqual({
      type: 'function_call',
      id: 'fc_3',
      call_id: 'call_a',
      name: 'get_weather',
      arguments: '',
      status: 'in_progress',
    });
  });

  it('ends with the same response a request that does not stream gets', async () => {
    const body = { input: 'Weather?', tools: [weather], instructions: 'Be brief.' };
    const { events, finished } = streamed(body, TEXT_AND_CALL, toolCalls);
    const completed = events.at(-1)!.response as ResponseObject;
    const expected = whole(body, TEXT_AND_CALL.flat(), toolCalls);
    expect(withoutTimes(completed)).toEqual(withoutTimes(expected));
    expect(finished).toEqual([completed]);
    // Each item's done event carries the item the response holds.
    const done = events
      .filter((event) => event.type === 'response.output_item.done')
      .map((event) => event.item);
    expect(done).toEqual(expected.output);
    // The official client's stream helper assembles the same response.
    // (It adds `parsed` fields of its own.)
    const final = await assembled(events);
    expect(final.output).toMatchObject(expected.output);
    expect(final.status).toBe('completed');
    expect(final.output_text).toBe('Let me check.\n');
  });

  it('a reply cut at the length limit ends with response.incomplete, its message incomplete', async () => {
    const body = { input: 'Tell a story', max_output_tokens: 5 };
    const batches: ReplyEvent[][] = [[{ type: 'text', delta: 'Once upon' }]];
    const length: ReplyEnd = { finishReason: 'length', calls: 0, usage };
    const { events } = streamed(body, batches, length);
    const last = events.at(-1)!;
    expect(last.type).toBe('response.incomplete');
    expect(last.response).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      output: [{ type: 'message', status: 'incomplete' }],
    });
    expect(withoutTimes(last.response as object)).toEqual(
      withoutTimes(whole(body, batches.flat(), length)),
    );
    expect((await assembled(events)).status).toBe('incomplete');
  });

  it('an abandoned call is finished incomplete with no arguments, left out of the response, and its text follows', async () => {
    const batches: ReplyEvent[][] = [
      [
        { type: 'text', delta: 'Checking.' },
        { type: 'call-start', id: 'call_x', name: 'get_weather' },
        { type: 'call-delta', id: 'call_x', delta: '{"city":"Oslo"}' },
      ],
      [
        { type: 'call-abandoned', id: 'call_x' },
        {
          type: 'text',
          delta: '<tool_call>{"name":"get_weather","arguments":{"city":"Oslo"}}</tool',
        },
      ],
    ];
    const body = { input: 'Weather?', tools: [weather] };
    const { events, finished } = streamed(body, batches);
    const call = events.filter((event) => event.output_index === 1);
    expect(call.map((event) => event.type)).toEqual([
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.output_item.done',
    ]);
    // No client runs it: not completed, no arguments, no arguments.done.
    expect(call[2]!.item).toEqual({
      type: 'function_call',
      id: 'fc_2',
      call_id: 'call_x',
      name: 'get_weather',
      arguments: '',
      status: 'incomplete',
    });
    const completed = events.at(-1)!.response as ResponseObject;
    expect(completed.output.map((item) => item.type)).toEqual(['message', 'message']);
    expect(completed.output[1]).toMatchObject({
      content: [{ text: '<tool_call>{"name":"get_weather","arguments":{"city":"Oslo"}}</tool' }],
    });
    expect(withoutTimes(completed)).toEqual(withoutTimes(whole(body, batches.flat())));
    expect(finished[0]!.output).toEqual(completed.output);
    const final = await assembled(events);
    expect(final.output).toMatchObject(completed.output);
    expect(final.output).toHaveLength(2);
  });

  it('stores the turn as a whole response would: a withdrawn call is no call, its text is text', () => {
    const request = readResponsesRequest({ model: 'qwen3', input: 'x', tools: [weather] });
    const writer = new ResponseEvents({ identity, request, newId: counter() });
    const events: ReplyEvent[] = [
      { type: 'reasoning', delta: 'Think.' },
      { type: 'call-start', id: 'call_x', name: 'get_weather' },
      { type: 'call-abandoned', id: 'call_x' },
      { type: 'text', delta: '<tool_call>{' },
    ];
    writer.start();
    writer.encode(events);
    const { turn } = writer.ended(stop);
    const builder = new ResponseBuilder(request, counter());
    builder.add(events);
    builder.build(identity, stop);
    expect(turn).toEqual({
      role: 'assistant',
      text: '<tool_call>{',
      calls: [],
      reasoning: 'Think.',
    });
    expect(turn).toEqual(builder.turn());
  });

  it('white space around calls makes no message; a call read whole goes out at once', () => {
    const batches: ReplyEvent[][] = [
      [{ type: 'text', delta: '\n  ' }],
      [{ type: 'call-end', id: 'c1', name: 'get_weather', input: '{"city":"Rome"}' }],
      [{ type: 'text', delta: '\n' }],
    ];
    const { events } = streamed({ input: 'x', tools: [weather] }, batches, toolCalls);
    expect(events.map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events[3]!.delta).toBe('{"city":"Rome"}');
  });

  it('white space before text starts the message; a reply of only white space is one message', () => {
    const { events } = streamed({ input: 'x' }, [
      [{ type: 'text', delta: '\n\n' }],
      [{ type: 'text', delta: 'Hi' }],
    ]);
    expect(events.find((event) => event.type === 'response.output_text.done')!.text).toBe('\n\nHi');
    const blank = streamed({ input: 'x' }, [[{ type: 'text', delta: '  ' }]]).events;
    expect((blank.at(-1)!.response as ResponseObject).output).toEqual([
      {
        type: 'message',
        id: 'msg_1',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: '  ', annotations: [] }],
      },
    ]);
    expect(blank.filter((event) => event.type === 'response.output_text.delta')).toHaveLength(1);
  });

  it('an error after the stream began: response.failed with the items so far, then an error event', async () => {
    const failure = new HttpError(502, 'the model server closed the connection');
    const { events, finished } = streamed(
      { input: 'Hi' },
      [[{ type: 'text', delta: 'Hel' }]],
      failure,
    );
    expect(finished).toEqual([]);
    const [failed, error] = events.slice(-2);
    expect(failed!.type).toBe('response.failed');
    expect(failed!.response).toMatchObject({
      id: 'resp_1',
      status: 'failed',
      error: { code: 'server_error', message: 'the model server closed the connection' },
      completed_at: null,
    });
    expect(error).toEqual({
      type: 'error',
      sequence_number: failed!.sequence_number + 1,
      code: 'server_error',
      message: 'the model server closed the connection',
      param: null,
    });
    const thrown = await assembled(events).catch((caught: unknown) => caught);
    expect(thrown).toBeInstanceOf(APIError);
    expect((thrown as APIError).message).toContain('the model server closed the connection');
  });

  it('a 429 fails with rate_limit_exceeded; an error code the proxy gives is the error event code', () => {
    const { events } = streamed(
      { input: 'Hi' },
      [],
      new HttpError(429, 'busy', { extra: { code: 'too_many' } }),
    );
    expect(events.at(-2)!.response).toMatchObject({ error: { code: 'rate_limit_exceeded' } });
    expect(events.at(-1)).toMatchObject({ type: 'error', code: 'too_many' });
  });
});
