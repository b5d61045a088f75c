import { describe, expect, it } from 'vitest';
import { createServerApp, serverTools } from '../../src/server/index.ts';
import { logResponse } from '../../src/server/log-stream.ts';
import { MemoryRunStore } from '../../src/store/memory/memory-run-store.ts';
import { decodeBlocks, frameSse } from '../../src/stream/index.ts';
import { scriptedModel } from '../agent/scripted-model.ts';
import { repository } from './helpers.ts';

describe('logResponse', () => {
  it('sends a comment (not an event) while the log is idle, and goes on with the next entry', async () => {
    const store = new MemoryRunStore();
    const lease = await store.createRun(
      {
        runId: 'r1',
        wire: 'blocks',
        protocol: 'xml',
        customProtocol: false,
        prompt: 'Q',
        tail: [],
      },
      Date.now(),
    );
    const [first] = await store.append(lease, [frameSse('one')], []);
    const response = await logResponse({
      store,
      log: 'r1',
      after: undefined,
      signal: new AbortController().signal,
      keepAliveMs: 5,
    });
    const reader = response.body!.getReader();
    const text = async () => new TextDecoder().decode((await reader.read()).value);
    expect(await text()).toBe(`id: ${first}\ndata: one\n\n`);
    // Nothing comes: a comment, as often as the idle time passes.
    expect(await text()).toBe(':\n\n');
    const [second] = await store.append(lease, [frameSse('two')], []);
    let next = await text();
    while (next === ':\n\n') next = await text();
    expect(next).toBe(`id: ${second}\ndata: two\n\n`);
    await store.finish(lease, [], 'completed', Date.now());
    let done = false;
    while (!done) done = (await reader.read()).done;
  });
});

describe('closing the app', () => {
  it('aborts the runs it runs, whose readers read why they stopped', async () => {
    const server = createServerApp({
      model: scriptedModel([{ text: '<thinking>Going on', stall: true }]).model,
      tools: serverTools(repository()),
      webRoot: '/nonexistent/toolwire-web',
    });
    const response = await server.app.request('/api/runs', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'Hi' }),
    });
    const reader = response.body!.getReader();
    let text = '';
    while (text.split('CDATA[').length < 3)
      text += new TextDecoder().decode((await reader.read()).value);
    server.close();
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    const blocks = decodeBlocks(text);
    expect(blocks.at(-2)?.type).toBe('thinking-end');
    expect(blocks.at(-1)).toMatchObject({ type: 'error', error: { type: 'aborted' } });
    expect(server.live.active).toBe(0);
  });
});
