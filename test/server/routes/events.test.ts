import { afterEach, describe, expect, it } from 'vitest';
import { serverTools } from '../../../src/server/index.ts';
import { MemoryRunStoreBacking } from '../../../src/store/memory/memory-run-store.ts';
import { decodeBlocks } from '../../../src/stream/index.ts';
import { scriptedModel } from '../../agent/scripted-model.ts';
import {
  ANSWER_TURN,
  ASK_TURN,
  ofType,
  postJson,
  repository,
  SEARCH_TURN,
  startTestServer,
  type TestServer,
  waitFor,
  waitForAsync,
} from '../helpers.ts';
import { closeServers } from '../run-fixtures.ts';

const servers: TestServer[] = [];
afterEach(() => closeServers(servers));

type Options = Parameters<typeof startTestServer>[0];

async function start(turns: Parameters<typeof scriptedModel>[0], more: Partial<Options> = {}) {
  const scripted = scriptedModel(turns);
  const server = await serve({ model: scripted.model, ...more });
  return { ...scripted, server, url: server.url, app: server.server };
}

async function serve(options: Partial<Options>): Promise<TestServer> {
  const server = await startTestServer({
    modelName: 'scripted',
    tools: serverTools(repository()),
    ...options,
  });
  servers.push(server);
  return server;
}

/** The SSE messages of a response's text, each with its blank line. */
function messages(text: string): string[] {
  return text
    .split('\n\n')
    .slice(0, -1)
    .map((message) => `${message}\n\n`);
}

function idOf(message: string): string {
  const match = /^id: ([0-9]+-[0-9]+)\n/.exec(message);
  if (!match) throw new Error(`a message without an id: ${JSON.stringify(message)}`);
  return match[1]!;
}

/** Reads a response's raw text until `enough` holds, then cuts it at its last whole message. */
async function readUntil(response: Response, enough: (text: string) => boolean) {
  const reader = response.body!.getReader();
  const utf8 = new TextDecoder();
  let text = '';
  while (!enough(text)) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the stream ended first: ${text}`);
    text += utf8.decode(value, { stream: true });
  }
  await reader.cancel();
  return text.slice(0, text.lastIndexOf('\n\n') + 2);
}

const events = (url: string, runId: string, headers: Record<string, string> = {}) =>
  fetch(`${url}/api/runs/${runId}/events`, { headers });

describe('GET /api/runs/:id/events', () => {
  it('reads a run from the start byte for byte as its POST response sent it, ids included', async () => {
    const { url } = await start([SEARCH_TURN, ANSWER_TURN]);
    const response = await postJson(`${url}/api/runs`, { prompt: 'How does login work?' });
    const runId = response.headers.get('x-run-id')!;
    const sent = await response.text();
    const all = messages(sent);
    expect(all.length).toBeGreaterThan(5);
    // Every message has an id, in increasing order; the blocks are those of the run.
    const ids = all.map(idOf);
    expect(new Set(ids).size).toBe(ids.length);
    expect(decodeBlocks(sent).at(-1)?.type).toBe('meta-final');
    const again = await events(url, runId);
    expect(again.status).toBe(200);
    expect(again.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(again.headers.get('x-run-id')).toBe(runId);
    expect(await again.text()).toBe(sent);
  });

  it('resumes after every event id (Last-Event-ID or ?after=): what was read, joined, is the whole stream', async () => {
    const { url } = await start([SEARCH_TURN, ANSWER_TURN]);
    const response = await postJson(`${url}/api/runs`, { prompt: 'How does login work?' });
    const runId = response.headers.get('x-run-id')!;
    const sent = await response.text();
    const all = messages(sent);
    for (const [index, message] of all.entries()) {
      const before = all.slice(0, index + 1).join('');
      const byHeader = await events(url, runId, { 'last-event-id': idOf(message) });
      expect(byHeader.status).toBe(200);
      expect(before + (await byHeader.text()), `after message ${index}`).toBe(sent);
      const byQuery = await fetch(`${url}/api/runs/${runId}/events?after=${idOf(message)}`);
      expect(before + (await byQuery.text()), `?after= message ${index}`).toBe(sent);
    }
  });

  it('resumes a live run mid-stream: the reads before and after the drop join to the uninterrupted stream', async () => {
    const { url } = await start([{ text: '<thinking>Still thinking', stall: true }]);
    const response = await postJson(`${url}/api/runs`, { prompt: 'Hi' });
    const runId = response.headers.get('x-run-id')!;
    const first = await readUntil(response, (text) => text.split('CDATA[').length > 2);
    const lastId = idOf(messages(first).at(-1)!);
    const resumed = await events(url, runId, { 'last-event-id': lastId });
    expect(resumed.status).toBe(200);
    expect((await postJson(`${url}/api/runs/${runId}/abort`, {})).status).toBe(202);
    const rest = await resumed.text();
    const whole = await (await events(url, runId)).text();
    expect(first + rest).toBe(whole);
    expect(ofType(decodeBlocks(whole), 'error').at(-1)).toMatchObject({
      error: { type: 'aborted' },
    });
  });

  it('answers a malformed id with 400, an unknown run with 404, an id trimmed away with 410', async () => {
    const { url } = await start([SEARCH_TURN, ANSWER_TURN], { limits: { maxRunEvents: 4 } });
    const response = await postJson(`${url}/api/runs`, { prompt: 'How does login work?' });
    const runId = response.headers.get('x-run-id')!;
    await response.text();
    for (const bad of ['x', '1-', '-1', '1-2-3', '99999999999999999-0']) {
      const refused = await events(url, runId, { 'last-event-id': bad });
      expect(refused.status, bad).toBe(400);
      expect(((await refused.json()) as { error: string }).error).toContain('is not an event id');
    }
    expect((await fetch(`${url}/api/runs/${runId}/events?after=nope`)).status).toBe(400);
    const unknown = await events(url, 'no-such-run');
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: string }).error).toContain('no run has the id');
    // Only the last 4 events are kept: the start is gone, the end is still there.
    const trimmed = await events(url, runId);
    expect(trimmed.status).toBe(410);
    expect(((await trimmed.json()) as { error: string }).error).toContain('no longer kept');
  });
});

describe('a run goes on without its reader', () => {
  it('a dropped connection does not abort the run: it completes, and reads whole afterwards', async () => {
    const { url, app } = await start([
      { text: SEARCH_TURN, chunkDelayMs: 1 },
      { text: ANSWER_TURN, chunkDelayMs: 1 },
    ]);
    const controller = new AbortController();
    const response = await postJson(
      `${url}/api/runs`,
      { prompt: 'How does login work?' },
      { signal: controller.signal },
    );
    const runId = response.headers.get('x-run-id')!;
    await readUntil(response, (text) => text.includes('meta_init'));
    controller.abort();
    await waitForAsync(
      async () => (await app.store.getRun(runId))?.status === 'finished',
      'the run to finish',
    );
    expect((await app.store.getRun(runId))?.outcome).toBe('completed');
    const whole = decodeBlocks(await (await events(url, runId)).text());
    expect(whole.at(-1)?.type).toBe('meta-final');
  });

  it('aborts a run no one has read for unreadRunAbortMs (by the server clock), and not one being read', async () => {
    let now = 5_000_000;
    const { url, app } = await start(
      [
        { text: '<thinking>Unread', stall: true },
        { text: '<thinking>Read', stall: true },
      ],
      { clock: () => now, limits: { unreadRunAbortMs: 60_000 } },
    );
    const unread = await postJson(`${url}/api/runs`, { prompt: 'one' });
    const unreadId = unread.headers.get('x-run-id')!;
    await readUntil(unread, (text) => text.split('CDATA[').length > 2);
    const read = await postJson(`${url}/api/runs`, { prompt: 'two' });
    const readId = read.headers.get('x-run-id')!;
    const reader = read.body!.getReader();
    await waitFor(() => app.live.readRuns().join() === readId, 'only the second run to be read');

    now += 30_000;
    await app.heartbeat.noteReaders();
    await app.heartbeat.renew();
    expect(app.live.get(unreadId)?.controller.signal.aborted).toBe(false);

    now += 30_001;
    await app.heartbeat.noteReaders();
    await app.heartbeat.renew();
    await waitForAsync(
      async () => (await app.store.getRun(unreadId))?.status === 'finished',
      'the unread run to be aborted',
    );
    expect((await app.store.getRun(unreadId))?.outcome).toBe('aborted');
    const ended = decodeBlocks(await (await events(url, unreadId)).text());
    expect(ofType(ended, 'error').at(-1)?.error).toMatchObject({ type: 'aborted' });
    // The read one goes on.
    expect(app.live.get(readId)?.controller.signal.aborted).toBe(false);
    expect((await app.store.getRun(readId))?.status).toBe('running');
    await reader.cancel();
  });
});

describe('a reader back just before the unread limit', () => {
  it('keeps its run: a read is noted when it starts, not only at the next heartbeat', async () => {
    let now = 9_000_000;
    const { url, app } = await start([{ text: '<thinking>Waiting', stall: true }], {
      clock: () => now,
      limits: { unreadRunAbortMs: 60_000 },
    });
    const response = await postJson(`${url}/api/runs`, { prompt: 'one' });
    const runId = response.headers.get('x-run-id')!;
    await readUntil(response, (text) => text.split('CDATA[').length > 2);
    await waitFor(() => app.live.readRuns().length === 0, 'the first read to end');
    now += 59_000;
    const again = await events(url, runId);
    now += 2000;
    // The renewal comes before any reader note of the heartbeat.
    await app.heartbeat.renew();
    expect(app.live.get(runId)?.controller.signal.aborted).toBe(false);
    await postJson(`${url}/api/runs/${runId}/abort`, {});
    await again.text();
  });
});

describe('two instances sharing one store', () => {
  it('starts on A, is answered on B, reads the same on both, and stops from B', async () => {
    const backing = new MemoryRunStoreBacking();
    const scripted = scriptedModel([
      ASK_TURN,
      ANSWER_TURN,
      { text: '<thinking>Running on A', stall: true },
    ]);
    const a = await serve({ model: scripted.model, store: backing.open('A') });
    const b = await serve({ model: scripted.model, store: backing.open('B') });

    const started = await postJson(`${a.url}/api/runs`, { prompt: 'Explain login' });
    const runId = started.headers.get('x-run-id')!;
    const pausedText = await started.text();
    const pending = ofType(decodeBlocks(pausedText), 'awaiting-frontend-tools')[0]!.tools[0]!;
    expect((await a.server.store.getRun(runId))?.status).toBe('paused');
    // B reads the paused run as A sent it.
    expect(await (await events(b.url, runId)).text()).toBe(pausedText);

    const answered = await postJson(`${b.url}/api/runs/${runId}/tool-results`, {
      results: [{ tool_use_id: pending.tool_use_id, content: 'login.js' }],
    });
    expect(answered.status).toBe(200);
    const continued = await answered.text();
    const blocks = decodeBlocks(continued);
    expect(blocks[0]).toMatchObject({ type: 'meta-init', data: { resumed: true } });
    expect(blocks.at(-1)?.type).toBe('meta-final');
    // Read from the start on either instance: the start on A, then the continuation on B.
    for (const server of [a, b])
      expect(await (await events(server.url, runId)).text()).toBe(pausedText + continued);

    // A run on A, stopped from B.
    const running = await postJson(`${a.url}/api/runs`, { prompt: 'Go' });
    const runningId = running.headers.get('x-run-id')!;
    expect(a.server.live.active).toBe(1);
    const stop = await postJson(`${b.url}/api/runs/${runningId}/abort`, {});
    expect(stop.status).toBe(202);
    const stopped = decodeBlocks(await running.text());
    expect(ofType(stopped, 'error').at(-1)).toMatchObject({ error: { type: 'aborted' } });
    await waitForAsync(
      async () => (await b.server.store.getRun(runningId))?.status === 'finished',
      'the run to finish',
    );
    expect((await b.server.store.getRun(runningId))?.outcome).toBe('aborted');
    expect(a.server.live.active).toBe(0);
  });
});
