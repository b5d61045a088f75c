import { readUIMessageStream, type UIMessageChunk } from 'ai';
import type { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { type AgentEvent, type AgentTools, runAgent } from '../../src/agent/index.ts';
import { frameUIMessageChunk, UNFINISHED_CALL } from '../../src/agent/ui/ui-message-stream.ts';
import { parseJsonText } from '../../src/core/parse-json.ts';
import { AgUiReadFailure, AgUiWire } from '../../src/server/ag-ui-wire.ts';
import { type ServerAppOptions, serverSettings } from '../../src/server/options.ts';
import { agUiLog, agUiRoutes } from '../../src/server/routes/ag-ui.ts';
import { chatRoutes } from '../../src/server/routes/chat.ts';
import { UIMessageReadFailure } from '../../src/server/ui-message-wire.ts';
import { MemoryRunStore } from '../../src/store/memory/memory-run-store.ts';
import type { RunStore } from '../../src/store/run-store.ts';
import { scriptedModel } from '../agent/scripted-model.ts';
import { skipRedisTests } from '../support/redis-server.ts';
import { expectWellFormedAgUi } from './ag-ui-frames.ts';
import { mountRunRoutes, redisStorePairs } from './drive-app.ts';

const LONG_ID = 'x'.repeat(201);

/** The `data:` lines of an SSE text, each as its frame. */
function framesOf(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => `${line}\n\n`);
}

/** Reads a response until `enough` holds of its text; the reader stays open. */
async function readUntil(response: Response, enough: (text: string) => boolean) {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  while (!enough(text)) {
    const part = await reader.read();
    if (part.done) throw new Error(`the stream ended first: ${text}`);
    text += part.value;
  }
  const rest = async () => {
    for (let part = await reader.read(); !part.done; part = await reader.read()) text += part.value;
    return text;
  };
  return { reader, text, rest };
}

const weather = {
  get_weather: {
    inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
    execute: ({ city }: { city: string }) => `sunny in ${city}`,
  },
};

function instance(
  path: '/api/ag-ui' | '/api/chat',
  store: RunStore,
  model: ServerAppOptions['model'],
  now: () => number = Date.now,
) {
  const settings = serverSettings({ model, protocol: 'hermes', tools: weather });
  const { app, live } = mountRunRoutes(
    path,
    path === '/api/ag-ui' ? agUiRoutes : chatRoutes,
    settings,
    store,
    { now },
  );
  const post = (url: string, body: object) =>
    app.request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  return { app, live, post };
}

const agUiRun = (threadId: string, runId: string, content = 'Go') => ({
  threadId,
  runId,
  messages: [{ id: `u-${runId}`, role: 'user', content }],
});

const chatBody = (id: string, text = 'Go') => ({
  id,
  trigger: 'submit-message',
  messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text }] }],
});

describe('AgUiReadFailure', () => {
  const tools: AgentTools = weather;

  async function runFrames(): Promise<string[]> {
    const { model } = scriptedModel([
      '<think>plan</think>Checking.<tool_call>{"name":"get_weather","arguments":{"city":"Oslo"}}</tool_call>',
      'Sunny in Oslo.',
    ]);
    const wire = new AgUiWire({ threadId: 'th', runId: 'r1' });
    const events: AgentEvent[] = [];
    for await (const event of runAgent({ model, protocol: 'hermes', tools, prompt: 'Oslo?' }))
      events.push(event);
    return [...wire.start(), ...events.flatMap((event) => wire.push(event))];
  }

  it('closes whatever a stream cut after any frame has open, then one RUN_ERROR store_unavailable', async () => {
    const frames = await runFrames();
    for (let cut = 0; cut < frames.length; cut++) {
      const failure = new AgUiReadFailure({ threadId: 'th', runId: 'r1' });
      const sent = frames.slice(0, cut);
      for (const frame of sent) failure.sent(frame);
      const closing = framesOf(failure.frame('the store failed'));
      const events = await expectWellFormedAgUi([...sent, ...closing]);
      expect(events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'store_unavailable' });
    }
    // After the terminal event: nothing more.
    const done = new AgUiReadFailure({ threadId: 'th', runId: 'r1' });
    for (const frame of frames) done.sent(frame);
    expect(done.frame('late')).toBe('');
  });
});

describe('UIMessageReadFailure', () => {
  it('ends open text and reasoning, errs a streaming call, then error and [DONE]; nothing after [DONE]', async () => {
    const chunks: UIMessageChunk[] = [
      { type: 'start', messageId: 'm' },
      { type: 'start-step' },
      { type: 'reasoning-start', id: 'r' },
      { type: 'reasoning-delta', id: 'r', delta: 'plan' },
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'Checking' },
      { type: 'tool-input-start', toolCallId: 'c1', toolName: 'f', dynamic: true },
      { type: 'tool-input-delta', toolCallId: 'c1', inputTextDelta: '{"a":' },
      { type: 'tool-input-start', toolCallId: 'c2', toolName: 'g', dynamic: true },
      { type: 'tool-input-available', toolCallId: 'c2', toolName: 'g', input: {}, dynamic: true },
    ];
    const failure = new UIMessageReadFailure();
    const frames = chunks.map(frameUIMessageChunk);
    for (const frame of frames) failure.sent(frame);
    const closing = failure.frame('the store failed');
    expect(closing).toBe(
      [
        frameUIMessageChunk({ type: 'text-end', id: 't' }),
        frameUIMessageChunk({ type: 'reasoning-end', id: 'r' }),
        frameUIMessageChunk({
          type: 'tool-output-error',
          toolCallId: 'c1',
          errorText: UNFINISHED_CALL,
          dynamic: true,
        }),
        frameUIMessageChunk({ type: 'error', errorText: 'the store failed' }),
        'data: [DONE]\n\n',
      ].join(''),
    );
    failure.sent('data: [DONE]\n\n');
    expect(failure.frame('late')).toBe('');
  });
});

describe('a store failure under the run reaches chat and AG-UI readers', () => {
  it('AG-UI: the reader gets its open message and step closed, then RUN_ERROR store_unavailable', async () => {
    const { model } = scriptedModel([{ text: 'Half an answer', stall: true }]);
    const a = instance('/api/ag-ui', new MemoryRunStore(), model);
    const response = await a.post('/api/ag-ui', agUiRun('th', 'r-1'));
    const runId = response.headers.get('x-run-id')!;
    const read = await readUntil(response, (text) => text.includes('TEXT_MESSAGE_CONTENT'));
    a.live.interrupt(runId, 'the store refused the run');
    const events = await expectWellFormedAgUi(framesOf(await read.rest()));
    expect(events.slice(-3)).toEqual([
      { type: 'TEXT_MESSAGE_END', messageId: 'r-1:text:1' },
      { type: 'STEP_FINISHED', stepName: 'step-1' },
      { type: 'RUN_ERROR', code: 'store_unavailable', message: 'the store refused the run' },
    ]);
    a.live.closeAll('the test is over');
  });

  it('chat: the reader gets its open text part ended, then the error and [DONE]', async () => {
    const { model } = scriptedModel([{ text: 'Half an answer', stall: true }]);
    const a = instance('/api/chat', new MemoryRunStore(), model);
    const response = await a.post('/api/chat', chatBody('chat-1'));
    const runId = response.headers.get('x-run-id')!;
    const read = await readUntil(response, (text) => text.includes('"text-delta"'));
    a.live.interrupt(runId, 'the store refused the run');
    const frames = framesOf(await read.rest());
    expect(frames.at(-3)).toMatch(/^data: \{"type":"text-end"/);
    expect(frames.slice(-2)).toEqual([
      frameUIMessageChunk({ type: 'error', errorText: 'the store refused the run' }),
      'data: [DONE]\n\n',
    ]);
    // The AI SDK reads the message whole, the error included, without complaint.
    const chunks = frames
      .filter((frame) => frame !== 'data: [DONE]\n\n')
      .map((frame) => parseJsonText(frame.slice('data: '.length)) as UIMessageChunk);
    const errors: unknown[] = [];
    let parts: unknown[] = [];
    for await (const message of readUIMessageStream({
      stream: new ReadableStream({
        start(controller) {
          for (const chunk of chunks) controller.enqueue(chunk);
          controller.close();
        },
      }),
      onError: (error) => errors.push(error),
    }))
      parts = message.parts;
    expect(parts).toContainEqual(expect.objectContaining({ type: 'text', state: 'done' }));
    a.live.closeAll('the test is over');
  });
});

describe('a reader is noted in the store when it starts', () => {
  it('chat: GET /api/chat/:id/stream notes the run at once, not at the next heartbeat', async () => {
    let now = 7_000_000;
    const { model } = scriptedModel([{ text: 'Waiting', stall: true }]);
    const store = new MemoryRunStore({ clock: () => now });
    const a = instance('/api/chat', store, model, () => now);
    const response = await a.post('/api/chat', chatBody('chat-1'));
    const runId = response.headers.get('x-run-id')!;
    const read = await readUntil(response, (text) => text.includes('"text-delta"'));
    await read.reader.cancel();
    now += 59_000;
    const again = await a.app.request('/api/chat/chat-1/stream');
    expect(again.status).toBe(200);
    expect((await store.getRun(runId))?.seenAt).toBe(now);
    a.live.closeAll('the test is over');
    await again.text();
  });

  it('AG-UI: the events route notes the run writing the log read, never the thread’s newest', async () => {
    let now = 7_000_000;
    const { model } = scriptedModel([
      { text: 'First', stall: true },
      { text: 'Second', stall: true },
    ]);
    const store = new MemoryRunStore({ clock: () => now });
    const a = instance('/api/ag-ui', store, model, () => now);
    const first = await a.post('/api/ag-ui', agUiRun('th', 'r-1'));
    const firstRun = first.headers.get('x-run-id')!;
    await (await readUntil(first, (text) => text.includes('TEXT_MESSAGE_CONTENT'))).reader.cancel();
    now += 59_000;
    const again = await a.app.request('/api/ag-ui/threads/th/runs/r-1/events');
    expect(again.headers.get('x-run-id')).toBe(firstRun);
    expect((await store.getRun(firstRun))?.seenAt).toBe(now);
    await (await readUntil(again, (text) => text.includes('TEXT_MESSAGE_CONTENT'))).reader.cancel();

    // A second run of the thread: reading the first one's log does not count as reading it.
    now += 1000;
    const second = await a.post('/api/ag-ui', agUiRun('th', 'r-2', 'Again'));
    const secondRun = second.headers.get('x-run-id')!;
    await (
      await readUntil(second, (text) => text.includes('TEXT_MESSAGE_CONTENT'))
    ).reader.cancel();
    now += 1000;
    const old = await a.app.request('/api/ag-ui/threads/th/runs/r-1/events');
    const oldRead = await readUntil(old, (text) => text.includes('TEXT_MESSAGE_CONTENT'));
    expect(a.live.readRuns()).not.toContain(secondRun);
    expect((await store.getRun(secondRun))?.seenAt).toBe(now - 1000);
    await oldRead.reader.cancel();
    a.live.closeAll('the test is over');
  });
});

describe('AG-UI log ids', () => {
  it("are one per thread/run pair, whatever ':' the client's ids hold", async () => {
    expect(agUiLog('a:b', 'c')).not.toBe(agUiLog('a', 'b:c'));
    expect(agUiLog('a%3Ab', 'c')).not.toBe(agUiLog('a:b', 'c'));
    const { model } = scriptedModel(['One.', 'Two.']);
    const a = instance('/api/ag-ui', new MemoryRunStore(), model);
    const one = await a.post('/api/ag-ui', agUiRun('a:b', 'c'));
    expect(one.status).toBe(200);
    await one.text();
    const two = await a.post('/api/ag-ui', agUiRun('a', 'b:c'));
    expect(two.status).toBe(200);
    await two.text();
    const read = await a.app.request(
      `/api/ag-ui/threads/${encodeURIComponent('a')}/runs/${encodeURIComponent('b:c')}/events`,
    );
    expect(await read.text()).toContain('Two.');
  });
});

describe('ids in a path are capped as POST caps them', () => {
  const refused = async (app: Hono, url: string, method: 'GET' | 'POST', param: string) => {
    const response = await app.request(url, { method });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: string; param?: string };
    expect(body.error).toMatch(/longer than 200 characters/);
    expect(body.error).toContain(param);
  };

  it('chat: GET …/stream and POST …/abort', async () => {
    const { app } = instance('/api/chat', new MemoryRunStore(), scriptedModel([]).model);
    await refused(app, `/api/chat/${LONG_ID}/stream`, 'GET', 'id');
    await refused(app, `/api/chat/${LONG_ID}/abort`, 'POST', 'id');
  });

  it('AG-UI: GET …/events (thread or run) and POST …/abort', async () => {
    const { app } = instance('/api/ag-ui', new MemoryRunStore(), scriptedModel([]).model);
    await refused(app, `/api/ag-ui/threads/${LONG_ID}/runs/r/events`, 'GET', 'threadId');
    await refused(app, `/api/ag-ui/threads/t/runs/${LONG_ID}/events`, 'GET', 'runId');
    await refused(app, `/api/ag-ui/threads/${LONG_ID}/abort`, 'POST', 'threadId');
  });
});

/**
 * An AG-UI client reconnects (`Last-Event-ID`) inside a text message; the store then fails under
 * the run: the resumed response closes that message, though it never sent its start (review-25
 * F11), so what the client read before and after, joined, is a well-formed AG-UI stream.
 */
async function resumedInsideAMessage(store: RunStore): Promise<void> {
  const { model } = scriptedModel([{ text: 'Half an answer', stall: true }]);
  const a = instance('/api/ag-ui', store, model);
  try {
    const response = await a.post('/api/ag-ui', agUiRun('th-resumed', 'r-1'));
    const runId = response.headers.get('x-run-id')!;
    const first = await readUntil(response, (text) => text.includes('TEXT_MESSAGE_CONTENT'));
    await first.reader.cancel();
    const before = first.text.slice(0, first.text.lastIndexOf('\n\n') + 2);
    const lastId = [...before.matchAll(/^id: (\S+)$/gm)].at(-1)![1]!;
    const again = await a.app.request('/api/ag-ui/threads/th-resumed/runs/r-1/events', {
      headers: { 'last-event-id': lastId },
    });
    expect(again.status).toBe(200);
    a.live.interrupt(runId, 'the store refused the run');
    const after = await again.text();
    const events = await expectWellFormedAgUi(framesOf(before + after));
    expect(events.slice(-3)).toEqual([
      { type: 'TEXT_MESSAGE_END', messageId: 'r-1:text:1' },
      { type: 'STEP_FINISHED', stepName: 'step-1' },
      { type: 'RUN_ERROR', code: 'store_unavailable', message: 'the store refused the run' },
    ]);
  } finally {
    a.live.closeAll('the test is over');
  }
}

describe('an AG-UI read resumed inside a message, then a store failure', () => {
  it('closes the message on the memory store', async () => {
    await resumedInsideAMessage(new MemoryRunStore());
  });
});

describe.skipIf(skipRedisTests())('an AG-UI read resumed inside a message, on Redis', () => {
  const open = redisStorePairs();
  it('closes the message, then RUN_ERROR store_unavailable', async () => {
    const [store] = await open('readers:');
    await resumedInsideAMessage(store);
  });
});
