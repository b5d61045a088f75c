import Anthropic, { APIError } from '@anthropic-ai/sdk';
import type {
  Message,
  MessageCreateParamsNonStreaming,
  MessageParam,
  RawMessageStreamEvent,
  Tool,
} from '@anthropic-ai/sdk/resources/messages';
import { describe, expect, it } from 'vitest';
import {
  correctionText,
  demandSentence,
  TOOLS_UNAVAILABLE,
  type ToolCallToFormat,
} from '../../src/core/index.ts';
import type { ProxyOptions } from '../../src/proxy/index.ts';
import { callText, hermes, proxyHarness, sleep, TIME, tokens, WEATHER } from './harness.ts';
import {
  type ScriptedReply,
  type ScriptedUpstream,
  type UpstreamBody,
  USAGE,
} from './scripted-upstream.ts';

// The official `@anthropic-ai/sdk` client against `toolwire proxy` in front of a scripted
// text-only model server: Messages requests in, Messages shapes and events out.

const DEFINITIONS = [WEATHER, TIME];
const TOOLS: Tool[] = DEFINITIONS.map((tool) => ({
  name: tool.name,
  description: tool.description!,
  input_schema: tool.inputSchema as Tool['input_schema'],
}));

const SYSTEM = 'You are a terse assistant.';
const OSLO: ToolCallToFormat = {
  toolName: 'get_weather',
  toolCallId: 'c1',
  input: { city: 'Oslo' },
};
const TOKYO: ToolCallToFormat = {
  toolName: 'get_time',
  toolCallId: 'c2',
  input: { zone: 'Asia/Tokyo' },
};

const startProxy = proxyHarness();

async function clientFor(
  script: readonly ScriptedReply[],
  options: Partial<ProxyOptions> = {},
): Promise<{ client: Anthropic; upstream: ScriptedUpstream }> {
  const { url, upstream } = await startProxy(script, options);
  // The SDK adds /v1/messages itself.
  return {
    client: new Anthropic({ baseURL: url, apiKey: 'sk-ant-test', maxRetries: 0 }),
    upstream,
  };
}

const request = (
  extra: Partial<MessageCreateParamsNonStreaming> = {},
): MessageCreateParamsNonStreaming => ({
  model: 'scripted-model',
  max_tokens: 321,
  system: SYSTEM,
  messages: [{ role: 'user', content: 'Weather in Oslo?' }],
  tools: TOOLS,
  ...extra,
});

function upstreamSystem(body: UpstreamBody): string {
  const first = body.messages[0]!;
  expect(first.role).toBe('system');
  return first.content as string;
}

async function events(
  client: Anthropic,
  body: MessageCreateParamsNonStreaming,
): Promise<RawMessageStreamEvent[]> {
  const stream = await client.messages.create({ ...body, stream: true });
  const out: RawMessageStreamEvent[] = [];
  for await (const event of stream) out.push(event);
  return out;
}

/** The event sequence, one entry per run of deltas of one kind in one block. */
function sequence(stream: readonly RawMessageStreamEvent[]): string[] {
  const out: string[] = [];
  for (const event of stream) {
    let name: string = event.type;
    if (event.type === 'content_block_start')
      name = `content_block_start ${event.index} ${event.content_block.type}`;
    else if (event.type === 'content_block_delta')
      name = `content_block_delta ${event.index} ${event.delta.type}`;
    else if (event.type === 'content_block_stop') name = `content_block_stop ${event.index}`;
    if (out[out.length - 1] !== name || event.type !== 'content_block_delta') out.push(name);
  }
  return out;
}

/** Content with the call ids left out (each request gets new ones). */
function withoutIds(content: Message['content']) {
  return content.map((block) => (block.type === 'tool_use' ? { ...block, id: 'id' } : block));
}

async function failure(promise: Promise<unknown>): Promise<APIError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(APIError);
  return error as APIError;
}

describe('anthropic client: one call', () => {
  it('non-streamed: text and a tool_use block, stop_reason tool_use, usage, max_tokens upstream', async () => {
    const { client, upstream } = await clientFor([{ text: callText(OSLO) }]);
    const message = await client.messages.create(request());
    expect(message.type).toBe('message');
    expect(message.role).toBe('assistant');
    expect(message.model).toBe('scripted-model');
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content).toEqual([
      { type: 'text', text: expect.stringMatching(/^Let me check\.\s*$/) },
      { type: 'tool_use', id: expect.any(String), name: 'get_weather', input: OSLO.input },
    ]);
    expect(message.usage).toMatchObject({
      input_tokens: USAGE.prompt_tokens,
      output_tokens: USAGE.completion_tokens,
    });

    const sent = upstream.requests[0]!;
    expect(sent).not.toHaveProperty('tools');
    expect(sent).not.toHaveProperty('tool_choice');
    expect(sent.max_tokens).toBe(321);
    expect(sent.messages.map((entry) => entry.role)).toEqual(['system', 'user']);
    const system = upstreamSystem(sent);
    expect(system.startsWith(SYSTEM)).toBe(true);
    expect(system).toContain(hermes.formatTools(DEFINITIONS));
  });

  it('streamed: the exact event sequence, input_json_delta pieces that join to the input', async () => {
    const { client } = await clientFor([{ reasoning: 'Oslo, so weather.', text: callText(OSLO) }]);
    const stream = await events(client, request());
    expect(sequence(stream)).toEqual([
      'message_start',
      'content_block_start 0 thinking',
      'content_block_delta 0 thinking_delta',
      'content_block_stop 0',
      'content_block_start 1 text',
      'content_block_delta 1 text_delta',
      'content_block_stop 1',
      'content_block_start 2 tool_use',
      'content_block_delta 2 input_json_delta',
      'content_block_stop 2',
      'message_delta',
      'message_stop',
    ]);
    const start = stream.find((event) => event.type === 'message_start')!;
    expect(start.type === 'message_start' && start.message).toMatchObject({
      role: 'assistant',
      model: 'scripted-model',
      content: [],
    });
    const toolStart = stream.find(
      (event) => event.type === 'content_block_start' && event.content_block.type === 'tool_use',
    );
    expect(toolStart?.type === 'content_block_start' && toolStart.content_block).toEqual({
      type: 'tool_use',
      id: expect.any(String),
      name: 'get_weather',
      input: {},
    });
    const json = stream
      .map((event) =>
        event.type === 'content_block_delta' && event.delta.type === 'input_json_delta'
          ? event.delta.partial_json
          : '',
      )
      .join('');
    expect(JSON.parse(json)).toEqual(OSLO.input);
    const delta = stream.find((event) => event.type === 'message_delta');
    expect(delta?.type === 'message_delta' && delta.delta.stop_reason).toBe('tool_use');
    expect(delta?.type === 'message_delta' && delta.usage.output_tokens).toBe(
      USAGE.completion_tokens,
    );
  });

  it('streamed: finalMessage() has the same content as the non-streamed message', async () => {
    const reply = { reasoning: 'Oslo, so weather.', text: callText([OSLO, TOKYO]) };
    const { client } = await clientFor([reply, reply]);
    const whole = await client.messages.create(request());
    const final = await client.messages.stream(request()).finalMessage();
    expect(withoutIds(final.content)).toEqual(withoutIds(whole.content));
    expect(final.stop_reason).toBe('tool_use');
    expect(whole.content.map((block) => block.type)).toEqual([
      'thinking',
      'text',
      'tool_use',
      'tool_use',
    ]);
  });

  it('streamed: a tool_use block opens while the model server is still writing the call', async () => {
    let resume!: () => void;
    const paused = new Promise<void>((resolve) => {
      resume = resolve;
    });
    const markup = hermes.formatToolCall(OSLO);
    const cut = markup.indexOf('Oslo') + 2;
    const { client } = await clientFor([
      {
        chunks: ['On it.\n', markup.slice(0, cut), markup.slice(cut)],
        pauseBeforeChunk: 2,
        resume: paused,
      },
    ]);
    const giveUp = setTimeout(resume, 5_000);
    let released = false;
    const stream = await client.messages.create({ ...request(), stream: true });
    for await (const event of stream) {
      if (
        !released &&
        event.type === 'content_block_delta' &&
        event.delta.type === 'input_json_delta'
      ) {
        released = true;
        resume();
      }
    }
    clearTimeout(giveUp);
    expect(released).toBe(true);
  });

  it('streamed: a server writing a few characters at a time gives the same message', async () => {
    const text = `<think>Two cities.</think>${callText([OSLO, TOKYO])}`;
    const { client } = await clientFor([{ text }, { chunks: tokens(text), delayMs: 5 }]);
    const whole = await client.messages.create(request());
    const final = client.messages.stream(request()).finalMessage();
    final.catch(() => {});
    const message = await Promise.race([final, sleep(5_000).then(() => undefined)]);
    expect(message, 'the stream stalled').toBeDefined();
    expect(withoutIds(message!.content)).toEqual(withoutIds(whole.content));
    expect(whole.content.map((block) => block.type)).toEqual([
      'thinking',
      'text',
      'tool_use',
      'tool_use',
    ]);
  });

  it('thinking: <think> in the text is a thinking block, non-streamed and streamed', async () => {
    const reply = { text: '<think>Nothing to call.</think>Hello there.' };
    const { client } = await clientFor([reply, reply]);
    const whole = await client.messages.create(request());
    expect(whole.content).toEqual([
      { type: 'thinking', thinking: 'Nothing to call.', signature: expect.any(String) },
      { type: 'text', text: 'Hello there.' },
    ]);
    expect(whole.stop_reason).toBe('end_turn');
    const final = await client.messages.stream(request()).finalMessage();
    expect(final.content).toEqual(whole.content);
  });
});

describe('anthropic client: a second turn with tool_use and tool_result blocks', () => {
  const history: MessageParam[] = [
    { role: 'user', content: 'Weather in Oslo, and the time in Tokyo?' },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Checking both.' },
        { type: 'tool_use', id: 'toolu_w', name: 'get_weather', input: OSLO.input },
        { type: 'tool_use', id: 'toolu_t', name: 'get_time', input: TOKYO.input },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_w', content: '5 C, snow' },
        {
          type: 'tool_result',
          tool_use_id: 'toolu_t',
          content: [{ type: 'text', text: 'clock unavailable' }],
          is_error: true,
        },
        { type: 'text', text: 'Be brief.' },
      ],
    },
  ];

  it.each([false, true])(
    'the model server sees the calls and results as protocol text in three roles (stream: %s)',
    async (stream) => {
      const { client, upstream } = await clientFor([{ text: 'Snowing, 5 C.' }]);
      const body = request({ messages: history });
      const message = stream
        ? await client.messages.stream(body).finalMessage()
        : await client.messages.create(body);
      expect(message.content).toEqual([{ type: 'text', text: 'Snowing, 5 C.' }]);
      expect(message.stop_reason).toBe('end_turn');

      const sent = upstream.requests[0]!;
      expect(sent.messages.map((entry) => entry.role)).toEqual([
        'system',
        'user',
        'assistant',
        'user',
      ]);
      expect(upstreamSystem(sent).startsWith(SYSTEM)).toBe(true);
      const assistant = sent.messages[2]!.content as string;
      expect(assistant.startsWith('Checking both.')).toBe(true);
      expect(assistant).toContain(
        hermes.formatToolCall([
          { ...OSLO, toolCallId: 'toolu_w' },
          { ...TOKYO, toolCallId: 'toolu_t' },
        ]),
      );
      const results = sent.messages[3]!.content as string;
      expect(results).toContain(
        hermes.formatToolResponse([
          { toolName: 'get_weather', toolCallId: 'toolu_w', output: '5 C, snow' },
          {
            toolName: 'get_time',
            toolCallId: 'toolu_t',
            output: 'clock unavailable',
            isError: true,
          },
        ]),
      );
      expect(results).toContain('Be brief.');
    },
  );
});

describe('anthropic client: tool_choice', () => {
  it('auto: the tools are described and no call demanded', async () => {
    const { client, upstream } = await clientFor([{ text: 'Hi.' }]);
    await client.messages.create(request({ tool_choice: { type: 'auto' } }));
    const system = upstreamSystem(upstream.requests[0]!);
    expect(system).toContain(hermes.formatTools(DEFINITIONS));
    expect(system).not.toContain(demandSentence({ type: 'required' }));
  });

  it('none: tools described as unavailable, and a call written anyway stays text', async () => {
    const written = callText(OSLO, 'Here:');
    const { client, upstream } = await clientFor([{ text: written }]);
    const message = await client.messages.create(request({ tool_choice: { type: 'none' } }));
    expect(message.content).toEqual([{ type: 'text', text: written }]);
    expect(message.stop_reason).toBe('end_turn');
    const system = upstreamSystem(upstream.requests[0]!);
    expect(system).toContain(TOOLS_UNAVAILABLE);
    expect(system).not.toContain(hermes.formatTools(DEFINITIONS));
  });

  it('any: demanded; an answer without a call is retried once with the correction', async () => {
    const { client, upstream } = await clientFor([
      { text: 'Probably cold.' },
      { text: callText(OSLO, '') },
    ]);
    const message = await client.messages.create(request({ tool_choice: { type: 'any' } }));
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content).toEqual([
      { type: 'tool_use', id: expect.any(String), name: 'get_weather', input: OSLO.input },
    ]);
    const [first, second] = upstream.requests;
    expect(upstreamSystem(first!)).toContain(demandSentence({ type: 'required' }));
    expect(second!.messages).toEqual([
      ...first!.messages,
      { role: 'assistant', content: 'Probably cold.' },
      { role: 'user', content: correctionText({ type: 'required' }) },
    ]);
  });

  it('tool: only the named tool is described and demanded', async () => {
    const { client, upstream } = await clientFor([{ text: callText(TOKYO, '') }]);
    const message = await client.messages.create(
      request({ tool_choice: { type: 'tool', name: 'get_time' } }),
    );
    expect(message.content).toEqual([
      { type: 'tool_use', id: expect.any(String), name: 'get_time', input: TOKYO.input },
    ]);
    const system = upstreamSystem(upstream.requests[0]!);
    expect(system).toContain(hermes.formatTools([TIME]));
    expect(system).not.toContain(hermes.formatTools(DEFINITIONS));
    expect(system).toContain(demandSentence({ type: 'tool', toolName: 'get_time' }));
  });

  it.each([false, true])(
    'any: no call after the retry is a 422 Anthropic error object (stream: %s)',
    async (stream) => {
      const { client, upstream } = await clientFor([{ text: 'No.' }]);
      const body = request({ tool_choice: { type: 'any' } });
      const error = await failure(stream ? events(client, body) : client.messages.create(body));
      expect(error.status).toBe(422);
      expect(error.error).toEqual({
        type: 'error',
        error: { type: 'invalid_request_error', message: expect.stringContaining('tool_choice') },
      });
      expect(upstream.requests).toHaveLength(2);
    },
  );

  it('disable_parallel_tool_use: one tool_use block, the second call stays text', async () => {
    const { client, upstream } = await clientFor([{ text: callText([OSLO, TOKYO]) }]);
    const message = await client.messages.create(
      request({ tool_choice: { type: 'auto', disable_parallel_tool_use: true } }),
    );
    expect(message.content.filter((block) => block.type === 'tool_use')).toEqual([
      { type: 'tool_use', id: expect.any(String), name: 'get_weather', input: OSLO.input },
    ]);
    expect(upstreamSystem(upstream.requests[0]!)).toContain('Call at most one tool in this reply.');
  });
});

describe('anthropic client: errors', () => {
  it.each([false, true])(
    'an upstream that is down is a 502 api_error naming the server (stream: %s)',
    async (stream) => {
      const { client, upstream } = await clientFor([{ text: 'unused' }]);
      await upstream.close();
      const error = await failure(
        stream ? events(client, request()) : client.messages.create(request()),
      );
      expect(error.status).toBe(502);
      expect(error.type).toBe('api_error');
      expect(error.error).toEqual({
        type: 'error',
        error: {
          type: 'api_error',
          message: expect.stringContaining(`no model server answers at ${upstream.url}`),
        },
      });
    },
  );

  it.each([
    [404, 'not_found_error', 'model "nope" not found'],
    [429, 'rate_limit_error', 'slow down'],
    [500, 'api_error', 'CUDA out of memory'],
  ])('an upstream %i is passed on as a %s with its message', async (status, type, message) => {
    const { client } = await clientFor([{ status, errorMessage: message }]);
    for (const stream of [false, true]) {
      const error = await failure(
        stream ? events(client, request()) : client.messages.create(request()),
      );
      expect(error.status).toBe(status);
      expect(error.type).toBe(type);
      expect(error.apiMessage).toContain(message);
    }
  });

  it('an upstream that fails mid-stream ends the stream with an error event the SDK throws', async () => {
    const { client, upstream } = await clientFor([{ text: 'Partly cloudy today.', hangAfter: 1 }]);
    const stream = await client.messages.create({ ...request(), stream: true });
    const seen: string[] = [];
    const error = await failure(
      (async () => {
        for await (const event of stream) {
          seen.push(event.type);
          if (event.type === 'content_block_delta') await upstream.close();
        }
      })(),
    );
    expect(seen[0]).toBe('message_start');
    expect(seen).not.toContain('message_stop');
    expect(error.type).toBe('api_error');
    expect(error.apiMessage).toContain(upstream.url);
  });

  it('a malformed request is a 400 invalid_request_error naming the field', async () => {
    const { client, upstream } = await clientFor([{ text: 'unused' }]);
    const error = await failure(
      client.messages.create(request({ tool_choice: { type: 'tool', name: 'launch' } })),
    );
    expect(error.status).toBe(400);
    expect(error.type).toBe('invalid_request_error');
    expect(error.message).toContain('tool_choice.name');
    expect(upstream.requests).toHaveLength(0);
  });
});
