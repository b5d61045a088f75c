/**
 * What `POST /api/ag-ui` stands on: the `RunAgentInput` a client posts, checked (400 naming the
 * place), and the run as AG-UI's SSE frames for the event log, whose tail closes a stream cut
 * anywhere into one `@ag-ui/client`'s `verifyEvents` accepts (the instance_lost guarantee).
 */
import { HttpAgent } from '@ag-ui/client';
import { EventSchemas } from '@ag-ui/core/schemas';
import type { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { type AgentEvent, type AgentTools, runAgent } from '../../../src/agent/index.ts';
import { HttpError } from '../../../src/http/http-error.ts';
import { parseAgUiRequest } from '../../../src/server/ag-ui-request.ts';
import {
  AG_UI_INSTANCE_LOST,
  AgUiWire,
  agUiStoreFailureFrame,
} from '../../../src/server/ag-ui-wire.ts';
import { createServerApp } from '../../../src/server/app.ts';
import { DEFAULT_CONVERSATION_LIMITS } from '../../../src/server/conversation-input.ts';
import type { LiveRuns } from '../../../src/server/live-runs.ts';
import { type ServerAppOptions, serverSettings } from '../../../src/server/options.ts';
import { agUiRoutes } from '../../../src/server/routes/ag-ui.ts';
import {
  MemoryRunStore,
  MemoryRunStoreBacking,
} from '../../../src/store/memory/memory-run-store.ts';
import { DEFAULT_RUN_STORE_LIMITS, type RunStore } from '../../../src/store/run-store.ts';
import { scriptedModel } from '../../agent/scripted-model.ts';
import { skipRedisTests } from '../../support/redis-server.ts';
import { agUiEventsOf, expectWellFormedAgUi } from '../ag-ui-frames.ts';
import { mountRunRoutes, redisStorePairs } from '../drive-app.ts';

const OPTIONS = { limits: DEFAULT_CONVERSATION_LIMITS, serverTools: ['get_weather'] };
const IDS = { threadId: 'th', runId: 'r1' };

function refused(body: unknown, options = OPTIONS): HttpError {
  try {
    parseAgUiRequest(body, options);
  } catch (error) {
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).status).toBe(400);
    return error as HttpError;
  }
  throw new Error('not refused');
}

describe('parseAgUiRequest', () => {
  const base = { threadId: 't', runId: 'r' };

  it('reads a new run and a resume', () => {
    const fresh = parseAgUiRequest(
      {
        ...base,
        messages: [{ id: '1', role: 'user', content: 'Weather?' }],
        tools: [{ name: 'ask_user', description: 'Ask' }],
        state: {},
        forwardedProps: {},
      },
      OPTIONS,
    );
    expect(fresh.prompt).toBe('Weather?');
    expect(Object.keys(fresh.tools)).toEqual(['ask_user']);

    const resume = parseAgUiRequest(
      {
        ...base,
        messages: [
          { id: '1', role: 'user', content: 'Weather?' },
          {
            id: '2',
            role: 'assistant',
            toolCalls: [
              { id: 'c', type: 'function', function: { name: 'ask_user', arguments: '{}' } },
            ],
          },
          { id: '3', role: 'tool', toolCallId: 'c', content: 'Oslo' },
        ],
      },
      OPTIONS,
    );
    expect(resume.prompt).toBeUndefined();
    expect(resume.toolResults).toEqual([{ toolCallId: 'c', output: 'Oslo' }]);
  });

  it('refuses with a 400 that names the place', () => {
    const bad = refused({ ...base, messages: [{ id: '1', role: 'user', content: 7 }] });
    expect(bad.message).toBe(
      'POST /api/ag-ui: messages[0].content must be a string or an array of parts',
    );
    expect(bad.param).toBe('messages[0].content');
    expect(bad.kind).toBe('request-refused');

    expect(refused({ ...base, messages: [] }).message).toMatch(
      /must end with a user message \(a new run\) or with tool messages/,
    );
    expect(
      refused({ ...base, messages: [{ id: '1', role: 'user', content: '  ' }] }).message,
    ).toMatch(/the last user message is empty/);
    const taken = refused({
      ...base,
      messages: [{ id: '1', role: 'user', content: 'hi' }],
      tools: [{ name: 'get_weather', description: 'mine' }],
    });
    expect(taken.message).toMatch(/"get_weather" takes the name of a server tool/);
    expect(taken.param).toBe('tools');
  });

  it("holds the messages to a run's conversation limits", () => {
    const limits = { maxConversationEntries: 2, maxConversationDepth: 3 };
    expect(
      refused(
        {
          ...base,
          messages: [
            { id: '1', role: 'user', content: 'a' },
            { id: '2', role: 'assistant', content: 'b' },
            { id: '3', role: 'user', content: 'c' },
          ],
        },
        { ...OPTIONS, limits },
      ).message,
    ).toMatch(/more than the 2 taken/);
    expect(
      refused(
        {
          ...base,
          messages: [
            {
              id: '1',
              role: 'assistant',
              toolCalls: [
                {
                  id: 'c',
                  type: 'function',
                  function: { name: 'x', arguments: '{"a":{"b":{"c":{}}}}' },
                },
              ],
            },
            { id: '2', role: 'user', content: 'go' },
          ],
        },
        { ...OPTIONS, limits },
      ).message,
    ).toMatch(/nests deeper than 3 levels/);
  });
});

describe('AgUiWire', () => {
  const tools: AgentTools = {
    get_weather: {
      inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
      execute: () => 'sunny',
    },
  };

  async function runEvents(): Promise<AgentEvent[]> {
    const { model } = scriptedModel([
      '<think>plan</think>Checking.<tool_call>{"name":"get_weather","arguments":{"city":"Oslo"}}</tool_call>',
      'Sunny in Oslo.',
    ]);
    const events: AgentEvent[] = [];
    for await (const event of runAgent({ model, protocol: 'hermes', tools, prompt: 'Oslo?' }))
      events.push(event);
    return events;
  }

  it("writes a run's frames: RUN_STARTED first, one terminal event last", async () => {
    const events = await runEvents();
    const wire = new AgUiWire(IDS);
    const frames = [...wire.start(), ...events.flatMap((event) => wire.push(event))];
    expect(wire.finish({ stopReason: 'completed' } as never)).toEqual([]);
    expect(wire.tail()).toEqual([]);
    await expectWellFormedAgUi(frames);
    expect(agUiEventsOf(frames)[0]).toEqual({
      type: 'RUN_STARTED',
      threadId: 'th',
      runId: 'r1',
      protocolVersion: '1.0',
    });
  });

  it('its tail closes the stream cut after any event, and changes nothing', async () => {
    const events = await runEvents();
    const plain = new AgUiWire(IDS);
    const expected = [...plain.start(), ...events.flatMap((event) => plain.push(event))];

    const wire = new AgUiWire(IDS);
    const written = [...wire.start()];
    for (const event of events) {
      const tail = wire.tail();
      if (tail.length > 0) {
        await expectWellFormedAgUi([...written, ...tail]);
        expect(agUiEventsOf(tail).at(-1)).toEqual({ type: 'RUN_ERROR', ...AG_UI_INSTANCE_LOST });
      }
      written.push(...wire.push(event));
    }
    expect(written).toEqual(expected);
  });

  it('a run whose events end without a finish ends with RUN_ERROR; so does a server failure', async () => {
    const wire = new AgUiWire(IDS);
    const frames = [
      ...wire.start(),
      ...wire.push({ type: 'step-start', step: 1 }),
      ...wire.finish({ stopReason: 'error', message: 'lost the model' } as never),
    ];
    expect(agUiEventsOf(frames).at(-1)).toEqual({
      type: 'RUN_ERROR',
      code: 'error',
      message: 'lost the model',
    });
    await expectWellFormedAgUi(frames);

    const failing = new AgUiWire(IDS);
    const failed = [
      ...failing.start(),
      ...failing.push({ type: 'text-delta', id: 't', delta: 'x' }),
      ...failing.failure('the encoder threw'),
    ];
    await expectWellFormedAgUi(failed);
    expect(agUiEventsOf(failed).at(-1)).toEqual({
      type: 'RUN_ERROR',
      code: 'server_error',
      message: 'the encoder threw',
    });
    expect(failing.failure('again')).toEqual([]);
  });

  it("the store's failure frame is a RUN_ERROR AG-UI reads", () => {
    const [event] = agUiEventsOf([agUiStoreFailureFrame('redis went away')]);
    expect(EventSchemas.parse(event)).toEqual({
      type: 'RUN_ERROR',
      code: 'store_unavailable',
      message: 'redis went away',
    });
  });
});

// ── POST /api/ag-ui, read by HttpAgent ─────────────────────────────────────────────────────────

interface Instance {
  readonly app: Hono;
  readonly live: LiveRuns;
  /** Every response body the instance's clients read, by request. */
  readonly bodies: string[];
  /** `POST /api/ag-ui` with this body as JSON. */
  readonly post: (body: object) => Promise<Response>;
  readonly fetch: (url: string, init?: RequestInit) => Promise<Response>;
}

function instance(
  store: RunStore,
  model: ServerAppOptions['model'],
  now: () => number = Date.now,
): Instance {
  const settings = serverSettings({
    model,
    protocol: 'hermes',
    tools: {
      get_weather: {
        inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
        execute: ({ city }: { city: string }) => `sunny in ${city}`,
      },
    },
  });
  const { app, live } = mountRunRoutes('/api/ag-ui', agUiRoutes, settings, store, { now });
  const bodies: string[] = [];
  const fetch = async (url: string, init?: RequestInit) => {
    const response = await app.request(url, init);
    if (!response.ok || response.body === null) return response;
    const text = await response.text();
    bodies.push(text);
    return new Response(text, { status: response.status, headers: response.headers });
  };
  const post = async (body: object) =>
    app.request('/api/ag-ui', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  return { app, live, bodies, fetch, post };
}

const askUser = {
  name: 'ask_user',
  description: 'Ask the user a question',
  parameters: { type: 'object', properties: { question: { type: 'string' } } },
};

/**
 * A client tool called on instance A, answered through instance B: the run waits in the store,
 * B continues it, each AG-UI run readable on either instance byte for byte.
 */
async function clientToolAcrossInstances(open: () => Promise<[RunStore, RunStore]>): Promise<void> {
  const { model } = scriptedModel([
    'Let me ask.<tool_call>{"name":"get_weather","arguments":{"city":"Oslo"}}</tool_call>\n<tool_call>{"name":"ask_user","arguments":{"question":"Which day?"}}</tool_call>',
    'Sunny in Oslo on Monday.',
  ]);
  const [storeA, storeB] = await open();
  const a = instance(storeA, model);
  const b = instance(storeB, model);
  const onA = new HttpAgent({ url: 'http://localhost/api/ag-ui', fetch: a.fetch as never });
  onA.addMessage({ id: 'u', role: 'user', content: 'Weather?' });
  let pending: string[] | undefined;
  await onA.runAgent(
    { runId: 'r-1', tools: [askUser] },
    {
      onRunFinishedEvent: (params) => {
        pending = (params as unknown as { pendingToolCallIds?: string[] }).pendingToolCallIds;
      },
    },
  );
  const ask = onA.messages
    .flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []) : []))
    .find((call) => call.function.name === 'ask_user')!;
  expect(pending).toEqual([ask.id]);
  expect(onA.messages.filter((m) => m.role === 'tool')).toMatchObject([
    { content: 'sunny in Oslo' },
  ]);

  // The same thread continues through instance B.
  const onB = new HttpAgent({
    url: 'http://localhost/api/ag-ui',
    fetch: b.fetch as never,
    threadId: onA.threadId,
    initialMessages: onA.messages,
  });
  onB.addMessage({ id: 'answer', role: 'tool', toolCallId: ask.id, content: 'Monday' });
  await onB.runAgent({ runId: 'r-2', tools: [askUser] });
  expect(onB.messages.at(-1)).toMatchObject({
    role: 'assistant',
    content: 'Sunny in Oslo on Monday.',
  });
  // Each AG-UI run is a stream of its own, readable on either instance.
  const r2 = await a.app.request(`/api/ag-ui/threads/${onA.threadId}/runs/r-2/events`);
  expect(await r2.text()).toBe(b.bodies[0]);
  const r1 = await b.app.request(`/api/ag-ui/threads/${onA.threadId}/runs/r-1/events`);
  expect(await r1.text()).toBe(a.bodies[0]);

  // Nothing waits any more: the same results again are refused.
  const again = await b.post({
    threadId: onA.threadId,
    runId: 'r-3',
    messages: onB.messages.slice(0, -1),
  });
  expect(again.status).toBe(409);
}

describe('POST /api/ag-ui', () => {
  it("streams a run's AG-UI events with ids; GET reads them again, whole or after an id", async () => {
    const { model } = scriptedModel(['Hello there.']);
    const store = new MemoryRunStore();
    const a = instance(store, model);
    const agent = new HttpAgent({ url: 'http://localhost/api/ag-ui', fetch: a.fetch as never });
    agent.addMessage({ id: 'u', role: 'user', content: 'Hi' });
    await agent.runAgent({ runId: 'r-1' });
    expect(agent.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'Hello there.' });

    const posted = a.bodies[0]!;
    const ids = [...posted.matchAll(/^id: (\S+)$/gm)].map((match) => match[1]!);
    const datas = posted.split('\n').filter((line) => line.startsWith('data: '));
    expect(ids.length).toBe(datas.length);
    await expectWellFormedAgUi(datas.map((line) => `${line}\n\n`));

    const again = await a.app.request(`/api/ag-ui/threads/${agent.threadId}/runs/r-1/events`);
    expect(await again.text()).toBe(posted);
    // After any event: the rest, byte for byte (what a reconnecting client reads).
    for (const [index, id] of ids.entries()) {
      const rest = await a.app.request(`/api/ag-ui/threads/${agent.threadId}/runs/r-1/events`, {
        headers: { 'last-event-id': id },
      });
      const next = ids[index + 1];
      expect(await rest.text()).toBe(
        next === undefined ? '' : posted.slice(posted.indexOf(`id: ${next}\n`)),
      );
    }
    const unknown = await a.app.request('/api/ag-ui/threads/nope/runs/nope/events');
    expect(unknown.status).toBe(404);
    // A client tool may not stand in for the completion tool either.
    const completion = await a.post({
      threadId: 't2',
      runId: 'r',
      messages: [{ id: 'u', role: 'user', content: 'hi' }],
      tools: [{ name: 'attempt_completion', description: 'mine' }],
    });
    expect(completion.status).toBe(400);
    expect(((await completion.json()) as { error: string }).error).toMatch(
      /"attempt_completion" takes the name of a server tool/,
    );
  });

  it('a client tool: the run waits; tool results on another instance continue it', async () => {
    const backing = new MemoryRunStoreBacking();
    await clientToolAcrossInstances(async () => [backing.open('A'), backing.open('B')]);
  });
  it('answers that do not match the waiting calls: 422, and the run still waits', async () => {
    const { model } = scriptedModel([
      '<tool_call>{"name":"ask_user","arguments":{"question":"?"}}</tool_call>',
      'Thanks.',
    ]);
    const a = instance(new MemoryRunStore(), model);
    const agent = new HttpAgent({ url: 'http://localhost/api/ag-ui', fetch: a.fetch as never });
    agent.addMessage({ id: 'u', role: 'user', content: 'Go' });
    await agent.runAgent({ runId: 'r-1', tools: [askUser] });
    const call = agent.messages.flatMap((m) =>
      m.role === 'assistant' ? (m.toolCalls ?? []) : [],
    )[0]!;
    const post = (runId: string, messages: unknown[]) =>
      a.post({ threadId: agent.threadId, runId, messages, tools: [askUser] });
    const wrong = await post('r-2', [
      ...agent.messages,
      {
        id: 'x',
        role: 'assistant',
        toolCalls: [
          { id: 'other', type: 'function', function: { name: 'ask_user', arguments: '{}' } },
        ],
      },
      { id: 't', role: 'tool', toolCallId: 'other', content: 'no' },
    ]);
    expect(wrong.status).toBe(422);
    expect(await wrong.json()).toMatchObject({ pendingToolCallIds: [call.id] });
    const right = await post('r-3', [
      ...agent.messages,
      { id: 't', role: 'tool', toolCallId: call.id, content: 'yes' },
    ]);
    expect(right.status).toBe(200);
    expect(await right.text()).toContain('Thanks.');
    // A run id used already is refused.
    const reused = await post('r-3', [{ id: 'u2', role: 'user', content: 'again' }]);
    expect(reused.status).toBe(409);
  });

  it('a dropped connection leaves the run going; the abort route stops it, on any instance', async () => {
    const { model } = scriptedModel([{ text: 'Thinking hard', stall: true }]);
    const backing = new MemoryRunStoreBacking();
    const a = instance(backing.open('A'), model);
    const b = instance(backing.open('B'), model);
    const response = await a.post({
      threadId: 'th-stop',
      runId: 'r-1',
      messages: [{ id: 'u', role: 'user', content: 'Go' }],
    });
    expect(response.status).toBe(200);
    const stop = await b.app.request('/api/ag-ui/threads/th-stop/abort', { method: 'POST' });
    expect(stop.status).toBe(202);
    expect(await stop.json()).toEqual({ threadId: 'th-stop', status: 'aborting' });
    const text = await response.text();
    expect(text.trimEnd().split('\n').at(-1)).toBe(
      'data: {"type":"RUN_FINISHED","threadId":"th-stop","runId":"r-1","outcome":{"type":"cancelled"}}',
    );
    const late = await b.app.request('/api/ag-ui/threads/th-stop/abort', { method: 'POST' });
    expect(late.status).toBe(409);
    const unknown = await b.app.request('/api/ag-ui/threads/nobody/abort', { method: 'POST' });
    expect(unknown.status).toBe(404);
  });

  it('a paused run is stopped at once', async () => {
    const { model } = scriptedModel(['<tool_call>{"name":"ask_user","arguments":{}}</tool_call>']);
    const a = instance(new MemoryRunStore(), model);
    const response = await a.post({
      threadId: 'th-p',
      runId: 'r-1',
      messages: [{ id: 'u', role: 'user', content: 'Go' }],
      tools: [askUser],
    });
    expect(await response.text()).toContain('pendingToolCallIds');
    const stop = await a.app.request('/api/ag-ui/threads/th-p/abort', { method: 'POST' });
    expect(await stop.json()).toEqual({ threadId: 'th-p', status: 'aborted' });
  });
  it('an instance that dies mid-run: the sweep closes its AG-UI stream with RUN_ERROR instance_lost', async () => {
    let clock = 1_000_000;
    const now = () => clock;
    const { model } = scriptedModel([{ text: 'Half an answer', stall: true }]);
    const backing = new MemoryRunStoreBacking({ clock: now });
    const a = instance(backing.open('A'), model, now);
    const other = backing.open('B');
    const response = await a.post({
      threadId: 'th-lost',
      runId: 'r-1',
      messages: [{ id: 'u', role: 'user', content: 'Go' }],
    });
    // Read until the text is in the log, then A stops renewing (it "dies"): its lease runs out.
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    const written = () =>
      [...text.matchAll(/"type":"TEXT_MESSAGE_CONTENT","messageId":"[^"]*","delta":"([^"]*)"/g)]
        .map((match) => match[1])
        .join('');
    while (written() !== 'Half an answer') {
      const part = await reader.read();
      if (part.done) throw new Error(`the stream ended early: ${text}`);
      text += part.value;
    }
    clock += DEFAULT_RUN_STORE_LIMITS.leaseMs + 1;
    await other.sweep(clock);
    for (let part = await reader.read(); !part.done; part = await reader.read()) text += part.value;
    const frames = text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => `${line}\n\n`);
    await expectWellFormedAgUi(frames);
    expect(agUiEventsOf(frames).slice(-3)).toEqual([
      { type: 'TEXT_MESSAGE_END', messageId: 'r-1:text:1' },
      { type: 'STEP_FINISHED', stepName: 'step-1' },
      { type: 'RUN_ERROR', ...AG_UI_INSTANCE_LOST },
    ]);
    a.live.closeAll('the test is over');
  });
});

describe('the server app serves AG-UI', () => {
  it('createServerApp mounts /api/ag-ui: HttpAgent runs a thread through it', async () => {
    const { model } = scriptedModel([
      '<tool_call>{"name":"ask_user","arguments":{"question":"Name?"}}</tool_call>',
      'Hello, Ada.',
    ]);
    const server = createServerApp({ model, protocol: 'hermes' });
    try {
      const agent = new HttpAgent({
        url: 'http://localhost/api/ag-ui',
        fetch: ((url: string, init: RequestInit) => server.app.request(url, init)) as never,
      });
      agent.addMessage({ id: 'u', role: 'user', content: 'Greet me' });
      await agent.runAgent({ runId: 'app-1', tools: [askUser] });
      const call = agent.messages.flatMap((m) =>
        m.role === 'assistant' ? (m.toolCalls ?? []) : [],
      )[0]!;
      agent.addMessage({ id: 'a', role: 'tool', toolCallId: call.id, content: 'Ada' });
      await agent.runAgent({ runId: 'app-2', tools: [askUser] });
      expect(agent.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'Hello, Ada.' });
      const again = await server.app.request(
        `http://localhost/api/ag-ui/threads/${agent.threadId}/runs/app-2/events`,
      );
      expect(again.status).toBe(200);
      expect(await again.text()).toMatch(/^id: \S+\ndata: \{"type":"RUN_STARTED"/);
    } finally {
      server.close();
    }
  });
});

describe.skipIf(skipRedisTests())('POST /api/ag-ui on a Redis store', () => {
  const storePair = redisStorePairs();

  it('a client tool: started on A, answered on B, read on both', async () => {
    await clientToolAcrossInstances(() => storePair('agui:'));
  });
});
