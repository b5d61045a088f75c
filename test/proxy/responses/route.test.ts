import { request } from 'node:http';
import OpenAI, { APIError } from 'openai';
import { describe, expect, it, vi } from 'vitest';
import { correctionText, demandSentence } from '../../../src/core/index.ts';
import { callText, hermes, WEATHER } from '../harness.ts';
import { USAGE } from '../scripted-upstream.ts';
import { PARIS, responsesClientHarness, sentTexts, WEATHER_TOOL } from './helpers.ts';

// `POST /v1/responses` through the official `openai` client, in front of a scripted text-only
// model server.

const clientFor = responsesClientHarness();

describe('POST /v1/responses, not streamed', () => {
  it('a text answer: a completed response with one output_text message, usage and echo', async () => {
    const { client, upstream } = await clientFor([{ text: 'Hello there.' }]);
    const response = await client.responses.create({
      model: 'scripted-model',
      instructions: 'Be terse.',
      input: 'Say hello.',
    });
    expect(response.object).toBe('response');
    expect(response.id).toMatch(/^resp_/);
    expect(response.status).toBe('completed');
    expect(response.model).toBe('scripted-model');
    expect(response.output).toEqual([
      {
        type: 'message',
        id: expect.any(String),
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'Hello there.', annotations: [] }],
      },
    ]);
    expect(response.output_text).toBe('Hello there.');
    expect(response.usage?.input_tokens).toBe(USAGE.prompt_tokens);
    expect(response.usage?.output_tokens).toBe(USAGE.completion_tokens);
    expect(response.instructions).toBe('Be terse.');
    const sent = upstream.requests[0]!;
    expect(sent.stream).toBe(false);
    expect(sent).not.toHaveProperty('tools');
    expect(sent.messages.map((message) => message.role)).toEqual(['system', 'user']);
    expect(sentTexts(sent)[0]).toContain('Be terse.');
    expect(sentTexts(sent)[1]).toBe('Say hello.');
  });

  it('a function call: a function_call item with call_id, name and the arguments as JSON text', async () => {
    const { client, upstream } = await clientFor([{ text: callText(PARIS) }]);
    const response = await client.responses.create({
      model: 'scripted-model',
      input: 'Weather in Paris?',
      tools: [WEATHER_TOOL],
    });
    const calls = response.output.filter((item) => item.type === 'function_call');
    expect(calls).toEqual([
      {
        type: 'function_call',
        id: expect.any(String),
        call_id: expect.stringMatching(/^call_/),
        name: 'get_weather',
        arguments: expect.any(String),
        status: 'completed',
      },
    ]);
    expect(JSON.parse(calls[0]!.arguments)).toEqual(PARIS.input);
    expect(sentTexts(upstream.requests[0]!)[0]).toContain(hermes.formatTools([WEATHER]));
  });

  it('a second turn with function_call_output items: the call and its result reach the model', async () => {
    const { client, upstream } = await clientFor([
      { text: callText(PARIS) },
      { text: 'It is sunny in Paris.' },
    ]);
    const first = await client.responses.create({
      model: 'scripted-model',
      input: 'Weather in Paris?',
      tools: [WEATHER_TOOL],
      store: false,
    });
    const call = first.output.find((item) => item.type === 'function_call')!;
    const second = await client.responses.create({
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
    });
    expect(second.output_text).toBe('It is sunny in Paris.');
    const sent = sentTexts(upstream.requests[1]!).join('\n');
    expect(sent).toContain('Paris');
    expect(sent).toContain('sunny');
    expect(upstream.requests[1]!.messages.length).toBeGreaterThan(2);
  });

  it('previous_response_id continues a stored response: its turns come first', async () => {
    const { client, upstream } = await clientFor([
      { text: 'My name is Scripted.' },
      { text: 'You asked my name.' },
    ]);
    const first = await client.responses.create({
      model: 'scripted-model',
      input: 'What is your name?',
    });
    const second = await client.responses.create({
      model: 'scripted-model',
      previous_response_id: first.id,
      input: 'What did I ask?',
    });
    expect(second.output_text).toBe('You asked my name.');
    const sent = upstream.requests[1]!;
    expect(sent.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(sentTexts(sent)).toEqual([
      'What is your name?',
      'My name is Scripted.',
      'What did I ask?',
    ]);
  });

  it('store: false keeps nothing: its id is unknown later', async () => {
    const { client } = await clientFor([{ text: 'Not kept.' }]);
    const first = await client.responses.create({
      model: 'scripted-model',
      input: 'Hi',
      store: false,
    });
    const error = await client.responses
      .create({ model: 'scripted-model', previous_response_id: first.id, input: 'Again' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(404);
  });

  it('an unknown previous_response_id: 404 with code previous_response_not_found, no model call', async () => {
    const { client, upstream } = await clientFor([{ text: 'never' }]);
    const error = await client.responses
      .create({ model: 'scripted-model', previous_response_id: 'resp_missing', input: 'Hi' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(404);
    expect((error as APIError).code).toBe('previous_response_not_found');
    expect((error as APIError).param).toBe('previous_response_id');
    expect(upstream.requests).toHaveLength(0);
  });

  it('maxStoredResponses: past it the oldest response is forgotten', async () => {
    const { client } = await clientFor([{ text: 'one' }, { text: 'two' }, { text: 'three' }], {
      maxStoredResponses: 1,
    });
    const first = await client.responses.create({ model: 'scripted-model', input: 'a' });
    const second = await client.responses.create({ model: 'scripted-model', input: 'b' });
    const error = await client.responses
      .create({ model: 'scripted-model', previous_response_id: first.id, input: 'c' })
      .catch((caught: unknown) => caught);
    expect((error as APIError).status).toBe(404);
    // The newest is still kept: a store that kept nothing would also answer 404 above.
    const third = await client.responses.create({
      model: 'scripted-model',
      previous_response_id: second.id,
      input: 'd',
    });
    expect(third.output_text).toBe('three');
  });

  it('tools the proxy cannot serve are left out and named in x-toolwire-left-out-tools', async () => {
    const { url, upstream } = await clientFor([{ text: 'Done.' }]);
    const reply = await fetch(`${url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'scripted-model',
        input: 'Hi',
        tools: [{ type: 'web_search' }, WEATHER_TOOL],
      }),
    });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-toolwire-left-out-tools')).toBe('web_search');
    expect(sentTexts(upstream.requests[0]!)[0]).toContain('get_weather');
  });

  it('a left-out tool type that is not a plain name is counted, never repeated in the header or log', async () => {
    const warnings: unknown[][] = [];
    const warn = vi.spyOn(console, 'warn').mockImplementation((...args) => {
      warnings.push(args);
    });
    try {
      const { url } = await clientFor([{ text: 'Done.' }]);
      const reply = await fetch(`${url}/v1/responses`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'scripted-model',
          input: 'Hi',
          tools: [{ type: 'web_search' }, { type: 'evil\r\nx-forged: 1' }, WEATHER_TOOL],
        }),
      });
      expect(reply.status).toBe(200);
      expect(reply.headers.get('x-toolwire-left-out-tools')).toBe('web_search (and 1 other)');
      expect(reply.headers.has('x-forged')).toBe(false);
      expect(warnings.map((line) => line.join(' ')).join('\n')).not.toContain('evil');
    } finally {
      warn.mockRestore();
    }
  });

  it('left-out tool types are logged once per proxy, not on every request', async () => {
    const warnings: unknown[][] = [];
    const warn = vi.spyOn(console, 'warn').mockImplementation((...args) => {
      warnings.push(args);
    });
    try {
      const { client } = await clientFor([{ text: 'one' }, { text: 'two' }]);
      const tools = [{ type: 'web_search' as const }, WEATHER_TOOL];
      await client.responses.create({ model: 'scripted-model', input: 'a', tools });
      await client.responses.create({ model: 'scripted-model', input: 'b', tools });
      expect(warnings).toHaveLength(1);
      expect(String(warnings[0]!.join(' '))).toContain('web_search');
    } finally {
      warn.mockRestore();
    }
  });

  it('a text answer carries no left-out-tools header when none were left out', async () => {
    const { url } = await clientFor([{ text: 'Done.' }]);
    const reply = await fetch(`${url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'scripted-model', input: 'Hi' }),
    });
    expect(reply.status).toBe(200);
    expect(reply.headers.has('x-toolwire-left-out-tools')).toBe(false);
  });

  it('the API key applies: a request without it gets 401', async () => {
    const { url } = await clientFor([{ text: 'never' }], { apiKey: 'secret' });
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'wrong', maxRetries: 0 });
    const error = await client.responses
      .create({ model: 'scripted-model', input: 'Hi' })
      .catch((caught: unknown) => caught);
    expect((error as APIError).status).toBe(401);
  });

  it('tool_choice required: an answer without a call is retried with a correction', async () => {
    const { client, upstream } = await clientFor([
      { text: 'I think it is sunny.' },
      { text: callText(PARIS, '') },
    ]);
    const response = await client.responses.create({
      model: 'scripted-model',
      input: 'Weather in Paris?',
      tools: [WEATHER_TOOL],
      tool_choice: 'required',
    });
    expect(response.output.map((item) => item.type)).toEqual(['function_call']);
    expect(upstream.requests).toHaveLength(2);
    expect(sentTexts(upstream.requests[0]!)[0]).toContain(demandSentence({ type: 'required' }));
    expect(sentTexts(upstream.requests[1]!).at(-1)).toBe(correctionText({ type: 'required' }));
  });

  it('a request addressed to a foreign host name is refused (DNS rebinding)', async () => {
    const { url, upstream } = await clientFor([{ text: 'never' }]);
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const sent = request(
        `${url}/v1/responses`,
        { method: 'POST', headers: { host: 'evil.example', 'content-type': 'application/json' } },
        (reply) => {
          reply.resume();
          resolve(reply.statusCode);
        },
      );
      sent.on('error', reject);
      sent.end(JSON.stringify({ model: 'scripted-model', input: 'Hi' }));
    });
    expect(status).toBe(403);
    expect(upstream.requests).toHaveLength(0);
  });

  it('createProxyApp refuses a negative maxStoredResponseBytes', async () => {
    await expect(clientFor([], { maxStoredResponseBytes: -1 })).rejects.toThrow(
      /maxStoredResponseBytes must be a whole number of at least 0/,
    );
  });
});
