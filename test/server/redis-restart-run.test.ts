/**
 * Redis killed under a running run, at the server's level: the response that streams the run
 * and a reader on another instance each end with a `store_unavailable` error block after the
 * open block is closed (never a hang, never a bare end); a run asked for while Redis is down is
 * a 503 that says the run store is unavailable; once Redis is back (empty: it keeps nothing on
 * disk), new runs stream to their end on both instances. A Redis that stops answering (SIGSTOP)
 * ends the run's streams the same way, within the store's deadlines. Each step waits on what
 * happened (Redis's exit, a response's end), not on a guessed time.
 */
import type { LanguageModelV4, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { serverTools } from '../../src/server/index.ts';
import { createRedisRunStore, type RedisRunStore } from '../../src/store/redis/index.ts';
import { type RedisServer, skipRedisTests, startRedis } from '../support/redis-server.ts';
import {
  decodeResponse,
  EventReader,
  postJson,
  repository,
  startTestServer,
  type TestServer,
} from './helpers.ts';
import { closeServers } from './run-fixtures.ts';

const FIRST = '<thinking>Reading the login code';
const REST =
  ' and its callers.</thinking>\n<attempt_completion><result>Login is handled by `loginUser` in login.js.</result></attempt_completion>';

/**
 * A model whose first call writes `FIRST`, then waits for `release()` before it writes the rest;
 * every later call writes it all at once.
 */
function gatedModel(): { model: LanguageModelV4; release: () => void } {
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let calls = 0;
  const delta = (text: string): LanguageModelV4StreamPart => ({
    type: 'text-delta',
    id: 't',
    delta: text,
  });
  const model: LanguageModelV4 = {
    specificationVersion: 'v4',
    provider: 'gated',
    modelId: 'gated',
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error('the gated model only streams')),
    doStream: async (call) => {
      const gated = calls++ === 0;
      return {
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          async start(controller) {
            controller.enqueue({ type: 'stream-start', warnings: [] });
            controller.enqueue({ type: 'text-start', id: 't' });
            controller.enqueue(delta(FIRST));
            if (gated)
              await Promise.race([
                gate,
                new Promise((resolve) =>
                  call.abortSignal?.addEventListener('abort', resolve, { once: true }),
                ),
              ]);
            controller.enqueue(delta(REST));
            controller.enqueue({ type: 'text-end', id: 't' });
            controller.enqueue({
              type: 'finish',
              finishReason: { unified: 'stop', raw: 'stop' },
              usage: {
                inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
                outputTokens: { total: 1, text: 1, reasoning: 0 },
              },
            });
            controller.close();
          },
        }),
      };
    },
  };
  return { model, release };
}

/** Calls `attempt` until it gives a value: the store's client reconnects on its own schedule. Bounded by count. */
async function eventually<T>(attempt: () => Promise<T | undefined>): Promise<T> {
  for (let tries = 0; tries < 2000; tries++) {
    const value = await attempt();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('no answer after 2000 tries');
}

describe.skipIf(skipRedisTests())('a running server when Redis is killed', () => {
  let redis: RedisServer;
  const servers: TestServer[] = [];
  const stores: RedisRunStore[] = [];

  beforeAll(async () => {
    redis = await startRedis();
  });
  beforeEach(async () => {
    await redis.start();
  });
  afterEach(async () => {
    await closeServers(servers);
    for (const store of stores.splice(0)) await store.close();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  async function instances(
    model: LanguageModelV4,
    options: { callDeadlineMs?: number; tailerBlockMs?: number } = {},
  ) {
    const tools = serverTools(repository());
    const open = async (instanceId: string) => {
      const store = await createRedisRunStore(redis.url, {
        prefix: 'restart:',
        instanceId,
        ...options,
      });
      stores.push(store);
      const server = await startTestServer({ model, modelName: 'gated', tools, store });
      servers.push(server);
      return server;
    };
    return { a: await open('A'), b: await open('B') };
  }

  it('the run’s response and a reader on another instance end with store_unavailable, the open block closed', async () => {
    const { model, release } = gatedModel();
    const { a, b } = await instances(model);
    const started = await postJson(`${a.url}/api/runs`, { prompt: 'Explain login' });
    expect(started.status).toBe(200);
    const runId = started.headers.get('x-run-id')!;
    const direct = new EventReader(started);
    await direct.until((event) => event.type === 'thinking-delta');
    const onB = await fetch(`${b.url}/api/runs/${runId}/events`);
    expect(onB.status).toBe(200);
    const reader = new EventReader(onB);
    await reader.until((event) => event.type === 'thinking-delta');

    await redis.kill();
    release();

    const ends = { direct: await direct.rest(), readerOnB: await reader.rest() };
    for (const events of Object.values(ends)) {
      expect(events.filter((event) => event.type === 'decode-error')).toEqual([]);
      expect(events.slice(-2)).toMatchObject([
        { type: 'thinking-end' },
        {
          type: 'error',
          error: { type: 'store_unavailable', message: expect.stringMatching(/run store/) },
        },
      ]);
    }
  });

  it('a run asked for while Redis is down is a 503 saying the run store is unavailable', async () => {
    const { model } = gatedModel();
    const { a } = await instances(model);
    await redis.kill();
    const refused = await postJson(`${a.url}/api/runs`, { prompt: 'Explain login' });
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as { error: string }).error).toMatch(
      /^the run store is unavailable: .*Redis at 127\.0\.0\.1:/,
    );
  });

  it('once Redis is back, new runs stream to their end on both instances', async () => {
    const { model, release } = gatedModel();
    release();
    const { a, b } = await instances(model);
    await redis.restart();
    for (const server of [a, b]) {
      const response = await eventually(async () => {
        const attempt = await postJson(`${server.url}/api/runs`, { prompt: 'Explain login' });
        if (attempt.status === 200) return attempt;
        expect(attempt.status).toBe(503);
        await attempt.body?.cancel();
        return undefined;
      });
      const events = await decodeResponse(response);
      expect(events.at(-1)?.type).toBe('meta-final');
      expect(events.some((event) => event.type === 'error' || event.type === 'decode-error')).toBe(
        false,
      );
      const runId = response.headers.get('x-run-id')!;
      const other = server === a ? b : a;
      // The other instance's own connection comes back on its own schedule: 503 until then.
      const read = await eventually(async () => {
        const attempt = await fetch(`${other.url}/api/runs/${runId}/events`);
        if (attempt.status === 200) return attempt;
        expect(attempt.status).toBe(503);
        await attempt.body?.cancel();
        return undefined;
      });
      expect(await decodeResponse(read)).toEqual(events);
    }
  });

  it('Redis that stops answering (SIGSTOP): the run’s streams end with store_unavailable (the store’s call deadline ends each wait, never a hang)', async () => {
    const { model, release } = gatedModel();
    const { a, b } = await instances(model, { callDeadlineMs: 500, tailerBlockMs: 500 });
    const started = await postJson(`${a.url}/api/runs`, { prompt: 'Explain login' });
    const runId = started.headers.get('x-run-id')!;
    const direct = new EventReader(started);
    await direct.until((event) => event.type === 'thinking-delta');
    const reader = new EventReader(await fetch(`${b.url}/api/runs/${runId}/events`));
    await reader.until((event) => event.type === 'thinking-delta');

    const pid = redis.pid();
    process.kill(pid, 'SIGSTOP');
    try {
      release();
      const ends = { direct: await direct.rest(), readerOnB: await reader.rest() };
      for (const events of Object.values(ends)) {
        expect(events.filter((event) => event.type === 'decode-error')).toEqual([]);
        expect(events.at(-1)).toMatchObject({
          type: 'error',
          error: { type: 'store_unavailable', message: expect.stringMatching(/run store/) },
        });
      }
    } finally {
      process.kill(pid, 'SIGCONT');
    }
  });
});
