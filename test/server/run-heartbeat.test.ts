import { afterEach, describe, expect, it } from 'vitest';
import { ToolwireError } from '../../src/core/errors.ts';
import { MemoryRunStore } from '../../src/store/memory/memory-run-store.ts';
import type { RunStore } from '../../src/store/run-store.ts';
import { decodeBlocks } from '../../src/stream/index.ts';
import { ofType, postJson, type TestServer } from './helpers.ts';
import { closeServers, readRest, startStalledRun, storeWith } from './run-fixtures.ts';

const servers: TestServer[] = [];
afterEach(() => closeServers(servers));

/** The store with its stop messages lost (as pub/sub loses them while it reconnects). */
function deafStore(store: RunStore): RunStore {
  return storeWith(store, (key) => (key === 'onAbort' ? () => () => {} : undefined));
}

describe('RunHeartbeat', () => {
  it('a stop whose message was lost is still carried out at the next renewal', async () => {
    const { server, runId, reader, text } = await startStalledRun(servers, {
      store: deafStore(new MemoryRunStore()),
    });
    expect((await postJson(`${server.url}/api/runs/${runId}/abort`, {})).status).toBe(202);
    // Nothing reached the owner: the run goes on until the heartbeat renews its lease.
    expect(server.server.live.get(runId)?.controller.signal.aborted).toBe(false);
    await server.server.heartbeat.renew();
    expect(server.server.live.get(runId)?.controller.signal.aborted).toBe(true);
    expect(ofType(decodeBlocks(await readRest(reader, text)), 'error').at(-1)).toMatchObject({
      error: { type: 'aborted' },
    });
  });

  it('a run whose lease was lost is stopped at the renewal, and nothing more is written', async () => {
    let now = 3_000_000;
    const store = new MemoryRunStore({ clock: () => now });
    const { server, runId, reader, text } = await startStalledRun(servers, {
      store,
      clock: () => now,
    });
    now += store.limits.leaseMs + 1;
    await store.sweep(now);
    await server.server.heartbeat.renew();
    expect(server.server.live.get(runId)?.controller.signal.aborted ?? true).toBe(true);
    expect(decodeBlocks(await readRest(reader, text)).at(-1)).toMatchObject({
      type: 'error',
      error: { type: 'instance_lost' },
    });
  });
});

/** The store with `renew` refused while `refusing` is set (a Redis failover, a call deadline). */
function flakyRenewals(store: RunStore): { store: RunStore; refusing: boolean } {
  const control = { store, refusing: false };
  control.store = storeWith(store, (key) =>
    key === 'renew' && control.refusing
      ? () => Promise.reject(new ToolwireError('store-unavailable', 'no answer within 5000 ms'))
      : undefined,
  );
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
  const wrapped = storeWith(store, (key, target) =>
    key === 'finish'
      ? async (...args: Parameters<RunStore['finish']>) => {
          started();
          await gate;
          return target.finish(...args);
        }
      : undefined,
  );
  return { store: wrapped, release: () => release(), finishing };
}

describe('RunHeartbeat: leases', () => {
  const stalledRun = (store: RunStore, clock: () => number) =>
    startStalledRun(servers, { store, clock });

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
    expect(decodeBlocks(await readRest(reader)).at(-1)).toMatchObject({
      type: 'error',
      error: { type: 'aborted' },
    });
    expect((await memory.getRun(runId))?.outcome).toBe('aborted');
  });
});
