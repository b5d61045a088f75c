import { type ChatResponse, type Message, Ollama, type Tool } from 'ollama';
import { describe, expect, it } from 'vitest';
import { callText, hermes, proxyHarness, TIME, WEATHER } from '../harness.ts';
import { USAGE } from '../scripted-upstream.ts';

// The official `ollama` client against `toolwire proxy` in front of a scripted text-only model
// server: Ollama's own API, with tool calls read from the model's text.

const start = proxyHarness();

/** The tools as an Ollama client sends them. */
const TOOLS: Tool[] = [WEATHER, TIME].map((tool) => ({
  type: 'function',
  function: {
    name: tool.name,
    description: tool.description!,
    parameters: tool.inputSchema as Tool['function']['parameters'],
  },
}));

const QUESTION: Message = { role: 'user', content: 'Weather in Paris?' };
const PARIS = callText({ toolName: 'get_weather', input: { city: 'Paris' } }, 'Checking.');

/** The error a call throws (the client's ResponseError carries the status). */
async function failure(promise: Promise<unknown>): Promise<Error & { status_code?: number }> {
  try {
    await promise;
  } catch (error) {
    return error as Error & { status_code?: number };
  }
  throw new Error('the call succeeded');
}

describe('the ollama client through the proxy', () => {
  it('gets a call with its arguments as an object, not streamed', async () => {
    const { url, upstream } = await start([{ text: PARIS }]);
    const client = new Ollama({ host: url });
    const reply = await client.chat({
      model: 'qwen3:8b',
      messages: [QUESTION],
      tools: TOOLS,
      stream: false,
      options: { temperature: 0.1, num_predict: 200, num_ctx: 4096 },
    });
    expect(reply.model).toBe('qwen3:8b');
    expect(reply.done).toBe(true);
    expect(reply.done_reason).toBe('stop');
    expect(reply.message.role).toBe('assistant');
    expect(reply.message.content).toBe('Checking.\n');
    expect(reply.message.tool_calls).toEqual([
      {
        id: expect.stringMatching(/^call/),
        function: { index: 0, name: 'get_weather', arguments: { city: 'Paris' } },
      },
    ]);
    expect(reply.prompt_eval_count).toBe(USAGE.prompt_tokens);
    expect(reply.eval_count).toBe(USAGE.completion_tokens);
    expect(reply.total_duration).toBeGreaterThan(0);
    expect(Number.isNaN(Date.parse(String(reply.created_at)))).toBe(false);
    // The model server got a chat completions request with the tools in the prompt.
    const sent = upstream.requests[0]!;
    expect(sent.model).toBe('qwen3:8b');
    expect(sent.stream).toBe(false);
    expect(sent.temperature).toBe(0.1);
    expect(sent.max_tokens).toBe(200);
    expect(sent).not.toHaveProperty('num_ctx');
    expect(sent).not.toHaveProperty('tools');
    expect(String(sent.messages[0]!.content)).toContain('get_weather');
  });

  it('streams text pieces, then the call whole, then the last line with done: true', async () => {
    const { url, upstream } = await start([{ text: PARIS }]);
    const client = new Ollama({ host: url });
    const parts: ChatResponse[] = [];
    for await (const part of await client.chat({
      model: 'qwen3:8b',
      messages: [QUESTION],
      tools: TOOLS,
      stream: true,
    }))
      parts.push(part);
    const last = parts[parts.length - 1]!;
    expect(last.done).toBe(true);
    expect(last.done_reason).toBe('stop');
    expect(last.eval_count).toBe(USAGE.completion_tokens);
    expect(parts.slice(0, -1).every((part) => part.done === false)).toBe(true);
    expect(parts.map((part) => part.message.content).join('')).toBe('Checking.\n');
    const calls = parts.flatMap((part) => part.message.tool_calls ?? []);
    expect(calls).toEqual([
      {
        id: expect.stringMatching(/^call/),
        function: { index: 0, name: 'get_weather', arguments: { city: 'Paris' } },
      },
    ]);
    // Ollama's default is to stream; the usage is asked for, for the last line's counts.
    expect(upstream.requests[0]!.stream).toBe(true);
    expect(upstream.requests[0]!.stream_options).toEqual({ include_usage: true });
  });

  it('streams the reasoning the model server split off as thinking', async () => {
    const { url } = await start([{ reasoning: 'Greet them.', text: 'Hello!' }]);
    const client = new Ollama({ host: url });
    const parts: ChatResponse[] = [];
    for await (const part of await client.chat({
      model: 'qwen3:8b',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
      think: true,
    }))
      parts.push(part);
    expect(parts.map((part) => part.message.thinking ?? '').join('')).toBe('Greet them.');
    expect(parts.map((part) => part.message.content).join('')).toBe('Hello!');
  });

  it('sends a second turn with tool results the model reads in its format', async () => {
    const { url, upstream } = await start([{ text: PARIS }, { text: 'It is sunny in Paris.' }]);
    const client = new Ollama({ host: url });
    const first = await client.chat({
      model: 'qwen3:8b',
      messages: [QUESTION],
      tools: TOOLS,
    });
    const call = first.message.tool_calls![0]!;
    // As ollama-js users write it: the assistant message back, then a result naming its tool.
    const second = await client.chat({
      model: 'qwen3:8b',
      messages: [
        QUESTION,
        first.message,
        { role: 'tool', content: '{"sky":"sunny"}', tool_name: call.function.name },
      ],
      tools: TOOLS,
    });
    expect(second.message.content).toBe('It is sunny in Paris.');
    expect(second.message.tool_calls).toBeUndefined();
    const sent = upstream.requests[1]!.messages;
    const rendered = sent.map((message) => String(message.content)).join('\n');
    expect(rendered).toContain(
      hermes.formatToolCall({ toolName: 'get_weather', input: { city: 'Paris' } }),
    );
    expect(rendered).toContain('sunny');
    expect(rendered).toContain('<tool_response>');
  });

  it('asks the model server for JSON in the format given, and for no thinking', async () => {
    const { url, upstream } = await start([{ text: '{"age":22}' }]);
    const schema = { type: 'object', properties: { age: { type: 'integer' } } };
    const reply = await new Ollama({ host: url }).chat({
      model: 'qwen3:8b',
      messages: [{ role: 'user', content: 'Ollama is 22. JSON please.' }],
      format: schema,
      think: false,
      keep_alive: '10m',
    });
    expect(JSON.parse(reply.message.content)).toEqual({ age: 22 });
    const sent = upstream.requests[0]!;
    expect(sent.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'response', schema },
    });
    expect(sent.reasoning_effort).toBe('none');
    expect(sent.chat_template_kwargs).toEqual({ enable_thinking: false });
    expect(sent).not.toHaveProperty('keep_alive');
    expect(sent).not.toHaveProperty('think');
  });

  it('lists the models of a model server that is not Ollama from /v1/models', async () => {
    const { url } = await start([]);
    const list = await new Ollama({ host: url }).list();
    expect(list.models.map((model) => model.name)).toEqual(['scripted-model']);
  });

  it('shows any model with tools among its capabilities', async () => {
    const { url } = await start([]);
    const shown = await new Ollama({ host: url }).show({ model: 'scripted-model' });
    expect(shown.capabilities).toEqual(['completion', 'tools']);
  });

  it("passes /api/tags and /api/show through to an Ollama server at the upstream's root", async () => {
    const seen: string[] = [];
    const ollamaServer = (async (input: string | URL | Request, init?: RequestInit) => {
      const target = new URL(String(input));
      seen.push(`${init?.method ?? 'GET'} ${target.pathname}`);
      if (target.pathname === '/api/tags')
        return Response.json({ models: [{ name: 'qwen3:8b', model: 'qwen3:8b' }] });
      if (target.pathname === '/api/show')
        return Response.json({ capabilities: ['completion'], template: '{{ .Prompt }}' });
      return Response.json({ error: 'not found' }, { status: 404 });
    }) as typeof fetch;
    const { url } = await start([], { fetch: ollamaServer });
    const client = new Ollama({ host: url });
    expect((await client.list()).models.map((model) => model.name)).toEqual(['qwen3:8b']);
    const shown = await client.show({ model: 'qwen3:8b' });
    expect(shown.capabilities).toEqual(['completion', 'tools']);
    expect(shown.template).toBe('{{ .Prompt }}');
    expect(seen).toEqual(['GET /api/tags', 'POST /api/show']);
  });

  it('answers a request without messages as a model load', async () => {
    const { url, upstream } = await start([]);
    const reply = await new Ollama({ host: url }).chat({ model: 'qwen3:8b', messages: [] });
    expect(reply.done).toBe(true);
    expect(reply.done_reason).toBe('load');
    expect(upstream.requests).toHaveLength(0);
  });

  it("gives the client Ollama's error shape: a bad request names the field", async () => {
    const { url } = await start([]);
    const error = await failure(
      new Ollama({ host: url }).chat({
        model: 'qwen3:8b',
        messages: [QUESTION],
        options: { temperature: 'warm' as unknown as number },
      }),
    );
    expect(error.name).toBe('ResponseError');
    expect(error.status_code).toBe(400);
    expect(error.message).toBe('options.temperature must be a number, not the string "warm"');
  });

  it("passes on the model server's failure in Ollama's shape, streamed or not", async () => {
    const { url } = await start([{ status: 503, errorMessage: 'model is loading' }]);
    const client = new Ollama({ host: url });
    const whole = await failure(client.chat({ model: 'qwen3:8b', messages: [QUESTION] }));
    expect(whole.status_code).toBe(503);
    expect(whole.message).toContain('model is loading');
    const streamed = await failure(
      client.chat({ model: 'qwen3:8b', messages: [QUESTION], stream: true }),
    );
    expect(streamed.status_code).toBe(503);
  });

  it('ends a stream that fails midway with an error line the client throws', async () => {
    // A model server whose reply breaks off after two pieces of text.
    const breaking = (async () => {
      const encoder = new TextEncoder();
      const pieces = ['Hello ', 'there'];
      const body = new ReadableStream<Uint8Array>({
        // One piece a read, then the failure: an error drops what is still queued.
        pull(controller) {
          const content = pieces.shift();
          if (content === undefined) controller.error(new Error('connection reset'));
          else
            controller.enqueue(
              encoder.encode(
                `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content } }] })}\n\n`,
              ),
            );
        },
      });
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
    }) as typeof fetch;
    const { url } = await start([], { fetch: breaking });
    const parts: ChatResponse[] = [];
    const error = await failure(
      (async () => {
        for await (const part of await new Ollama({ host: url }).chat({
          model: 'qwen3:8b',
          messages: [QUESTION],
          stream: true,
        }))
          parts.push(part);
      })(),
    );
    expect(parts.map((part) => part.message.content).join('')).toBe('Hello there');
    expect(error.message).toMatch(/model server/);
  });

  it('cancels the model server request when the client aborts the stream', async () => {
    const { url, upstream } = await start([{ text: 'x'.repeat(400), delayMs: 20 }]);
    const client = new Ollama({ host: url });
    const stream = await client.chat({ model: 'qwen3:8b', messages: [QUESTION], stream: true });
    for await (const part of stream) if (part.message.content.length > 0) break;
    // Leaving the loop does not close the connection in ollama-js: abort() does.
    stream.abort();
    await expect.poll(() => upstream.disconnects, { timeout: 3000 }).toBe(1);
  });

  it("reads a body sent without JSON's content type, as Ollama does (curl -d); the OpenAI routes still refuse it", async () => {
    const { url } = await start([{ text: 'Hi!' }, { text: 'unused' }]);
    const body = JSON.stringify({
      model: 'qwen3:8b',
      stream: false,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const ollama = await fetch(`${url}/api/chat`, { method: 'POST', headers: form, body });
    expect(ollama.status).toBe(200);
    expect(((await ollama.json()) as { message: { content: string } }).message.content).toBe('Hi!');
    const openai = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: form,
      body,
    });
    expect(openai.status).toBe(415);
  });

  it('answers NDJSON with the options it left out named in a header', async () => {
    const { url } = await start([{ text: 'Hi!' }]);
    const response = await fetch(`${url}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'qwen3:8b',
        messages: [{ role: 'user', content: 'Hi' }],
        options: { num_ctx: 2048, mirostat: 1, 'bad\nname': 1 },
      }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/x-ndjson');
    expect(response.headers.get('x-toolwire-left-out-options')).toBe(
      'num_ctx, mirostat (and 1 other)',
    );
    const lines = (await response.text())
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => line.message.content).join('')).toBe('Hi!');
    expect(lines[lines.length - 1].done).toBe(true);
  });
});
