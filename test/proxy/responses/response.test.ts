import type { Response } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import type { ReplyEvent } from '../../../src/proxy/reply-events.ts';
import type { ReplyEnd } from '../../../src/proxy/reply-run.ts';
import { readResponsesRequest } from '../../../src/proxy/responses/request.ts';
import {
  conversationAfter,
  ResponseBuilder,
  type ResponseObject,
} from '../../../src/proxy/responses/response.ts';
import { counter, identity, stop, usage } from './helpers.ts';

const weather = {
  type: 'function',
  name: 'get_weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } } },
  strict: false,
};

/**
 * The object as the official client's Response (whose `output_text` the client adds itself):
 * this compiles only while every output item and field fits OpenAI's types. The echo fields are
 * the request's as sent (unknown here), so they are set to values of their types.
 */
function asOpenAI(response: ResponseObject): Omit<Response, 'output_text'> {
  return {
    ...response,
    output: response.output.map((item) =>
      item.type === 'reasoning'
        ? { ...item, summary: [], content: [...item.content] }
        : item.type === 'message'
          ? { ...item, content: item.content.map((part) => ({ ...part, annotations: [] })) }
          : item,
    ),
    tools: [],
    tool_choice: 'auto',
    metadata: { ...response.metadata },
    reasoning: null,
    text: {},
  };
}

function built(
  body: Record<string, unknown>,
  events: readonly ReplyEvent[],
  end: ReplyEnd = stop,
): ResponseObject {
  const request = readResponsesRequest({ model: 'qwen3', ...body });
  const builder = new ResponseBuilder(request, counter());
  builder.add(events);
  return builder.build(identity, end);
}

describe("building OpenAI's response object", () => {
  it('answers text with one message item, its usage and the default echo fields', () => {
    const response = built({ input: 'Hi' }, [
      { type: 'text', delta: 'Hel' },
      { type: 'text', delta: 'lo' },
    ]);
    expect(response).toMatchObject({
      id: 'resp_1',
      object: 'response',
      created_at: 1_700_000_000,
      status: 'completed',
      error: null,
      incomplete_details: null,
      model: 'qwen3',
      output: [
        {
          type: 'message',
          id: 'msg_1',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'Hello', annotations: [] }],
        },
      ],
      usage: {
        input_tokens: 12,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 7,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 19,
      },
      instructions: null,
      tools: [],
      tool_choice: 'auto',
      parallel_tool_calls: true,
      temperature: null,
      top_p: null,
      max_output_tokens: null,
      previous_response_id: null,
      metadata: {},
      truncation: 'disabled',
      store: true,
    });
    expect(typeof response.completed_at).toBe('number');
    expect(asOpenAI(response).output[0]?.type).toBe('message');
  });

  it('answers reasoning, text and calls as items in the order the model wrote them', () => {
    const response = built({ input: 'Weather?', tools: [weather] }, [
      { type: 'reasoning', delta: 'The user wants ' },
      { type: 'reasoning', delta: 'weather.' },
      { type: 'text', delta: 'Checking.' },
      { type: 'call-start', id: 'call_a', name: 'get_weather' },
      { type: 'call-delta', id: 'call_a', delta: '{"city":' },
      { type: 'call-delta', id: 'call_a', delta: '"Oslo"}' },
      { type: 'call-end', id: 'call_a', name: 'get_weather', input: '{"city":"Oslo"}' },
      { type: 'text', delta: '\n' },
      { type: 'call-end', id: 'call_b', name: 'get_weather', input: '{"city":"Rome"}' },
    ]);
    expect(response.output).toEqual([
      {
        type: 'reasoning',
        id: 'rs_1',
        summary: [],
        content: [{ type: 'reasoning_text', text: 'The user wants weather.' }],
      },
      {
        type: 'message',
        id: 'msg_2',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'Checking.', annotations: [] }],
      },
      {
        type: 'function_call',
        id: 'fc_3',
        call_id: 'call_a',
        name: 'get_weather',
        arguments: '{"city":"Oslo"}',
        status: 'completed',
      },
      {
        type: 'function_call',
        id: 'fc_4',
        call_id: 'call_b',
        name: 'get_weather',
        arguments: '{"city":"Rome"}',
        status: 'completed',
      },
    ]);
  });

  it('gives a namespaced call its namespace and name back', () => {
    const response = built(
      {
        input: 'Search',
        tools: [
          {
            type: 'namespace',
            name: 'mcp__docs__',
            description: 'Docs',
            tools: [{ type: 'function', name: 'search' }],
          },
        ],
      },
      [{ type: 'call-end', id: 'c1', name: 'mcp__docs__search', input: '{}' }],
    );
    expect(response.output).toEqual([
      {
        type: 'function_call',
        id: 'fc_1',
        call_id: 'c1',
        name: 'search',
        namespace: 'mcp__docs__',
        arguments: '{}',
        status: 'completed',
      },
    ]);
  });

  it('is incomplete, for max_output_tokens, when the model hit its length limit', () => {
    const response = built(
      { input: 'Tell a story', max_output_tokens: 5 },
      [{ type: 'text', delta: 'Once upon' }],
      {
        finishReason: 'length',
        calls: 0,
        usage,
      },
    );
    expect(response.status).toBe('incomplete');
    expect(response.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(response.completed_at).toBeNull();
    expect(response.max_output_tokens).toBe(5);
    expect(response.output[0]).toMatchObject({ type: 'message', status: 'incomplete' });
  });

  it("echoes the request's fields as sent", () => {
    const echoed = {
      instructions: 'Be brief.',
      tools: [weather, { type: 'web_search' }],
      tool_choice: { type: 'function', name: 'get_weather' },
      parallel_tool_calls: false,
      temperature: 0.3,
      top_p: 0.8,
      metadata: { run: '7' },
      reasoning: { effort: 'low' },
      text: { format: { type: 'text' }, verbosity: 'low' },
      truncation: 'auto',
      store: false,
      user: 'u1',
      prompt_cache_key: 'k',
    };
    const response = built({ input: 'Hi', ...echoed }, [{ type: 'text', delta: 'ok' }]);
    expect(response).toMatchObject(echoed);
  });

  it('leaves usage out when the model server reported none, and drops space-only text beside calls', () => {
    const response = built(
      { input: 'x' },
      [
        { type: 'text', delta: '  \n' },
        { type: 'call-end', id: 'c', name: 't', input: '{}' },
      ],
      { finishReason: 'tool_calls', calls: 1, usage: undefined },
    );
    expect(response.usage).toBeUndefined();
    expect(response.output.map((item) => item.type)).toEqual(['function_call']);
  });

  it("keeps the reply as the conversation's next turn, the instructions left behind", () => {
    const request = readResponsesRequest({
      model: 'qwen3',
      instructions: 'Be brief.',
      input: [
        { role: 'developer', content: 'Use metric units.' },
        { role: 'user', content: 'Weather?' },
      ],
      tools: [weather],
    });
    const builder = new ResponseBuilder(request, counter());
    builder.add([
      { type: 'reasoning', delta: 'hmm' },
      { type: 'text', delta: '\n' },
      { type: 'call-end', id: 'call_a', name: 'get_weather', input: '{"city":"Oslo"}' },
    ]);
    const stored = conversationAfter(request, builder.turn());
    expect(stored).toEqual({
      system: 'Use metric units.',
      turns: [
        { role: 'user', content: 'Weather?' },
        {
          role: 'assistant',
          text: '',
          calls: [{ toolName: 'get_weather', toolCallId: 'call_a', input: '{"city":"Oslo"}' }],
          // The reasoning goes back as the client would send its reasoning item.
          reasoning: 'hmm',
        },
      ],
    });
    // A later request continuing it answers the call.
    const next = readResponsesRequest(
      {
        model: 'qwen3',
        previous_response_id: 'resp_1',
        input: [{ type: 'function_call_output', call_id: 'call_a', output: '12 °C' }],
      },
      { earlier: (id) => (id === 'resp_1' ? stored : undefined) },
    );
    expect(next.chat.system).toBe('Use metric units.');
    expect(next.chat.turns[2]).toEqual({
      role: 'tool-results',
      results: [{ toolName: 'get_weather', toolCallId: 'call_a', output: '12 °C' }],
    });
  });
});
