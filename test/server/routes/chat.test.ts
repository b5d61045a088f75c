/**
 * What the chat routes stand on, tested with the AI SDK's own `DefaultChatTransport` in Node:
 * its `fetch` is given the response the route will send (the run's UI message frames with the
 * stream's headers), and the body it posts is read with `parseChatRequest`.
 */
import type { LanguageModelV4 } from '@ai-sdk/provider';
import {
  AbstractChat,
  type ChatState,
  type ChatStatus,
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithToolCalls,
  readUIMessageStream,
  type UIMessage,
  type UIMessageChunk,
} from 'ai';
import type { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import {
  type AgentEvent,
  type AgentRun,
  type AgentTools,
  type RunState,
  resumeAgent,
  runAgent,
} from '../../../src/agent/index.ts';
import { UI_MESSAGE_STREAM_HEADERS } from '../../../src/agent/ui/ui-message-stream.ts';
import { HttpError } from '../../../src/http/http-error.ts';
import { parseChatRequest } from '../../../src/server/chat-request.ts';
import { DEFAULT_CONVERSATION_LIMITS } from '../../../src/server/conversation-input.ts';
import { type RunSettings, serverSettings } from '../../../src/server/options.ts';
import { chatRoutes } from '../../../src/server/routes/chat.ts';
import { INSTANCE_LOST_TEXT, UIMessageWire } from '../../../src/server/ui-message-wire.ts';
import { MemoryRunStore, MemoryRunStoreBacking } from '../../../src/store/memory/index.ts';
import type { RunStore } from '../../../src/store/run-store.ts';
import { scriptedModel } from '../../agent/scripted-model.ts';
import { skipRedisTests } from '../../support/redis-server.ts';
import { mountRunRoutes, redisStorePairs } from '../drive-app.ts';
import { startTestServer } from '../helpers.ts';

const tools: AgentTools = {
  get_weather: {
    description: 'Current weather for a city',
    inputSchema: {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
    },
    execute: async ({ city }: { city: string }) => `${city}: 21°C, sunny`,
  },
  ask_user: {
    description: 'Ask the user a question',
    inputSchema: {
      type: 'object',
      properties: { question: { type: 'string' } },
      required: ['question'],
    },
  },
};

/** A run's frames as the wire writes them to the log. */
async function framesOf(
  run: AsyncIterable<AgentEvent> & Partial<AgentRun>,
  messageId: string,
  resumedCalls: readonly string[] = [],
) {
  const wire = new UIMessageWire({ messageId, resumedCalls });
  const frames = wire.start();
  for await (const event of run) frames.push(...wire.push(event));
  if (run.result) frames.push(...wire.finish(await run.result));
  return frames;
}

/** A transport whose server answers each request with the next response; it keeps the bodies. */
function transportAnswering(responses: (() => Response)[]) {
  const requests: { url: string; method: string; body: unknown }[] = [];
  const transport = new DefaultChatTransport<UIMessage>({
    api: 'http://toolwire.test/api/chat',
    fetch: async (input, init) => {
      requests.push({
        url: String(input),
        method: init?.method ?? 'GET',
        body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined,
      });
      const next = responses.shift();
      if (!next) throw new Error('no response left');
      return next();
    },
  });
  return { transport, requests };
}

const sse = (frames: readonly string[]) => () =>
  new Response(frames.join(''), { headers: UI_MESSAGE_STREAM_HEADERS });

async function lastMessage(stream: ReadableStream<UIMessageChunk>, message?: UIMessage) {
  const errors: unknown[] = [];
  let last: UIMessage | undefined;
  for await (const state of readUIMessageStream({
    stream,
    ...(message ? { message } : {}),
    onError: (error) => errors.push(error),
  }))
    last = structuredClone(state);
  return { message: last, errors };
}

const plain = (value: unknown) => JSON.parse(JSON.stringify(value));

describe('the chat over DefaultChatTransport', () => {
  it('sends, pauses on a front-end tool, and continues the same message with its answer', async () => {
    const { model } = scriptedModel([
      '<tool_call>{"name":"ask_user","arguments":{"question":"Which city?"}}</tool_call>',
      '<tool_call>{"name":"get_weather","arguments":{"city":"Oslo"}}</tool_call>',
      'Oslo is sunny.',
    ]);
    const user: UIMessage = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'weather?' }] };
    // First request: a new run; its id is the assistant message's.
    const first = runAgent({ model, protocol: 'hermes', tools, prompt: 'weather?' });
    const firstFrames = await framesOf(first, 'run-1');
    expect(firstFrames[0]).toBe('data: {"type":"start","messageId":"run-1"}\n\n');
    expect(firstFrames.filter((frame) => frame.includes('"type":"start"'))).toHaveLength(1);
    expect(firstFrames.at(-1)).toBe('data: [DONE]\n\n');
    const paused = await first.result;

    const { transport, requests } = transportAnswering([sse(firstFrames)]);
    const stream = await transport.sendMessages({
      chatId: 'chat-1',
      messages: [user],
      trigger: 'submit-message',
      messageId: undefined,
      abortSignal: undefined,
    });
    const read = await lastMessage(stream);
    expect(read.errors).toEqual([]);
    const request = parseChatRequest(requests[0]!.body, DEFAULT_CONVERSATION_LIMITS);
    expect(request).toMatchObject({
      chatId: 'chat-1',
      trigger: 'submit-message',
      run: { prompt: 'weather?', conversation: [], results: [] },
    });
    const assistant = read.message!;
    expect(assistant.id).toBe('run-1');
    const ask = assistant.parts.find((part) => part.type === 'dynamic-tool')!;
    expect(ask).toMatchObject({ toolName: 'ask_user', state: 'input-available' });

    // The page answers the question (addToolOutput) and, the call being complete, sends again.
    const answered = plain({
      ...assistant,
      parts: assistant.parts.map((part) =>
        part === ask ? { ...part, state: 'output-available', output: 'Oslo' } : part,
      ),
    }) as UIMessage;
    expect(lastAssistantMessageIsCompleteWithToolCalls({ messages: [user, answered] })).toBe(true);
    const resumedRun = (body: unknown) => {
      const { run } = parseChatRequest(body, DEFAULT_CONVERSATION_LIMITS);
      expect(run.assistantMessageId).toBe('run-1');
      return resumeAgent(paused.state!, run.results, { model, protocol: 'hermes', tools });
    };
    // The server side of the second request: the answer resumes the paused run.
    let secondFrames: string[] = [];
    const secondTransport = new DefaultChatTransport<UIMessage>({
      api: 'http://toolwire.test/api/chat',
      fetch: async (_input, init) => {
        const pending = paused.state!.pending.map((call) => call.toolCallId);
        secondFrames = await framesOf(resumedRun(JSON.parse(String(init?.body))), 'run-1', pending);
        return sse(secondFrames)();
      },
    });
    const continued = await lastMessage(
      await secondTransport.sendMessages({
        chatId: 'chat-1',
        messages: [user, answered],
        trigger: 'submit-message',
        messageId: undefined,
        abortSignal: undefined,
      }),
      answered,
    );
    expect(continued.errors).toEqual([]);
    expect(continued.message?.id).toBe('run-1');
    expect(plain(continued.message?.parts)).toMatchObject([
      { type: 'step-start' },
      { type: 'dynamic-tool', toolName: 'ask_user', state: 'output-available', output: 'Oslo' },
      { type: 'step-start' },
      { type: 'dynamic-tool', toolName: 'get_weather', state: 'output-available' },
      { type: 'step-start' },
      { type: 'text', text: 'Oslo is sunny.', state: 'done' },
    ]);
    expect(continued.message?.metadata).toMatchObject({ stopReason: 'completed', steps: 3 });

    // reconnectToStream: GET {api}/{chatId}/stream replays the run's log from its start (both
    // responses, as the log holds them) and the client rebuilds the whole message; 204 says
    // nothing runs.
    const again = transportAnswering([
      sse([...firstFrames, ...secondFrames]),
      () => new Response(null, { status: 204 }),
    ]);
    const replayed = await again.transport.reconnectToStream({ chatId: 'chat-1' });
    expect(again.requests[0]).toMatchObject({
      url: 'http://toolwire.test/api/chat/chat-1/stream',
      method: 'GET',
    });
    const replay = await lastMessage(replayed!);
    expect(replay.errors).toEqual([]);
    expect(plain(replay.message)).toEqual(plain(continued.message));
    expect(await again.transport.reconnectToStream({ chatId: 'chat-1' })).toBeNull();
  });

  it("a lost instance's tail closes the open text and ends with an error the client reads", async () => {
    const wire = new UIMessageWire({ messageId: 'run-2' });
    const frames = [
      ...wire.start(),
      ...wire.push({ type: 'run-start', runId: 'run-2', protocol: 'hermes' }),
      ...wire.push({ type: 'step-start', step: 1 }),
      ...wire.push({ type: 'text-start', id: 't' }),
      ...wire.push({ type: 'text-delta', id: 't', delta: 'Half a' }),
    ];
    const tail = wire.tail();
    expect(tail.at(-1)).toBe('data: [DONE]\n\n');
    const { transport } = transportAnswering([sse([...frames, ...tail])]);
    const read = await lastMessage(
      await transport.sendMessages({
        chatId: 'c',
        messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
        trigger: 'submit-message',
        messageId: undefined,
        abortSignal: undefined,
      }),
    );
    expect(read.errors.map((error) => (error as Error).message)).toEqual([INSTANCE_LOST_TEXT]);
    expect(read.message?.parts.at(-1)).toMatchObject({
      type: 'text',
      text: 'Half a',
      state: 'done',
    });
    // The tail changed nothing: the wire goes on, and [DONE] comes once.
    const rest = [
      ...wire.push({ type: 'text-end', id: 't' }),
      ...wire.push({
        type: 'finish',
        stopReason: 'completed',
        steps: 1,
        usage: { inputTokens: 1, outputTokens: 1 },
      }),
    ];
    expect(rest.filter((frame) => frame === 'data: [DONE]\n\n')).toHaveLength(1);
    expect(wire.tail()).toEqual([]);
    expect(wire.failure('the run store failed')).toEqual([]);
    expect(
      wire.finish({
        runId: 'run-2',
        stopReason: 'completed',
        steps: 1,
        usage: { inputTokens: 1, outputTokens: 1 },
        conversation: [],
      }),
    ).toEqual([]);
  });
});

/** The state a framework keeps for `Chat` (React's useChat keeps it in hooks), here plain. */
class PlainChatState implements ChatState<UIMessage> {
  status: ChatStatus = 'ready';
  error: Error | undefined = undefined;
  messages: UIMessage[] = [];
  pushMessage = (message: UIMessage) => {
    this.messages = [...this.messages, message];
  };
  popMessage = () => {
    this.messages = this.messages.slice(0, -1);
  };
  replaceMessage = (index: number, message: UIMessage) => {
    this.messages = this.messages.map((old, at) => (at === index ? message : old));
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

class PlainChat extends AbstractChat<UIMessage> {
  constructor(init: Omit<ConstructorParameters<typeof AbstractChat<UIMessage>>[0], 'state'>) {
    super({ ...init, state: new PlainChatState() });
  }
}

describe("the AI SDK's Chat (what useChat runs) against the converters", () => {
  it('answers a front-end tool in onToolCall and sends again by itself until the run completes', async () => {
    const { model } = scriptedModel([
      '<tool_call>{"name":"ask_user","arguments":{"question":"Which city?"}}</tool_call>',
      'Oslo is sunny.',
    ]);
    // What the route does, in memory: a new run, or the paused one the answers resume.
    const paused = new Map<string, RunState>();
    let runs = 0;
    const bodies: unknown[] = [];
    const transport = new DefaultChatTransport<UIMessage>({
      api: 'http://toolwire.test/api/chat',
      fetch: async (_input, init) => {
        const body = JSON.parse(String(init?.body));
        bodies.push(body);
        const { run: input } = parseChatRequest(body, DEFAULT_CONVERSATION_LIMITS);
        const state = input.assistantMessageId && paused.get(input.assistantMessageId);
        let frames: string[];
        if (state) {
          const pending = state.pending.map((call) => call.toolCallId);
          const answers = input.results.filter((result) => pending.includes(result.toolCallId));
          const run = resumeAgent(state, answers, { model, protocol: 'hermes', tools });
          frames = await framesOf(run, input.assistantMessageId!, pending);
          paused.delete(input.assistantMessageId!);
        } else {
          const messageId = `run-${++runs}`;
          const run = runAgent({
            model,
            protocol: 'hermes',
            tools,
            prompt: input.prompt,
            conversation: input.conversation,
          });
          frames = await framesOf(run, messageId);
          const result = await run.result;
          if (result.state) paused.set(messageId, result.state);
        }
        return sse(frames)();
      },
    });
    let completed: () => void;
    const done = new Promise<void>((resolve) => {
      completed = resolve;
    });
    const chat: PlainChat = new PlainChat({
      id: 'chat-9',
      transport,
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithToolCalls,
      onToolCall: ({ toolCall }) => {
        if (toolCall.toolName === 'ask_user')
          void chat.addToolOutput({
            tool: 'ask_user',
            toolCallId: toolCall.toolCallId,
            output: 'Oslo',
          });
      },
      onFinish: ({ message }) => {
        if ((message.metadata as { stopReason?: string })?.stopReason === 'completed') completed();
      },
    });
    await chat.sendMessage({ text: 'weather?' });
    await done;
    expect(bodies).toHaveLength(2);
    expect(chat.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(chat.messages[1]!.id).toBe('run-1');
    expect(plain(chat.messages[1]!.parts)).toMatchObject([
      { type: 'step-start' },
      { type: 'dynamic-tool', toolName: 'ask_user', state: 'output-available', output: 'Oslo' },
      { type: 'step-start' },
      { type: 'text', text: 'Oslo is sunny.', state: 'done' },
    ]);
    expect(chat.error).toBeUndefined();
  });
});

describe('UIMessageWire.failure', () => {
  it('ends the stream as it stands with the reason, once', () => {
    const wire = new UIMessageWire({ messageId: 'm' });
    wire.push({ type: 'run-start', runId: 'm', protocol: 'hermes' });
    wire.push({ type: 'reasoning-delta', id: 'r', delta: 'hm' });
    expect(wire.failure('the run store failed')).toEqual([
      'data: {"type":"reasoning-end","id":"r"}\n\n',
      'data: {"type":"error","errorText":"the run store failed"}\n\n',
      'data: [DONE]\n\n',
    ]);
    expect(wire.failure('again')).toEqual([]);
    expect(wire.tail()).toEqual([]);
  });
});

describe('parseChatRequest', () => {
  const user = { id: 'u', role: 'user', parts: [{ type: 'text', text: 'hi' }] };
  const refused = (body: unknown) => {
    try {
      parseChatRequest(body, DEFAULT_CONVERSATION_LIMITS);
    } catch (error) {
      expect(error).toBeInstanceOf(HttpError);
      expect((error as HttpError).status).toBe(400);
      return (error as HttpError).message;
    }
    throw new Error('accepted');
  };

  it('keeps fields the app adds through its body option', () => {
    expect(
      parseChatRequest(
        { id: 'c', messages: [user], trigger: 'submit-message', messageId: undefined, extra: 1 },
        DEFAULT_CONVERSATION_LIMITS,
      ).run.prompt,
    ).toBe('hi');
  });

  it('refuses a malformed body with a 400 naming the place', () => {
    expect(refused([])).toMatch(/must be a JSON object/);
    expect(refused({ messages: [user], trigger: 'submit-message' })).toMatch(/"id"/);
    expect(refused({ id: 'c', messages: [user], trigger: 'resume' })).toMatch(/"trigger"/);
    expect(refused({ id: 'c', messages: {}, trigger: 'submit-message' })).toMatch(/"messages"/);
    expect(
      refused({
        id: 'c',
        messages: [{ ...user, parts: [{ type: 7 }] }],
        trigger: 'submit-message',
      }),
    ).toMatch(/messages\[0\]\.parts\[0\]\.type/);
  });

  it('holds the messages to the conversation limits: entries and nesting', () => {
    const earlier = Array.from({ length: 3 }, (_, index) => ({
      id: `u${index}`,
      role: 'user',
      parts: [{ type: 'text', text: `q${index}` }],
    }));
    expect(() =>
      parseChatRequest(
        { id: 'c', messages: [...earlier, user], trigger: 'submit-message' },
        { maxConversationEntries: 2, maxConversationDepth: 64 },
      ),
    ).toThrow(/3 entries, more than the 2/);
    let deep: unknown = 'bottom';
    for (let level = 0; level < 70; level++) deep = [deep];
    const answer = {
      id: 'a',
      role: 'assistant',
      parts: [
        {
          type: 'dynamic-tool',
          toolName: 'ask_user',
          toolCallId: 'c1',
          state: 'output-available',
          input: {},
          output: deep,
        },
      ],
    };
    expect(refused({ id: 'c', messages: [user, answer], trigger: 'submit-message' })).toMatch(
      /nests deeper than 64/,
    );
  });
});

/** The model, each of its turns first waiting for its hold (none: it goes at once). */
function heldModel(model: LanguageModelV4, holds: (Promise<void> | undefined)[]): LanguageModelV4 {
  return {
    specificationVersion: model.specificationVersion,
    provider: model.provider,
    modelId: model.modelId,
    supportedUrls: model.supportedUrls,
    doGenerate: (options) => model.doGenerate(options),
    doStream: async (options) => {
      await holds.shift();
      return model.doStream(options);
    },
  };
}

/** One server instance's chat routes on `store`, its runs' ids from `prefix`, read through DefaultChatTransport. */
function chatInstance(
  store: RunStore,
  model: LanguageModelV4,
  prefix: string,
  runSettings: RunSettings = {},
) {
  let ids = 0;
  const { app } = mountRunRoutes(
    '/api/chat',
    chatRoutes,
    serverSettings({ model, protocol: 'hermes', tools, runSettings }),
    store,
    { generateRunId: () => `${prefix}-${++ids}` },
  );
  /** Every request the transport made: `METHOD url`. */
  const requests: string[] = [];
  const transport = new DefaultChatTransport<UIMessage>({
    api: 'http://localhost/api/chat',
    fetch: async (input, init) => {
      requests.push(`${init?.method ?? 'GET'} ${String(input)}`);
      return app.request(String(input), init);
    },
  });
  const send = (messages: UIMessage[], chatId = 'chat-7') =>
    transport.sendMessages({
      chatId,
      messages,
      trigger: 'submit-message',
      messageId: undefined,
      abortSignal: undefined,
    });
  const stop = (chatId: string) => app.request(`/api/chat/${chatId}/abort`, { method: 'POST' });
  return { app, transport, send, stop, requests };
}

/** A chat request as DefaultChatTransport posts it, straight to the app. */
const postChat = (app: Hono, messages: unknown[], chatId = 'chat-7') =>
  app.request('/api/chat', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id: chatId, messages, trigger: 'submit-message' }),
  });

/** The route's answer to messages that carry nothing new for a finished run: an empty step. */
const NOTHING_TO_ANSWER = (runId: string) =>
  [
    `data: {"type":"start","messageId":"${runId}"}\n\n`,
    'data: {"type":"start-step"}\n\n',
    'data: {"type":"finish-step"}\n\n',
    'data: {"type":"finish"}\n\n',
    'data: [DONE]\n\n',
  ].join('');

/** A promise and what settles it: a run held until a test has seen it running. */
function gate() {
  let open: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { closed, open };
}

describe('POST /api/chat and GET /api/chat/:id/stream (RunDriver on the memory store)', () => {
  it('runs, pauses on a front-end tool, resumes on the answer, and replays a running run', async () => {
    const { model } = scriptedModel([
      '<tool_call>{"name":"ask_user","arguments":{"question":"Which city?"}}</tool_call>',
      'Oslo is sunny.',
      '<tool_call>{"name":"ask_user","arguments":{"question":"Which Bergen?"}}</tool_call>',
      'Fine.',
    ]);
    const store = new MemoryRunStore();
    // The resumed run's model turn is held until the reconnect below has read the run's start.
    const hold = gate();
    const { app, transport, send } = chatInstance(
      store,
      heldModel(model, [undefined, hold.closed]),
      'run',
    );
    const user: UIMessage = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'weather?' }] };

    const first = await lastMessage(await send([user]));
    expect(first.errors).toEqual([]);
    expect(first.message?.id).toBe('run-1');
    const ask = first.message!.parts.find((part) => part.type === 'dynamic-tool')!;
    expect(ask).toMatchObject({ toolName: 'ask_user', state: 'input-available' });
    expect((await store.getRun('run-1'))?.status).toBe('paused');
    // Paused: nothing runs, nothing to resume.
    expect(await transport.reconnectToStream({ chatId: 'chat-7' })).toBeNull();

    const answered = plain({
      ...first.message,
      parts: first.message!.parts.map((part) =>
        part === ask ? { ...part, state: 'output-available', output: 'Oslo' } : part,
      ),
    }) as UIMessage;
    const second = await send([user, answered]);
    // While it runs, a reconnect reads the run's log from its start: the whole message.
    const replayed = await transport.reconnectToStream({ chatId: 'chat-7' });
    expect((await store.getRun('run-1'))?.status).toBe('running');
    hold.open();
    const continued = await lastMessage(second, answered);
    expect(continued.errors).toEqual([]);
    expect(plain(continued.message?.parts)).toMatchObject([
      { type: 'step-start' },
      { type: 'dynamic-tool', toolName: 'ask_user', state: 'output-available', output: 'Oslo' },
      { type: 'step-start' },
      { type: 'text', text: 'Oslo is sunny.', state: 'done' },
    ]);
    expect(replayed).not.toBeNull();
    const replay = await lastMessage(replayed!);
    expect(replay.errors).toEqual([]);
    expect(plain(replay.message)).toEqual(plain(continued.message));
    expect((await store.getRun('run-1'))?.status).toBe('finished');
    expect(await transport.reconnectToStream({ chatId: 'chat-7' })).toBeNull();

    // A new message while a run waits for answers: that run ends, a new one starts.
    const asked = await lastMessage(
      await send([
        user,
        answered,
        { id: 'u2', role: 'user', parts: [{ type: 'text', text: 'and Bergen?' }] },
      ]),
    );
    expect(asked.message?.id).toBe('run-2');
    expect((await store.getRun('run-2'))?.status).toBe('paused');
    const bergen = [
      user,
      answered,
      { id: 'u2', role: 'user', parts: [{ type: 'text', text: 'and Bergen?' }] },
    ] as UIMessage[];
    await lastMessage(
      await send([
        ...bergen,
        plain(asked.message) as UIMessage,
        { id: 'u3', role: 'user', parts: [{ type: 'text', text: 'never mind' }] },
      ]),
    );
    expect(await store.getRun('run-2')).toMatchObject({ status: 'finished' });

    // An answer to a run that no longer waits for it is refused, saying what to do.
    const askedAgain = asked.message!.parts.find((part) => part.type === 'dynamic-tool')!;
    const late = await postChat(app, [
      ...bergen,
      plain({
        ...asked.message,
        parts: asked.message!.parts.map((part) =>
          part === askedAgain ? { ...part, state: 'output-available', output: 'Bergen, NO' } : part,
        ),
      }),
    ]);
    expect(late.status).toBe(409);
    expect(await late.text()).toMatch(/is finished, not waiting for them/);
    // Answers the finished run already had carry nothing new: the message is closed, no error.
    const again = await postChat(app, [user, answered]);
    expect(again.status).toBe(200);
    expect(await again.text()).toBe(NOTHING_TO_ANSWER('run-1'));
    const empty = await postChat(
      app,
      [{ id: 'u', role: 'user', parts: [{ type: 'file', url: 'x', mediaType: 'image/png' }] }],
      'chat-8',
    );
    expect(empty.status).toBe(400);
    expect(await empty.text()).toMatch(/no text to answer/);
  });

  it('any instance: started on A, answered on B, read again on A while B runs it', async () => {
    const backing = new MemoryRunStoreBacking();
    await chatAcrossInstances([backing.open('a'), backing.open('b')]);
  });

  it('Stop: POST /api/chat/:id/abort on B stops the run A runs; 409 once over, 404 for no run', async () => {
    const backing = new MemoryRunStoreBacking();
    await stopAcrossInstances([backing.open('a'), backing.open('b')]);
  });

  it("the Chat's automatic resend after a run that stopped after a tool step closes the message, no error", async () => {
    const { model } = scriptedModel([
      '<tool_call>{"name":"get_weather","arguments":{"city":"Oslo"}}</tool_call>',
    ]);
    // One step: the run stops (max-steps) right after the server's tool answered.
    const { transport, requests } = chatInstance(new MemoryRunStore(), model, 'run', {
      maxSteps: 1,
    });
    const chat = new PlainChat({
      id: 'chat-7',
      transport,
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithToolCalls,
    });
    // The Chat awaits the automatic request it makes after a response.
    await chat.sendMessage({ text: 'weather?' });
    expect(requests).toEqual([
      'POST http://localhost/api/chat',
      // Its last step is complete with tool calls, so the Chat sends the messages again.
      'POST http://localhost/api/chat',
    ]);
    expect(chat.error).toBeUndefined();
    expect(chat.status).toBe('ready');
    expect(chat.messages.map((message) => message.id)).toEqual([chat.messages[0]!.id, 'run-1']);
    const assistant = chat.messages[1]!;
    expect(plain(assistant.parts)).toMatchObject([
      { type: 'step-start' },
      { type: 'dynamic-tool', toolName: 'get_weather', state: 'output-available' },
      // The empty step that ends the Chat's resending.
      { type: 'step-start' },
    ]);
    expect(assistant.parts).toHaveLength(3);
    expect(assistant.metadata).toMatchObject({ stopReason: 'max-steps', steps: 1 });
    expect(lastAssistantMessageIsCompleteWithToolCalls({ messages: chat.messages })).toBe(false);
  });
});

describe('the chat on toolwire serve (createServerApp, over HTTP)', () => {
  it('answers DefaultChatTransport with the UI message stream, a front-end tool round trip included', async () => {
    const { model } = scriptedModel([
      '<tool_call>{"name":"ask_user","arguments":{"question":"Which city?"}}</tool_call>',
      'Oslo is sunny.',
    ]);
    const server = await startTestServer({ model, protocol: 'hermes', tools });
    try {
      const transport = new DefaultChatTransport<UIMessage>({ api: `${server.url}/api/chat` });
      const user: UIMessage = {
        id: 'u1',
        role: 'user',
        parts: [{ type: 'text', text: 'weather?' }],
      };
      const send = (messages: UIMessage[]) =>
        transport.sendMessages({
          chatId: 'c1',
          messages,
          trigger: 'submit-message',
          messageId: undefined,
          abortSignal: undefined,
        });
      const first = await lastMessage(await send([user]));
      expect(first.errors).toEqual([]);
      const answered = plain({
        ...first.message,
        parts: first.message!.parts.map((part) =>
          part.type === 'dynamic-tool'
            ? { ...part, state: 'output-available', output: 'Oslo' }
            : part,
        ),
      }) as UIMessage;
      const continued = await lastMessage(await send([user, answered]), answered);
      expect(continued.errors).toEqual([]);
      expect(continued.message?.parts.at(-1)).toMatchObject({
        type: 'text',
        text: 'Oslo is sunny.',
      });
      expect(await transport.reconnectToStream({ chatId: 'c1' })).toBeNull();
      const response = await fetch(`${server.url}/api/chat/c1/stream`);
      expect(response.status).toBe(204);
      // The Stop route is the app's, behind the API's guards: a page elsewhere may not use it.
      const foreign = await fetch(`${server.url}/api/chat/c1/abort`, {
        method: 'POST',
        headers: { origin: 'https://elsewhere.example' },
      });
      expect(foreign.status).toBe(403);
      const late = await fetch(`${server.url}/api/chat/c1/abort`, { method: 'POST' });
      expect(late.status).toBe(409);
      expect(await late.json()).toMatchObject({
        error: expect.stringMatching(/already finished \(completed\)/),
      });
    } finally {
      await server.close();
    }
  });
});

/**
 * A chat started on instance A, answered on B (which resumes the run) and read again on A while
 * B runs it: the replay is the continued message. Ids are random per call, so stores may be shared.
 */
async function chatAcrossInstances([storeA, storeB]: readonly [RunStore, RunStore]) {
  const { model } = scriptedModel([
    '<tool_call>{"name":"ask_user","arguments":{"question":"Which city?"}}</tool_call>',
    'Oslo is sunny.',
  ]);
  const hold = gate();
  const held = heldModel(model, [undefined, hold.closed]);
  const prefix = `r${Math.random().toString(36).slice(2)}`;
  const a = chatInstance(storeA, held, `${prefix}-a`);
  const b = chatInstance(storeB, held, `${prefix}-b`);
  const user: UIMessage = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'weather?' }] };
  const first = await lastMessage(await a.send([user]));
  expect(first.message?.id).toBe(`${prefix}-a-1`);
  const answered = plain({
    ...first.message,
    parts: first.message!.parts.map((part) =>
      part.type === 'dynamic-tool' ? { ...part, state: 'output-available', output: 'Oslo' } : part,
    ),
  }) as UIMessage;
  const second = await b.send([user, answered]);
  const onA = await a.transport.reconnectToStream({ chatId: 'chat-7' });
  hold.open();
  const continued = await lastMessage(second, answered);
  expect(continued.errors).toEqual([]);
  expect(continued.message?.parts.at(-1)).toMatchObject({ type: 'text', text: 'Oslo is sunny.' });
  expect(onA).not.toBeNull();
  const replay = await lastMessage(onA!);
  expect(plain(replay.message)).toEqual(plain(continued.message));
  expect((await storeA.getRun(`${prefix}-a-1`))?.status).toBe('finished');
}

/** The chunks of a UI message stream read until `until` says stop (bounded), or to its end. */
async function readChunks(
  reader: ReadableStreamDefaultReader<UIMessageChunk>,
  until: (chunk: UIMessageChunk) => boolean = () => false,
) {
  const chunks: UIMessageChunk[] = [];
  for (let count = 0; count < 1000; count++) {
    const { done, value } = await reader.read();
    if (done) return chunks;
    chunks.push(value);
    if (until(value)) return chunks;
  }
  throw new Error('the stream did not end within 1000 chunks');
}

/**
 * A chat's run started on A and stopped from B (the Stop an app calls beside `stop()`): A's
 * reader gets the stream's `abort`; a Stop once it is over is a 409, one for a chat with no run
 * a 404; a run waiting for front-end answers is stopped at once (200).
 */
async function stopAcrossInstances([storeA, storeB]: readonly [RunStore, RunStore]) {
  const { model } = scriptedModel([
    { text: 'Thinking hard', stall: true },
    '<tool_call>{"name":"ask_user","arguments":{"question":"Which city?"}}</tool_call>',
  ]);
  const prefix = `s${Math.random().toString(36).slice(2)}`;
  const a = chatInstance(storeA, model, `${prefix}-a`);
  const b = chatInstance(storeB, model, `${prefix}-b`);
  const runId = `${prefix}-a-1`;
  const user: UIMessage = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'think' }] };
  const reader = (await a.send([user], `${prefix}-chat`)).getReader();
  // The run is under way: its text has begun (the model then stalls until stopped).
  const begun = await readChunks(reader, (chunk) => chunk.type === 'text-delta');
  expect(begun.at(-1)).toMatchObject({ type: 'text-delta' });
  const stop = await b.stop(`${prefix}-chat`);
  expect(stop.status).toBe(202);
  expect(await stop.json()).toEqual({ id: `${prefix}-chat`, runId, status: 'aborting' });
  const rest = await readChunks(reader);
  expect(rest.at(-1)).toMatchObject({ type: 'abort' });
  expect(await storeB.getRun(runId)).toMatchObject({ status: 'finished', outcome: 'aborted' });
  const late = await b.stop(`${prefix}-chat`);
  expect(late.status).toBe(409);
  expect(await late.json()).toEqual({
    error: `the run of chat "${prefix}-chat" (${runId}) has already finished (aborted)`,
  });
  const nobody = await a.stop(`${prefix}-nobody`);
  expect(nobody.status).toBe(404);
  expect(await nobody.text()).toMatch(/no run of chat \\".*-nobody\\" is known/);

  // A run waiting for front-end answers is stopped at once, whichever instance is asked.
  const paused = await lastMessage(await a.send([user], `${prefix}-paused`));
  expect(paused.message?.id).toBe(`${prefix}-a-2`);
  expect((await storeA.getRun(`${prefix}-a-2`))?.status).toBe('paused');
  const stopPaused = await b.stop(`${prefix}-paused`);
  expect(stopPaused.status).toBe(200);
  expect(await stopPaused.json()).toEqual({
    id: `${prefix}-paused`,
    runId: `${prefix}-a-2`,
    status: 'aborted',
  });
  expect(await storeA.getRun(`${prefix}-a-2`)).toMatchObject({ status: 'finished' });
}

describe.skipIf(skipRedisTests())('the chat on a Redis store', () => {
  const storePair = redisStorePairs();

  it('started on A, answered on B, read again on A while B runs it', async () => {
    await chatAcrossInstances(await storePair('chat:'));
  });

  it('Stop: POST /api/chat/:id/abort on B stops the run A runs; 409 once over, 404 for no run', async () => {
    await stopAcrossInstances(await storePair('stop:'));
  });
});
