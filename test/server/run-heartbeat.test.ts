import { afterEach, describe, expect, it } from 'vitest';
import { serverTools } from '../../src/server/index.ts';
import { MemoryRunStore } from '../../src/store/memory/memory-run-store.ts';
import type { RunStore } from '../../src/store/run-store.ts';
import { decodeBlocks } from '../../src/stream/index.ts';
import { scriptedModel } from '../agent/scripted-model.ts';
import { ofType, postJson, repository, startTestServer, type TestServer } from './helpers.ts';

const servers: TestServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.server.close();
    await server.close();
  }
});

/** The store with its stop messages lost (as pub/sub loses them while it reconnects). */
function deafStore(store: RunStore): RunStore {
  return new Proxy(store, {
    get(target, key) {
      if (key === 'onAbort') return () => () => {};
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

describe('RunHeartbeat', () => {
  it('a stop whose message was lost is still carried out at the next renewal', async () => {
    const store = deafStore(new MemoryRunStore());
    const server = await startTestServer({
      model: scriptedModel([{ text: '<thinking>Working', stall: true }]).model,
      tools: serverTools(repository()),
      store,
    });
    servers.push(server);
    const response = await postJson(`${server.url}/api/runs`, { prompt: 'Hi' });
    const runId = response.headers.get('x-run-id')!;
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('CDATA[')) text += new TextDecoder().decode((await reader.read()).value);
    expect((await postJson(`${server.url}/api/runs/${runId}/abort`, {})).status).toBe(202);
    // Nothing reached the owner: the run goes on until the heartbeat renews its lease.
    expect(server.server.live.get(runId)?.controller.signal.aborted).toBe(false);
    await server.server.heartbeat.renew();
    expect(server.server.live.get(runId)?.controller.signal.aborted).toBe(true);
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    expect(ofType(decodeBlocks(text), 'error').at(-1)).toMatchObject({
      error: { type: 'aborted' },
    });
  });

  it('a run whose lease was lost is stopped at the renewal, and nothing more is written', async () => {
    let now = 3_000_000;
    const store = new MemoryRunStore({ clock: () => now });
    const server = await startTestServer({
      model: scriptedModel([{ text: '<thinking>Working', stall: true }]).model,
      tools: serverTools(repository()),
      store,
      clock: () => now,
    });
    servers.push(server);
    const response = await postJson(`${server.url}/api/runs`, { prompt: 'Hi' });
    const runId = response.headers.get('x-run-id')!;
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('CDATA[')) text += new TextDecoder().decode((await reader.read()).value);
    now += store.limits.leaseMs + 1;
    await store.sweep(now);
    await server.server.heartbeat.renew();
    expect(server.server.live.get(runId)?.controller.signal.aborted ?? true).toBe(true);
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    expect(decodeBlocks(text).at(-1)).toMatchObject({
      type: 'error',
      error: { type: 'instance_lost' },
    });
  });
});
