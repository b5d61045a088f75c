import { afterEach, describe, expect, it } from 'vitest';
import { ToolwireError } from '../../src/core/errors.ts';
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

/** The store with `renew` refused while `refusing` is set (a Redis failover, a call deadline). */
function flakyRenewals(store: RunStore): { store: RunStore; refusing: boolean } {
  const control = { store, refusing: false };
  control.store = new Proxy(store, {
    get(target, key) {
      if (key === 'renew' && control.refusing)
        return () =>
          Promise.reject(new ToolwireError('store-unavailable', 'no answer within 5000 ms'));
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return control;
}

/** The store with `finish` held until `release` (a run that winds down slowly after Stop). */
function slowFinish(store: RunStore): {
  store: RunStore;
  release(): void;
  finishing: Promise<void>;
} {
  let release: () => void = () => {};
  let started: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const finishing = new Promise<void>((resolve) => {
    started = resolve;
  });
  const wrapped = new Proxy(store, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (key === 'finish')
        return async (...args: Parameters<RunStore['finish']>) => {
          started();
          await gate;
          return target.finish(...args);
        };
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { store: wrapped, release: () => release(), finishing };
}

describe('RunHeartbeat: leases', () => {
  async function stalledRun(store: RunStore, clock: () => number) {
    const server = await startTestServer({
      model: scriptedModel([{ text: '<thinking>Working', stall: true }]).model,
      tools: serverTools(repository()),
      store,
      clock,
    });
    servers.push(server);
    const response = await postJson(`${server.url}/api/runs`, { prompt: 'Hi' });
    const runId = response.headers.get('x-run-id')!;
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('CDATA[')) text += new TextDecoder().decode((await reader.read()).value);
    return { server, runId, reader };
  }

  it('one failed renewal does not stop a run whose lease has time left; the next renews it', async () => {
    let now = 5_000_000;
    const memory = new MemoryRunStore({ clock: () => now });
    const flaky = flakyRenewals(memory);
    const { server, runId, reader } = await stalledRun(flaky.store, () => now);
    const controller = server.server.live.get(runId)!.controller;
    await server.server.heartbeat.renew();
    now += 3000;
    flaky.refusing = true;
    await server.server.heartbeat.renew();
    now += 3000;
    await server.server.heartbeat.renew();
    expect(controller.signal.aborted).toBe(false);
    flaky.refusing = false;
    now += 3000;
    await server.server.heartbeat.renew();
    expect(controller.signal.aborted).toBe(false);
    expect((await memory.getRun(runId))?.leaseUntil).toBe(now + memory.limits.leaseMs);
    await reader.cancel();
  });

  it('renewals that fail until the lease surely ran out stop the run', async () => {
    let now = 6_000_000;
    const memory = new MemoryRunStore({ clock: () => now });
    const flaky = flakyRenewals(memory);
    const { server, runId, reader } = await stalledRun(flaky.store, () => now);
    const controller = server.server.live.get(runId)!.controller;
    await server.server.heartbeat.renew();
    flaky.refusing = true;
    now += memory.limits.leaseMs - 1;
    await server.server.heartbeat.renew();
    expect(controller.signal.aborted).toBe(false);
    now += 1;
    await server.server.heartbeat.renew();
    expect(controller.signal.aborted).toBe(true);
    await reader.cancel();
  });

  it('a run being stopped keeps its lease until its end is written: it ends aborted, not lost', async () => {
    let now = 7_000_000;
    const memory = new MemoryRunStore({ clock: () => now });
    const slow = slowFinish(memory);
    const { server, runId, reader } = await stalledRun(slow.store, () => now);
    expect((await postJson(`${server.url}/api/runs/${runId}/abort`, {})).status).toBe(202);
    await slow.finishing;
    // The wind-down outlasts the lease; the heartbeat renews it meanwhile.
    for (let beat = 0; beat < 5; beat++) {
      now += Math.floor(memory.limits.leaseMs / 3);
      await server.server.heartbeat.renew();
      await memory.sweep(now);
    }
    expect((await memory.getRun(runId))?.status).toBe('running');
    slow.release();
    let text = '';
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    expect(decodeBlocks(text).at(-1)).toMatchObject({ type: 'error', error: { type: 'aborted' } });
    expect((await memory.getRun(runId))?.outcome).toBe('aborted');
  });
});
