import { describe, expect, it } from 'vitest';
import { BlocksReadFailure } from '../../src/server/blocks-wire.ts';
import { createServerApp, serverTools } from '../../src/server/index.ts';
import { logResponse } from '../../src/server/log-stream.ts';
import { MemoryRunStore } from '../../src/store/memory/memory-run-store.ts';
import { BlockEncoder, decodeBlocks, frameSse } from '../../src/stream/index.ts';
import { scriptedModel } from '../agent/scripted-model.ts';
import { repository } from './helpers.ts';
import { createBlocksRun, readRest, readUntil } from './run-fixtures.ts';

describe('logResponse', () => {
  it('sends a comment (not an event) while the log is idle, and goes on with the next entry', async () => {
    const store = new MemoryRunStore();
    const lease = await createBlocksRun(store);
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

describe('a read resumed after an id', () => {
  it('closes the block the reader had open before it reconnected when the store fails', async () => {
    const store = new MemoryRunStore();
    const lease = await createBlocksRun(store);
    const encoder = new BlockEncoder();
    const frames = [
      encoder.encode({
        type: 'meta-init',
        data: { format: 'xml', user_query: 'Q', agent_uuid: 'r1', model: 'm' },
      }),
      encoder.encode({ type: 'thinking-start' }),
      encoder.encode({ type: 'thinking-delta', delta: 'Reading' }),
    ];
    const ids = await store.append(lease, frames, []);
    // The first connection got everything up to the delta, inside the thinking block.
    const before = frames.join('');
    const listeners = new Set<(message: string) => void>();
    const failure = new BlocksReadFailure();
    const response = await logResponse({
      store,
      log: 'r1',
      after: ids[2],
      signal: new AbortController().signal,
      onInterrupt: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      onFrame: (frame) => failure.sent(frame),
      failureFrame: (message) => failure.frame(message),
    });
    const reading = response.text();
    // Waits for the read to listen (the reader's bookkeeping is set when it starts), by count.
    for (let turn = 0; listeners.size === 0 && turn < 100; turn++) await Promise.resolve();
    for (const listener of listeners) listener('the store refused the run');
    const after = await reading;
    const blocks = decodeBlocks(before + after.replace(/^id: .*\n/gm, ''));
    expect(blocks.map((block) => block.type)).toEqual([
      'meta-init',
      'thinking-start',
      'thinking-delta',
      'thinking-end',
      'error',
    ]);
    expect(blocks.at(-1)).toMatchObject({ error: { type: 'store_unavailable' } });
  });
});

describe('a read after an id later than a finished log’s end', () => {
  it('ends at once with nothing, the seed of a resumed read included (review-25 F1)', async () => {
    const store = new MemoryRunStore();
    const lease = await createBlocksRun(store);
    await store.append(lease, [frameSse('one')], []);
    await store.finish(lease, [frameSse('two')], 'completed', Date.now());
    const seen: string[] = [];
    const response = await logResponse({
      store,
      log: 'r1',
      after: '99999999999999-0',
      signal: new AbortController().signal,
      onFrame: (frame) => seen.push(frame),
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('');
    // The seed read what the reader had: the whole log.
    expect(seen).toEqual([frameSse('one'), frameSse('two')]);
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
    const text = await readUntil(reader, (read) => read.split('CDATA[').length > 2);
    server.close();
    const blocks = decodeBlocks(await readRest(reader, text));
    expect(blocks.at(-2)?.type).toBe('thinking-end');
    expect(blocks.at(-1)).toMatchObject({ type: 'error', error: { type: 'aborted' } });
    expect(server.live.active).toBe(0);
  });
});
