import { describe, expect, it } from 'vitest';
import { ModelCallError } from '../../../src/core/model-call-error.ts';
import { HttpError } from '../../../src/http/http-error.ts';
import {
  OLLAMA_API_VERSION,
  type OllamaServerAccess,
  ollamaRoot,
  ollamaRunning,
  ollamaShow,
  ollamaTags,
  ollamaVersion,
  tagsFromModelList,
} from '../../../src/proxy/ollama/models.ts';
import type { UpstreamSettings } from '../../../src/proxy/upstream.ts';

interface Seen {
  readonly url: string;
  readonly method: string;
  readonly body: unknown;
  readonly authorization: string | null;
}

/** A model server answering each path from `routes` (404 for the others), recording what it got. */
function access(
  routes: Record<string, { status?: number; body: unknown }>,
  baseURL = 'http://127.0.0.1:11434/v1',
): OllamaServerAccess & { seen: Seen[] } {
  const seen: Seen[] = [];
  const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = String(input);
    const headers = new Headers(init?.headers);
    seen.push({
      url,
      method: init?.method ?? 'GET',
      body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined,
      authorization: headers.get('authorization'),
    });
    const route = routes[new URL(url).pathname];
    if (!route) return Response.json({ error: 'page not found' }, { status: 404 });
    if (typeof route.body === 'string')
      return new Response(route.body, {
        status: route.status ?? 200,
        headers: { 'content-type': 'text/html' },
      });
    return Response.json(route.body, { status: route.status ?? 200 });
  }) as typeof globalThis.fetch;
  const upstream: UpstreamSettings = {
    baseURL,
    authorization: undefined,
    timeoutMs: 5000,
    maxReplyBytes: 1024 * 1024,
    maxEventBytes: 1024 * 1024,
    json: { maxDepth: 64, maxValues: 10_000 },
    fetch,
  };
  return {
    upstream,
    authorization: 'Bearer client-key',
    signal: new AbortController().signal,
    seen,
  };
}

const TAGS = {
  models: [
    {
      name: 'qwen3:8b',
      model: 'qwen3:8b',
      modified_at: '2026-10-01T00:00:00Z',
      size: 5_200_000_000,
      digest: 'abc',
      details: { family: 'qwen3' },
    },
  ],
};

describe("Ollama's model endpoints", () => {
  it('finds the Ollama server at the root of a /v1 base URL', () => {
    const { upstream } = access({});
    expect(ollamaRoot(upstream).baseURL).toBe('http://127.0.0.1:11434');
    expect(ollamaRoot({ ...upstream, baseURL: 'http://host:8080' }).baseURL).toBe(
      'http://host:8080',
    );
  });

  it("passes /api/tags through to an Ollama server, with the client's credentials", async () => {
    const server = access({ '/api/tags': { body: TAGS } });
    expect(await ollamaTags(server)).toEqual(TAGS);
    expect(server.seen).toEqual([
      {
        url: 'http://127.0.0.1:11434/api/tags',
        method: 'GET',
        body: undefined,
        authorization: 'Bearer client-key',
      },
    ]);
  });

  it('answers /api/tags from /v1/models when the model server is not Ollama', async () => {
    const server = access({
      '/v1/models': {
        body: {
          object: 'list',
          data: [
            { id: 'Qwen/Qwen3-8B', object: 'model', created: 1_760_000_000, owned_by: 'vllm' },
            { object: 'model' },
          ],
        },
      },
    });
    expect(await ollamaTags(server)).toEqual({
      models: [
        {
          name: 'Qwen/Qwen3-8B',
          model: 'Qwen/Qwen3-8B',
          modified_at: new Date(1_760_000_000_000).toISOString(),
          size: 0,
          digest: '',
          details: {
            parent_model: '',
            format: '',
            family: '',
            families: [],
            parameter_size: '',
            quantization_level: '',
          },
        },
      ],
    });
    expect(server.seen.map((seen) => seen.url)).toEqual([
      'http://127.0.0.1:11434/api/tags',
      'http://127.0.0.1:11434/v1/models',
    ]);
  });

  it('answers /api/tags from /v1/models when the root answers a web page', async () => {
    const server = access({
      '/api/tags': { body: '<!doctype html><p>Welcome</p>' },
      '/v1/models': { body: { data: [{ id: 'local-model' }] } },
    });
    expect(await ollamaTags(server)).toMatchObject({ models: [{ name: 'local-model' }] });
  });

  it('reads a model list without data as no models', () => {
    expect(tagsFromModelList({ object: 'list' })).toEqual({ models: [] });
    expect(tagsFromModelList('nonsense')).toEqual({ models: [] });
  });

  it("passes on the model server's failure other than 404 (a 500, say)", async () => {
    const server = access({ '/api/tags': { status: 500, body: { error: 'disk on fire' } } });
    const failure = await ollamaTags(server).catch((error: unknown) => error);
    expect(ModelCallError.isInstance(failure)).toBe(true);
    expect((failure as ModelCallError).status).toBe(500);
    expect((failure as ModelCallError).detail).toBe('disk on fire');
  });

  it('passes /api/show through with the body, adding tools to the capabilities', async () => {
    const server = access({
      '/api/show': {
        body: { template: '{{ .Prompt }}', capabilities: ['completion', 'vision'], details: {} },
      },
    });
    expect(await ollamaShow(server, { model: 'gemma3', verbose: true })).toEqual({
      template: '{{ .Prompt }}',
      capabilities: ['completion', 'vision', 'tools'],
      details: {},
    });
    expect(server.seen[0]).toMatchObject({
      url: 'http://127.0.0.1:11434/api/show',
      method: 'POST',
      body: { model: 'gemma3', verbose: true },
    });
  });

  it('answers /api/show itself when the model server is not Ollama', async () => {
    const reply = (await ollamaShow(access({}), { name: 'Qwen/Qwen3-8B' })) as Record<
      string,
      unknown
    >;
    expect(reply.capabilities).toEqual(['completion', 'tools']);
    expect(reply).toHaveProperty('details');
    expect(reply).toHaveProperty('model_info');
  });

  it('refuses /api/show without a model, naming the field', async () => {
    const failure = await ollamaShow(access({}), {}).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(HttpError);
    expect((failure as HttpError).message).toBe(
      'model is missing; it must be a model id (a string)',
    );
  });

  it('passes /api/version and /api/ps through, or answers them itself', async () => {
    const ollama = access({
      '/api/version': { body: { version: '0.13.1' } },
      '/api/ps': { body: { models: [{ name: 'qwen3:8b' }] } },
    });
    expect(await ollamaVersion(ollama)).toEqual({ version: '0.13.1' });
    expect(await ollamaRunning(ollama)).toEqual({ models: [{ name: 'qwen3:8b' }] });
    const other = access({});
    expect(await ollamaVersion(other)).toEqual({ version: OLLAMA_API_VERSION });
    expect(await ollamaRunning(other)).toEqual({ models: [] });
  });
});
