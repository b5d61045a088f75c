import OpenAI, { APIError } from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import {
  correctionText,
  demandSentence,
  TOOLS_UNAVAILABLE,
  type ToolCallToFormat,
  type ToolDefinition,
} from '../../src/core/index.ts';
import type { ProxyOptions } from '../../src/proxy/index.ts';
import { callText, hermes, proxyHarness, sleep, tokens } from './harness.ts';
import {
  type ScriptedReply,
  type ScriptedUpstream,
  type UpstreamBody,
  USAGE,
} from './scripted-upstream.ts';

// The official `openai` client against `toolwire proxy` in front of a scripted text-only model
// server: every shape is the one the client (and code written for OpenAI's API) reads.

const WEATHER: ToolDefinition = {
  name: 'get_weather',
  description: 'Current weather for a city',
  inputSchema: {
    type: 'object',
    properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } },
    required: ['city'],
    additionalProperties: false,
  },
};
const TIME: ToolDefinition = {
  name: 'get_time',
  description: 'Local time in a time zone',
  inputSchema: {
    type: 'object',
    properties: { zone: { type: 'string' } },
    required: ['zone'],
    additionalProperties: false,
  },
};
const DEFINITIONS = [WEATHER, TIME];

/** The definitions as the client sends them: native `tools`. */
const TOOLS: ChatCompletionTool[] = DEFINITIONS.map((tool) => ({
  type: 'function',
  function: {
    name: tool.name,
    description: tool.description!,
    parameters: tool.inputSchema as Record<string, unknown>,
  },
}));

const SYSTEM = 'You are a terse assistant.';
const PARIS: ToolCallToFormat = {
  toolName: 'get_weather',
  toolCallId: 'c1',
  input: { city: 'Paris', unit: 'c' },
};
const TOKYO: ToolCallToFormat = {
  toolName: 'get_time',
  toolCallId: 'c2',
  input: { zone: 'Asia/Tokyo' },
};

const startProxy = proxyHarness();

async function clientFor(
  script: readonly ScriptedReply[] | ((body: UpstreamBody, index: number) => ScriptedReply),
  options: Partial<ProxyOptions> = {},
): Promise<{ client: OpenAI; upstream: ScriptedUpstream }> {
  const { url, upstream } = await startProxy(script, options);
  return {
    client: new OpenAI({ baseURL: `${url}/v1`, apiKey: 'sk-test', maxRetries: 0 }),
    upstream,
  };
}

const request = (
  extra: Partial<ChatCompletionCreateParamsNonStreaming> = {},
): ChatCompletionCreateParamsNonStreaming => ({
  model: 'scripted-model',
  messages: [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: 'Weather in Paris?' },
  ],
  tools: TOOLS,
  ...extra,
});

/** The system message the model server got: the client's text, then the tool prompt. */
function upstreamSystem(body: UpstreamBody): string {
  const first = body.messages[0]!;
  expect(first.role).toBe('system');
  return first.content as string;
}

/** A streamed completion's chunks, read to the end. */
async function streamed(
  client: OpenAI,
  body: ChatCompletionCreateParamsNonStreaming,
): Promise<ChatCompletionChunk[]> {
  const stream = await client.chat.completions.create({
    ...body,
    stream: true,
    stream_options: { include_usage: true },
  });
  const chunks: ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

type ToolCallDelta = NonNullable<ChatCompletionChunk.Choice.Delta['tool_calls']>[number];

function toolCallDeltas(chunks: readonly ChatCompletionChunk[]): ToolCallDelta[] {
  return chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
}

function streamedContent(chunks: readonly ChatCompletionChunk[]): string {
  return chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
}

function streamedReasoning(chunks: readonly ChatCompletionChunk[]): string {
  return chunks
    .map(
      (chunk) =>
        (chunk.choices[0]?.delta as { reasoning_content?: string } | undefined)
          ?.reasoning_content ?? '',
    )
    .join('');
}

/** The calls a stream describes, checked against OpenAI's delta rules on the way. */
function callsOfStream(chunks: readonly ChatCompletionChunk[]) {
  const calls: { id: string; name: string; arguments: string; pieces: number }[] = [];
  for (const delta of toolCallDeltas(chunks)) {
    const known = calls[delta.index];
    if (known === undefined) {
      // The first delta of a call: its index (the next one), id, type and name.
      expect(delta.index).toBe(calls.length);
      expect(delta.id).toEqual(expect.any(String));
      expect(delta.type).toBe('function');
      expect(delta.function?.name).toEqual(expect.any(String));
      calls[delta.index] = {
        id: delta.id!,
        name: delta.function!.name!,
        arguments: delta.function?.arguments ?? '',
        pieces: delta.function?.arguments ? 1 : 0,
      };
    } else {
      // Later deltas carry only pieces of the arguments.
      expect(delta.id).toBeUndefined();
      expect(delta.function?.name).toBeUndefined();
      expect(delta.function?.arguments).toEqual(expect.any(String));
      known.arguments += delta.function!.arguments!;
      known.pieces++;
    }
  }
  return calls;
}

function finishReasonOf(chunks: readonly ChatCompletionChunk[]): string | null | undefined {
  return chunks.findLast((chunk) => chunk.choices[0]?.finish_reason)?.choices[0]?.finish_reason;
}

describe('openai client: one call', () => {
  it('non-streamed: message.tool_calls in OpenAI shape, finish_reason tool_calls, usage passed on', async () => {
    const { client, upstream } = await clientFor([{ text: callText(PARIS) }]);
    const completion = await client.chat.completions.create(request());
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.role).toBe('assistant');
    expect(choice.message.content?.trim()).toBe('Let me check.');
    expect(choice.message.tool_calls).toEqual([
      {
        id: expect.any(String),
        type: 'function',
        function: { name: 'get_weather', arguments: expect.any(String) },
      },
    ]);
    const call = choice.message.tool_calls![0]!;
    expect(call.type === 'function' && JSON.parse(call.function.arguments)).toEqual(PARIS.input);
    expect(completion.usage).toEqual(USAGE);
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('scripted-model');

    // The model server got no tools, only the three text roles, and the tool prompt after the
    // client's own system text.
    expect(upstream.requests).toHaveLength(1);
    const sent = upstream.requests[0]!;
    expect(sent).not.toHaveProperty('tools');
    expect(sent).not.toHaveProperty('tool_choice');
    expect(sent.stream).toBe(false);
    expect(sent.messages.map((message) => message.role)).toEqual(['system', 'user']);
    const system = upstreamSystem(sent);
    expect(system.startsWith(SYSTEM)).toBe(true);
    expect(system).toContain(hermes.formatTools(DEFINITIONS));
  });

  it('streamed: first call delta has index, id, type and name; argument pieces join to the JSON', async () => {
    const { client, upstream } = await clientFor([{ text: callText(PARIS) }]);
    const chunks = await streamed(client, request());
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    for (const chunk of chunks) expect(chunk.object).toBe('chat.completion.chunk');
    expect(streamedContent(chunks).trim()).toBe('Let me check.');
    const calls = callsOfStream(chunks);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.name).toBe('get_weather');
    expect(JSON.parse(calls[0]!.arguments)).toEqual(PARIS.input);
    expect(finishReasonOf(chunks)).toBe('tool_calls');
    // include_usage: a last chunk with no choices and the usage.
    const last = chunks[chunks.length - 1]!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toEqual(USAGE);

    expect(upstream.requests[0]!.stream).toBe(true);
    expect(upstream.requests[0]!.stream_options).toEqual({ include_usage: true });
  });

  it('streamed: the client helper accumulates the same completion as the non-streamed answer', async () => {
    const { client } = await clientFor([{ text: callText(PARIS) }]);
    const whole = await client.chat.completions.create(request());
    const final = await client.chat.completions
      .stream({ ...request(), stream: true })
      .finalChatCompletion();
    const strip = (message: (typeof whole.choices)[number]['message']) => ({
      content: message.content?.trim(),
      calls: message.tool_calls?.map((call) =>
        call.type === 'function'
          ? { name: call.function.name, input: JSON.parse(call.function.arguments) }
          : call,
      ),
    });
    expect(strip(final.choices[0]!.message)).toEqual(strip(whole.choices[0]!.message));
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');
  });

  it('streamed: argument pieces reach the client while the model server is still writing the call', async () => {
    let resume!: () => void;
    const paused = new Promise<void>((resolve) => {
      resume = resolve;
    });
    const markup = hermes.formatToolCall(PARIS);
    const cut = markup.indexOf('Paris') + 3;
    const { client } = await clientFor([
      {
        // The server stops mid-argument until the test has seen what came through.
        chunks: ['Checking.\n', markup.slice(0, cut), markup.slice(cut)],
        pauseBeforeChunk: 2,
        resume: paused,
      },
    ]);
    // A proxy that held the call to its end would never show a piece: give up after a while.
    const giveUp = setTimeout(resume, 5_000);
    let textBeforeEnd = '';
    let argumentsBeforeEnd = '';
    let released = false;
    const stream = await client.chat.completions.create({ ...request(), stream: true });
    const deltas: ToolCallDelta[] = [];
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta;
      deltas.push(...(delta?.tool_calls ?? []));
      if (!released) {
        textBeforeEnd += delta?.content ?? '';
        argumentsBeforeEnd +=
          delta?.tool_calls?.map((d) => d.function?.arguments ?? '').join('') ?? '';
        if (argumentsBeforeEnd.includes('Par')) {
          released = true;
          resume();
        }
      }
    }
    clearTimeout(giveUp);
    expect(released).toBe(true);
    expect(textBeforeEnd.trim()).toBe('Checking.');
    const whole = deltas.map((d) => d.function?.arguments ?? '').join('');
    expect(whole.startsWith(argumentsBeforeEnd)).toBe(true);
    expect(JSON.parse(whole)).toEqual(PARIS.input);
  });

  // Token-by-token servers send a call's closing markup alone: output that writes nothing
  // must not stall the stream.
  it('streamed: a call whose closing markup arrives on its own still ends the stream', async () => {
    let resume!: () => void;
    const paused = new Promise<void>((resolve) => {
      resume = resolve;
    });
    const markup = hermes.formatToolCall(PARIS);
    const close = markup.lastIndexOf('</tool_call>');
    const { client } = await clientFor([
      {
        chunks: [markup.slice(0, close), markup.slice(close)],
        pauseBeforeChunk: 1,
        resume: paused,
      },
    ]);
    const giveUp = setTimeout(resume, 2_000);
    const chunks: ChatCompletionChunk[] = [];
    const stream = await client.chat.completions.create({ ...request(), stream: true });
    const read = (async () => {
      for await (const chunk of stream) {
        chunks.push(chunk);
        // The arguments are out: let the closing markup come in a read of its own.
        if (chunk.choices[0]?.delta.tool_calls?.some((delta) => delta.function?.arguments))
          resume();
      }
      return 'ended';
    })();
    read.catch(() => {});
    const outcome = await Promise.race([read, sleep(3_000).then(() => 'stalled')]);
    clearTimeout(giveUp);
    expect(outcome).toBe('ended');
    expect(JSON.parse(callsOfStream(chunks)[0]!.arguments)).toEqual(PARIS.input);
    expect(finishReasonOf(chunks)).toBe('tool_calls');
  });

  it('streamed: a server writing a few characters at a time gives the same calls and text', async () => {
    const text = callText([PARIS, TOKYO]);
    const { client } = await clientFor([{ text }, { chunks: tokens(text), delayMs: 10 }]);
    const whole = await client.chat.completions.create(request());
    const read = streamed(client, request());
    read.catch(() => {});
    const chunks = await Promise.race([read, sleep(3_000).then(() => undefined)]);
    expect(chunks, 'the stream stalled').toBeDefined();
    const calls = callsOfStream(chunks!).map((call) => ({
      name: call.name,
      arguments: call.arguments,
    }));
    expect(calls).toEqual(
      whole.choices[0]!.message.tool_calls!.map((call) =>
        call.type === 'function'
          ? { name: call.function.name, arguments: call.function.arguments }
          : call,
      ),
    );
    expect(streamedContent(chunks!).trim()).toBe(whole.choices[0]!.message.content?.trim());
  });

  it('streamed: text outside calls reaches the client as the model server writes it', async () => {
    let resume!: () => void;
    const paused = new Promise<void>((resolve) => {
      resume = resolve;
    });
    const { client } = await clientFor([
      { chunks: ['The sky ', 'is clear', ' today.'], pauseBeforeChunk: 2, resume: paused },
    ]);
    const giveUp = setTimeout(resume, 5_000);
    let before = '';
    let released = false;
    let text = '';
    const stream = await client.chat.completions.create({ ...request(), stream: true });
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (!released) {
        before = text;
        if (before.includes('is clear')) {
          released = true;
          resume();
        }
      }
    }
    clearTimeout(giveUp);
    expect(released).toBe(true);
    expect(text).toBe('The sky is clear today.');
  });
});

describe('openai client: a second turn with tool results', () => {
  const history: ChatCompletionMessageParam[] = [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: 'Weather in Paris, and the time in Tokyo?' },
    {
      role: 'assistant',
      content: 'Checking both.',
      tool_calls: [
        {
          id: 'call_w',
          type: 'function',
          function: { name: 'get_weather', arguments: JSON.stringify(PARIS.input) },
        },
        {
          id: 'call_t',
          type: 'function',
          function: { name: 'get_time', arguments: JSON.stringify(TOKYO.input) },
        },
      ],
    },
    { role: 'tool', tool_call_id: 'call_w', content: '18 C, sunny' },
    { role: 'tool', tool_call_id: 'call_t', content: '21:04' },
  ];

  it.each([false, true])(
    'the model server sees calls and results as the protocol text, in three roles (stream: %s)',
    async (stream) => {
      const { client, upstream } = await clientFor([{ text: 'Sunny and 18 C; it is 21:04.' }]);
      const body = request({ messages: history });
      const text = stream
        ? streamedContent(await streamed(client, body))
        : (await client.chat.completions.create(body)).choices[0]!.message.content;
      expect(text).toBe('Sunny and 18 C; it is 21:04.');

      const sent = upstream.requests[0]!;
      expect(sent.messages.map((message) => message.role)).toEqual([
        'system',
        'user',
        'assistant',
        'user',
      ]);
      const system = upstreamSystem(sent);
      expect(system.startsWith(SYSTEM)).toBe(true);
      expect(system).toContain(hermes.formatTools(DEFINITIONS));
      const assistant = sent.messages[2]!.content as string;
      expect(assistant.startsWith('Checking both.')).toBe(true);
      expect(assistant).toContain(
        hermes.formatToolCall([
          { ...PARIS, toolCallId: 'call_w' },
          { ...TOKYO, toolCallId: 'call_t' },
        ]),
      );
      expect(sent.messages[3]!.content).toBe(
        hermes.formatToolResponse([
          { toolName: 'get_weather', toolCallId: 'call_w', output: '18 C, sunny' },
          { toolName: 'get_time', toolCallId: 'call_t', output: '21:04' },
        ]),
      );
    },
  );

  it('non-streamed: a reply without calls ends with finish_reason stop and no tool_calls', async () => {
    const { client } = await clientFor([{ text: 'Sunny.' }]);
    const completion = await client.chat.completions.create(request({ messages: history }));
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect(completion.choices[0]!.message.tool_calls).toBeUndefined();
  });
});

describe('openai client: parallel calls', () => {
  it('non-streamed: two calls in order, with distinct ids', async () => {
    const { client } = await clientFor([{ text: callText([PARIS, TOKYO]) }]);
    const completion = await client.chat.completions.create(request());
    const calls = completion.choices[0]!.message.tool_calls!;
    expect(
      calls.map((call) =>
        call.type === 'function'
          ? { name: call.function.name, input: JSON.parse(call.function.arguments) }
          : call,
      ),
    ).toEqual([
      { name: 'get_weather', input: PARIS.input },
      { name: 'get_time', input: TOKYO.input },
    ]);
    expect(new Set(calls.map((call) => call.id)).size).toBe(2);
    expect(completion.choices[0]!.finish_reason).toBe('tool_calls');
  });

  it('streamed: two calls at indexes 0 and 1, each with its own id and arguments', async () => {
    const { client } = await clientFor([{ text: callText([PARIS, TOKYO]) }]);
    const chunks = await streamed(client, request());
    const calls = callsOfStream(chunks);
    expect(calls.map((call) => ({ name: call.name, input: JSON.parse(call.arguments) }))).toEqual([
      { name: 'get_weather', input: PARIS.input },
      { name: 'get_time', input: TOKYO.input },
    ]);
    expect(calls[0]!.id).not.toBe(calls[1]!.id);
    expect([...new Set(toolCallDeltas(chunks).map((delta) => delta.index))]).toEqual([0, 1]);
    expect(finishReasonOf(chunks)).toBe('tool_calls');
  });
});

describe('openai client: tool_choice', () => {
  it('auto (given or left out): the tools are described, no call is demanded', async () => {
    const { client, upstream } = await clientFor([{ text: 'Hello.' }]);
    await client.chat.completions.create(request({ tool_choice: 'auto' }));
    await client.chat.completions.create(request());
    const [given, absent] = upstream.requests.map(upstreamSystem);
    expect(given).toBe(absent);
    expect(given).toContain(hermes.formatTools(DEFINITIONS));
    expect(given).not.toContain(demandSentence({ type: 'required' }));
  });

  it.each([false, true])(
    'none: tools described as unavailable, and a call the model writes anyway stays text (stream: %s)',
    async (stream) => {
      const written = callText(PARIS, 'Here:');
      const { client, upstream } = await clientFor([{ text: written }]);
      const body = request({ tool_choice: 'none' });
      let content: string | null | undefined;
      let finish: string | null | undefined;
      if (stream) {
        const chunks = await streamed(client, body);
        expect(toolCallDeltas(chunks)).toEqual([]);
        content = streamedContent(chunks);
        finish = finishReasonOf(chunks);
      } else {
        const choice = (await client.chat.completions.create(body)).choices[0]!;
        expect(choice.message.tool_calls).toBeUndefined();
        content = choice.message.content;
        finish = choice.finish_reason;
      }
      expect(content).toBe(written);
      expect(finish).toBe('stop');
      const system = upstreamSystem(upstream.requests[0]!);
      expect(system).toContain(TOOLS_UNAVAILABLE);
      expect(system).not.toContain(hermes.formatTools(DEFINITIONS));
    },
  );

  it('required: the prompt demands a call; an answer without one is retried once with a correction', async () => {
    const { client, upstream } = await clientFor([
      { text: 'I think it is sunny.' },
      { text: callText(PARIS, '') },
    ]);
    const completion = await client.chat.completions.create(request({ tool_choice: 'required' }));
    expect(completion.choices[0]!.finish_reason).toBe('tool_calls');
    expect(completion.choices[0]!.message.tool_calls).toHaveLength(1);
    // The answer without a call never reaches the client.
    expect(completion.choices[0]!.message.content ?? '').not.toContain('I think');

    expect(upstream.requests).toHaveLength(2);
    const [first, second] = upstream.requests;
    expect(upstreamSystem(first!)).toContain(demandSentence({ type: 'required' }));
    expect(second!.messages).toEqual([
      ...first!.messages,
      { role: 'assistant', content: 'I think it is sunny.' },
      { role: 'user', content: correctionText({ type: 'required' }) },
    ]);
  });

  it.each([false, true])(
    'required: still no call after the retry is a 422 APIError saying so (stream: %s)',
    async (stream) => {
      const { client, upstream } = await clientFor([{ text: 'No tools needed.' }]);
      const body = request({ tool_choice: 'required' });
      const error = await (stream ? streamed(client, body) : client.chat.completions.create(body))
        .then(() => undefined)
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(APIError);
      const apiError = error as APIError;
      expect(apiError.status).toBe(422);
      expect(apiError.message).toContain('tool_choice demanded a tool call');
      expect(apiError.message).toContain('No tools needed.');
      expect(upstream.requests).toHaveLength(2);
    },
  );

  it('named: only that tool is described, and the demand names it; the retry corrects with its name', async () => {
    const { client, upstream } = await clientFor([
      { text: 'The time is unknown.' },
      { text: callText(TOKYO, '') },
    ]);
    const completion = await client.chat.completions.create(
      request({ tool_choice: { type: 'function', function: { name: 'get_time' } } }),
    );
    const calls = completion.choices[0]!.message.tool_calls!;
    expect(calls.map((call) => call.type === 'function' && call.function.name)).toEqual([
      'get_time',
    ]);
    const demand = { type: 'tool', toolName: 'get_time' } as const;
    const [first, second] = upstream.requests;
    const system = upstreamSystem(first!);
    expect(system).toContain(hermes.formatTools([TIME]));
    expect(system).not.toContain(hermes.formatTools(DEFINITIONS));
    expect(system).toContain(demandSentence(demand));
    expect(second!.messages[second!.messages.length - 1]).toEqual({
      role: 'user',
      content: correctionText(demand),
    });
  });

  it('named: still no call after the retry is a 422 naming the tool', async () => {
    const { client } = await clientFor([{ text: 'Unknown.' }]);
    const error = await client.chat.completions
      .create(request({ tool_choice: { type: 'function', function: { name: 'get_time' } } }))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(422);
    expect((error as APIError).message).toContain('a call of the tool "get_time"');
  });

  // The prompt shows only the named tool; a call of another is text, and the demand stands.
  it('named: a call of another declared tool does not satisfy the demand', async () => {
    const { client, upstream } = await clientFor([
      { text: callText(PARIS, '') },
      { text: callText(TOKYO, '') },
    ]);
    const completion = await client.chat.completions.create(
      request({ tool_choice: { type: 'function', function: { name: 'get_time' } } }),
    );
    const calls = completion.choices[0]!.message.tool_calls ?? [];
    expect(calls.map((call) => call.type === 'function' && call.function.name)).toEqual([
      'get_time',
    ]);
    expect(upstream.requests).toHaveLength(2);
  });

  // vLLM ends a request it stopped or that failed with finish_reason "abort" or "error": the
  // policy counts both as cut off, as the AI SDK middleware does.
  it.each(['abort', 'error'])(
    'finish_reason %s: the reply was cut off, so a missing demanded call is not retried and an open call never runs',
    async (finishReason) => {
      const open = callText(PARIS).replace('</tool_call>', '');
      const { client, upstream } = await clientFor([{ text: open, finishReason }]);
      const completion = await client.chat.completions.create(request({ tool_choice: 'required' }));
      const choice = completion.choices[0]!;
      expect(choice.message.tool_calls).toBeUndefined();
      expect(choice.message.content).toContain('"get_weather"');
      expect(choice.finish_reason).toBe(finishReason);
      expect(upstream.requests).toHaveLength(1);
    },
  );

  it('a finish reason the proxy does not know, with calls read, is tool_calls', async () => {
    const { client } = await clientFor([{ text: callText(PARIS), finishReason: 'eos' }]);
    const completion = await client.chat.completions.create(request());
    expect(completion.choices[0]!.message.tool_calls).toHaveLength(1);
    expect(completion.choices[0]!.finish_reason).toBe('tool_calls');
  });

  it('parallel_tool_calls false: the model is told to call at most one tool', async () => {
    const { client, upstream } = await clientFor([{ text: callText(PARIS) }]);
    await client.chat.completions.create(request({ parallel_tool_calls: false }));
    await client.chat.completions.create(request({ parallel_tool_calls: true }));
    const [single, parallel] = upstream.requests.map(upstreamSystem);
    expect(single).toContain('Call at most one tool in this reply.');
    expect(parallel).not.toContain('Call at most one tool in this reply.');
  });

  it.each([false, true])(
    'parallel_tool_calls false: only the first of two calls is a call, the second stays text (stream: %s)',
    async (stream) => {
      const second = hermes.formatToolCall(TOKYO);
      const { client } = await clientFor([{ text: callText([PARIS, TOKYO]) }]);
      const body = request({ parallel_tool_calls: false });
      let calls: { name: string; input: unknown }[];
      let content: string;
      if (stream) {
        const chunks = await streamed(client, body);
        calls = callsOfStream(chunks).map((call) => ({
          name: call.name,
          input: JSON.parse(call.arguments),
        }));
        content = streamedContent(chunks);
      } else {
        const message = (await client.chat.completions.create(body)).choices[0]!.message;
        calls = (message.tool_calls ?? []).map((call) =>
          call.type === 'function'
            ? { name: call.function.name, input: JSON.parse(call.function.arguments) }
            : { name: call.type, input: undefined },
        );
        content = message.content ?? '';
      }
      expect(calls).toEqual([{ name: 'get_weather', input: PARIS.input }]);
      expect(content).toContain(second.trim());
    },
  );
});

describe('openai client: reasoning and malformed calls', () => {
  it.each([false, true])(
    '<think> in the text and the server’s reasoning_content both come out as reasoning_content (stream: %s)',
    async (stream) => {
      const { client } = await clientFor([
        { text: '<think>The user wants Paris.</think>It is sunny.' },
        { reasoning: 'Split off by the server.', text: 'It is sunny.' },
      ]);
      for (const expected of ['The user wants Paris.', 'Split off by the server.']) {
        if (stream) {
          const chunks = await streamed(client, request());
          expect(streamedReasoning(chunks)).toBe(expected);
          expect(streamedContent(chunks)).toBe('It is sunny.');
        } else {
          const message = (await client.chat.completions.create(request())).choices[0]!.message;
          expect((message as { reasoning_content?: string }).reasoning_content).toBe(expected);
          expect(message.content).toBe('It is sunny.');
        }
      }
    },
  );

  it.each([false, true])(
    'a malformed call comes out as content, raw, with no tool_calls (stream: %s)',
    async (stream) => {
      // Broken before its tool is named: nothing of it is ever a call.
      const broken = 'Try this: <tool_call>\n{"nam": get_weather}\n</tool_call> ok?';
      const { client } = await clientFor([{ text: broken }]);
      if (stream) {
        const chunks = await streamed(client, request());
        expect(streamedContent(chunks)).toBe(broken);
        expect(toolCallDeltas(chunks)).toEqual([]);
        expect(finishReasonOf(chunks)).toBe('stop');
      } else {
        const choice = (await client.chat.completions.create(request())).choices[0]!;
        expect(choice.message.content).toBe(broken);
        expect(choice.message.tool_calls).toBeUndefined();
        expect(choice.finish_reason).toBe('stop');
      }
    },
  );

  it.each([false, true])(
    'a call broken after its name comes out as raw content and finish_reason stop (stream: %s)',
    async (stream) => {
      const broken =
        'Try this: <tool_call>\n{"name": "get_weather", "arguments": {"city": }\n</tool_call> ok?';
      const { client } = await clientFor([{ text: broken }]);
      if (stream) {
        // The call's start went out as it was read; its raw text follows, and the finish
        // reason says no call is to run.
        const chunks = await streamed(client, request());
        expect(streamedContent(chunks)).toBe(broken);
        expect(finishReasonOf(chunks)).toBe('stop');
      } else {
        const choice = (await client.chat.completions.create(request())).choices[0]!;
        expect(choice.message.content).toBe(broken);
        expect(choice.message.tool_calls).toBeUndefined();
        expect(choice.finish_reason).toBe('stop');
      }
    },
  );
});

describe('openai client: errors and models', () => {
  it.each([false, true])(
    'an upstream that is down is a 502 APIError naming the server (stream: %s)',
    async (stream) => {
      const { client, upstream } = await clientFor([{ text: 'unused' }]);
      await upstream.close();
      const body = request();
      const error = await (stream ? streamed(client, body) : client.chat.completions.create(body))
        .then(() => undefined)
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(APIError);
      expect((error as APIError).status).toBe(502);
      expect((error as APIError).message).toContain(`no model server answers at ${upstream.url}`);
    },
  );

  it.each([
    [404, 'model "nope" not found'],
    [429, 'too many requests, slow down'],
    [500, 'CUDA out of memory'],
  ])('an upstream %i is passed on with its status and message', async (status, message) => {
    const { client } = await clientFor([{ status, errorMessage: message }]);
    for (const stream of [false, true]) {
      const body = request();
      const error = await (stream ? streamed(client, body) : client.chat.completions.create(body))
        .then(() => undefined)
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(APIError);
      expect((error as APIError).status).toBe(status);
      expect((error as APIError).message).toContain(message);
    }
  });

  it('an upstream that fails mid-stream ends the stream with an error the client throws', async () => {
    const { client, upstream } = await clientFor([{ text: 'Partly cloudy today.', hangAfter: 1 }]);
    const stream = await client.chat.completions.create({ ...request(), stream: true });
    let text = '';
    const error = await (async () => {
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? '';
        if (text.length > 0) await upstream.close();
      }
    })().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    // What the server wrote before it failed, and nothing more.
    expect(text).toBe('Partl');
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).message).toContain(upstream.url);
  });

  it('a malformed request is a 400 naming the field', async () => {
    const { client, upstream } = await clientFor([{ text: 'unused' }]);
    const error = await client.chat.completions
      .create(request({ tool_choice: { type: 'function', function: { name: 'launch' } } }))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(400);
    expect((error as APIError).param).toBe('tool_choice.function.name');
    expect(upstream.requests).toHaveLength(0);
  });

  it('GET /v1/models through client.models.list() is the upstream’s list', async () => {
    const { client } = await clientFor([{ text: 'unused' }]);
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toEqual(['scripted-model']);
  });
});
