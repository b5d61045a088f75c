import { afterEach, describe, expect, it } from 'vitest';
import { runAgent } from '../../src/agent/index.ts';
import { ToolwireError } from '../../src/core/errors.ts';
import { BlocksWire } from '../../src/server/blocks-wire.ts';
import { AgentBlockAdapter, RunDriver, serverTools } from '../../src/server/index.ts';
import { MemoryRunStore, MemoryRunStoreBacking } from '../../src/store/memory/memory-run-store.ts';
import type { RunStore } from '../../src/store/run-store.ts';
import { BlockEncoder, decodeBlocks, type MetaInitData } from '../../src/stream/index.ts';
import { scriptedModel } from '../agent/scripted-model.ts';
import {
  ANSWER_TURN,
  ofType,
  postJson,
  repository,
  SEARCH_TURN,
  startTestServer,
  type TestServer,
  waitForAsync,
} from './helpers.ts';
import {
  closeServers,
  createBlocksRun,
  readRest,
  readUntil,
  startStalledRun,
  storeWith,
} from './run-fixtures.ts';

const META: MetaInitData = { format: 'xml', user_query: 'Q', agent_uuid: 'r1', model: 'scripted' };

const servers: TestServer[] = [];
afterEach(() => closeServers(servers));

/** Every frame of a stopped log, in order. */
async function logFrames(store: RunStore, log: string): Promise<string[]> {
  const frames: string[] = [];
  for await (const item of store.read(log, undefined, new AbortController().signal))
    if ('frame' in item) frames.push(item.frame);
  return frames;
}

/** The same store, whose writes fail (as a Redis that went away) once `failing` is set. */
function failingStore(store: RunStore): { store: RunStore; fail(): void } {
  let failing = false;
  const refuse = () =>
    Promise.reject(new ToolwireError('store-unavailable', 'the store does not answer'));
  const wrapped = storeWith(store, (key) =>
    failing && (key === 'append' || key === 'pause' || key === 'finish') ? refuse : undefined,
  );
  return {
    store: wrapped,
    fail: () => {
      failing = true;
    },
  };
}

describe('RunDriver', () => {
  it('writes what the agent emits in one macrotask as one append, and the log is the direct encoding', async () => {
    const turns = [
      { text: SEARCH_TURN, chunkDelayMs: 1 },
      { text: ANSWER_TURN, chunkDelayMs: 1 },
    ];
    // What the content-block stream of this run is, encoded directly.
    const direct = runAgent({
      model: scriptedModel(turns).model,
      tools: serverTools(repository()),
      prompt: 'Q',
    });
    const adapter = new AgentBlockAdapter();
    const encoder = new BlockEncoder();
    const expected = [encoder.encode({ type: 'meta-init', data: META })];
    for await (const event of direct)
      for (const block of adapter.push(event)) expected.push(encoder.encode(block));
    for (const block of adapter.finish(await direct.result)) expected.push(encoder.encode(block));

    const store = new MemoryRunStore();
    const appends: number[] = [];
    const counting = storeWith(store, (key, target) =>
      key === 'append'
        ? (...args: Parameters<RunStore['append']>) => {
            appends.push(args[1].length);
            return target.append(...args);
          }
        : undefined,
    );
    const lease = await createBlocksRun(store);
    const controller = new AbortController();
    const run = runAgent({
      model: scriptedModel(turns).model,
      tools: serverTools(repository()),
      prompt: 'Q',
      signal: controller.signal,
    });
    const driver = new RunDriver({
      store: counting,
      lease,
      run,
      controller,
      wire: new BlocksWire({ adapter: new AgentBlockAdapter(), meta: META }),
      now: Date.now,
    });
    await driver.start().done;
    // Call ids are random per run: compared without them.
    const sameIds = (frames: readonly string[]) =>
      frames.map((frame) => frame.replaceAll(/call_[a-z0-9]+_/g, 'call_'));
    expect(sameIds(await logFrames(store, 'r1'))).toEqual(
      sameIds(expected.filter((frame) => frame.length > 0)),
    );
    expect((await store.getRun('r1'))?.outcome).toBe('completed');
    // meta_init alone, then batches: fewer appends than frames (the chunks come 1 ms apart, so
    // most batches hold the blocks of one chunk, yet a chunk's several blocks go together).
    expect(appends[0]).toBe(1);
    expect(appends.length).toBeLessThan(expected.length);
  });

  it('frames queued while the first append is still on its way go out once it lands (a slow store)', async () => {
    const store = new MemoryRunStore();
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let first = true;
    const slowFirst = storeWith(store, (key, target) =>
      key === 'append'
        ? async (...args: Parameters<RunStore['append']>) => {
            if (first) {
              first = false;
              await gate;
            }
            return target.append(...args);
          }
        : undefined,
    );
    const lease = await createBlocksRun(store);
    const scripted = scriptedModel([{ text: '<thinking>Working on it', stall: true }]);
    const controller = new AbortController();
    const run = runAgent({
      model: scripted.model,
      tools: serverTools(repository()),
      prompt: 'Q',
      signal: controller.signal,
    });
    const driver = new RunDriver({
      store: slowFirst,
      lease,
      run,
      controller,
      wire: new BlocksWire({ adapter: new AgentBlockAdapter(), meta: META }),
      now: Date.now,
    });
    const { done } = driver.start();
    // The model has written everything and the driver has tried to send it (a macrotask later).
    await waitForAsync(async () => (scripted.chunksRead[0] ?? 0) >= 5, 'the model to write');
    await new Promise((resolve) => setImmediate(resolve));
    release();
    const seen: string[] = [];
    const reading = new AbortController();
    for await (const item of store.read('r1', undefined, reading.signal)) {
      if ('frame' in item) seen.push(item.frame);
      if (seen.join('').includes('CDATA[')) break;
    }
    expect(seen.join('')).toContain('<content-block-thinking>');
    controller.abort();
    await done;
  });

  it('a lost instance: the sweep of another ends its run with the blocks it left open closed and instance_lost', async () => {
    let now = 7_000_000;
    const backing = new MemoryRunStoreBacking({ clock: () => now });
    // Read into the thinking block (the first CDATA is meta_init's), which the sweep must close.
    const {
      server: a,
      runId,
      reader,
      text,
    } = await startStalledRun(servers, { store: backing.open('A'), clock: () => now }, 2);
    // A stops renewing (as a process killed -9 would); B sweeps once the lease ran out.
    now += backing.limits.leaseMs + 1;
    await backing.open('B').sweep(now);
    const blocks = decodeBlocks(await readRest(reader, text));
    expect(blocks.at(-2)?.type).toBe('thinking-end');
    expect(blocks.at(-1)).toMatchObject({ type: 'error', error: { type: 'instance_lost' } });
    expect((await backing.open('B').getRun(runId))?.outcome).toBe('instance_lost');
    // A learns it lost the run, stops it and writes nothing after the tail.
    await a.server.heartbeat.renew();
    await waitForAsync(async () => a.server.live.active === 0, 'A to stop the run');
    const again = decodeBlocks(await (await fetch(`${a.url}/api/runs/${runId}/events`)).text());
    expect(again).toEqual(blocks);
  });

  describe('a run that asks a front-end tool', () => {
    const ASK_TURN =
      '<tool_call>{"name":"ask_user","arguments":{"question":"Which city?"}}</tool_call>';
    const tools = {
      ...serverTools(repository()),
      ask_user: {
        description: 'Ask the user a question',
        inputSchema: {
          type: 'object' as const,
          properties: { question: { type: 'string' as const } },
          required: ['question'],
        },
      },
    };

    /** Drives an asking run into `store` (its writes seen through `around`) to its end. */
    async function driveAsking(
      store: RunStore,
      around: (store: RunStore, controller: AbortController) => RunStore = (inner) => inner,
      prompt = 'Q',
    ) {
      const lease = await createBlocksRun(store, { protocol: 'hermes', prompt });
      const controller = new AbortController();
      // The agent runs to its pause whatever the controller says: the driver alone decides.
      const run = runAgent({
        model: scriptedModel([ASK_TURN]).model,
        protocol: 'hermes',
        tools,
        prompt,
      });
      await new RunDriver({
        store: around(store, controller),
        lease,
        run,
        controller,
        wire: new BlocksWire({ adapter: new AgentBlockAdapter(), meta: META }),
        now: Date.now,
      }).start().done;
      return decodeBlocks((await logFrames(store, 'r1')).join(''));
    }

    /** The store, with `before` run ahead of each call of `method`. */
    function ahead(store: RunStore, method: 'append' | 'pause', before: () => unknown) {
      return storeWith(store, (key, target) =>
        key === method
          ? async (...args: unknown[]) => {
              await before();
              return (target[method] as (...args: unknown[]) => unknown).apply(target, args);
            }
          : undefined,
      );
    }

    it('pauses, the block that asks written, when nothing stops it', async () => {
      const store = new MemoryRunStore();
      const blocks = await driveAsking(store);
      expect(ofType(blocks, 'awaiting-frontend-tools')).toHaveLength(1);
      expect((await store.getRun('r1'))?.status).toBe('paused');
    });

    it('a Stop that lands while its frames are written wins: it ends aborted, asking for nothing', async () => {
      const store = new MemoryRunStore();
      const blocks = await driveAsking(store, (inner, controller) =>
        ahead(inner, 'append', () => controller.abort(new Error('stopped by the user'))),
      );
      expect(ofType(blocks, 'awaiting-frontend-tools')).toEqual([]);
      expect(blocks.at(-1)).toMatchObject({ type: 'error', error: { type: 'aborted' } });
      expect(await store.getRun('r1')).toMatchObject({ status: 'finished', outcome: 'aborted' });
    });

    it('a Stop that reaches the store just before the pause wins there too', async () => {
      const store = new MemoryRunStore();
      const blocks = await driveAsking(store, (inner) =>
        ahead(inner, 'pause', () => inner.requestAbort('r1', 'stopped by the user', Date.now())),
      );
      expect(ofType(blocks, 'awaiting-frontend-tools')).toEqual([]);
      expect(blocks.at(-1)).toMatchObject({
        type: 'error',
        error: { message: expect.stringContaining('aborted') },
      });
      expect(await store.getRun('r1')).toMatchObject({ status: 'finished', outcome: 'aborted' });
    });

    it('a run too large to keep while it waits ends saying so, not asking for answers', async () => {
      // Paused, it would keep its prompt (in its state too); finished, it keeps its outcome only.
      const store = new MemoryRunStore({ limits: { maxRememberedBytes: 4096 } });
      const blocks = await driveAsking(store, undefined, 'Q'.repeat(3000));
      expect(ofType(blocks, 'awaiting-frontend-tools')).toEqual([]);
      const outcome = (await store.getRun('r1'))?.outcome;
      expect(outcome).toMatch(/^dropped: its conversation/);
      expect(blocks.at(-1)).toMatchObject({
        type: 'error',
        error: { message: `the run was stopped: ${outcome}` },
      });
    });
  });

  it('a store that fails mid-run: the run is stopped and its readers here are told, not left hanging', async () => {
    const failing = failingStore(new MemoryRunStore());
    const server = await startTestServer({
      model: scriptedModel([{ text: SEARCH_TURN, chunkDelayMs: 2 }, ANSWER_TURN]).model,
      tools: serverTools(repository()),
      store: failing.store,
    });
    servers.push(server);
    const response = await postJson(`${server.url}/api/runs`, { prompt: 'Hi' });
    const reader = response.body!.getReader();
    const text = await readUntil(reader, (read) => read.includes('meta_init'));
    failing.fail();
    const errors = ofType(decodeBlocks(await readRest(reader, text)), 'error');
    expect(errors.at(-1)).toMatchObject({
      error: { type: 'store_unavailable', message: expect.stringContaining('does not answer') },
    });
    await waitForAsync(async () => server.server.live.active === 0, 'the run to stop');
  });

  it('a store that does not answer a request: 503, saying so', async () => {
    const failing = failingStore(new MemoryRunStore());
    failing.fail();
    const down = storeWith(failing.store, (key) =>
      key === 'getRun' || key === 'createRun'
        ? () => Promise.reject(new ToolwireError('store-unavailable', 'connection refused'))
        : undefined,
    );
    const server = await startTestServer({
      model: scriptedModel([ANSWER_TURN]).model,
      tools: serverTools(repository()),
      store: down,
    });
    servers.push(server);
    for (const response of [
      await postJson(`${server.url}/api/runs`, { prompt: 'Hi' }),
      await fetch(`${server.url}/api/runs/r1/events`),
    ]) {
      expect(response.status).toBe(503);
      expect(((await response.json()) as { error: string }).error).toBe(
        'the run store is unavailable: connection refused',
      );
    }
  });
});
