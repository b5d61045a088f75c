/**
 * Two server instances on one real Redis (redis-server on a free port, a key prefix per test):
 * a run started on A is read, answered and stopped on B, resumed mid-stream on the other
 * instance, and when A stops renewing its lease B's sweep ends the run with `instance_lost`.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { serverTools } from '../../src/server/index.ts';
import { createRedisRunStore, type RedisRunStore } from '../../src/store/redis/index.ts';
import { decodeBlocks } from '../../src/stream/index.ts';
import { scriptedModel } from '../agent/scripted-model.ts';
import { type RedisServer, skipRedisTests, startRedis } from '../support/redis-server.ts';
import {
  ANSWER_TURN,
  ASK_TURN,
  ofType,
  postJson,
  repository,
  startTestServer,
  type TestServer,
} from './helpers.ts';
import { closeServers } from './run-fixtures.ts';

let redis: RedisServer;
let prefixes = 0;
const servers: TestServer[] = [];
const stores: RedisRunStore[] = [];

async function instances(turns: Parameters<typeof scriptedModel>[0]) {
  const prefix = `two${++prefixes}:`;
  const { model } = scriptedModel(turns);
  const tools = serverTools(repository());
  const open = async (instanceId: string) => {
    const store = await createRedisRunStore(redis.url, { prefix, instanceId });
    stores.push(store);
    const server = await startTestServer({ model, modelName: 'scripted', tools, store });
    servers.push(server);
    return server;
  };
  return { a: await open('A'), b: await open('B') };
}

const events = (server: TestServer, runId: string, headers: Record<string, string> = {}) =>
  fetch(`${server.url}/api/runs/${runId}/events`, { headers });

/** Reads a response's text until it holds `count` thinking pieces, cut at its last whole message. */
async function readSome(response: Response, count: number): Promise<string> {
  const reader = response.body!.getReader();
  let text = '';
  while (text.split('CDATA[').length <= count)
    text += new TextDecoder().decode((await reader.read()).value);
  await reader.cancel();
  return text.slice(0, text.lastIndexOf('\n\n') + 2);
}

function lastId(text: string): string {
  const messages = text.split('\n\n').filter((message) => message.length > 0);
  return /^id: (\S+)/.exec(messages.at(-1)!)![1]!;
}

describe.skipIf(skipRedisTests())('two instances on one Redis', () => {
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterEach(async () => {
    await closeServers(servers);
    for (const store of stores.splice(0)) await store.close();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('starts on A, is answered on B, and reads the same on both', async () => {
    const { a, b } = await instances([ASK_TURN, ANSWER_TURN]);
    const started = await postJson(`${a.url}/api/runs`, { prompt: 'Explain login' });
    const runId = started.headers.get('x-run-id')!;
    const pausedText = await started.text();
    const pending = ofType(decodeBlocks(pausedText), 'awaiting-frontend-tools')[0]!.tools[0]!;
    expect(await (await events(b, runId)).text()).toBe(pausedText);
    const answered = await postJson(`${b.url}/api/runs/${runId}/tool-results`, {
      results: [{ tool_use_id: pending.tool_use_id, content: 'login.js' }],
    });
    expect(answered.status).toBe(200);
    const continued = await answered.text();
    expect(decodeBlocks(continued).at(-1)?.type).toBe('meta-final');
    for (const server of [a, b])
      expect(await (await events(server, runId)).text()).toBe(pausedText + continued);
  });

  it('a run on A resumes mid-stream on B, and Stop on B stops it on A', async () => {
    const { a, b } = await instances([{ text: '<thinking>Working on it', stall: true }]);
    const started = await postJson(`${a.url}/api/runs`, { prompt: 'Hi' });
    const runId = started.headers.get('x-run-id')!;
    const first = await readSome(started, 2);
    const resumed = await events(b, runId, { 'last-event-id': lastId(first) });
    expect(resumed.status).toBe(200);
    expect((await postJson(`${b.url}/api/runs/${runId}/abort`, {})).status).toBe(202);
    const rest = await resumed.text();
    const whole = await (await events(a, runId)).text();
    expect(first + rest).toBe(whole);
    expect(ofType(decodeBlocks(whole), 'error').at(-1)).toMatchObject({
      error: { type: 'aborted' },
    });
  });

  it('A stops renewing: B’s sweep ends its run with the open block closed and instance_lost', async () => {
    const { a, b } = await instances([{ text: '<thinking>Working on it', stall: true }]);
    const started = await postJson(`${a.url}/api/runs`, { prompt: 'Hi' });
    const runId = started.headers.get('x-run-id')!;
    const first = await readSome(started, 2);
    const following = events(b, runId, { 'last-event-id': lastId(first) });
    // As if A were killed: its lease is not renewed; B sweeps after the lease ran out.
    a.server.heartbeat.close();
    await b.server.store.sweep(Date.now() + b.server.store.limits.leaseMs + 1);
    const rest = await (await following).text();
    const blocks = decodeBlocks(first + rest);
    expect(blocks.at(-2)?.type).toBe('thinking-end');
    expect(blocks.at(-1)).toMatchObject({ type: 'error', error: { type: 'instance_lost' } });
    expect((await b.server.store.getRun(runId))?.outcome).toBe('instance_lost');
  });
});
