import { APIError } from 'openai';
import type {
  Response as OpenAIResponse,
  ResponseStreamEvent,
} from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import { correctionText, type ToolCallToFormat } from '../../../src/core/index.ts';
import { callText } from '../harness.ts';
import { USAGE } from '../scripted-upstream.ts';
import { PARIS, responsesClientHarness, sentTexts, WEATHER_TOOL } from './helpers.ts';

// `POST /v1/responses` with `stream: true`, through the official `openai` client, in front of a
// scripted text-only model server.

const clientFor = responsesClientHarness();

async function eventsOf(
  stream: AsyncIterable<ResponseStreamEvent>,
): Promise<ResponseStreamEvent[]> {
  const events: ResponseStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/**
 * A response with its ids and times replaced, and without the fields the stream helper adds
 * (`output_parsed`, `parsed`, `parsed_arguments`), so two answers to one reply compare whole.
 */
function comparable(response: OpenAIResponse): unknown {
  return JSON.parse(
    JSON.stringify(response, (key, value) => {
      if (key === 'output_parsed' || key === 'parsed' || key === 'parsed_arguments')
        return undefined;
      if (key === 'id' || key === 'call_id') return 'id';
      if (key === 'created_at' || key === 'completed_at') return 0;
      return value;
    }),
  );
}

describe('POST /v1/responses, streamed', () => {
  it('responses.create({stream: true}): the whole event sequence, numbered, text in deltas', async () => {
    const { client, upstream } = await clientFor([{ text: 'Hello there, friend.', delayMs: 5 }]);
    const stream = await client.responses.create({
      model: 'scripted-model',
      input: 'Say hello.',
      stream: true,
    });
    const events = await eventsOf(stream);
    expect([...new Set(events.map((event) => event.type))]).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    const deltas = events.filter((event) => event.type === 'response.output_text.delta');
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map((event) => event.delta).join('')).toBe('Hello there, friend.');
    const completed = events.at(-1)!;
    if (completed.type !== 'response.completed') throw new Error('no response.completed');
    expect(completed.response).toMatchObject({
      status: 'completed',
      model: 'scripted-model',
      output: [
        {
          type: 'message',
          status: 'completed',
          content: [{ type: 'output_text', text: 'Hello there, friend.' }],
        },
      ],
      usage: { input_tokens: USAGE.prompt_tokens, output_tokens: USAGE.completion_tokens },
    });
    expect(upstream.requests[0]!.stream).toBe(true);
  });

  it('responses.stream() → finalResponse() is the response the same reply gets unstreamed', async () => {
    const reply = { text: callText(PARIS), reasoning: 'The user wants the weather.' };
    const { client } = await clientFor([reply, reply]);
    const request = {
      model: 'scripted-model',
      instructions: 'Be terse.',
      input: 'Weather in Paris?',
      tools: [WEATHER_TOOL],
    };
    const argumentDeltas: string[] = [];
    const stream = client.responses
      .stream(request)
      .on('response.function_call_arguments.delta', (event) => argumentDeltas.push(event.delta));
    const streamed = await stream.finalResponse();
    const whole = await client.responses.create(request);
    expect(comparable(streamed)).toEqual(comparable(whole));
    expect(streamed.output.map((item) => item.type)).toEqual([
      'reasoning',
      'message',
      'function_call',
    ]);
    const call = streamed.output.find((item) => item.type === 'function_call')!;
    expect(JSON.parse(call.arguments)).toEqual(PARIS.input);
    expect(argumentDeltas.join('')).toBe(call.arguments);
    expect(streamed.output_text).toBe('Let me check.\n');
  });

  it('a second turn with function_call_output after a streamed call', async () => {
    const { client, upstream } = await clientFor([
      { text: callText(PARIS) },
      { text: 'It is sunny in Paris.' },
    ]);
    const first = await client.responses
      .stream({ model: 'scripted-model', input: 'Weather in Paris?', tools: [WEATHER_TOOL] })
      .finalResponse();
    const call = first.output.find((item) => item.type === 'function_call')!;
    const second = await client.responses
      .stream({
        model: 'scripted-model',
        tools: [WEATHER_TOOL],
        input: [
          { role: 'user', content: 'Weather in Paris?' },
          {
            type: 'function_call',
            call_id: call.call_id,
            name: call.name,
            arguments: call.arguments,
          },
          { type: 'function_call_output', call_id: call.call_id, output: '{"sky":"sunny"}' },
        ],
      })
      .finalResponse();
    expect(second.output_text).toBe('It is sunny in Paris.');
    const sent = sentTexts(upstream.requests[1]!).join('\n');
    expect(sent).toContain('Paris');
    expect(sent).toContain('sunny');
  });

  it('previous_response_id continues a streamed response: it was stored', async () => {
    const { client, upstream } = await clientFor([
      { text: 'My name is Scripted.' },
      { text: 'You asked my name.' },
    ]);
    const first = await client.responses
      .stream({ model: 'scripted-model', input: 'What is your name?' })
      .finalResponse();
    const second = await client.responses
      .stream({ model: 'scripted-model', previous_response_id: first.id, input: 'What did I ask?' })
      .finalResponse();
    expect(second.output_text).toBe('You asked my name.');
    expect(second.previous_response_id).toBe(first.id);
    expect(sentTexts(upstream.requests[1]!)).toEqual([
      'What is your name?',
      'My name is Scripted.',
      'What did I ask?',
    ]);
  });

  it('store: false keeps a streamed response out of the store', async () => {
    const { client } = await clientFor([{ text: 'Not kept.' }]);
    const first = await client.responses
      .stream({ model: 'scripted-model', input: 'Hi', store: false })
      .finalResponse();
    const error = await client.responses
      .create({ model: 'scripted-model', previous_response_id: first.id, input: 'Again' })
      .catch((caught: unknown) => caught);
    expect((error as APIError).status).toBe(404);
  });

  it('tool_choice required: the answer without a call is retried, and only the call is streamed', async () => {
    const { client, upstream } = await clientFor([
      { text: 'I think it is sunny.' },
      { text: callText(PARIS, '') },
    ]);
    const events = await eventsOf(
      await client.responses.create({
        model: 'scripted-model',
        input: 'Weather in Paris?',
        tools: [WEATHER_TOOL],
        tool_choice: 'required',
        stream: true,
      }),
    );
    expect(upstream.requests).toHaveLength(2);
    expect(sentTexts(upstream.requests[1]!).at(-1)).toBe(correctionText({ type: 'required' }));
    expect(events.some((event) => event.type === 'response.output_text.delta')).toBe(false);
    const completed = events.at(-1)!;
    if (completed.type !== 'response.completed') throw new Error('no response.completed');
    expect(completed.response.output.map((item) => item.type)).toEqual(['function_call']);
  });

  it('a model cut off at its length limit: response.incomplete, and finalResponse() says so', async () => {
    const { client } = await clientFor([{ text: 'Once upon a time', finishReason: 'length' }]);
    const final = await client.responses
      .stream({ model: 'scripted-model', input: 'A story', max_output_tokens: 4 })
      .finalResponse();
    expect(final.status).toBe('incomplete');
    expect(final.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(final.output_text).toBe('Once upon a time');
  });

  it('a call the model left unfinished is no call: its text reaches the client as text', async () => {
    const broken = 'Checking.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Par';
    const { client } = await clientFor([{ text: broken }]);
    const events: ResponseStreamEvent[] = [];
    const final = await client.responses
      .stream({ model: 'scripted-model', input: 'Weather?', tools: [WEATHER_TOOL] })
      .on('event', (event) => events.push(event))
      .finalResponse();
    expect(final.output.some((item) => item.type === 'function_call')).toBe(false);
    expect(final.output_text).toBe(broken);
    // The call went out as it was read, and was then finished as no call.
    const started = events.filter(
      (event) => event.type === 'response.output_item.added' && event.item.type === 'function_call',
    );
    expect(started).toHaveLength(1);
    const finished = events.filter(
      (event) => event.type === 'response.output_item.done' && event.item.type === 'function_call',
    );
    expect(finished).toMatchObject([{ item: { status: 'incomplete', arguments: '' } }]);
    expect(events.some((event) => event.type === 'response.function_call_arguments.done')).toBe(
      false,
    );
  });

  it('an upstream that fails mid-stream: response.failed, then an error the client throws', async () => {
    const { client, upstream } = await clientFor([{ text: 'Partly cloudy today.', hangAfter: 1 }]);
    const stream = await client.responses.create({
      model: 'scripted-model',
      input: 'Weather?',
      stream: true,
    });
    const events: ResponseStreamEvent[] = [];
    const error = await (async () => {
      for await (const event of stream) {
        events.push(event);
        if (event.type === 'response.output_text.delta') await upstream.close();
      }
    })().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).message).toContain(upstream.url);
    const failed = events.at(-1)!;
    if (failed.type !== 'response.failed') throw new Error(`ended with ${failed.type}`);
    expect(failed.response.status).toBe('failed');
    expect(failed.response.error).toMatchObject({ code: 'server_error' });
    expect(failed.response.error?.message).toContain(upstream.url);
  });

  it('the stream helper rejects on a failure mid-stream', async () => {
    const { client, upstream } = await clientFor([{ text: 'Partly cloudy today.', hangAfter: 1 }]);
    const stream = client.responses.stream({ model: 'scripted-model', input: 'Weather?' });
    stream.on('response.output_text.delta', () => void upstream.close());
    const error = await stream.finalResponse().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIError);
  });

  it('an error before anything was streamed is an HTTP error, as unstreamed', async () => {
    const { client } = await clientFor([{ status: 500, errorMessage: 'model crashed' }]);
    const error = await client.responses
      .create({ model: 'scripted-model', input: 'Hi', stream: true })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(500);
  });

  it('a client that leaves mid-stream cancels the model server request', async () => {
    const { client, upstream } = await clientFor([{ text: 'x'.repeat(400), delayMs: 20 }]);
    const stream = await client.responses.create({
      model: 'scripted-model',
      input: 'Talk.',
      stream: true,
    });
    for await (const event of stream) if (event.type === 'response.output_text.delta') break;
    await expect.poll(() => upstream.disconnects, { timeout: 3000 }).toBe(1);
  });

  it('parallel_tool_calls: false streams the first call as a call, the next as the text written', async () => {
    const TOKYO: ToolCallToFormat = { ...PARIS, toolCallId: 'c2', input: { city: 'Tokyo' } };
    const { client } = await clientFor([{ text: callText([PARIS, TOKYO]) }]);
    const final = await client.responses
      .stream({
        model: 'scripted-model',
        input: 'Weather in Paris and Tokyo?',
        tools: [WEATHER_TOOL],
        parallel_tool_calls: false,
      })
      .finalResponse();
    const calls = final.output.filter((item) => item.type === 'function_call');
    expect(calls.map((call) => JSON.parse(call.arguments))).toEqual([{ city: 'Paris' }]);
    expect(final.output_text).toContain('Tokyo');
    expect(final.parallel_tool_calls).toBe(false);
  });

  it('a streamed response names the left-out tools in its header', async () => {
    const { url } = await clientFor([{ text: 'Done.' }]);
    const reply = await fetch(`${url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'scripted-model',
        input: 'Hi',
        stream: true,
        tools: [{ type: 'web_search' }, WEATHER_TOOL],
      }),
    });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(reply.headers.get('x-toolwire-left-out-tools')).toBe('web_search');
    const text = await reply.text();
    expect(
      text.startsWith(
        'event: response.created\ndata: {"type":"response.created","sequence_number":0,',
      ),
    ).toBe(true);
    expect(text).toContain('event: response.completed\n');
  });
});
