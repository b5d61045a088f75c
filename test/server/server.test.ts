import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { afterEach, describe, expect, it } from 'vitest';
import { LOOPBACK_HOSTNAMES, parseRecording, serverTools } from '../../src/server/index.ts';
import {
  type DecodedEvent,
  decodeBlocks,
  encodeBlocks,
  type MetaFinalData,
} from '../../src/stream/index.ts';
import { scriptedModel } from '../agent/scripted-model.ts';
import {
  ANSWER_TURN,
  ASK_TURN,
  decodeResponse,
  EventReader,
  joined,
  ofType,
  postJson,
  repository,
  SEARCH_TURN,
  startTestServer,
  type TestServer,
  waitFor,
  waitForAsync,
} from './helpers.ts';
import { recordExampleRun } from './record-example.ts';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(
  turns: Parameters<typeof scriptedModel>[0],
  limits = {},
  clock?: () => number,
) {
  const scripted = scriptedModel(turns);
  server = await startTestServer({
    model: scripted.model,
    modelName: 'scripted',
    tools: serverTools(repository()),
    limits,
    ...(clock === undefined ? {} : { clock }),
  });
  return { ...scripted, url: server.url, app: server.server };
}

function decodeErrors(events: readonly DecodedEvent[]) {
  return events.filter((event) => event.type === 'decode-error' || event.type === 'stray-text');
}

describe('POST /api/runs', () => {
  it('streams a run as content blocks: meta_init, thinking, a streamed call, its result, the answer, meta_final', async () => {
    const { url } = await start([SEARCH_TURN, ANSWER_TURN]);
    const response = await postJson(`${url}/api/runs`, { prompt: 'How does login work?' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const runId = response.headers.get('x-run-id');
    expect(runId).toMatch(/^[0-9a-f-]{36}$/);
    const events = await decodeResponse(response);
    expect(decodeErrors(events)).toEqual([]);

    expect(events[0]).toEqual({
      type: 'meta-init',
      data: {
        format: 'xml',
        user_query: 'How does login work?',
        agent_uuid: runId,
        model: 'scripted',
        protocol: 'xml',
      },
    });
    expect(joined(events, 'thinking-delta')).toBe('Find the login code.');
    // The call's arguments stream as deltas (several, as the model wrote them).
    const callStart = ofType(events, 'tool-call-start')[0]!;
    expect(callStart).toMatchObject({ kind: 'client', name: 'search' });
    expect(ofType(events, 'tool-call-delta').length).toBeGreaterThan(1);
    expect(joined(events, 'tool-call-delta')).toBe('{"query":"loginUser"}');
    // Final arguments equal to the streamed ones are not sent again.
    expect(ofType(events, 'tool-call')).toEqual([]);
    const result = ofType(events, 'tool-result')[0]!;
    expect(result).toMatchObject({ kind: 'client', id: callStart.id, name: 'search' });
    expect(result.content).toContain('login.js');
    // attempt_completion's result is the answer, streamed as text, not shown as a call.
    expect(joined(events, 'text-delta')).toBe('Login is handled by `loginUser` in login.js.');
    expect(ofType(events, 'tool-call-start')).toHaveLength(1);

    const final = events.at(-1)!;
    expect(final.type).toBe('meta-final');
    const data = (final as { data: MetaFinalData }).data;
    expect(data).toMatchObject({
      stop_reason: 'completed',
      total_steps: 2,
      generated_files: null,
      cost: null,
      // Each turn is cut at its call; the stream's end is still read for the provider's usage.
      cumulative_usage: { input_tokens: 20, output_tokens: 10 },
      answer: 'Login is handled by `loginUser` in login.js.',
    });
    const history = data.conversation_history as { type: string }[];
    expect(history.map((entry) => entry.type)).toEqual([
      'user',
      'think',
      'call',
      'results',
      'call',
    ]);
    // The order of blocks: thinking, call, result, answer text, final.
    const order = events
      .map((event) => event.type)
      .filter((type) => /-start$|^tool-result$|^meta-/.test(type));
    expect(order).toEqual([
      'meta-init',
      'thinking-start',
      'tool-call-start',
      'tool-result',
      'text-start',
      'meta-final',
    ]);
  });

  it('streams thinking as the model writes it, before the turn is over', async () => {
    const { url, app } = await start([
      { text: '<thinking>Looking around the code base', stall: true },
    ]);
    const response = await postJson(`${url}/api/runs`, { prompt: 'Hello?' });
    // The model never finishes this turn, yet its thinking arrives.
    const reader = new EventReader(response);
    const events = await reader.until((event) => event.type === 'thinking-delta');
    expect(events[0]?.type).toBe('meta-init');
    expect(events.some((event) => event.type === 'thinking-start')).toBe(true);
    await reader.cancel();
    await postJson(`${url}/api/runs/${response.headers.get('x-run-id')}/abort`, {});
    await waitFor(() => app.live.active === 0, 'the run to stop');
  });

  it('runs the protocol the request asks for', async () => {
    const { url, prompts } = await start([
      'Let me look.\n<tool_call>{"name": "search", "arguments": {"query": "loginUser"}}</tool_call>',
      'It is `loginUser`.',
    ]);
    const response = await postJson(`${url}/api/runs`, {
      prompt: 'Where is login?',
      protocol: 'hermes',
    });
    const events = await decodeResponse(response);
    expect(decodeErrors(events)).toEqual([]);
    expect(events[0]).toMatchObject({ type: 'meta-init', data: { protocol: 'hermes' } });
    expect(JSON.stringify(prompts[0])).toContain('<tool_call>');
    expect(ofType(events, 'tool-result')[0]?.name).toBe('search');
    expect(joined(events, 'text-delta')).toContain('It is `loginUser`.');
    expect(events.at(-1)).toMatchObject({
      type: 'meta-final',
      data: { stop_reason: 'completed', total_steps: 2 },
    });
  });

  it('sends content byte-exact whatever it holds (CDATA ends, markup, entities, emoji)', async () => {
    const tricky = 'a ]]> b <c> &amp; "d" \\ e\nline 😀 ]]]]>';
    const { url } = await start([
      `<thinking>${tricky}</thinking>\n<ask_user>\n<question>ok</question>\n</ask_user>`,
    ]);
    const events = await decodeResponse(await postJson(`${url}/api/runs`, { prompt: tricky }));
    expect(decodeErrors(events)).toEqual([]);
    expect(events[0]).toMatchObject({ data: { user_query: tricky } });
    expect(joined(events, 'thinking-delta')).toBe(tricky);
  });
});

describe('front-end tools', () => {
  it('pauses on ask_user, then resumes with the answer and streams on to meta_final', async () => {
    const { url, prompts, app } = await start([SEARCH_TURN, ASK_TURN, ANSWER_TURN]);
    const first = await postJson(`${url}/api/runs`, { prompt: 'How does login work?' });
    const runId = first.headers.get('x-run-id')!;
    const paused = await decodeResponse(first);
    expect(decodeErrors(paused)).toEqual([]);
    const awaiting = paused.at(-1)!;
    expect(awaiting.type).toBe('awaiting-frontend-tools');
    const [tool] = (awaiting as Extract<DecodedEvent, { type: 'awaiting-frontend-tools' }>).tools;
    expect(tool).toMatchObject({
      name: 'ask_user',
      input: { question: 'Which file should I explain?' },
    });
    // No meta_final for a run that is not complete.
    expect(ofType(paused, 'meta-final')).toEqual([]);
    expect((await app.store.getRun(runId))?.status).toBe('paused');
    expect(app.live.active).toBe(0);

    const resumed = await postJson(`${url}/api/runs/${runId}/tool-results`, {
      results: [{ tool_use_id: tool!.tool_use_id, content: 'login.js, please' }],
    });
    expect(resumed.status).toBe(200);
    expect(resumed.headers.get('x-run-id')).toBe(runId);
    const rest = await decodeResponse(resumed);
    expect(decodeErrors(rest)).toEqual([]);
    expect(rest[0]).toMatchObject({
      type: 'meta-init',
      data: { agent_uuid: runId, resumed: true, user_query: 'How does login work?' },
    });
    expect(ofType(rest, 'tool-result')[0]).toMatchObject({
      id: tool!.tool_use_id,
      name: 'ask_user',
      content: 'login.js, please',
    });
    expect(joined(rest, 'text-delta')).toBe('Login is handled by `loginUser` in login.js.');
    expect(rest.at(-1)).toMatchObject({
      type: 'meta-final',
      data: { stop_reason: 'completed', total_steps: 3 },
    });
    // The model read the user's answer.
    expect(JSON.stringify(prompts[2])).toContain('login.js, please');
    expect((await app.store.getRun(runId))?.status).toBe('finished');
  });

  it('refuses results whose ids do not match the pending calls (422), and keeps the run paused', async () => {
    const { url } = await start([ASK_TURN, ANSWER_TURN]);
    const first = await postJson(`${url}/api/runs`, { prompt: 'Explain login' });
    const runId = first.headers.get('x-run-id')!;
    const paused = await decodeResponse(first);
    const pendingId = ofType(paused, 'awaiting-frontend-tools')[0]!.tools[0]!.tool_use_id;
    const resultsUrl = `${url}/api/runs/${runId}/tool-results`;

    const wrong = await postJson(resultsUrl, { results: [{ tool_use_id: 'nope', content: 'x' }] });
    expect(wrong.status).toBe(422);
    const body = (await wrong.json()) as { error: string; pending: unknown };
    expect(body.error).toContain(`missing results for ${pendingId}`);
    expect(body.error).toContain('no pending call has the id nope');
    expect(body.pending).toEqual([{ tool_use_id: pendingId, name: 'ask_user' }]);

    const twice = await postJson(resultsUrl, {
      results: [
        { tool_use_id: pendingId, content: 'a' },
        { tool_use_id: pendingId, content: 'b' },
      ],
    });
    expect(twice.status).toBe(422);
    expect(((await twice.json()) as { error: string }).error).toContain('given twice');

    const extra = await postJson(resultsUrl, {
      results: [
        { tool_use_id: pendingId, content: 'a' },
        { tool_use_id: 'other', content: 'b' },
      ],
    });
    expect(extra.status).toBe(422);

    // Still paused: the right answer resumes it.
    const right = await postJson(resultsUrl, {
      results: [{ tool_use_id: pendingId, content: 'yes', is_error: false }],
    });
    expect(right.status).toBe(200);
    expect((await decodeResponse(right)).at(-1)?.type).toBe('meta-final');

    // A finished run takes no more results.
    const late = await postJson(resultsUrl, {
      results: [{ tool_use_id: pendingId, content: 'x' }],
    });
    expect(late.status).toBe(409);
    expect(((await late.json()) as { error: string }).error).toContain('has finished');
  });

  it('passes is_error answers on as failed results', async () => {
    const { url, prompts } = await start([ASK_TURN, ANSWER_TURN]);
    const first = await postJson(`${url}/api/runs`, { prompt: 'Explain login' });
    const runId = first.headers.get('x-run-id')!;
    const pendingId = ofType(await decodeResponse(first), 'awaiting-frontend-tools')[0]!.tools[0]!
      .tool_use_id;
    const resumed = await postJson(`${url}/api/runs/${runId}/tool-results`, {
      results: [{ tool_use_id: pendingId, content: 'The user declined.', is_error: true }],
    });
    const events = await decodeResponse(resumed);
    expect(ofType(events, 'tool-result')[0]).toMatchObject({
      id: pendingId,
      isError: true,
      content: 'The user declined.',
    });
    expect(JSON.stringify(prompts[1])).toContain('The user declined.');
  });

  it('answers 404 for an unknown run and 409 for a run that is not paused', async () => {
    const { url, app } = await start([{ text: '<thinking>hmm', stall: true }]);
    const missing = await postJson(`${url}/api/runs/no-such-run/tool-results`, {
      results: [{ tool_use_id: 'a', content: 'b' }],
    });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: string }).error).toContain('no run has the id');

    const running = await postJson(`${url}/api/runs`, { prompt: 'Hi' });
    const runId = running.headers.get('x-run-id')!;
    const reader = new EventReader(running);
    await reader.until((event) => event.type === 'thinking-delta');
    const busy = await postJson(`${url}/api/runs/${runId}/tool-results`, {
      results: [{ tool_use_id: 'a', content: 'b' }],
    });
    expect(busy.status).toBe(409);
    expect(((await busy.json()) as { error: string }).error).toContain('it is running');
    await reader.cancel();
    await postJson(`${url}/api/runs/${runId}/abort`, {});
    await waitFor(() => app.live.active === 0, 'the run to stop');
  });
});

describe('stopping runs', () => {
  it('POST /abort stops a streaming run: the stream ends with an error block, no meta_final', async () => {
    const { url, app } = await start([{ text: '<thinking>Thinking hard', stall: true }]);
    const response = await postJson(`${url}/api/runs`, { prompt: 'Hi' });
    const runId = response.headers.get('x-run-id')!;
    const reader = new EventReader(response);
    await reader.until((event) => event.type === 'thinking-delta');
    const abort = await postJson(`${url}/api/runs/${runId}/abort`, {});
    expect(abort.status).toBe(202);
    expect(await abort.json()).toEqual({ id: runId, status: 'aborting' });
    const all = await reader.rest();
    expect(decodeErrors(all)).toEqual([]);
    expect(ofType(all, 'thinking-end')).toHaveLength(1);
    expect(ofType(all, 'error').at(-1)).toMatchObject({ error: { type: 'aborted' } });
    expect(ofType(all, 'meta-final')).toEqual([]);
    await waitForAsync(
      async () => (await app.store.getRun(runId))?.status === 'finished',
      'the run to finish',
    );
    expect((await app.store.getRun(runId))?.outcome).toBe('aborted');
    const again = await postJson(`${url}/api/runs/${runId}/abort`, {});
    expect(again.status).toBe(409);
    expect((await postJson(`${url}/api/runs/nope/abort`, {})).status).toBe(404);
  });

  it('POST /abort drops a paused run: it then takes no results', async () => {
    const { url } = await start([ASK_TURN]);
    const first = await postJson(`${url}/api/runs`, { prompt: 'Explain login' });
    const runId = first.headers.get('x-run-id')!;
    const pendingId = ofType(await decodeResponse(first), 'awaiting-frontend-tools')[0]!.tools[0]!
      .tool_use_id;
    const abort = await postJson(`${url}/api/runs/${runId}/abort`, {});
    expect(abort.status).toBe(200);
    expect(await abort.json()).toEqual({ id: runId, status: 'aborted' });
    const late = await postJson(`${url}/api/runs/${runId}/tool-results`, {
      results: [{ tool_use_id: pendingId, content: 'x' }],
    });
    expect(late.status).toBe(409);
  });

  it('a client that disconnects does not abort its run: it goes on, and can be read again', async () => {
    const { url, app } = await start([{ text: '<thinking>Still going', stall: true }]);
    const controller = new AbortController();
    const response = await postJson(
      `${url}/api/runs`,
      { prompt: 'Hi' },
      { signal: controller.signal },
    );
    const runId = response.headers.get('x-run-id')!;
    await new EventReader(response).until((event) => event.type === 'thinking-delta');
    expect(app.live.active).toBe(1);
    controller.abort();
    // The read ends, not the run: it still streams, and a new read starts from its beginning.
    await waitFor(() => app.live.readRuns().length === 0, 'the read to end');
    expect((await app.store.getRun(runId))?.status).toBe('running');
    expect(app.live.active).toBe(1);
    const again = new EventReader(await fetch(`${url}/api/runs/${runId}/events`));
    const events = await again.until((event) => event.type === 'thinking-delta');
    expect(events[0]).toMatchObject({ type: 'meta-init', data: { agent_uuid: runId } });
    // Stop ends it.
    expect((await postJson(`${url}/api/runs/${runId}/abort`, {})).status).toBe(202);
    const rest = await again.rest();
    expect(ofType(rest, 'error').at(-1)).toMatchObject({ error: { type: 'aborted' } });
    await waitForAsync(
      async () => (await app.store.getRun(runId))?.status === 'finished',
      'the run to finish',
    );
    expect((await app.store.getRun(runId))?.outcome).toBe('aborted');
    expect(app.live.active).toBe(0);
  });
});

describe('limits and bad requests', () => {
  it('refuses a body over the limit with 413', async () => {
    const { url } = await start([]);
    const big = await postJson(`${url}/api/runs`, { prompt: 'x'.repeat(1024 * 1024 + 10) });
    expect(big.status).toBe(413);
    expect(((await big.json()) as { error: string }).error).toContain('larger than 1048576 bytes');
    // Without a Content-Length (chunked), the cap still holds.
    const chunks = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"prompt":"'));
        for (let index = 0; index < 20; index++)
          controller.enqueue(new TextEncoder().encode('y'.repeat(64 * 1024)));
        controller.enqueue(new TextEncoder().encode('"}'));
        controller.close();
      },
    });
    const chunked = await fetch(`${url}/api/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: chunks,
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
  });

  it('refuses a run beyond the concurrency limit with 429, and takes one again when a slot frees', async () => {
    const { url, app } = await start([{ text: '<thinking>one', stall: true }, ANSWER_TURN], {
      maxConcurrentRuns: 1,
    });
    const first = await postJson(`${url}/api/runs`, { prompt: 'first' });
    const runId = first.headers.get('x-run-id')!;
    const reader = new EventReader(first);
    await reader.until((event) => event.type === 'thinking-delta');
    const second = await postJson(`${url}/api/runs`, { prompt: 'second' });
    expect(second.status).toBe(429);
    expect(((await second.json()) as { error: string }).error).toContain('1 runs are streaming');
    await postJson(`${url}/api/runs/${runId}/abort`, {});
    await reader.rest();
    await waitFor(() => app.live.active === 0, 'the slot to free');
    const third = await postJson(`${url}/api/runs`, { prompt: 'third' });
    expect(third.status).toBe(200);
    expect((await decodeResponse(third)).at(-1)?.type).toBe('meta-final');
  });

  it('counts resumes against the limit, and drops a paused run whose answer never comes', async () => {
    let clock = 1_000_000;
    const { url, app } = await start(
      [ASK_TURN, { text: '<thinking>busy', stall: true }, ANSWER_TURN],
      { maxConcurrentRuns: 1, pausedRunTtlMs: 300 },
      () => clock,
    );
    const paused = await postJson(`${url}/api/runs`, { prompt: 'first' });
    const pausedId = paused.headers.get('x-run-id')!;
    const pendingId = ofType(await decodeResponse(paused), 'awaiting-frontend-tools')[0]!.tools[0]!
      .tool_use_id;
    // A paused run holds no slot: another run streams.
    const busy = await postJson(`${url}/api/runs`, { prompt: 'second' });
    const reader = new EventReader(busy);
    await reader.until((event) => event.type === 'thinking-delta');
    const resume = await postJson(`${url}/api/runs/${pausedId}/tool-results`, {
      results: [{ tool_use_id: pendingId, content: 'x' }],
    });
    expect(resume.status).toBe(429);
    expect((await app.store.getRun(pausedId))?.status).toBe('paused');
    await reader.cancel();
    // Its time runs out by the server's clock; the sweep drops it.
    clock += 301;
    await app.heartbeat.sweep();
    expect((await app.store.getRun(pausedId))?.status).toBe('finished');
    const late = await postJson(`${url}/api/runs/${pausedId}/tool-results`, {
      results: [{ tool_use_id: pendingId, content: 'x' }],
    });
    expect(late.status).toBe(409);
    expect(((await late.json()) as { error: string }).error).toContain(
      'dropped: it waited too long for its front-end results',
    );
  });

  it('answers malformed requests with clear 4xx JSON errors', async () => {
    const { url } = await start([]);
    const cases: [unknown, number, string][] = [
      ['{not json', 400, 'not valid JSON'],
      [[], 400, 'must be a JSON object'],
      [{}, 400, '"prompt" must be a string'],
      [{ prompt: '   ' }, 400, '"prompt" is empty'],
      [{ prompt: 'hi', protocol: 'yaml' }, 400, '"protocol" must be one of xml, '],
      [{ prompt: 'hi', extra: 1 }, 400, 'unknown field "extra"'],
    ];
    for (const [body, status, message] of cases) {
      const response = await postJson(`${url}/api/runs`, body);
      expect(response.status, JSON.stringify(body)).toBe(status);
      expect(response.headers.get('content-type')).toContain('application/json');
      expect(((await response.json()) as { error: string }).error).toContain(message);
    }
    const notJson = await fetch(`${url}/api/runs`, { method: 'POST', body: 'prompt=hi' });
    expect(notJson.status).toBe(415);
    const foreign = await postJson(
      `${url}/api/runs`,
      { prompt: 'hi' },
      {
        headers: { origin: 'https://evil.example' },
      },
    );
    expect(foreign.status).toBe(403);
    const resultsShape = await postJson(`${url}/api/runs/x/tool-results`, { results: [] });
    expect(resultsShape.status).toBe(404);
    const unknownRoute = await fetch(`${url}/api/nothing`);
    expect(unknownRoute.status).toBe(404);
    expect(((await unknownRoute.json()) as { error: string }).error).toBe(
      'no API route GET /api/nothing',
    );
  });

  it('refuses requests addressed to another host name (DNS rebinding)', async () => {
    const scripted = scriptedModel([]);
    server = await startTestServer({
      model: scripted.model,
      allowedHostnames: LOOPBACK_HOSTNAMES,
      webRoot: '/nonexistent',
    });
    expect((await fetch(`${server.url}/api/info`)).status).toBe(200);
    const port = new URL(server.url).port;
    const status = (host: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const request = httpRequest(
          { host: '127.0.0.1', port, path: '/api/info', headers: { host } },
          (response) => {
            let body = '';
            response.on('data', (data) => (body += data));
            response.on('end', () => resolve({ status: response.statusCode!, body }));
          },
        );
        request.on('error', reject);
        request.end();
      });
    const rebound = await status(`attacker.example:${port}`);
    expect(rebound.status).toBe(403);
    expect(rebound.body).toContain('DNS rebinding protection');
    expect((await status(`localhost:${port}`)).status).toBe(200);
  });

  it('checks the shape of tool results', async () => {
    const { url } = await start([ASK_TURN]);
    const first = await postJson(`${url}/api/runs`, { prompt: 'Explain login' });
    const runId = first.headers.get('x-run-id')!;
    await decodeResponse(first);
    const resultsUrl = `${url}/api/runs/${runId}/tool-results`;
    const cases: [unknown, string][] = [
      [{ results: [] }, 'non-empty array'],
      [{ results: [{ content: 'x' }] }, 'results[0].tool_use_id'],
      [{ results: [{ tool_use_id: 'a' }] }, 'results[0].content is missing'],
      [{ results: [{ tool_use_id: 'a', content: 1, is_error: 'no' }] }, 'is_error must be'],
    ];
    for (const [body, message] of cases) {
      const response = await postJson(resultsUrl, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(((await response.json()) as { error: string }).error).toContain(message);
    }
  });
});

describe('the model server does not answer', () => {
  it('sends an error block that says so and how to start one', async () => {
    const port = await closedPort();
    const baseURL = `http://127.0.0.1:${port}/v1`;
    const provider = createOpenAICompatible({ name: 'test', baseURL });
    server = await startTestServer({
      model: provider.chatModel('qwen2.5-coder:7b'),
      modelName: 'qwen2.5-coder:7b',
      baseURL,
      tools: serverTools(repository()),
      runSettings: { maxSteps: 2 },
    });
    const response = await postJson(`${server.url}/api/runs`, { prompt: 'Hello' });
    expect(response.status).toBe(200);
    const events = await decodeResponse(response);
    const errors = ofType(events, 'error');
    expect(errors).toHaveLength(1);
    const error = errors[0]!.error as Record<string, string>;
    expect(error.type).toBe('model_unreachable');
    expect(error.message).toBe(`No model server answers at ${baseURL}.`);
    expect(error.hint).toContain('ollama serve');
    expect(error.hint).toContain('ollama pull qwen2.5-coder:7b');
    expect(error.detail).toMatch(/ECONNREFUSED|fetch failed|Cannot connect/);
    expect(ofType(events, 'meta-final')).toEqual([]);
    expect(server.server.live.active).toBe(0);
  });
});

describe('replay', () => {
  const recorded = encodeBlocks([
    {
      type: 'meta-init',
      data: { format: 'xml', user_query: 'Q', agent_uuid: 'rec', model: 'm', recording: 'yes' },
    },
    { type: 'text-start' },
    { type: 'text-delta', delta: 'Hello ' },
    { type: 'text-delta', delta: 'there' },
    { type: 'text-end' },
    {
      type: 'meta-final',
      data: {
        conversation_history: [],
        stop_reason: 'completed',
        total_steps: 1,
        generated_files: null,
        cost: null,
        cumulative_usage: null,
      },
    },
  ]);

  it('serves the recorded stream byte for byte for any run, labelled as a replay', async () => {
    server = await startTestServer({
      replay: { recording: parseRecording(recorded, 'demo.sse'), delayMs: 0 },
    });
    const info = (await (await fetch(`${server.url}/api/info`)).json()) as Record<string, unknown>;
    expect(info).toMatchObject({ mode: 'replay', recording: 'demo.sse' });
    for (const prompt of ['anything', 'something else']) {
      const response = await postJson(`${server.url}/api/runs`, { prompt });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-toolwire-replay')).toBe('demo.sse');
      expect(response.headers.get('x-run-id')).toBeTruthy();
      expect(await response.text()).toBe(recorded);
    }
    await waitFor(() => server!.server.live.active === 0, 'replays to finish');
    // Requests are still checked.
    expect((await postJson(`${server.url}/api/runs`, {})).status).toBe(400);
  });

  it('stops a replay on abort, closing the open block and saying so', async () => {
    server = await startTestServer({
      replay: { recording: parseRecording(recorded, 'demo.sse'), delayMs: 200 },
    });
    const response = await postJson(`${server.url}/api/runs`, { prompt: 'go' });
    const runId = response.headers.get('x-run-id')!;
    const reader = new EventReader(response);
    await reader.until((event) => event.type === 'text-delta');
    expect((await postJson(`${server.url}/api/runs/${runId}/abort`, {})).status).toBe(202);
    const all = await reader.rest();
    expect(decodeErrors(all)).toEqual([]);
    expect(ofType(all, 'text-end')).toHaveLength(1);
    expect(all.at(-1)).toMatchObject({ type: 'error', error: { type: 'aborted' } });
    expect(ofType(all, 'meta-final')).toEqual([]);
  });

  it('ships examples/recorded-run.sse: a labelled recording of thinking, a streamed call, its result and an answer', async () => {
    const { readFile } = await import('node:fs/promises');
    const text = await readFile(
      new URL('../../examples/recorded-run.sse', import.meta.url),
      'utf8',
    );
    const events = decodeBlocks(text);
    expect(decodeErrors(events)).toEqual([]);
    expect(events[0]).toMatchObject({ type: 'meta-init', data: { recording: expect.any(String) } });
    const types = new Set(events.map((event) => event.type));
    for (const type of [
      'thinking-delta',
      'tool-call-start',
      'tool-call-delta',
      'tool-result',
      'text-delta',
      'meta-final',
    ])
      expect(types.has(type as DecodedEvent['type']), type).toBe(true);
    expect(events.at(-1)?.type).toBe('meta-final');
    // It is what test/server/record-example.ts makes (block by block; tool output may change).
    const skeleton = (list: readonly DecodedEvent[]) =>
      list.map((event) => event.type).filter((type) => !type.endsWith('-delta'));
    expect(skeleton(decodeBlocks(await recordExampleRun()))).toEqual(skeleton(events));
  });
});

describe('GET /', () => {
  it('serves the built page with a strict content security policy, and nothing outside it', async () => {
    const { mkdtempSync, writeFileSync, mkdirSync, symlinkSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const web = mkdtempSync(join(tmpdir(), 'toolwire-web-'));
    writeFileSync(join(web, 'index.html'), '<!doctype html><title>page</title>');
    mkdirSync(join(web, 'assets'));
    writeFileSync(join(web, 'assets', 'app-1.js'), 'console.log(1)');
    const outside = mkdtempSync(join(tmpdir(), 'toolwire-outside-'));
    writeFileSync(join(outside, 'secret.txt'), 'secret');
    symlinkSync(join(outside, 'secret.txt'), join(web, 'link.txt'));
    server = await startTestServer({
      replay: { recording: parseRecording(':\n\n', 'x') },
      webRoot: web,
    });
    const page = await fetch(`${server.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await page.text()).toContain('<title>page</title>');
    const asset = await fetch(`${server.url}/assets/app-1.js`);
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect((await fetch(`${server.url}/link.txt`)).status).toBe(404);
    expect((await fetch(`${server.url}/%2e%2e/secret.txt`)).status).toBe(404);
    expect((await fetch(`${server.url}/assets/..%2f..%2fetc/passwd`)).status).toBe(404);
  });

  it('says how to build the page when it is not built', async () => {
    server = await startTestServer({
      replay: { recording: parseRecording(':\n\n', 'x') },
      webRoot: '/nonexistent/toolwire-web',
    });
    const page = await fetch(`${server.url}/`);
    expect(page.status).toBe(503);
    expect(await page.text()).toContain('npm run build');
  });
});

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
