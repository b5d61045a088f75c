/**
 * `detectUpstreamKind`: a scripted server per kind on loopback answers the probes as the real one
 * does (bodies from each server's source or documentation, named at each), and hostile servers
 * (200 to everything, HTML, huge or endless bodies, silence, redirects) come out `openai` with the
 * reason, within the probe's limits. Every server a test starts is closed after it, whatever
 * happened.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_JSON_SHAPE_LIMITS } from '../../src/http/json-shape.ts';
import { boundedGet } from '../../src/proxy/bounded-get.ts';
import type { UpstreamSettings } from '../../src/proxy/upstream.ts';
import { detectUpstreamKind, UPSTREAM_KINDS } from '../../src/proxy/upstream-kind.ts';
import { nodeTransport, type UpstreamTransport } from '../../src/proxy/upstream-transport.ts';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

const servers: Server[] = [];
const transports: UpstreamTransport[] = [];
afterEach(async () => {
  for (const transport of transports.splice(0)) transport.close();
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
});

interface ModelServer {
  /** The server's root URL (no trailing slash). */
  readonly root: string;
  /** The request paths it got, in order. */
  readonly paths: string[];
  readonly requests: IncomingMessage[];
}

/** A server on loopback: `routes` by exact path, anything else `fallback`. */
async function modelServer(
  routes: Readonly<Record<string, Handler>>,
  fallback: Handler = notFound,
): Promise<ModelServer> {
  const paths: string[] = [];
  const requests: IncomingMessage[] = [];
  const server = createServer((request, response) => {
    paths.push(request.url ?? '');
    requests.push(request);
    const route = Object.hasOwn(routes, request.url ?? '') ? routes[request.url!] : undefined;
    (route ?? fallback)(request, response);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { root: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, paths, requests };
}

const json =
  (body: unknown, status = 200): Handler =>
  (_request, response) => {
    response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
    response.end(JSON.stringify(body));
  };

const text =
  (body: string, status = 200, type = 'text/plain; charset=utf-8'): Handler =>
  (_request, response) => {
    response.writeHead(status, { 'content-type': type });
    response.end(body);
  };

const notFound = text('404 page not found', 404);

type Via = 'node' | 'fetch';

/** The proxy's settings for a base URL, reaching it through Node's client (the proxy's default) or fetch. */
function settingsFor(baseURL: string, via: Via = 'node', more: Partial<UpstreamSettings> = {}) {
  let transport: UpstreamTransport | undefined;
  if (via === 'node') {
    transport = nodeTransport();
    transports.push(transport);
  }
  return {
    baseURL,
    authorization: undefined,
    timeoutMs: 60_000,
    maxReplyBytes: 1 << 20,
    maxEventBytes: 1 << 16,
    json: DEFAULT_JSON_SHAPE_LIMITS,
    ...(transport === undefined ? {} : { transport }),
    ...more,
  } satisfies UpstreamSettings;
}

/** Every probe's path, as the evidence lists them when all got the same answer. */
const ALL_PROBES =
  '/props, /api/version, /server_info, /get_server_info, /version, /api/v1/models, /api/v0/models';

const detect = (settings: UpstreamSettings, signal = new AbortController().signal) =>
  detectUpstreamKind(settings, signal);

// --- The real servers' answers -------------------------------------------------------------

/**
 * llama.cpp's `GET /props` for one model: the fields of `get_props` in
 * tools/server/server-context.cpp (ggml-org/llama.cpp), values from a small model.
 */
const LLAMA_PROPS = {
  default_generation_settings: {
    params: { n_predict: -1, temperature: 0.8, top_k: 40, top_p: 0.95, grammar: '' },
    n_ctx: 4096,
  },
  total_slots: 1,
  model_alias: 'qwen2.5-0.5b-instruct',
  model_path: '/models/qwen2.5-0.5b-instruct-q4_k_m.gguf',
  modalities: { vision: false, video: false, audio: false },
  endpoint_slots: true,
  endpoint_props: false,
  endpoint_metrics: false,
  chat_template: '{% for message in messages %}{{ message.content }}{% endfor %}',
  bos_token: '<|endoftext|>',
  eos_token: '<|im_end|>',
  build_info: 'b6500-0c3a1d8',
  is_sleeping: false,
};
/** llama.cpp's answer to a path it does not serve (its error handler's JSON). */
const llamaNotFound = json(
  { error: { code: 404, message: 'File Not Found', type: 'not_found_error' } },
  404,
);

/**
 * llama.cpp in router mode (no model named at start): `get_router_props` in
 * tools/server/server-models.cpp answers without `total_slots`.
 */
const LLAMA_ROUTER_PROPS = {
  role: 'router',
  max_instances: 4,
  models_autoload: true,
  model_alias: 'llama-server',
  model_path: 'none',
  default_generation_settings: { params: {}, n_ctx: 0 },
  ui_settings: {},
  build_info: 'b7100-8d2e4f1',
  cors_proxy_enabled: false,
};

/**
 * SGLang's `GET /server_info`: `{**asdict(server_args), **scheduler_info, "internal_states": …,
 * "version": __version__}` (python/sglang/srt/entrypoints/http_server.py), a few of its many
 * server arguments.
 */
const SGLANG_SERVER_INFO = {
  model_path: 'Qwen/Qwen2.5-7B-Instruct',
  tokenizer_path: 'Qwen/Qwen2.5-7B-Instruct',
  host: '127.0.0.1',
  port: 30000,
  tp_size: 1,
  tool_call_parser: 'qwen25',
  grammar_backend: 'xgrammar',
  api_key: null,
  max_total_num_tokens: 120000,
  internal_states: [{ last_gen_throughput: 0, avg_spec_accept_length: null }],
  version: '0.5.4',
};
/** FastAPI's answer to a path it does not serve (vLLM and SGLang). */
const fastApiNotFound = json({ detail: 'Not Found' }, 404);

/** LM Studio answers paths it does not serve with 200 and an error (lmstudio-bug-tracker #618, #1323). */
const lmStudioUnexpected: Handler = (request, response) =>
  json({ error: `Unexpected endpoint or method. (${request.method} ${request.url})` })(
    request,
    response,
  );

/** LM Studio 0.4's `GET /api/v1/models` (lmstudio-ai/docs 1_developer/2_rest/list.md). */
const LM_STUDIO_V1_MODELS = {
  models: [
    {
      type: 'llm',
      publisher: 'lmstudio-community',
      key: 'gemma-3-270m-it-qat',
      display_name: 'Gemma 3 270m Instruct Qat',
      architecture: 'gemma3',
      quantization: { name: 'Q4_0', bits_per_weight: 4 },
      size_bytes: 241410208,
      params_string: '270M',
      loaded_instances: [{ id: 'gemma-3-270m-it-qat', config: { context_length: 4096 } }],
      max_context_length: 32768,
      format: 'gguf',
      capabilities: { vision: false, trained_for_tool_use: false },
      description: null,
    },
  ],
};

/** LM Studio 0.3's `GET /api/v0/models` (lmstudio-ai/docs 1_developer/2_rest/endpoints.md). */
const LM_STUDIO_V0_MODELS = {
  object: 'list',
  data: [
    {
      id: 'meta-llama-3.1-8b-instruct',
      object: 'model',
      type: 'llm',
      publisher: 'lmstudio-community',
      arch: 'llama',
      compatibility_type: 'gguf',
      quantization: 'Q4_K_M',
      state: 'not-loaded',
      max_context_length: 131072,
    },
  ],
};

interface RealServer {
  readonly name: string;
  readonly routes: Readonly<Record<string, Handler>>;
  readonly fallback: Handler;
  readonly kind: string;
  readonly version: string | undefined;
  readonly evidence: string;
}

const REAL_SERVERS: readonly RealServer[] = [
  {
    name: 'llama.cpp',
    routes: { '/props': json(LLAMA_PROPS) },
    fallback: llamaNotFound,
    kind: 'llama.cpp',
    version: 'b6500-0c3a1d8',
    evidence: 'GET /props: build_info b6500-0c3a1d8',
  },
  {
    name: 'llama.cpp from before build_info',
    routes: { '/props': json({ ...LLAMA_PROPS, build_info: undefined }) },
    fallback: llamaNotFound,
    kind: 'llama.cpp',
    version: undefined,
    evidence: 'GET /props: default_generation_settings and total_slots',
  },
  {
    name: 'llama.cpp in router mode',
    routes: { '/props': json(LLAMA_ROUTER_PROPS) },
    fallback: llamaNotFound,
    kind: 'llama.cpp',
    version: 'b7100-8d2e4f1',
    evidence: 'GET /props: build_info b7100-8d2e4f1',
  },
  {
    // server/routes.go: `r.GET("/", … "Ollama is running")`, `r.GET("/api/version", …
    // gin.H{"version": version.Version})`; gin's 404 is `404 page not found`.
    name: 'Ollama',
    routes: { '/': text('Ollama is running'), '/api/version': json({ version: '0.12.6' }) },
    fallback: notFound,
    kind: 'ollama',
    version: '0.12.6',
    evidence: 'GET /api/version: version 0.12.6',
  },
  {
    name: 'SGLang',
    routes: {
      '/server_info': json(SGLANG_SERVER_INFO),
      '/get_server_info': json(SGLANG_SERVER_INFO),
    },
    fallback: fastApiNotFound,
    kind: 'sglang',
    version: '0.5.4',
    evidence: 'GET /server_info: version 0.5.4 with server arguments',
  },
  {
    name: 'SGLang from before /server_info',
    routes: { '/get_server_info': json({ ...SGLANG_SERVER_INFO, version: '0.4.6.post1' }) },
    fallback: fastApiNotFound,
    kind: 'sglang',
    version: '0.4.6.post1',
    evidence: 'GET /get_server_info: version 0.4.6.post1 with server arguments',
  },
  {
    // vllm/entrypoints/openai/api_server.py: `show_version` answers {"version": VLLM_VERSION}.
    name: 'vLLM',
    routes: { '/version': json({ version: '0.11.0' }), '/health': text('', 200) },
    fallback: fastApiNotFound,
    kind: 'vllm',
    version: '0.11.0',
    evidence: 'GET /version: version 0.11.0',
  },
  {
    name: 'LM Studio 0.4',
    routes: {
      '/api/v1/models': json(LM_STUDIO_V1_MODELS),
      '/api/v0/models': json(LM_STUDIO_V0_MODELS),
    },
    fallback: lmStudioUnexpected,
    kind: 'lmstudio',
    version: undefined,
    evidence: 'GET /api/v1/models: models (1)',
  },
  {
    name: 'LM Studio 0.3',
    routes: { '/api/v0/models': json(LM_STUDIO_V0_MODELS) },
    fallback: lmStudioUnexpected,
    kind: 'lmstudio',
    version: undefined,
    evidence: 'GET /api/v0/models: data (1 models)',
  },
];

describe('detectUpstreamKind: the real servers', () => {
  it('knows every kind the command line offers', () => {
    expect(UPSTREAM_KINDS).toEqual(['llama.cpp', 'vllm', 'sglang', 'ollama', 'lmstudio', 'openai']);
  });

  for (const via of ['node', 'fetch'] as const)
    it.each(REAL_SERVERS)(`tells $name from its answers (via ${via})`, async (real) => {
      const server = await modelServer(real.routes, real.fallback);
      const found = await detect(settingsFor(`${server.root}/v1`, via));
      expect(found).toEqual({
        kind: real.kind,
        ...(real.version === undefined ? {} : { version: real.version }),
        evidence: real.evidence,
      });
    });

  it('probes the server root: the base URL without /v1, under its path prefix', async () => {
    const server = await modelServer({ '/llm/props': json(LLAMA_PROPS) }, llamaNotFound);
    for (const baseURL of [`${server.root}/llm/v1`, `${server.root}/llm`]) {
      server.paths.length = 0;
      expect((await detect(settingsFor(baseURL))).kind).toBe('llama.cpp');
      expect(server.paths).toContain('/llm/props');
      expect(server.paths.every((path) => path.startsWith('/llm/'))).toBe(true);
    }
  });

  it('sends the proxy upstream authorization with every probe, and only GETs', async () => {
    const server = await modelServer({ '/version': json({ version: '0.11.0' }) }, fastApiNotFound);
    await detect(settingsFor(`${server.root}/v1`, 'node', { authorization: 'Bearer k-123' }));
    expect(server.requests.length).toBeGreaterThan(5);
    for (const request of server.requests) {
      expect(request.method).toBe('GET');
      expect(request.headers.authorization).toBe('Bearer k-123');
    }
  });

  it('decides by the order of the probes, not by which answers first', async () => {
    // A server answering both llama.cpp's and vLLM's probes is llama.cpp, whichever answers first:
    // the other answer is held until the first has gone out.
    const answers: Record<string, Handler> = {
      '/props': json(LLAMA_PROPS),
      '/version': json({ version: '0.11.0' }),
    };
    for (const [first, second] of [
      ['/props', '/version'],
      ['/version', '/props'],
    ] as const) {
      const firstSent = Promise.withResolvers<void>();
      const release = Promise.withResolvers<void>();
      const server = await modelServer(
        {
          [first]: (request, response) => {
            answers[first]!(request, response);
            firstSent.resolve();
          },
          [second]: (request, response) => {
            void release.promise.then(() => answers[second]!(request, response));
          },
        },
        llamaNotFound,
      );
      const found = detect(settingsFor(`${server.root}/v1`));
      await firstSent.promise;
      release.resolve();
      expect(await found).toMatchObject({
        kind: 'llama.cpp',
        evidence: 'GET /props: build_info b6500-0c3a1d8',
      });
    }
  });
});

describe('detectUpstreamKind: servers that are none of them', () => {
  it.each([
    ['200 and {} to every path', json({})],
    [
      'an HTML page to every path',
      text('<!doctype html><title>gateway</title><p>hello', 200, 'text/html'),
    ],
    [
      'a generic 404 body',
      json({ error: { message: 'not found', type: 'invalid_request_error' } }, 404),
    ],
    ['a JSON list to every path', json([{ version: '0.11.0' }])],
    ['LM Studio-like errors with 200 to every path', lmStudioUnexpected],
    ['503 while loading', json({ error: { code: 503, message: 'Loading model' } }, 503)],
  ])('calls %s openai, saying why for each probe', async (_name, handler) => {
    const server = await modelServer({}, handler);
    const found = await detect(settingsFor(`${server.root}/v1`));
    expect(found.kind).toBe('openai');
    expect(found.version).toBeUndefined();
    // It answered: that is not remembered as a server that is down.
    expect(found.unreachable).toBeUndefined();
    expect(found.evidence).toMatch(/^no known model server: GET \/props[:,] /);
    for (const path of ALL_PROBES.split(', ')) expect(found.evidence).toContain(`${path}`);
    expect(found.evidence).not.toContain('\n');
  });

  it('refuses a kind whose answer a path no server has shows too (a catch-all)', async () => {
    // `{"version": "1.2.3"}` everywhere would read as Ollama (and vLLM) at their own paths.
    const server = await modelServer({}, json({ version: '1.2.3' }));
    const found = await detect(settingsFor(`${server.root}/v1`));
    expect(found.kind).toBe('openai');
    expect(found.evidence).toContain(
      "GET /api/version: ollama's answer, but GET /toolwire-probe-no-such-path too",
    );
    expect(found.evidence).toContain(
      "GET /version: vllm's answer, but GET /toolwire-probe-no-such-path too",
    );
  });

  it.each([
    ['a version that is not a release number (LocalAI)', { version: 'v2.24.2' }],
    ['a version with control characters', { version: '0.11.0\u001b[2J' }],
    ['a version that is not a string', { version: 11 }],
    ['a version too long to be one', { version: `0.${'1'.repeat(100)}` }],
  ])('does not take /version with %s for vLLM', async (_name, body) => {
    const server = await modelServer({ '/version': json(body) }, fastApiNotFound);
    const found = await detect(settingsFor(`${server.root}/v1`));
    expect(found.kind).toBe('openai');
    expect(found.evidence).toContain("GET /version: not vllm's answer");
    expect(found.evidence).not.toContain('\u001b');
  });

  it.each([
    ['no default_generation_settings', { total_slots: 1, build_info: 'b1-a' }],
    ['settings that are not an object', { default_generation_settings: 'x', build_info: 'b1-a' }],
    ['neither build_info nor total_slots', { default_generation_settings: {} }],
  ])('does not take /props with %s for llama.cpp', async (_name, body) => {
    const server = await modelServer({ '/props': json(body) }, llamaNotFound);
    expect((await detect(settingsFor(`${server.root}/v1`))).kind).toBe('openai');
  });

  it('keeps a llama.cpp build_info out of the version when it cannot be shown as it is', async () => {
    const server = await modelServer(
      { '/props': json({ ...LLAMA_PROPS, build_info: 'b1\nforged log line' }) },
      llamaNotFound,
    );
    expect(await detect(settingsFor(`${server.root}/v1`))).toEqual({
      kind: 'llama.cpp',
      evidence: 'GET /props: default_generation_settings and total_slots',
    });
  });

  it('does not take SGLang server information without its server arguments', async () => {
    const server = await modelServer(
      {
        '/server_info': json({ version: '0.5.4' }),
        '/get_server_info': json({ version: '0.5.4' }),
      },
      fastApiNotFound,
    );
    const found = await detect(settingsFor(`${server.root}/v1`));
    expect(found.kind).toBe('openai');
    expect(found.evidence).toContain("GET /server_info: not sglang's answer");
  });

  it('does not parse an answer nested past the JSON limits', async () => {
    const deep = `${'['.repeat(50)}${']'.repeat(50)}`;
    const server = await modelServer(
      { '/props': text(deep, 200, 'application/json') },
      llamaNotFound,
    );
    const found = await detect(
      settingsFor(`${server.root}/v1`, 'node', { json: { maxDepth: 16, maxValues: 1000 } }),
    );
    expect(found.kind).toBe('openai');
    expect(found.evidence).toContain('GET /props: its answer goes past maxDepth');
  });
});

describe('detectUpstreamKind: within its limits', () => {
  it('stops reading an answer declared larger than 256 KiB at once', async () => {
    let written = 0;
    const server = await modelServer(
      {
        '/props': (_request, response) => {
          response.writeHead(200, {
            'content-type': 'application/json',
            'content-length': String(1 << 30),
          });
          response.write('{"default_generation_settings":{');
          written += 32;
          // The rest never comes: the declared length alone is refused.
        },
      },
      llamaNotFound,
    );
    const found = await detect(settingsFor(`${server.root}/v1`));
    expect(found.kind).toBe('openai');
    expect(found.evidence).toContain('GET /props: its answer is larger than 262144 bytes');
    expect(written).toBe(32);
  });

  for (const via of ['node', 'fetch'] as const)
    it(`stops reading an endless answer past 256 KiB (via ${via})`, async () => {
      let written = 0;
      const server = await modelServer(
        {
          '/props': (_request, response) => {
            response.writeHead(200, { 'content-type': 'application/json' });
            response.write('{"default_generation_settings":{},"build_info":"');
            const more = () => {
              while (!response.destroyed && written < 256 * 1024 * 1024) {
                written += 16 * 1024;
                if (!response.write('y'.repeat(16 * 1024)))
                  return void response.once('drain', more);
              }
            };
            more();
          },
        },
        llamaNotFound,
      );
      const found = await detect(settingsFor(`${server.root}/v1`, via));
      expect(found.kind).toBe('openai');
      expect(found.evidence).toContain('GET /props: its answer is larger than 262144 bytes');
      // Reading stopped at the cap: what the server managed to write is its socket buffers.
      expect(written).toBeLessThan(32 * 1024 * 1024);
    });

  it('gives up on an answer that never ends within the time limit, and on silence', async () => {
    // Neither server ever finishes, and the clock is a fake one, moved only once every probe has
    // got what it will get (the trickle's eight heads counted at the client): nothing races it.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const trickle = await modelServer({}, (_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write('{"version": "0.');
      });
      const asked = Promise.withResolvers<void>();
      let silentAsked = 0;
      const silent = await modelServer({}, () => {
        if (++silentAsked === 8) asked.resolve();
      });
      for (const server of [trickle, silent]) {
        const heads = Promise.withResolvers<void>();
        let answered = 0;
        const node = nodeTransport();
        transports.push(node);
        // Counts the answers whose head reached the client.
        const counting: UpstreamTransport = {
          async send(request) {
            const response = await node.send(request);
            if (++answered === 8) heads.resolve();
            return response;
          },
          close: () => node.close(),
        };
        const found = detect(
          settingsFor(`${server.root}/v1`, 'fetch', { timeoutMs: 50, transport: counting }),
        );
        await (server === trickle ? heads.promise : asked.promise);
        vi.advanceTimersByTime(50);
        const detected = await found;
        expect(detected.kind).toBe('openai');
        // Only silence is no answer at all; a trickle began to answer.
        expect(detected.unreachable).toBe(server === silent ? true : undefined);
        expect(detected.evidence).toBe(
          `no known model server: GET ${ALL_PROBES}: it did not answer within 50 ms`,
        );
      }
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps no kind from a server that answers only 503 while it loads its model, or 429', async () => {
    // llama.cpp answers every path 503 {"error":{"message":"Loading model"}} while it loads.
    const loading = await modelServer(
      {},
      json({ error: { code: 503, message: 'Loading model', type: 'unavailable_error' } }, 503),
    );
    const found = await detect(settingsFor(`${loading.root}/v1`));
    expect(found).toMatchObject({ kind: 'openai', retryable: true });
    expect(found.unreachable).toBeUndefined();
    expect(found.evidence).toContain('503');
    const busy = await modelServer({}, text('slow down', 429));
    expect(await detect(settingsFor(`${busy.root}/v1`))).toMatchObject({ retryable: true });
    // One answer that says something (a 404 from a server that is up) is kept.
    const mixed = await modelServer({ '/props': notFound }, text('Loading model', 503));
    expect(await detect(settingsFor(`${mixed.root}/v1`))).not.toHaveProperty('retryable');
    const generic = await modelServer({});
    expect(await detect(settingsFor(`${generic.root}/v1`))).not.toHaveProperty('retryable');
  });

  it('gives each probe at most 5 s, however long the upstream time limit', async () => {
    // The server never answers; the clock is a fake one, moved once every probe has been sent.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const asked = Promise.withResolvers<void>();
      let count = 0;
      const server = await modelServer({}, () => {
        if (++count === 8) asked.resolve();
      });
      let settled = false;
      const found = detect(settingsFor(`${server.root}/v1`, 'node', { timeoutMs: 3_600_000 }));
      void found.finally(() => {
        settled = true;
      });
      await asked.promise;
      vi.advanceTimersByTime(4999);
      await new Promise((resolve) => setImmediate(resolve));
      expect(settled).toBe(false);
      vi.advanceTimersByTime(1);
      const detected = await found;
      expect(detected.kind).toBe('openai');
      expect(detected.evidence).toBe(
        `no known model server: GET ${ALL_PROBES}: it did not answer within 5000 ms`,
      );
      expect(detected.unreachable).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('ends a probe at its time limit even through a transport that ignores the signal', async () => {
    // Every answer's body waits for ever unless cancelled: only the probe's own cancel ends it.
    let cancelled = 0;
    const deaf: UpstreamTransport = {
      async send() {
        const ended = Promise.withResolvers<void>();
        return {
          status: 200,
          header: () => undefined,
          body: {
            forEach: () => ended.promise,
            pause() {},
            resume() {},
            cancel() {
              cancelled++;
              ended.resolve();
            },
          },
        };
      },
      close() {},
    };
    const found = await detect(
      settingsFor('http://127.0.0.1:9/v1', 'fetch', { transport: deaf, timeoutMs: 20 }),
    );
    expect(found.kind).toBe('openai');
    expect(found.evidence).toBe(
      `no known model server: GET ${ALL_PROBES}: it did not answer within 20 ms`,
    );
    expect(cancelled).toBeGreaterThanOrEqual(8);
  });

  it('ends a probe at its time limit through a transport that never answers nor heeds the signal', async () => {
    let late = 0;
    const answers: Array<() => void> = [];
    const deaf: UpstreamTransport = {
      send: () =>
        new Promise((resolve) => {
          answers.push(() =>
            resolve({
              status: 200,
              header: () => undefined,
              body: {
                forEach: async () => {},
                pause() {},
                resume() {},
                cancel() {
                  late++;
                },
              },
            }),
          );
        }),
      close() {},
    };
    const found = await detect(
      settingsFor('http://127.0.0.1:9/v1', 'fetch', { transport: deaf, timeoutMs: 20 }),
    );
    expect(found).toMatchObject({ kind: 'openai', unreachable: true });
    expect(found.evidence).toBe(
      `no known model server: GET ${ALL_PROBES}: it did not answer within 20 ms`,
    );
    // The answers that come after all are hung up on.
    for (const answer of answers) answer();
    await new Promise((resolve) => setImmediate(resolve));
    expect(late).toBe(8);
  });

  it("rejects with the caller's reason when aborted while the server is silent", async () => {
    // Held, not timed: the probes are all sent, then the caller aborts; only the abort ends them.
    const asked = Promise.withResolvers<void>();
    let count = 0;
    const server = await modelServer({}, () => {
      if (++count === 8) asked.resolve();
    });
    const controller = new AbortController();
    const found = detect(settingsFor(`${server.root}/v1`), controller.signal);
    await asked.promise;
    const reason = new Error('the proxy is closing');
    controller.abort(reason);
    await expect(found).rejects.toBe(reason);
  });

  it('rejects at once with a signal already aborted, asking nothing', async () => {
    const server = await modelServer({}, json({}));
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    await expect(detect(settingsFor(`${server.root}/v1`), controller.signal)).rejects.toThrow(
      'gone',
    );
    expect(server.paths).toEqual([]);
  });

  for (const via of ['node', 'fetch'] as const)
    it(`rejects when aborted while an answer is being read (via ${via})`, async () => {
      const reading = Promise.withResolvers<void>();
      const server = await modelServer({}, (_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write('{"version": "0.');
        reading.resolve();
      });
      const controller = new AbortController();
      const found = detect(settingsFor(`${server.root}/v1`, via), controller.signal);
      await reading.promise;
      controller.abort(new Error('stop'));
      await expect(found).rejects.toThrow('stop');
    });

  it('never throws for a server that is not there', async () => {
    const server = await modelServer({});
    const root = server.root;
    await new Promise<void>((resolve) => servers.pop()!.close(() => resolve()));
    const found = await detect(settingsFor(`${root}/v1`));
    expect(found.kind).toBe('openai');
    expect(found.evidence).toBe(
      `no known model server: GET ${ALL_PROBES}: the request failed: ECONNREFUSED`,
    );
    expect(found.unreachable).toBe(true);
  });
});

describe('detectUpstreamKind: redirects and credentials', () => {
  for (const via of ['node', 'fetch'] as const)
    it(`does not follow a redirect (via ${via})`, async () => {
      const elsewhere = await modelServer({ '/props': json(LLAMA_PROPS) }, llamaNotFound);
      const server = await modelServer({}, (request, response) => {
        response.writeHead(302, { location: `${elsewhere.root}${request.url}` });
        response.end();
      });
      const found = await detect(settingsFor(`${server.root}/v1`, via));
      expect(found.kind).toBe('openai');
      expect(found.evidence).toBe(
        `no known model server: GET ${ALL_PROBES}: it answered 302 (a redirect, not followed)`,
      );
      expect(elsewhere.paths).toEqual([]);
    });

  for (const via of ['node', 'fetch'] as const)
    it(`sends a URL's credentials as basic authorization, never in the evidence (via ${via})`, async () => {
      const server = await modelServer({ '/api/version': json({ version: '0.12.6' }) });
      const url = new URL(server.root);
      const found = await detect(settingsFor(`http://user:s3cret@${url.host}/v1`, via));
      expect(found).toMatchObject({ kind: 'ollama', version: '0.12.6' });
      const expected = `Basic ${Buffer.from('user:s3cret').toString('base64')}`;
      for (const request of server.requests) expect(request.headers.authorization).toBe(expected);
      // Nothing listens at the same URL now: the failures do not quote it either.
      const port = url.port;
      await new Promise<void>((resolve) => {
        const closing = servers.pop()!;
        closing.closeAllConnections();
        closing.close(() => resolve());
      });
      const failed = await detect(settingsFor(`http://user:s3cret@127.0.0.1:${port}/v1`, via));
      expect(failed.kind).toBe('openai');
      expect(failed.evidence).not.toContain('s3cret');
      expect(failed.evidence).not.toContain('user:');
    });

  it('calls a base URL that is not a URL openai without asking, its credentials redacted', async () => {
    const found = await detect(settingsFor('ftp://user:s3cret@example.com/v1', 'fetch'));
    expect(found.kind).toBe('openai');
    expect(found.evidence).toMatch(/^not probed: /);
    expect(found.evidence).not.toContain('s3cret');
  });
});

describe('boundedGet, the one bounded GET the proxy asks a model server about itself with', () => {
  it('does not read the body of an answer that is not 2xx, however long', async () => {
    let written = 0;
    const server = await modelServer({}, (_request, response) => {
      response.writeHead(404, { 'content-type': 'text/plain' });
      const more = () => {
        while (!response.destroyed && written < 256 * 1024 * 1024) {
          written += 16 * 1024;
          if (!response.write('n'.repeat(16 * 1024))) return void response.once('drain', more);
        }
      };
      more();
    });
    const answer = await boundedGet(`${server.root}/props`, {
      timeoutMs: 60_000,
      maxBytes: 1024,
      transport: settingsFor(server.root).transport,
    });
    expect(answer).toEqual({ ok: false, status: 404, reason: 'it answered 404' });
    expect(written).toBeLessThan(32 * 1024 * 1024);
  });

  it('reads a body of exactly the cap, and refuses one byte more, declared or not', async () => {
    const body = `"${'x'.repeat(98)}"`;
    const server = await modelServer({
      '/declared': text(body, 200, 'application/json'),
      '/chunked': (_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write(body.slice(0, 50));
        response.end(body.slice(50));
      },
    });
    const { transport } = settingsFor(server.root);
    for (const path of ['/declared', '/chunked']) {
      const get = (maxBytes: number) =>
        boundedGet(`${server.root}${path}`, { timeoutMs: 60_000, maxBytes, transport });
      expect(await get(100)).toEqual({ ok: true, status: 200, text: body });
      expect(await get(99)).toEqual({
        ok: false,
        status: 200,
        reason: 'its answer is larger than 99 bytes',
      });
    }
  });

  it('decodes UTF-8 split across reads once the body is whole', async () => {
    const bytes = Buffer.from('{"v":"é€😀"}');
    const server = await modelServer({}, (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      // Cut inside the two-, three- and four-byte characters.
      response.write(bytes.subarray(0, 8));
      response.write(bytes.subarray(8, 10));
      response.write(bytes.subarray(10, 14));
      response.end(bytes.subarray(14));
    });
    for (const via of ['node', 'fetch'] as const) {
      const { transport } = settingsFor(server.root, via);
      const answer = await boundedGet(`${server.root}/x`, {
        timeoutMs: 60_000,
        maxBytes: 1024,
        ...(transport === undefined ? {} : { transport }),
      });
      expect(answer).toEqual({ ok: true, status: 200, text: '{"v":"é€😀"}' });
    }
  });
});
