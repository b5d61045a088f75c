/**
 * The run as the AI SDK's UI message stream, read back with the AI SDK's own client code: the
 * SSE text goes through `parseJsonEventStream` with `uiMessageChunkSchema` (what
 * `DefaultChatTransport` does with a response) and the chunks through `readUIMessageStream`
 * (what `useChat` builds its message with).
 */
import { parseJsonEventStream } from '@ai-sdk/provider-utils';
import {
  lastAssistantMessageIsCompleteWithToolCalls,
  readUIMessageStream,
  type UIMessage,
  type UIMessageChunk,
  uiMessageChunkSchema,
} from 'ai';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AgentEvent,
  type AgentTools,
  resumeAgent,
  runAgent,
} from '../../../src/agent/index.ts';
import type { RunState } from '../../../src/agent/types.ts';
import {
  frameUIMessageChunk,
  toUIMessageSse,
  toUIMessageStream,
  UI_MESSAGE_STREAM_DONE,
  UI_MESSAGE_STREAM_HEADERS,
  UIMessageChunkEncoder,
  UNANSWERED_CALL,
  UNFINISHED_CALL,
  uiMessagesToRun,
} from '../../../src/agent/ui/ui-message-stream.ts';
import { ToolwireError } from '../../../src/core/errors.ts';
import { parseJsonText } from '../../../src/core/parse-json.ts';
import { scriptedModel } from '../scripted-model.ts';

interface ReadBack {
  readonly chunks: UIMessageChunk[];
  readonly message: UIMessage | undefined;
  /** Errors the reader reported: `error` chunks, and chunks it could not apply. */
  readonly errors: Error[];
}

/** SSE text as a response body, read the way the AI SDK's chat client reads it. */
async function readBack(sse: string, message?: UIMessage): Promise<ReadBack> {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(sse));
      controller.close();
    },
  });
  const chunks: UIMessageChunk[] = [];
  const parsed = parseJsonEventStream({ stream: body, schema: uiMessageChunkSchema }).pipeThrough(
    new TransformStream({
      transform(result, controller) {
        if (!result.success) throw result.error;
        chunks.push(result.value);
        controller.enqueue(result.value);
      },
    }),
  );
  const errors: Error[] = [];
  let last: UIMessage | undefined;
  for await (const state of readUIMessageStream({
    stream: parsed,
    ...(message ? { message } : {}),
    onError: (error) => errors.push(error as Error),
  }))
    last = structuredClone(state);
  return { chunks, message: last, errors };
}

async function sseOf(
  events: AsyncIterable<AgentEvent> | Iterable<AgentEvent>,
  messageId = 'm1',
  resumedCalls: readonly string[] = [],
) {
  let text = '';
  for await (const frame of toUIMessageSse(toUIMessageStream(events, { messageId, resumedCalls })))
    text += frame;
  return text;
}

async function arrayOf<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

const weather: AgentTools = {
  get_weather: {
    description: 'Current weather for a city',
    inputSchema: {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
      additionalProperties: false,
    },
    execute: async ({ city }: { city: string }) => `${city}: 21°C, sunny`,
  },
};

const withAskUser: AgentTools = {
  ...weather,
  ask_user: {
    description: 'Ask the user a question',
    inputSchema: {
      type: 'object',
      properties: { question: { type: 'string' } },
      required: ['question'],
    },
  },
};

/** Parts without the fields the reader leaves undefined, for readable comparisons. */
function plain(value: unknown): unknown {
  return parseJsonText(JSON.stringify(value));
}

describe('toUIMessageStream: a real run read by the AI SDK', () => {
  it('builds the assistant message: steps, a server tool call with its result, the answer', async () => {
    const { model } = scriptedModel([
      '<tool_call>{"name":"get_weather","arguments":{"city":"Oslo"}}</tool_call>',
      'Oslo is sunny.',
    ]);
    const run = runAgent({ model, protocol: 'hermes', tools: weather, prompt: 'Oslo?' });
    const { chunks, message, errors } = await readBack(await sseOf(run, 'msg-1'));
    expect(errors).toEqual([]);
    expect(chunks[0]).toEqual({ type: 'start', messageId: 'msg-1' });
    expect(chunks.at(-1)).toMatchObject({
      type: 'finish',
      finishReason: 'stop',
      messageMetadata: { stopReason: 'completed', steps: 2, usage: { inputTokens: 20 } },
    });
    expect(message?.id).toBe('msg-1');
    expect(message?.metadata).toMatchObject({ stopReason: 'completed', steps: 2 });
    expect(plain(message?.parts)).toMatchObject([
      { type: 'step-start' },
      {
        type: 'dynamic-tool',
        toolName: 'get_weather',
        state: 'output-available',
        input: { city: 'Oslo' },
        output: 'Oslo: 21°C, sunny',
      },
      { type: 'step-start' },
      { type: 'text', text: 'Oslo is sunny.', state: 'done' },
    ]);
  });

  it("shows xml's completion call as the answer's text, and reasoning as a reasoning part", async () => {
    const { model } = scriptedModel([
      {
        text: '<attempt_completion><result>It is 21°C.</result></attempt_completion>',
        providerReasoning: 'Easy.',
      },
    ]);
    const run = runAgent({ model, tools: weather, prompt: 'Oslo?' });
    const { chunks, message, errors } = await readBack(await sseOf(run));
    expect(errors).toEqual([]);
    expect(plain(message?.parts)).toMatchObject([
      { type: 'step-start' },
      { type: 'reasoning', text: 'Easy.', state: 'done' },
      { type: 'text', text: 'It is 21°C.', state: 'done' },
    ]);
    expect(message?.parts.some((part) => part.type === 'dynamic-tool')).toBe(false);
    // The answer streamed as the model wrote it, not whole at the end.
    const deltas = chunks.filter((chunk) => chunk.type === 'text-delta');
    expect(deltas.length).toBeGreaterThan(2);
  });

  it('a completion answer that is not what streamed (coerced) follows it whole', async () => {
    const begin: AgentEvent[] = [
      { type: 'run-start', runId: 'r', protocol: 'xml' },
      { type: 'tool-input-start', id: 'c', toolName: 'attempt_completion' },
      { type: 'tool-input-delta', id: 'c', delta: '{"result":"He' },
      { type: 'tool-input-delta', id: 'c', delta: 'l' },
    ];
    const end = async (input: unknown) =>
      arrayOf(
        toUIMessageStream(
          [
            ...begin,
            { type: 'tool-input-end', id: 'c' },
            { type: 'tool-call', toolCallId: 'c', toolName: 'attempt_completion', input },
          ],
          { messageId: 'm' },
        ),
      );
    expect((await end({ result: 'Hello' })).slice(1)).toEqual([
      { type: 'text-start', id: 'answer-c' },
      { type: 'text-delta', id: 'answer-c', delta: 'He' },
      { type: 'text-delta', id: 'answer-c', delta: 'l' },
      { type: 'text-delta', id: 'answer-c', delta: 'lo' },
      { type: 'text-end', id: 'answer-c' },
    ]);
    expect((await end({ result: 42 })).slice(4)).toEqual([
      { type: 'text-end', id: 'answer-c' },
      { type: 'text-start', id: 'answer-c' },
      { type: 'text-delta', id: 'answer-c', delta: '42' },
      { type: 'text-end', id: 'answer-c' },
    ]);
  });

  it('frames each chunk as one data line and ends with [DONE]', async () => {
    const sse = await sseOf([
      { type: 'run-start', runId: 'r', protocol: 'xml' },
      { type: 'step-start', step: 1 },
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'two\nlines\r' },
      { type: 'text-end', id: 't' },
    ]);
    expect(sse.endsWith(UI_MESSAGE_STREAM_DONE)).toBe(true);
    const messages = sse.split('\n\n').filter(Boolean);
    for (const text of messages) expect(text).toMatch(/^data: [^\n]+$/);
    expect(frameUIMessageChunk({ type: 'start-step' })).toBe('data: {"type":"start-step"}\n\n');
    expect(UI_MESSAGE_STREAM_HEADERS['x-vercel-ai-ui-message-stream']).toBe('v1');
    expect(UI_MESSAGE_STREAM_HEADERS['content-type']).toBe('text/event-stream');
    const { message } = await readBack(sse);
    expect(message?.parts.at(-1)).toMatchObject({ type: 'text', text: 'two\nlines\r' });
  });
});

describe('toUIMessageStream: how a run ends', () => {
  const begin: AgentEvent[] = [
    { type: 'run-start', runId: 'r', protocol: 'hermes' },
    { type: 'step-start', step: 1 },
    { type: 'text-start', id: 't' },
    { type: 'text-delta', id: 't', delta: 'Half' },
  ];
  const usage = { inputTokens: undefined, outputTokens: 3 };

  it('aborted: the open text part ends, then abort with the reason', async () => {
    const chunks = [
      ...(await arrayOf(
        toUIMessageStream(
          [
            ...begin,
            {
              type: 'finish',
              stopReason: 'aborted',
              steps: 1,
              usage,
              message: 'the run was aborted',
            },
          ],
          { messageId: 'm' },
        ),
      )),
    ];
    expect(chunks.slice(-2)).toEqual([
      { type: 'text-end', id: 't' },
      { type: 'abort', reason: 'the run was aborted' },
    ]);
  });

  it('failed: error with the message, then finish with reason error and unknown usage as null', async () => {
    const error = new ToolwireError('model-unreachable', 'no server answers at http://x');
    const chunks = await arrayOf(
      toUIMessageStream(
        [
          ...begin,
          { type: 'error', error },
          { type: 'finish', stopReason: 'error', steps: 1, usage, message: error.message },
        ],
        { messageId: 'm' },
      ),
    );
    expect(chunks.slice(-3)).toEqual([
      { type: 'text-end', id: 't' },
      { type: 'error', errorText: 'no server answers at http://x' },
      {
        type: 'finish',
        finishReason: 'error',
        messageMetadata: {
          stopReason: 'error',
          steps: 1,
          usage: { inputTokens: null, outputTokens: 3 },
        },
      },
    ]);
    const { errors, message } = await readBack(
      chunks.map(frameUIMessageChunk).join('') + UI_MESSAGE_STREAM_DONE,
    );
    expect(errors.map((e) => e.message)).toEqual(['no server answers at http://x']);
    expect(message?.parts.at(-1)).toMatchObject({ type: 'text', text: 'Half', state: 'done' });
  });

  it('max-failures and timeout say why in an error chunk; max-steps ends with length', async () => {
    const end = async (stopReason: 'max-failures' | 'timeout' | 'max-steps') =>
      (
        await arrayOf(
          toUIMessageStream(
            [
              ...begin,
              { type: 'finish', stopReason, steps: 1, usage, message: `why ${stopReason}` },
            ],
            { messageId: 'm' },
          ),
        )
      ).slice(-2);
    expect(await end('max-failures')).toMatchObject([
      { type: 'error', errorText: 'why max-failures' },
      { type: 'finish', finishReason: 'error' },
    ]);
    expect(await end('timeout')).toMatchObject([
      { type: 'error', errorText: 'why timeout' },
      { type: 'finish', finishReason: 'error' },
    ]);
    expect(await end('max-steps')).toMatchObject([
      { type: 'text-end' },
      { type: 'finish', finishReason: 'length' },
    ]);
  });

  it('a call whose input was still streaming when the run stopped gets an error', async () => {
    const events: AgentEvent[] = [
      { type: 'run-start', runId: 'r', protocol: 'hermes' },
      { type: 'step-start', step: 1 },
      { type: 'tool-input-start', id: 'c', toolName: 'get_weather' },
      { type: 'tool-input-delta', id: 'c', delta: '{"city":"Os' },
    ];
    const encoder = new UIMessageChunkEncoder({ messageId: 'm' });
    for (const event of events) encoder.push(event);
    const unfinished = {
      type: 'tool-output-error',
      toolCallId: 'c',
      errorText: UNFINISHED_CALL,
      dynamic: true,
    };
    expect(encoder.tail('lost')).toEqual([unfinished, { type: 'error', errorText: 'lost' }]);
    const chunks = await arrayOf(
      toUIMessageStream(
        [...events, { type: 'finish', stopReason: 'aborted', steps: 1, usage, message: 'stop' }],
        { messageId: 'm' },
      ),
    );
    expect(chunks.slice(-2)).toEqual([unfinished, { type: 'abort', reason: 'stop' }]);
    const { message, errors } = await readBack(chunks.map(frameUIMessageChunk).join(''));
    expect(errors).toEqual([]);
    expect(message?.parts.at(-1)).toMatchObject({
      type: 'dynamic-tool',
      state: 'output-error',
      input: { city: 'Os' },
    });
  });

  it("tail: what closes the stream as it stands when the run's instance is lost", () => {
    const encoder = new UIMessageChunkEncoder({ messageId: 'm' });
    for (const event of begin) encoder.push(event);
    encoder.push({ type: 'reasoning-delta', id: 'r1', delta: 'hm' });
    expect(encoder.tail('the instance running this run was lost')).toEqual([
      { type: 'text-end', id: 't' },
      { type: 'reasoning-end', id: 'r1' },
      { type: 'error', errorText: 'the instance running this run was lost' },
    ]);
    // The tail changes nothing: the run can go on.
    expect(encoder.push({ type: 'text-delta', id: 't', delta: '!' })).toEqual([
      { type: 'text-delta', id: 't', delta: '!' },
    ]);
  });

  it("white space alone opens no text part; a malformed call becomes a data part or its call's error", async () => {
    const events: AgentEvent[] = [
      { type: 'run-start', runId: 'r', protocol: 'hermes' },
      { type: 'step-start', step: 1 },
      { type: 'text-start', id: 't1' },
      { type: 'text-delta', id: 't1', delta: '\n' },
      { type: 'text-end', id: 't1' },
      { type: 'tool-input-start', id: 'c1', toolName: 'get_weather' },
      { type: 'tool-input-delta', id: 'c1', delta: '{"city":' },
      {
        type: 'protocol-error',
        fault: {
          code: 'incomplete-call',
          message: 'never closed',
          raw: '<tool_call>{"city":',
          offset: 0,
          toolCallId: 'c1',
          toolName: 'get_weather',
        },
      },
      {
        type: 'protocol-error',
        fault: { code: 'malformed-call', message: 'not JSON', raw: '<tool_call>{x}', offset: 30 },
      },
    ];
    const chunks = await arrayOf(toUIMessageStream(events, { messageId: 'm' }));
    expect(chunks.some((chunk) => chunk.type === 'text-start')).toBe(false);
    expect(chunks.slice(-2)).toEqual([
      {
        type: 'tool-output-error',
        toolCallId: 'c1',
        errorText: 'never closed\n\n<tool_call>{"city":',
        dynamic: true,
      },
      {
        type: 'data-toolwire-fault',
        data: { code: 'malformed-call', message: 'not JSON', raw: '<tool_call>{x}' },
      },
    ]);
    const { message, errors } = await readBack(chunks.map(frameUIMessageChunk).join(''));
    expect(errors).toEqual([]);
    expect(plain(message?.parts)).toMatchObject([
      { type: 'step-start' },
      { type: 'dynamic-tool', toolCallId: 'c1', state: 'output-error', input: {} },
      { type: 'data-toolwire-fault', data: { code: 'malformed-call' } },
    ]);
  });
});

describe('front-end tools: the round trip at the converter level', () => {
  it('pauses on tool-input-available, and the client’s answer resumes the same message', async () => {
    const { model, prompts } = scriptedModel([
      '<tool_call>{"name":"ask_user","arguments":{"question":"Which city?"}}</tool_call>\n<tool_call>{"name":"get_weather","arguments":{"city":"Oslo"}}</tool_call>',
      'Oslo it is: sunny.',
    ]);
    const user: UIMessage = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'weather?' }] };
    const run = runAgent({ model, protocol: 'hermes', tools: withAskUser, prompt: 'weather?' });
    const firstSse = await sseOf(run, 'a1');
    const first = await readBack(firstSse);
    const paused = await run.result;
    expect(first.errors).toEqual([]);
    expect(first.chunks.at(-1)).toEqual({
      type: 'finish',
      finishReason: 'tool-calls',
      messageMetadata: {
        stopReason: 'awaiting-tools',
        steps: 1,
        usage: { inputTokens: 10, outputTokens: 5 },
      },
    });
    const askId = paused.state!.pending[0]!.toolCallId;
    const assistant = first.message!;
    expect(plain(assistant.parts)).toMatchObject([
      { type: 'step-start' },
      { type: 'dynamic-tool', toolName: 'ask_user', toolCallId: askId, state: 'input-available' },
      { type: 'dynamic-tool', toolName: 'get_weather', state: 'output-available' },
    ]);

    // The page answers (what addToolOutput does) and sends the messages again.
    const answered: UIMessage = {
      ...assistant,
      parts: assistant.parts.map((part) =>
        part.type === 'dynamic-tool' && part.toolCallId === askId
          ? { ...part, state: 'output-available', output: 'Oslo' }
          : part,
      ) as UIMessage['parts'],
    };
    const messages = parseJsonText(JSON.stringify([user, answered])) as UIMessage[];
    expect(lastAssistantMessageIsCompleteWithToolCalls({ messages })).toBe(true);

    const input = uiMessagesToRun(messages);
    expect(input.prompt).toBe('weather?');
    expect(input.conversation).toEqual([]);
    expect(input.assistantMessageId).toBe('a1');
    const pending = new Set(paused.state!.pending.map((call) => call.toolCallId));
    const answers = input.results.filter((result) => pending.has(result.toolCallId));
    expect(answers).toEqual([{ toolCallId: askId, output: 'Oslo' }]);

    const resumed = resumeAgent(parseJsonText(JSON.stringify(paused.state)) as RunState, answers, {
      model,
      protocol: 'hermes',
      tools: withAskUser,
    });
    const sse = await sseOf(resumed, input.assistantMessageId, [askId]);
    const second = await readBack(sse, messages[1]);
    expect(second.errors).toEqual([]);
    expect((await resumed.result).stopReason).toBe('completed');
    expect(prompts[1]).toBeDefined();
    expect(second.message?.id).toBe('a1');
    expect(plain(second.message?.parts)).toMatchObject([
      { type: 'step-start' },
      { type: 'dynamic-tool', toolName: 'ask_user', state: 'output-available', output: 'Oslo' },
      { type: 'dynamic-tool', toolName: 'get_weather', state: 'output-available' },
      { type: 'step-start' },
      { type: 'text', text: 'Oslo it is: sunny.', state: 'done' },
    ]);
    expect(second.chunks[1]).toEqual({
      type: 'tool-output-available',
      toolCallId: askId,
      output: 'Oslo',
      dynamic: true,
    });
    // The run's log holds both responses: replayed from its start (a reconnect resets the
    // message), it builds the same message.
    const replay = await readBack(firstSse + sse);
    expect(replay.errors).toEqual([]);
    expect(plain(replay.message)).toEqual(plain(second.message));
    // A result for a call no response showed is left out: a reader would not know the call.
    const unknown = await arrayOf(
      toUIMessageStream(
        [
          { type: 'run-start', runId: 'r', protocol: 'hermes' },
          { type: 'tool-result', toolCallId: 'elsewhere', toolName: 'x', output: 1 },
        ],
        { messageId: 'm' },
      ),
    );
    expect(unknown).toEqual([{ type: 'start', messageId: 'm' }]);
  });
});

describe('uiMessagesToRun', () => {
  it('turns earlier messages into the conversation, step by step', () => {
    const messages = [
      { id: 'u1', role: 'system', parts: [{ type: 'text', text: 'ignored' }] },
      { id: 'u2', role: 'user', parts: [{ type: 'text', text: 'Oslo?' }] },
      {
        id: 'a1',
        role: 'assistant',
        parts: [
          { type: 'step-start' },
          { type: 'reasoning', text: 'look it up', state: 'done' },
          { type: 'text', text: 'Checking.', state: 'done' },
          {
            type: 'dynamic-tool',
            toolName: 'get_weather',
            toolCallId: 'c1',
            state: 'output-available',
            input: { city: 'Oslo' },
            output: 'sunny',
          },
          {
            type: 'tool-ask_user',
            toolCallId: 'c2',
            state: 'output-error',
            input: { question: '?' },
            errorText: 'declined',
          },
          { type: 'step-start' },
          { type: 'text', text: 'Sunny.', state: 'done' },
          { type: 'data-toolwire-fault', data: { code: 'x', message: 'y', raw: 'z' } },
        ],
      },
      {
        id: 'u3',
        role: 'user',
        parts: [
          { type: 'text', text: 'And ' },
          { type: 'text', text: 'Bergen?' },
        ],
      },
    ] as UIMessage[];
    expect(uiMessagesToRun(messages)).toEqual({
      prompt: 'And Bergen?',
      conversation: [
        { type: 'user', content: 'Oslo?' },
        { type: 'think', content: 'look it up' },
        { type: 'respond', content: 'Checking.' },
        { type: 'call', toolCallId: 'c1', toolName: 'get_weather', input: { city: 'Oslo' } },
        { type: 'call', toolCallId: 'c2', toolName: 'ask_user', input: { question: '?' } },
        {
          type: 'results',
          results: [
            { toolCallId: 'c1', toolName: 'get_weather', output: 'sunny' },
            { toolCallId: 'c2', toolName: 'ask_user', output: 'declined', isError: true },
          ],
        },
        { type: 'respond', content: 'Sunny.' },
      ],
      results: [],
    });
  });

  it('gives a call left without an output an error result, so no call hangs', () => {
    const messages = [
      { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Oslo?' }] },
      {
        id: 'a1',
        role: 'assistant',
        parts: [
          { type: 'step-start' },
          {
            type: 'dynamic-tool',
            toolName: 'ask_user',
            toolCallId: 'c1',
            state: 'input-available',
            input: { question: 'Which?' },
          },
        ],
      },
      { id: 'u2', role: 'user', parts: [{ type: 'text', text: 'Never mind.' }] },
    ] as UIMessage[];
    expect(uiMessagesToRun(messages).conversation).toEqual([
      { type: 'user', content: 'Oslo?' },
      { type: 'call', toolCallId: 'c1', toolName: 'ask_user', input: { question: 'Which?' } },
      {
        type: 'results',
        results: [
          { toolCallId: 'c1', toolName: 'ask_user', output: UNANSWERED_CALL, isError: true },
        ],
      },
    ]);
  });

  it('refuses malformed messages, naming the place', () => {
    expect(() => uiMessagesToRun('x' as never)).toThrow(TypeError);
    expect(() => uiMessagesToRun([{ id: 'a', role: 'bot', parts: [] }] as never)).toThrow(
      'messages[0].role must be user, assistant or system',
    );
    expect(() =>
      uiMessagesToRun([{ id: 'a', role: 'user', parts: [{ type: 'text' }] }] as never),
    ).toThrow('messages[0].parts[0].text must be a string');
    expect(() =>
      uiMessagesToRun([
        { id: 'a', role: 'user', parts: [{ type: 'dynamic-tool', toolName: 't', state: 'x' }] },
      ] as never),
    ).toThrow('messages[0].parts[0].toolCallId must be a non-empty string');
    expect(() => uiMessagesToRun([{ id: 'a', role: 'assistant', parts: [] }] as never)).toThrow(
      'no user message',
    );
  });
});

// ── property: any agent event sequence reads back as the message it describes ─────────────────

interface StepPlan {
  readonly texts: readonly (readonly string[])[];
  readonly reasoning: readonly string[];
  readonly calls: readonly {
    readonly name: string;
    readonly streamed: boolean;
    readonly problems: boolean;
    readonly outcome: 'result' | 'error' | 'none';
  }[];
}

const delta = fc.string({ maxLength: 6, unit: fc.constantFrom('a', ' ', '\n', 'é', '"', '\\') });
const stepPlan: fc.Arbitrary<StepPlan> = fc.record({
  texts: fc.array(fc.array(delta, { maxLength: 4 }), { maxLength: 2 }),
  reasoning: fc.array(delta, { maxLength: 3 }),
  calls: fc.array(
    fc.record({
      name: fc.constantFrom('get_weather', 'ask_user', 'attempt_completion'),
      streamed: fc.boolean(),
      problems: fc.boolean(),
      outcome: fc.constantFrom('result' as const, 'error' as const, 'none' as const),
    }),
    { maxLength: 3 },
  ),
});
const ending = fc.constantFrom(
  'completed',
  'aborted',
  'error',
  'max-steps',
  'awaiting-tools',
  'lost',
);

interface Expected {
  readonly events: AgentEvent[];
  readonly texts: string[];
  readonly calls: { readonly id: string; readonly state: string }[];
  readonly ending: string;
}

function plan(steps: readonly StepPlan[], end: string): Expected {
  const events: AgentEvent[] = [{ type: 'run-start', runId: 'r', protocol: 'hermes' }];
  const texts: string[] = [];
  const calls: { id: string; state: string }[] = [];
  const usage = { inputTokens: 1, outputTokens: 1 };
  let n = 0;
  steps.forEach((step, index) => {
    events.push({ type: 'step-start', step: index + 1 });
    if (step.reasoning.length > 0) {
      events.push({ type: 'reasoning-start', id: `r${index}` });
      for (const d of step.reasoning)
        events.push({ type: 'reasoning-delta', id: `r${index}`, delta: d });
      events.push({ type: 'reasoning-end', id: `r${index}` });
    }
    step.texts.forEach((deltas, t) => {
      const id = `t${index}-${t}`;
      events.push({ type: 'text-start', id });
      for (const d of deltas) events.push({ type: 'text-delta', id, delta: d });
      events.push({ type: 'text-end', id });
      const whole = deltas.join('');
      if (whole.trim().length > 0) texts.push(whole);
    });
    const outcomes: AgentEvent[] = [];
    for (const call of step.calls) {
      const id = `c${n++}`;
      const input = { city: 'Oslo', result: 'Done.' };
      if (call.streamed) {
        events.push({ type: 'tool-input-start', id, toolName: call.name });
        events.push({ type: 'tool-input-delta', id, delta: JSON.stringify(input) });
        events.push({ type: 'tool-input-end', id });
      }
      events.push({
        type: 'tool-call',
        toolCallId: id,
        toolName: call.name,
        input,
        ...(call.problems
          ? { problems: [{ path: '/city', message: 'bad city', keyword: 'type' }] }
          : {}),
      });
      // The answer streams with the call's input, or comes whole with a valid call.
      if (call.name === 'attempt_completion' && (call.streamed || !call.problems))
        texts.push('Done.');
      if (call.name === 'attempt_completion' && !call.problems) continue;
      let state = call.problems ? 'output-error' : 'input-available';
      if (call.outcome === 'result') {
        outcomes.push({
          type: 'tool-result',
          toolCallId: id,
          toolName: call.name,
          output: { ok: true },
        });
        state = 'output-available';
      } else if (call.outcome === 'error') {
        outcomes.push({
          type: 'tool-error',
          toolCallId: id,
          toolName: call.name,
          kind: 'execution',
          error: 'boom',
        });
        state = 'output-error';
      }
      calls.push({ id, state });
    }
    events.push({ type: 'step-finish', step: index + 1, usage, finishReason: 'stop', cut: false });
    events.push(...outcomes);
  });
  const finish = (stopReason: 'completed' | 'aborted' | 'error' | 'max-steps' | 'awaiting-tools') =>
    events.push({ type: 'finish', stopReason, steps: steps.length, usage, message: 'why' });
  if (end === 'error') {
    events.push({ type: 'error', error: new ToolwireError('model-unreachable', 'down') });
    finish('error');
  } else if (end === 'awaiting-tools') {
    const state = { steps: steps.length, usage } as Extract<
      AgentEvent,
      { type: 'awaiting-tools' }
    >['state'];
    events.push({ type: 'awaiting-tools', calls: [], state });
    finish('awaiting-tools');
  } else if (end !== 'lost') finish(end as 'completed');
  return { events, texts, calls, ending: end };
}

describe('toUIMessageStream: property over generated event sequences', () => {
  it('every chunk passes the AI SDK schema and the reader builds the message the events describe', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepPlan, { maxLength: 3 }), ending, async (steps, end) => {
        const expected = plan(steps, end);
        const encoder = new UIMessageChunkEncoder({ messageId: 'm' });
        const chunks: UIMessageChunk[] = [];
        for (const event of expected.events) chunks.push(...encoder.push(event));
        if (end === 'lost') chunks.push(...encoder.tail('lost'));
        // Events after the end change nothing.
        expect(encoder.push({ type: 'step-start', step: 99 })).toEqual(
          end === 'lost' ? [{ type: 'start-step' }] : [],
        );

        const sse = chunks.map(frameUIMessageChunk).join('') + UI_MESSAGE_STREAM_DONE;
        const { message, errors } = await readBack(sse);
        const unexpected = errors.filter((error) => error.name !== 'Error');
        expect(unexpected).toEqual([]);
        expect(chunks[0]).toEqual({ type: 'start', messageId: 'm' });
        const last = chunks.at(-1)!;
        const terminal = {
          completed: 'finish',
          'max-steps': 'finish',
          'awaiting-tools': 'finish',
          error: 'finish',
          aborted: 'abort',
          lost: 'error',
        }[end];
        expect(last.type).toBe(terminal);
        expect(
          chunks.filter((chunk) => chunk.type === 'finish' || chunk.type === 'abort').length,
        ).toBe(end === 'lost' ? 0 : 1);

        const parts = message!.parts;
        const texts = parts.filter((part) => part.type === 'text');
        expect(texts.map((part) => part.text)).toEqual(expected.texts);
        expect(texts.every((part) => part.state === 'done')).toBe(true);
        expect(
          parts.filter((part) => part.type === 'reasoning').every((part) => part.state === 'done'),
        ).toBe(true);
        const tools = parts.filter((part) => part.type === 'dynamic-tool');
        expect(tools.map((part) => ({ id: part.toolCallId, state: part.state }))).toEqual(
          expected.calls,
        );
        // The reader shows a step's start with the step's first visible change: a step with
        // nothing in it shows only when a later chunk (the finish's metadata) changes the message.
        const stepStarts = parts.filter((part) => part.type === 'step-start').length;
        if (['completed', 'max-steps', 'error'].includes(end))
          expect(stepStarts).toBe(steps.length);
        else expect(stepStarts).toBeLessThanOrEqual(steps.length);
      }),
      { numRuns: 150 },
    );
  });
});
