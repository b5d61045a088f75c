import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/http/node-server.ts';
import { createProxyApp } from '../../src/proxy/index.ts';
import { proxyHarness, WEATHER } from './harness.ts';

// `POST /v1/messages/count_tokens`, which Claude Code asks before and during a conversation:
// counted by the model server's tokenizer where it serves `/tokenize`, else estimated.

const startProxy = proxyHarness();

const BODY = {
  model: 'qwen3-coder',
  system: [{ type: 'text', text: 'You are Claude Code.', cache_control: { type: 'ephemeral' } }],
  messages: [
    { role: 'user', content: 'List the files.' },
    { role: 'system', content: [{ type: 'text', text: '<env>cwd: /work</env>' }] },
  ],
  tools: [
    { name: WEATHER.name, description: WEATHER.description, input_schema: WEATHER.inputSchema },
  ],
};

async function count(url: string, body: unknown = BODY): Promise<Response> {
  return fetch(`${url}/v1/messages/count_tokens?beta=true`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-test' },
    body: JSON.stringify(body),
  });
}

/** A model server with llama.cpp's `/tokenize` at its root (one token per word), and nothing else. */
interface Tokenizer {
  readonly url: string;
  readonly bodies: Record<string, unknown>[];
  readonly paths: string[];
}
let servers: Server[] = [];
let proxies: RunningServer[] = [];
afterEach(async () => {
  for (const proxy of proxies) await proxy.close();
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
  servers = [];
  proxies = [];
});

async function startTokenizer(reply: (text: string) => unknown): Promise<Tokenizer> {
  const bodies: Record<string, unknown>[] = [];
  const paths: string[] = [];
  const server = createServer(async (request, response) => {
    let text = '';
    for await (const chunk of request) text += chunk;
    paths.push(`${request.method} ${request.url}`);
    if (request.method === 'POST' && request.url === '/tokenize') {
      const body = JSON.parse(text) as Record<string, unknown>;
      bodies.push(body);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(reply(body.content as string)));
      return;
    }
    response.writeHead(404, { 'content-type': 'application/json' });
    response.end('{"error":"no route"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, bodies, paths };
}

async function proxyFor(upstream: string): Promise<string> {
  const running = await startServer(createProxyApp({ upstream, protocol: 'hermes' }), {
    port: 0,
    host: '127.0.0.1',
  });
  proxies.push(running);
  return running.url;
}

describe('POST /v1/messages/count_tokens', () => {
  it("answers the model server's tokenizer count of the rendered prompt", async () => {
    const tokenizer = await startTokenizer((text) => ({
      tokens: text.split(/\s+/).map((_, index) => index),
    }));
    const response = await count(await proxyFor(tokenizer.url));
    expect(response.status).toBe(200);
    expect(response.headers.get('x-toolwire-token-count')).toBe('tokenizer');
    const sent = tokenizer.bodies[0]!;
    // The tokenizer sees the prompt as the model would: system text, later system text, the
    // tool prompt, the user's message.
    const text = sent.content as string;
    expect(text).toContain('You are Claude Code.');
    expect(text).toContain('<env>cwd: /work</env>');
    expect(text).toContain(WEATHER.name);
    expect(text).toContain('List the files.');
    expect(sent.prompt).toBe(text);
    expect(tokenizer.paths).toEqual(['POST /tokenize']);
    expect(await response.json()).toEqual({ input_tokens: text.split(/\s+/).length });
  });

  it('counts the earlier reasoning sent back in thinking blocks (a template that keeps it renders it)', async () => {
    const tokenizer = await startTokenizer((text) => ({ tokens: text.split(/\s+/) }));
    const body = {
      ...BODY,
      messages: [
        ...BODY.messages,
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'The user wants a listing of the files.', signature: '' },
            { type: 'text', text: 'Listing them.' },
          ],
        },
        { role: 'user', content: 'Go on.' },
      ],
    };
    await count(await proxyFor(tokenizer.url), body);
    const text = tokenizer.bodies[0]!.content as string;
    expect(text).toContain('The user wants a listing of the files.');
    expect(text).toContain('Listing them.');
  });

  it("reads vLLM's count", async () => {
    const tokenizer = await startTokenizer(() => ({
      count: 1234,
      max_model_len: 8192,
      tokens: [1],
    }));
    const response = await count(await proxyFor(tokenizer.url));
    expect(await response.json()).toEqual({ input_tokens: 1234 });
  });

  it('estimates a token per four characters, and says so, when the model server has no tokenizer', async () => {
    const { url, upstream } = await startProxy([]);
    const response = await count(url);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-toolwire-token-count')).toBe('estimate');
    const { input_tokens } = (await response.json()) as { input_tokens: number };
    // The rendered prompt holds the tool prompt too: far more than the messages' few words.
    expect(input_tokens).toBeGreaterThan(50);
    expect(upstream.requests).toHaveLength(0);
  });

  it('estimates when the tokenizer answers something else', async () => {
    const tokenizer = await startTokenizer(() => ({ unexpected: true }));
    const response = await count(await proxyFor(tokenizer.url));
    expect(response.headers.get('x-toolwire-token-count')).toBe('estimate');
  });

  it('refuses a body it cannot read, naming the field', async () => {
    const { url } = await startProxy([]);
    const response = await count(url, { ...BODY, messages: [{ role: 'robot', content: 'x' }] });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { type: string; error: { message: string } };
    expect(body.type).toBe('error');
    expect(body.error.message).toContain('messages[0].role');
  });
});
