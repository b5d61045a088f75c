import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  checkModelServer,
  createServerApp,
  type ModelServerProbe,
  openAICompatibleProbe,
  parseRecording,
  type ServerAppOptions,
} from '../../src/server/index.ts';
import { scriptedModel } from '../agent/scripted-model.ts';

const recording = parseRecording('data: <meta_final data="{}"></meta_final>\n\n', 'demo.sse');

async function status(options: Partial<ServerAppOptions>) {
  const { app } = createServerApp({
    model: scriptedModel([]).model,
    baseURL: 'http://127.0.0.1:9/v1',
    ...options,
  });
  const started = performance.now();
  const response = await app.request('/api/status');
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
    ms: performance.now() - started,
  };
}

const refused: ModelServerProbe = () =>
  Promise.reject(Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } }));

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0))
    await new Promise<void>((done) => server.close(() => done()));
});

/** An HTTP server on loopback answering every request with `status`, recording the paths. */
async function listening(status: number, paths: string[] = []): Promise<string> {
  const server = createServer((request, response) => {
    paths.push(`${request.method} ${request.url} ${request.headers.authorization ?? ''}`);
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end('{"data":[]}');
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

describe('GET /api/status', () => {
  it('says the model server answers when the probe does, and names the recording on offer', async () => {
    const { status: code, body } = await status({
      probeModelServer: () => Promise.resolve(),
      recording: { recording },
    });
    expect(code).toBe(200);
    expect(body).toEqual({
      mode: 'live',
      modelServer: 'answers',
      baseURL: 'http://127.0.0.1:9/v1',
      recording: 'demo.sse',
    });
  });

  it('says no model server answers, with why in fixed words, when the connection is refused', async () => {
    const { body } = await status({ probeModelServer: refused, recording: { recording } });
    expect(body).toEqual({
      mode: 'live',
      modelServer: 'no-answer',
      baseURL: 'http://127.0.0.1:9/v1',
      problem: 'the connection was refused (nothing listens there)',
      recording: 'demo.sse',
    });
  });

  it('gives up on a probe that hangs after modelProbeTimeoutMs, even one that ignores its signal', async () => {
    const { body, ms } = await status({
      probeModelServer: () => new Promise(() => {}),
      limits: { modelProbeTimeoutMs: 100 },
    });
    expect(body).toMatchObject({ modelServer: 'no-answer', problem: 'no answer within 100 ms' });
    expect(ms).toBeGreaterThanOrEqual(90);
    expect(ms).toBeLessThan(2000);
  });

  it('never passes on what the failure said (it could be anything a remote wrote)', async () => {
    const { body } = await status({
      probeModelServer: () => Promise.reject(new Error('<img src=x onerror=alert(1)> \u001b[31m')),
    });
    expect(body.problem).toBe('the request failed');
  });

  it('asks once for status requests that arrive together', async () => {
    let probes = 0;
    const { app } = createServerApp({
      model: scriptedModel([]).model,
      probeModelServer: async () => {
        probes++;
        await new Promise((done) => setTimeout(done, 50));
      },
    });
    const bodies = await Promise.all(
      [1, 2, 3].map(async () => (await app.request('/api/status')).json()),
    );
    expect(bodies.map((body) => (body as { modelServer: string }).modelServer)).toEqual([
      'answers',
      'answers',
      'answers',
    ]);
    expect(probes).toBe(1);
    await app.request('/api/status');
    expect(probes).toBe(2);
  });

  it('says the server is unchecked without a probe, and none is asked in replay mode', async () => {
    expect((await status({})).body).toEqual({
      mode: 'live',
      modelServer: 'unchecked',
      baseURL: 'http://127.0.0.1:9/v1',
    });
    const replay = createServerApp({ replay: { recording } }).app;
    expect(await (await replay.request('/api/status')).json()).toEqual({
      mode: 'replay',
      modelServer: 'none',
      recording: 'demo.sse',
    });
  });
});

describe('openAICompatibleProbe', () => {
  it('asks GET <baseURL>/models with the key, and any HTTP answer counts (a 404 or 401 too)', async () => {
    const paths: string[] = [];
    for (const code of [200, 404, 401]) {
      const baseURL = await listening(code, paths);
      expect(
        await checkModelServer(openAICompatibleProbe(`${baseURL}/`, { apiKey: 'k' }), 1000),
      ).toEqual({ answers: true });
    }
    expect(paths).toEqual(Array(3).fill('GET /v1/models Bearer k'));
  });

  it('reports a closed port as refused, and a server that never answers as a timeout', async () => {
    const baseURL = await listening(200);
    const closed = servers.pop()!;
    await new Promise<void>((done) => closed.close(() => done()));
    expect(await checkModelServer(openAICompatibleProbe(baseURL), 1000)).toEqual({
      answers: false,
      problem: 'the connection was refused (nothing listens there)',
    });

    const silent = createServer(() => {});
    servers.push(silent);
    await new Promise<void>((done) => silent.listen(0, '127.0.0.1', done));
    const port = (silent.address() as AddressInfo).port;
    const started = performance.now();
    expect(
      await checkModelServer(openAICompatibleProbe(`http://127.0.0.1:${port}/v1`), 150),
    ).toEqual({ answers: false, problem: 'no answer within 150 ms' });
    // It gives up instead of waiting for an answer that never comes (bound far above 150 ms).
    expect(performance.now() - started).toBeLessThan(15_000);
    silent.closeAllConnections();
  });

  it('reports an address that is not a URL in fixed words', async () => {
    expect(await checkModelServer(openAICompatibleProbe('not a url'), 500)).toEqual({
      answers: false,
      problem: 'the address is not a valid URL',
    });
  });
});
