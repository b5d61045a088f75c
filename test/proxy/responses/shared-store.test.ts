/**
 * Two proxies (in process) on one run store, as two instances behind a load balancer: a response
 * stored through A is continued with `previous_response_id` through B, with the official `openai`
 * client, on one memory backing and on one real Redis. A store that fails is a 503, a record
 * that is not one the proxy wrote a 500, both in OpenAI's error shape, never a hang; the store's
 * limits bound what is kept.
 */
import OpenAI, { APIError } from 'openai';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../../src/http/node-server.ts';
import { createProxyApp, type ProxyApp } from '../../../src/proxy/index.ts';
import {
  MemoryRunStoreBacking,
  type RunStore,
  type RunStoreLimits,
} from '../../../src/store/index.ts';
import { createRedisRunStore } from '../../../src/store/redis/index.ts';
import { type RedisServer, skipRedisTests, startRedis } from '../../support/redis-server.ts';
import { callText } from '../harness.ts';
import {
  type ScriptedReply,
  type ScriptedUpstream,
  startScriptedUpstream,
} from '../scripted-upstream.ts';
import { PARIS, sentTexts, WEATHER_TOOL } from './helpers.ts';

const T0 = 1_700_000_000_000;

/** Opens one handle on a shared store per instance. */
type SharedStore = (
  limits?: Partial<RunStoreLimits>,
  clock?: () => number,
) => Promise<{ open(instanceId: string): Promise<RunStore> }>;

interface Instance {
  readonly client: OpenAI;
  readonly store: RunStore;
  readonly proxy: ProxyApp;
  readonly logged: string[];
}

let upstream: ScriptedUpstream | undefined;
const servers: RunningServer[] = [];
const stores: RunStore[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  for (const store of stores.splice(0)) await store.close();
  await upstream?.close();
  upstream = undefined;
});

/** A proxy on `store` in front of the test's model server, and the official client pointed at it. */
async function instanceOn(store: RunStore): Promise<Instance> {
  const logged: string[] = [];
  const proxy = createProxyApp({
    upstream: upstream!.url,
    protocol: 'hermes',
    store,
    log: (line) => logged.push(line),
  });
  const running = await startServer(proxy, { port: 0, host: '127.0.0.1' });
  servers.push(running);
  return {
    client: new OpenAI({ baseURL: `${running.url}/v1`, apiKey: 'sk-test', maxRetries: 0 }),
    store,
    proxy,
    logged,
  };
}

/** Instances A and B on one store, in front of one scripted model server. */
async function twoInstances(
  shared: SharedStore,
  script: readonly ScriptedReply[],
  limits: Partial<RunStoreLimits> = {},
  clock?: () => number,
): Promise<{ a: Instance; b: Instance; upstream: ScriptedUpstream }> {
  upstream = await startScriptedUpstream(script);
  const backing = await shared(limits, clock);
  const open = async (id: string) => {
    const store = await backing.open(id);
    stores.push(store);
    return instanceOn(store);
  };
  return { a: await open('A'), b: await open('B'), upstream };
}

/** The error a promise rejects with; fails the test when it resolves. */
async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error,
  );
}

/**
 * Every event of a streamed response, the error the client threw, if any, and whether the
 * response was in `store` when `response.completed` arrived (a client may continue it at once).
 */
async function streamed(
  client: OpenAI,
  body: Omit<OpenAI.Responses.ResponseCreateParamsStreaming, 'stream'>,
  store?: RunStore,
): Promise<{ events: ResponseStreamEvent[]; error: unknown; storedAtCompletion: boolean }> {
  const stream = await client.responses.create({ ...body, stream: true });
  const events: ResponseStreamEvent[] = [];
  let storedAtCompletion = false;
  try {
    for await (const event of stream) {
      events.push(event);
      if (event.type === 'response.completed' && store !== undefined)
        storedAtCompletion = (await store.responses.get(event.response.id)) !== undefined;
    }
    return { events, error: undefined, storedAtCompletion };
  } catch (error) {
    return { events, error, storedAtCompletion };
  }
}

function completedId(events: readonly ResponseStreamEvent[]): string {
  const last = events.at(-1);
  if (last?.type !== 'response.completed') throw new Error(`ended with ${last?.type}`);
  return last.response.id;
}

/** Continuing `id` through `instance` is a 404 previous_response_not_found naming it. */
async function expectNotFound(instance: Instance, id: string): Promise<void> {
  const error = await failure(
    instance.client.responses.create({
      model: 'scripted-model',
      previous_response_id: id,
      input: 'Go on',
    }),
  );
  expect(error).toBeInstanceOf(APIError);
  expect((error as APIError).status).toBe(404);
  expect((error as APIError).code).toBe('previous_response_not_found');
  expect((error as APIError).message).toContain(id);
}

let prefixes = 0;
let redis: RedisServer | undefined;

const memoryBacking: SharedStore = async (limits, clock) => {
  const backing = new MemoryRunStoreBacking({
    limits,
    ...(clock === undefined ? {} : { clock }),
  });
  return { open: async (id) => backing.open(id) };
};

const redisBacking: SharedStore = async (limits) => {
  const prefix = `proxy${++prefixes}:`;
  return {
    open: (instanceId) => createRedisRunStore(redis!.url, { prefix, instanceId, limits }),
  };
};

function sharedStoreTests(name: string, shared: SharedStore) {
  describe(`two proxies on one ${name} store`, () => {
    it('a response stored through A is continued through B: its turns come first', async () => {
      const { a, b, upstream } = await twoInstances(shared, [
        { text: 'My name is Scripted.' },
        { text: 'You asked my name.' },
        { text: 'Now we talk.' },
      ]);
      const first = await a.client.responses.create({
        model: 'scripted-model',
        instructions: 'Be terse.',
        input: [
          { role: 'developer', content: 'Answer in English.' },
          { role: 'user', content: 'What is your name?' },
        ],
      });
      const second = await b.client.responses.create({
        model: 'scripted-model',
        previous_response_id: first.id,
        input: 'What did I ask?',
      });
      expect(second.output_text).toBe('You asked my name.');
      expect(second.previous_response_id).toBe(first.id);
      const sent = upstream.requests[1]!;
      expect(sent.messages.map((message) => message.role)).toEqual([
        'system',
        'user',
        'assistant',
        'user',
      ]);
      // The input's developer text carries over; the first request's instructions do not.
      expect(sentTexts(sent)).toEqual([
        'Answer in English.',
        'What is your name?',
        'My name is Scripted.',
        'What did I ask?',
      ]);
      // B's answer is stored too: A continues it.
      const third = await a.client.responses.create({
        model: 'scripted-model',
        previous_response_id: second.id,
        input: 'And now?',
      });
      expect(third.output_text).toBe('Now we talk.');
      expect(sentTexts(upstream.requests[2]!).slice(1)).toEqual([
        'What is your name?',
        'My name is Scripted.',
        'What did I ask?',
        'You asked my name.',
        'And now?',
      ]);
    });

    it('streamed: a call stored through A, its output sent through B, reaches the model with the call', async () => {
      const { a, b, upstream } = await twoInstances(shared, [
        { text: callText(PARIS) },
        { text: 'It is sunny in Paris.' },
      ]);
      const first = await streamed(
        a.client,
        { model: 'scripted-model', input: 'Weather in Paris?', tools: [WEATHER_TOOL] },
        b.store,
      );
      expect(first.error).toBeUndefined();
      expect(first.storedAtCompletion).toBe(true);
      const done = first.events.at(-1);
      if (done?.type !== 'response.completed') throw new Error(`ended with ${done?.type}`);
      const call = done.response.output.find((item) => item.type === 'function_call')!;
      const second = await streamed(b.client, {
        model: 'scripted-model',
        previous_response_id: completedId(first.events),
        tools: [WEATHER_TOOL],
        input: [{ type: 'function_call_output', call_id: call.call_id, output: '{"sky":"sunny"}' }],
      });
      expect(second.error).toBeUndefined();
      expect(completedId(second.events)).toMatch(/^resp_/);
      const sent = upstream.requests[1]!;
      // The tools' system text, the question, the call as the model wrote it, its output.
      expect(sent.messages.map((message) => message.role)).toEqual([
        'system',
        'user',
        'assistant',
        'user',
      ]);
      const texts = sentTexts(sent);
      expect(texts[1]).toBe('Weather in Paris?');
      expect(texts[2]).toContain('"arguments":{"city":"Paris"}');
      expect(texts[3]).toContain('sunny');
    });

    it('an id no instance stored is 404 previous_response_not_found on either', async () => {
      const { a, b, upstream } = await twoInstances(shared, [{ text: 'Hi.' }]);
      const kept = await a.client.responses.create({
        model: 'scripted-model',
        input: 'Hi',
        store: false,
      });
      for (const instance of [a, b]) {
        await expectNotFound(instance, kept.id);
      }
      const long = `resp_${'x'.repeat(300)}`;
      await expectNotFound(b, long);
      expect(upstream.requests).toHaveLength(1);
    });

    it('a record that is not one the proxy wrote is a 500 naming it, logged, and the model is not asked', async () => {
      const { a, b, upstream } = await twoInstances(shared, [{ text: 'never' }]);
      const garbage: [string, string, RegExp][] = [
        ['resp_text', 'not json at all', /is not JSON/],
        ['resp_array', '[1,2,3]', /the stored conversation is not an object/],
        ['resp_role', '{"system":"","turns":[{"role":"wizard"}]}', /turns\[0\]\.role is not/],
        [
          'resp_call',
          '{"system":"","turns":[{"role":"assistant","text":"","calls":[{"toolName":7,"input":{}}]}]}',
          /turns\[0\]\.calls\[0\]\.toolName is not a string/,
        ],
        ['resp_deep', `${'['.repeat(5000)}${']'.repeat(5000)}`, /nests deeper than/],
      ];
      for (const [id, text] of garbage) expect(await a.store.responses.put(id, text)).toBe(true);
      for (const [id, , reason] of garbage) {
        const error = await failure(
          b.client.responses.create({
            model: 'scripted-model',
            previous_response_id: id,
            input: 'Go on',
          }),
        );
        expect(error).toBeInstanceOf(APIError);
        expect((error as APIError).status).toBe(500);
        expect((error as APIError).message).toContain(`the stored response '${id}' cannot be read`);
        expect((error as APIError).message).toMatch(reason);
      }
      expect(b.logged).toHaveLength(garbage.length);
      expect(b.logged[0]).toContain("the stored response 'resp_text' cannot be read");
      expect(upstream.requests).toHaveLength(0);
    });

    it('the store bounds the count: past maxStoredResponses the oldest is forgotten', async () => {
      const { a, b } = await twoInstances(
        shared,
        [{ text: 'one' }, { text: 'two' }, { text: 'three' }, { text: 'after three' }],
        { maxStoredResponses: 2 },
      );
      const ids: string[] = [];
      for (const input of ['1', '2', '3'])
        ids.push((await a.client.responses.create({ model: 'scripted-model', input })).id);
      await expectNotFound(b, ids[0]!);
      const kept = await b.client.responses.create({
        model: 'scripted-model',
        previous_response_id: ids[2]!,
        input: 'Go on',
      });
      expect(kept.output_text).toBe('after three');
    });

    it('the store bounds the bytes: a response larger than maxStoredResponseBytes is not kept', async () => {
      const { a, b } = await twoInstances(
        shared,
        [{ text: 'short' }, { text: 'x'.repeat(4000) }, { text: 'after short' }],
        { maxStoredResponseBytes: 2000 },
      );
      const small = await a.client.responses.create({ model: 'scripted-model', input: 'Hi' });
      const large = await a.client.responses.create({ model: 'scripted-model', input: 'Long' });
      expect(large.status).toBe('completed');
      await expectNotFound(b, large.id);
      const continued = await b.client.responses.create({
        model: 'scripted-model',
        previous_response_id: small.id,
        input: 'Go on',
      });
      expect(continued.output_text).toBe('after short');
    });

    it('closing a proxy leaves its store open: the other instance still reads what it stored', async () => {
      const { a, b } = await twoInstances(shared, [{ text: 'one' }, { text: 'two' }]);
      const first = await a.client.responses.create({ model: 'scripted-model', input: 'Hi' });
      a.proxy.close();
      expect(await a.store.responses.get(first.id)).toContain('one');
      const second = await b.client.responses.create({
        model: 'scripted-model',
        previous_response_id: first.id,
        input: 'Go on',
      });
      expect(second.output_text).toBe('two');
    });
  });
}

sharedStoreTests('memory', memoryBacking);

describe.skipIf(skipRedisTests())('on Redis', () => {
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  sharedStoreTests('Redis', redisBacking);
});

describe('the store time limit', () => {
  it('a response older than storedResponseTtlMs is forgotten (memory store, injected clock)', async () => {
    let now = T0;
    const { a, b } = await twoInstances(
      memoryBacking,
      [{ text: 'one' }, { text: 'two' }],
      { storedResponseTtlMs: 60_000 },
      () => now,
    );
    const first = await a.client.responses.create({ model: 'scripted-model', input: 'Hi' });
    now = T0 + 59_999;
    const kept = await b.client.responses.create({
      model: 'scripted-model',
      previous_response_id: first.id,
      input: 'Go on',
      store: false,
    });
    expect(kept.output_text).toBe('two');
    now = T0 + 60_000;
    await expectNotFound(b, first.id);
  });
});

describe('createProxyApp({ store }) options', () => {
  it('refuses maxStoredResponses and maxStoredResponseBytes beside a store: its limits bound them', () => {
    const store = new MemoryRunStoreBacking().open('A');
    for (const option of [{ maxStoredResponses: 5 }, { maxStoredResponseBytes: 5 }])
      expect(() => createProxyApp({ upstream: 'http://127.0.0.1:9/v1', store, ...option })).toThrow(
        /with a store, give it in the store's limits/,
      );
  });
});

describe.skipIf(skipRedisTests())('a Redis that is gone', () => {
  let gone: RedisServer | undefined;
  afterAll(async () => {
    await gone?.stop();
  });

  it('answers 503 in OpenAI shape, streamed or not, with or without previous_response_id, and never hangs', async () => {
    gone = await startRedis();
    const url = gone.url;
    const shared: SharedStore = async () => ({
      open: (instanceId) =>
        createRedisRunStore(url, { prefix: 'gone:', instanceId, callDeadlineMs: 500 }),
    });
    const { a, b, upstream } = await twoInstances(shared, [
      { text: 'one' },
      { text: 'two' },
      { text: 'three' },
      { text: 'four' },
    ]);
    const first = await a.client.responses.create({ model: 'scripted-model', input: 'Hi' });
    await gone.kill();

    // Reading the earlier response: 503 before the model is asked.
    const read = await failure(
      b.client.responses.create({
        model: 'scripted-model',
        previous_response_id: first.id,
        input: 'Go on',
      }),
    );
    expect(read).toBeInstanceOf(APIError);
    expect((read as APIError).status).toBe(503);
    expect((read as APIError).message).toMatch(
      /the response store is unavailable: .*Redis at 127\.0\.0\.1/,
    );
    expect(upstream.requests).toHaveLength(1);

    // Keeping a new one, not streamed: 503 once the reply is in.
    const kept = await failure(b.client.responses.create({ model: 'scripted-model', input: 'Hi' }));
    expect(kept).toBeInstanceOf(APIError);
    expect((kept as APIError).status).toBe(503);

    // Streamed: the stream ends with response.failed and the error the client throws.
    const { events, error } = await streamed(a.client, { model: 'scripted-model', input: 'Hi' });
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).message).toContain('the response store is unavailable');
    const failed = events.at(-1);
    if (failed?.type !== 'response.failed') throw new Error(`ended with ${failed?.type}`);
    expect(failed.response.error?.message).toContain('the response store is unavailable');
    expect(events.some((event) => event.type === 'response.completed')).toBe(false);

    // store: false needs no store.
    const unkept = await b.client.responses.create({
      model: 'scripted-model',
      input: 'Hi',
      store: false,
    });
    expect(unkept.output_text).toBe('four');
  });
});
