import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ModelCallError } from '../../src/core/model-call-error.ts';
import { HttpError } from '../../src/http/http-error.ts';
import { startServer } from '../../src/http/node-server.ts';
import { errorResponse, httpErrorOf } from '../../src/proxy/errors.ts';
import { createProxyApp, type ProxyOptions } from '../../src/proxy/index.ts';
import { SSE_HEADERS } from '../../src/stream/sse.ts';
import { joinedChatStream } from './harness.ts';
import {
  type ScriptedReply,
  type ScriptedUpstream,
  startScriptedUpstream,
} from './scripted-upstream.ts';

const TOOLS = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
];
const CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>';

/** A response's JSON body, read loosely: each test checks the fields it names. */
// biome-ignore lint/suspicious/noExplicitAny: the shapes under test are the assertions themselves
const json = async (response: Response): Promise<any> => response.json();

let upstream: ScriptedUpstream | undefined;
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

async function proxyFor(script: readonly ScriptedReply[], options: Partial<ProxyOptions> = {}) {
  upstream = await startScriptedUpstream(script);
  return createProxyApp({ upstream: upstream.url, protocol: 'hermes', ...options });
}

function post(body: unknown, headers: Record<string, string> = {}): RequestInit {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json', host: '127.0.0.1', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  };
}

const chat = (extra: Record<string, unknown> = {}) => ({
  model: 'm',
  messages: [{ role: 'user', content: 'Weather in Oslo?' }],
  tools: TOOLS,
  ...extra,
});

describe('proxy: refusals in each API format', () => {
  it('a malformed chat completions request gets 400 naming the field, in OpenAI error shape', async () => {
    const proxy = await proxyFor([{ text: 'hi' }]);
    const response = await proxy.app.request(
      '/v1/chat/completions',
      post({ model: 'm', messages: [{ role: 'robot', content: 'x' }] }),
    );
    expect(response.status).toBe(400);
    const body = await json(response);
    expect(body.error.type).toBe('invalid_request_error');
    expect(body.error.param).toBe('messages[0].role');
    expect(body.error.message).toContain('messages[0].role must be');
    expect(upstream!.requests).toHaveLength(0);
  });

  it('a malformed Messages request gets 400 in Anthropic error shape', async () => {
    const proxy = await proxyFor([{ text: 'hi' }]);
    const response = await proxy.app.request(
      '/v1/messages',
      post({ model: 'm', messages: [{ role: 'user', content: 'x' }] }),
    );
    expect(response.status).toBe(400);
    expect(await json(response)).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.stringContaining('max_tokens') },
    });
  });

  it('a body that is not JSON text gets 400; one sent as another type 415', async () => {
    const proxy = await proxyFor([{ text: 'hi' }]);
    const broken = await proxy.app.request('/v1/chat/completions', post('{"model": '));
    expect(broken.status).toBe(400);
    expect((await json(broken)).error.message).toMatch(/JSON/);
    const typed = await proxy.app.request('/v1/chat/completions', {
      ...post(chat()),
      headers: { 'content-type': 'text/plain', host: '127.0.0.1' },
    });
    expect(typed.status).toBe(415);
  });

  it('a body over the limit gets 413 without reaching the model server', async () => {
    const proxy = await proxyFor([{ text: 'hi' }], { limits: { maxBodyBytes: 1000 } });
    const response = await proxy.app.request(
      '/v1/messages',
      post({
        model: 'm',
        max_tokens: 5,
        messages: [{ role: 'user', content: 'x'.repeat(2000) }],
      }),
    );
    expect(response.status).toBe(413);
    expect((await json(response)).error.type).toBe('request_too_large');
    expect(upstream!.requests).toHaveLength(0);
  });

  it('an unknown route gets 404 saying what is served', async () => {
    const proxy = await proxyFor([{ text: 'hi' }]);
    const response = await proxy.app.request('/v1/embeddings', post({}));
    expect(response.status).toBe(404);
    expect((await json(response)).error.message).toContain('POST /v1/chat/completions');
  });

  it('a request addressed to a foreign host name is refused (DNS rebinding)', async () => {
    const proxy = await proxyFor([{ text: 'hi' }]);
    const response = await proxy.app.request(
      'http://evil.example/v1/chat/completions',
      post(chat(), { host: 'evil.example' }),
    );
    expect(response.status).toBe(403);
    expect((await json(response)).error.message).toContain('evil.example');
  });

  it('a page on another origin is refused', async () => {
    const proxy = await proxyFor([{ text: 'hi' }]);
    const response = await proxy.app.request(
      '/v1/chat/completions',
      post(chat(), { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }),
    );
    expect(response.status).toBe(403);
    expect(upstream!.requests).toHaveLength(0);
  });
});

describe('proxy: keys', () => {
  it('with an API key, requests without it or with another get 401; either header form is accepted', async () => {
    const proxy = await proxyFor([{ text: 'hi' }], { apiKey: 'sesame' });
    const none = await proxy.app.request('/v1/chat/completions', post(chat()));
    expect(none.status).toBe(401);
    expect((await json(none)).error.message).toContain('Authorization: Bearer');
    const wrong = await proxy.app.request(
      '/v1/messages',
      post(
        { model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] },
        { 'x-api-key': 'nope' },
      ),
    );
    expect(wrong.status).toBe(401);
    expect((await json(wrong)).error.type).toBe('authentication_error');
    const bearer = await proxy.app.request(
      '/v1/chat/completions',
      post(chat(), { authorization: 'Bearer sesame' }),
    );
    expect(bearer.status).toBe(200);
    const header = await proxy.app.request(
      '/v1/messages',
      post(
        { model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] },
        { 'x-api-key': 'sesame' },
      ),
    );
    expect(header.status).toBe(200);
  });

  it("the client's Authorization goes upstream, unless the proxy has an upstream key", async () => {
    const proxy = await proxyFor([{ text: 'hi' }]);
    await proxy.app.request(
      '/v1/chat/completions',
      post(chat(), { authorization: 'Bearer client-key' }),
    );
    expect(upstream!.headers.at(-1)!.authorization).toBe('Bearer client-key');
    await proxy.app.request(
      '/v1/messages',
      post(
        { model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] },
        { 'x-api-key': 'anthropic-key' },
      ),
    );
    expect(upstream!.headers.at(-1)!.authorization).toBe('Bearer anthropic-key');
    await upstream!.close();
    const keyed = await proxyFor([{ text: 'hi' }], { upstreamApiKey: 'server-key' });
    await keyed.app.request(
      '/v1/chat/completions',
      post(chat(), { authorization: 'Bearer client-key' }),
    );
    expect(upstream!.headers.at(-1)!.authorization).toBe('Bearer server-key');
  });
});

describe('proxy: errors are HttpErrors, written in the client API', () => {
  it('one HttpError takes OpenAI’s shape (with its param) and Anthropic’s', async () => {
    const error = new HttpError(400, 'messages[0].role is not a role', {
      param: 'messages[0].role',
    });
    const openai = errorResponse('openai', error);
    expect(openai.status).toBe(400);
    expect(await openai.json()).toEqual({
      error: {
        message: 'messages[0].role is not a role',
        type: 'invalid_request_error',
        param: 'messages[0].role',
        code: null,
      },
    });
    const anthropic = errorResponse('anthropic', new HttpError(413, 'too large'));
    expect(anthropic.status).toBe(413);
    expect(await anthropic.json()).toEqual({
      type: 'error',
      error: { type: 'request_too_large', message: 'too large' },
    });
    const late = errorResponse('openai', new HttpError(408, 'the body did not arrive'));
    expect(late.headers.get('connection')).toBe('close');
  });

  it('a failed model call is answered by its kind: 502, 504, its own status, 502', () => {
    const baseURL = 'http://127.0.0.1:9/v1';
    const cases: [ModelCallError, number, string][] = [
      [
        new ModelCallError('model-unreachable', { baseURL, detail: 'ECONNREFUSED' }),
        502,
        'no model server answers at http://127.0.0.1:9/v1 (ECONNREFUSED)',
      ],
      [
        new ModelCallError('model-unreachable', { baseURL, detail: 'terminated', brokeOff: true }),
        502,
        'the reply of the model server at http://127.0.0.1:9/v1 broke off (terminated)',
      ],
      [
        new ModelCallError('model-timeout', { baseURL, timeoutMs: 200 }),
        504,
        'the model server at http://127.0.0.1:9/v1 did not finish within 0.2 s',
      ],
      [
        new ModelCallError('model-http-status', { baseURL, status: 429, detail: 'slow down' }),
        429,
        'the model server at http://127.0.0.1:9/v1 answered 429: slow down',
      ],
      [
        new ModelCallError('model-http-status', { baseURL, status: 302, detail: 'elsewhere' }),
        502,
        'the model server at http://127.0.0.1:9/v1 answered 302: elsewhere',
      ],
      [
        new ModelCallError('model-bad-reply', {
          baseURL,
          detail: "the model server's reply is not valid JSON",
        }),
        502,
        "the model server's reply is not valid JSON",
      ],
    ];
    for (const [failure, status, message] of cases) {
      const error = httpErrorOf(failure);
      expect([error.status, error.message]).toEqual([status, message]);
      expect(error.cause).toBe(failure);
    }
    const refusal = new HttpError(429, 'busy');
    expect(httpErrorOf(refusal)).toBe(refusal);
    expect(httpErrorOf(new Error('boom'))).toMatchObject({
      status: 500,
      message: 'the proxy failed: boom',
    });
  });

  it('the upstream failure reaches the client with its kind behind it (no server: model-unreachable)', async () => {
    const proxy = createProxyApp({ upstream: 'http://127.0.0.1:9/v1', protocol: 'hermes' });
    const response = await proxy.app.request(
      '/v1/messages',
      post({
        model: 'm',
        max_tokens: 5,
        messages: [{ role: 'user', content: 'x' }],
      }),
    );
    expect(response.status).toBe(502);
    expect(await json(response)).toEqual({
      type: 'error',
      error: {
        type: 'api_error',
        message: expect.stringMatching(
          /^no model server answers at http:\/\/127\.0\.0\.1:9\/v1 \([^)]+\)$/,
        ),
      },
    });
  });
});

describe('proxy: one SSE response', () => {
  it('streams with the SSE headers the server uses (no-transform included) in both APIs', async () => {
    const proxy = await proxyFor([{ text: 'hi' }, { text: 'hi' }]);
    const openai = await proxy.app.request('/v1/chat/completions', post(chat({ stream: true })));
    const anthropic = await proxy.app.request(
      '/v1/messages',
      post({ model: 'm', max_tokens: 5, stream: true, messages: [{ role: 'user', content: 'x' }] }),
    );
    for (const response of [openai, anthropic]) {
      expect(response.status).toBe(200);
      for (const [name, value] of Object.entries(SSE_HEADERS))
        expect(response.headers.get(name)).toBe(value);
      await response.text();
    }
  });
});

describe('proxy: a sibling of the server on top of src/http', () => {
  it('imports nothing from src/server', () => {
    const source = fileURLToPath(new URL('../../src/', import.meta.url));
    const proxy = join(source, 'proxy');
    const files = readdirSync(proxy, { recursive: true, encoding: 'utf8' }).filter((name) =>
      name.endsWith('.ts'),
    );
    expect(files.length).toBeGreaterThan(5);
    const reached: string[] = [];
    for (const file of files) {
      const text = readFileSync(join(proxy, file), 'utf8');
      // Every module named after `from` or in `import(…)`, static or dynamic, type-only or not.
      for (const [, specifier] of text.matchAll(
        /(?:\bfrom|\bimport)\s*\(?\s*['"]([^'"\n]+)['"]/g,
      )) {
        const target = relative(source, resolve(dirname(join(proxy, file)), specifier!));
        if (target.split(sep)[0] === 'server') reached.push(`${file} imports ${specifier}`);
      }
    }
    expect(reached).toEqual([]);
  });
});

describe('proxy: the model server', () => {
  it('passes its error status and message on', async () => {
    const proxy = await proxyFor([{ status: 429, errorMessage: 'slow down' }]);
    const response = await proxy.app.request('/v1/chat/completions', post(chat()));
    expect(response.status).toBe(429);
    expect((await json(response)).error.message).toContain('slow down');
    const streamed = await proxy.app.request(
      '/v1/messages',
      post({
        model: 'm',
        max_tokens: 5,
        stream: true,
        messages: [{ role: 'user', content: 'x' }],
      }),
    );
    expect(streamed.status).toBe(429);
    expect((await json(streamed)).error).toEqual({
      type: 'rate_limit_error',
      message: expect.stringContaining('slow down'),
    });
  });

  it('gets 502 when no model server answers, streamed or not', async () => {
    const proxy = createProxyApp({ upstream: 'http://127.0.0.1:9/v1', protocol: 'hermes' });
    for (const stream of [false, true]) {
      const response = await proxy.app.request('/v1/chat/completions', post(chat({ stream })));
      expect(response.status).toBe(502);
      expect((await json(response)).error.message).toContain(
        'no model server answers at http://127.0.0.1:9/v1',
      );
    }
  });

  it('gets 504 when the model server does not finish in time', async () => {
    const proxy = await proxyFor([{ text: 'slow reply', hangAfter: 0 }], {
      limits: { upstreamTimeoutMs: 200 },
    });
    const response = await proxy.app.request('/v1/chat/completions', post(chat({ stream: true })));
    // The model server answered at once, so the stream began: the timeout ends it with an error event.
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain('did not finish within 0.2 s');
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
  });

  it('more requests at once than the limit get 429 until one ends', async () => {
    const proxy = await proxyFor([{ text: 'a b c d e f', delayMs: 30 }], {
      limits: { maxConcurrentRequests: 1 },
    });
    const first = await proxy.app.request('/v1/chat/completions', post(chat({ stream: true })));
    const second = await proxy.app.request('/v1/chat/completions', post(chat({ stream: true })));
    expect(second.status).toBe(429);
    expect((await json(second)).error.message).toContain('maxConcurrentRequests');
    await first.text();
    expect(proxy.active()).toBe(0);
    const third = await proxy.app.request('/v1/chat/completions', post(chat()));
    expect(third.status).toBe(200);
  });

  it('a client that disconnects cancels its upstream request', async () => {
    const proxy = await proxyFor([{ text: 'x'.repeat(400), delayMs: 20 }]);
    const running = await startServer(proxy, { port: 0, host: '127.0.0.1' });
    try {
      const controller = new AbortController();
      const response = await fetch(`${running.url}/v1/chat/completions`, {
        ...post(chat({ stream: true })),
        headers: { 'content-type': 'application/json' },
        signal: controller.signal,
      });
      const reader = response.body!.getReader();
      await reader.read();
      controller.abort();
      await expect.poll(() => upstream!.disconnects, { timeout: 3000 }).toBe(1);
      await expect.poll(() => proxy.active(), { timeout: 3000 }).toBe(0);
    } finally {
      await running.close();
    }
  });
});

describe('proxy: tool_choice demands', () => {
  it('holds a streamed reply without a call, retries once, and answers 422 before anything is sent', async () => {
    const proxy = await proxyFor([{ text: 'I would rather chat.' }, { text: 'Still no call.' }]);
    const response = await proxy.app.request(
      '/v1/chat/completions',
      post(chat({ stream: true, tool_choice: 'required' })),
    );
    expect(response.status).toBe(422);
    const body = await json(response);
    expect(body.error.param).toBe('tool_choice');
    expect(body.error.message).toContain('after 2 attempts');
    expect(upstream!.requests).toHaveLength(2);
    const retry = upstream!.requests[1]!.messages;
    expect(retry.at(-2)).toEqual({ role: 'assistant', content: 'I would rather chat.' });
    expect(retry.at(-1)!.role).toBe('user');
    expect(String(retry.at(-1)!.content)).toContain('must call at least one');
  });

  it('streams only the attempt that calls: the first answer never reaches the client', async () => {
    const proxy = await proxyFor([{ text: 'No call here.' }, { text: `Calling.\n${CALL}` }]);
    const response = await proxy.app.request(
      '/v1/chat/completions',
      post(
        chat({
          stream: true,
          tool_choice: { type: 'function', function: { name: 'get_weather' } },
        }),
      ),
    );
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).not.toContain('No call here');
    expect(text).toContain('Calling.');
    expect(text).toContain('"finish_reason":"tool_calls"');
  });

  it('with no retries configured, the first answer without a call is the error', async () => {
    const proxy = await proxyFor([{ text: 'nope' }], { toolChoiceRetries: 0 });
    const response = await proxy.app.request(
      '/v1/messages',
      post({
        model: 'm',
        max_tokens: 50,
        messages: [{ role: 'user', content: 'x' }],
        tools: [{ name: 'get_weather', input_schema: { type: 'object' } }],
        tool_choice: { type: 'any' },
      }),
    );
    expect(response.status).toBe(422);
    expect(upstream!.requests).toHaveLength(1);
    expect((await json(response)).error.message).toContain('It wrote: "nope"');
  });

  it('a reply cut at the length limit is not retried: it goes out as it is', async () => {
    const proxy = await proxyFor([{ text: 'Partial answer', finishReason: 'length' }]);
    const response = await proxy.app.request(
      '/v1/chat/completions',
      post(chat({ tool_choice: 'required' })),
    );
    expect(response.status).toBe(200);
    const body = await json(response);
    expect(body.choices[0].finish_reason).toBe('length');
    expect(body.choices[0].message.content).toBe('Partial answer');
    expect(upstream!.requests).toHaveLength(1);
  });
});

describe('proxy: one call at a time', () => {
  it('with parallel_tool_calls false, a second call goes out as the text the model wrote', async () => {
    const second =
      '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Rome"}}\n</tool_call>';
    const proxy = await proxyFor([{ text: `${CALL}\n${second}` }]);
    for (const stream of [false, true]) {
      const response = await proxy.app.request(
        '/v1/chat/completions',
        post(chat({ stream, parallel_tool_calls: false })),
      );
      // Streamed, the text and arguments are also joined from their pieces.
      const raw = stream ? await response.text() : '';
      const text = stream
        ? `${raw}${JSON.stringify(joinedChatStream(raw))}`
        : JSON.stringify(await json(response));
      expect(text.match(/"type":"function"/g)).toHaveLength(1);
      expect(text).toContain('Oslo');
      // The second call is content: its markup, escaped in JSON, with its arguments.
      expect(text).toContain('\\"Rome\\"');
      expect(text).toContain('tool_calls');
    }
  });
});

describe('proxy: options', () => {
  it('refuses bad options with a TypeError naming them', () => {
    expect(() => createProxyApp({ upstream: 'not a url' })).toThrow(
      /upstream "not a url" is not a URL/,
    );
    expect(() => createProxyApp({ upstream: 'ftp://x/v1' })).toThrow(/http or https/);
    expect(() => createProxyApp({ upstream: 'http://x/v1', protocol: 'klingon' })).toThrow(
      /unknown protocol/,
    );
    expect(() => createProxyApp({ upstream: 'http://x/v1', limits: { maxBodyBytes: 0 } })).toThrow(
      /maxBodyBytes/,
    );
    expect(() => createProxyApp({ upstream: 'http://x/v1', toolChoiceRetries: 9 })).toThrow(
      /toolChoiceRetries/,
    );
  });

  it("GET /v1/models is the model server's list", async () => {
    const proxy = await proxyFor([{ text: 'hi' }]);
    const response = await proxy.app.request('/v1/models', { headers: { host: 'localhost' } });
    expect(response.status).toBe(200);
    expect((await json(response)).data[0].id).toBe('scripted-model');
  });
});
