/**
 * `toolwire proxy` and `toolwire serve` with a format from a file, and the proxy's
 * `--chat-template auto`, which asks the model server (here a scripted one on loopback, serving
 * llama.cpp's `GET /props`) for its chat template once, at start.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { protocolByName } from '../../src/protocols/index.ts';
import { type StartedChild, startCli } from '../support/child-process.ts';

const fixture = (path: string) => fileURLToPath(new URL(`../fixtures/${path}`, import.meta.url));
const HERMES_TEMPLATE = readFileSync(fixture('chat-templates/hermes.vllm.jinja'), 'utf8');
const HOUSE = fixture('cli/house-format.json');

/** A model server on loopback: `/props` as given, chat completions answered with `reply`. */
interface ModelServer {
  readonly url: string;
  /** The paths asked, in order. */
  readonly asked: string[];
  /** The chat completions request bodies. */
  readonly requests: { messages: { role: string; content: string }[] }[];
  readonly headers: IncomingMessage['headers'][];
  close(): Promise<void>;
}

async function modelServer(props: unknown | undefined, reply: string): Promise<ModelServer> {
  const asked: string[] = [];
  const requests: ModelServer['requests'] = [];
  const headers: IncomingMessage['headers'][] = [];
  const server: Server = createServer(async (request, response) => {
    asked.push(`${request.method} ${request.url}`);
    headers.push(request.headers);
    let body = '';
    for await (const chunk of request) body += chunk;
    if (request.method === 'GET' && request.url === '/props' && props !== undefined) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(props));
      return;
    }
    if (request.method === 'POST' && request.url === '/v1/chat/completions') {
      const parsed = JSON.parse(body);
      requests.push(parsed);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 1,
          model: parsed.model,
          choices: [
            { index: 0, message: { role: 'assistant', content: reply }, finish_reason: 'stop' },
          ],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
      return;
    }
    response.writeHead(404, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: { message: `no route ${request.url}` } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    asked,
    requests,
    headers,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let child: StartedChild | undefined;
let upstream: ModelServer | undefined;
afterEach(async () => {
  await child?.stop();
  child = undefined;
  await upstream?.close();
  upstream = undefined;
});

/** Starts `toolwire ARGS` and resolves once it has said which protocol it reads. */
async function start(args: string[], env: Record<string, string> = {}): Promise<string> {
  child = await startCli(args, {
    env: { ...process.env, ...env },
    readyWhen: /listening on (http:\/\/127\.0\.0\.1:\d+)[^\n]*\n[^\n]*protocol [^\n]*\n/,
  });
  return child.ready[1]!;
}

const WEATHER_TOOL = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

/** Asks the proxy for one chat completion with the weather tool; its message. */
async function ask(url: string, model: string) {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model,
      messages: [{ role: 'user', content: 'Weather in Oslo?' }],
      tools: [WEATHER_TOOL],
    }),
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as {
    choices: {
      message: { content: string | null; tool_calls?: { function: { name: string } }[] };
    }[];
  };
  return body.choices[0]!.message;
}

const HERMES_CALL = protocolByName('hermes').formatToolCall({
  toolName: 'get_weather',
  input: { city: 'Oslo' },
});

describe('toolwire proxy --chat-template auto', () => {
  it("reads the format of the model server's own template, asked once at start", async () => {
    upstream = await modelServer({ chat_template: HERMES_TEMPLATE, total_slots: 1 }, HERMES_CALL);
    const url = await start([
      'proxy',
      '--upstream',
      upstream.url,
      '--port',
      '0',
      '--chat-template',
      'auto',
    ]);
    const printed = child!.output();
    expect(printed).toContain(
      `toolwire proxy: --chat-template auto: read the model server's chat template (${upstream.url.slice(0, -3)}/props): format hermes`,
    );
    expect(printed).toContain("protocol hermes (the model server's chat template)");
    // A model id whose own format is not hermes: the template's format is used all the same.
    for (const model of ['gpt-oss:20b', 'qwen3-coder:30b']) {
      const message = await ask(url, model);
      expect(message.tool_calls?.[0]?.function.name).toBe('get_weather');
    }
    expect(upstream.asked.filter((path) => path === 'GET /props')).toHaveLength(1);
  });

  it('sends the upstream credentials with the question', async () => {
    upstream = await modelServer({ chat_template: HERMES_TEMPLATE }, HERMES_CALL);
    await start(
      [
        'proxy',
        '--upstream',
        upstream.url,
        '--port',
        '0',
        '--chat-template',
        'auto',
        '--upstream-api-key-env',
        'TOOLWIRE_TEST_UPSTREAM_KEY',
      ],
      { TOOLWIRE_TEST_UPSTREAM_KEY: 'sekret' },
    );
    expect(upstream.headers[0]!.authorization).toBe('Bearer sekret');
    expect(child!.output()).not.toContain('sekret');
  });

  it("falls back to each request's model's format when the server has no template", async () => {
    upstream = await modelServer(undefined, HERMES_CALL);
    const url = await start([
      'proxy',
      '--upstream',
      upstream.url,
      '--port',
      '0',
      '--chat-template',
      'auto',
    ]);
    const printed = child!.output();
    expect(printed).toContain(
      `toolwire proxy: --chat-template auto: ${upstream.url.slice(0, -3)}/props gave no chat template: it answered 404; reading each request's model's format instead (--protocol model)`,
    );
    expect(printed).toContain("protocol model (each request's model's format)");
    // hermes is the format of a model no format claims.
    expect((await ask(url, 'some-unknown-model')).tool_calls?.[0]?.function.name).toBe(
      'get_weather',
    );
  });

  it('falls back, saying why, when the template cannot be analysed', async () => {
    const template = readFileSync(fixture('cli/no-calls.jinja'), 'utf8');
    upstream = await modelServer({ chat_template: template }, 'hello');
    await start(['proxy', '--upstream', upstream.url, '--port', '0', '--chat-template', 'auto']);
    const line = child!
      .output()
      .split('\n')
      .find((each) => each.includes('--chat-template auto'))!;
    expect(line).toContain('gave a chat template that cannot be analysed: ');
    expect(line).toContain("reading each request's model's format instead");
  });
});

describe('toolwire proxy and serve with a format file', () => {
  it('proxy --format-file: every request in the spec', async () => {
    upstream = await modelServer(
      undefined,
      '<call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</call>',
    );
    const url = await start([
      'proxy',
      '--upstream',
      upstream.url,
      '--port',
      '0',
      '--format-file',
      HOUSE,
    ]);
    expect(child!.output()).toContain(`protocol house-format (--format-file ${HOUSE})`);
    expect((await ask(url, 'qwen3-coder:30b')).tool_calls?.[0]?.function.name).toBe('get_weather');
    expect(upstream.requests[0]!.messages[0]!.content).toContain('<call>');
    // Not asked for a template: only --chat-template auto does.
    expect(upstream.asked).not.toContain('GET /props');
  });

  it('serve --chat-template names the format and its file', async () => {
    const template = fixture('chat-templates/hermes.vllm.jinja');
    const url = await start(
      ['serve', '--port', '0', '--chat-template', template, '--base-url', 'http://127.0.0.1:9/v1'],
      { TOOLWIRE_PROTOCOL: 'xml' },
    );
    expect(child!.output()).toContain(`protocol hermes (--chat-template ${template})`);
    const info = (await (await fetch(`${url}/api/info`)).json()) as { protocol: string };
    expect(info.protocol).toBe('hermes');
  });
});
