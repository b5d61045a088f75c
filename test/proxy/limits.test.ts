/**
 * Issue 20, section 4: no client and no model server can crash or freeze the proxy. Requests
 * cost memory by their shape, not their bytes; the model server's replies are read within caps
 * that close its connection; fields and routes follow one rule; credentials are never shown.
 */
import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HttpError } from '../../src/http/http-error.ts';
import { type RunningServer, startServer } from '../../src/http/node-server.ts';
import { readMessagesRequest } from '../../src/proxy/anthropic-request.ts';
import { createProxyApp, type ProxyOptions } from '../../src/proxy/index.ts';
import { readChatCompletionsRequest } from '../../src/proxy/openai-request.ts';
import { CHAT_COMPLETIONS_FIELDS, MESSAGES_FIELDS } from '../../src/proxy/request-fields.ts';
import { callText, joinedChatStream, proxyHarness, sleep } from './harness.ts';
import {
  ENDLESS_LIMIT,
  type ScriptedOptions,
  type ScriptedReply,
  type ScriptedUpstream,
  startScriptedUpstream,
} from './scripted-upstream.ts';

// biome-ignore lint/suspicious/noExplicitAny: the shapes under test are the assertions themselves
const json = async (response: Response): Promise<any> => response.json();

const TOOLS = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } } },
    },
  },
];

const chat = (extra: Record<string, unknown> = {}) => ({
  model: 'm',
  messages: [{ role: 'user', content: 'Weather in Oslo?' }],
  tools: TOOLS,
  ...extra,
});
const messages = (extra: Record<string, unknown> = {}) => ({
  model: 'm',
  max_tokens: 64,
  messages: [{ role: 'user', content: 'Weather in Oslo?' }],
  ...extra,
});

function post(body: unknown): RequestInit {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json', host: '127.0.0.1' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  };
}

let upstream: ScriptedUpstream | undefined;
let running: RunningServer | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await running?.close();
  await upstream?.close();
  running = undefined;
  upstream = undefined;
});

async function proxyFor(
  script: readonly ScriptedReply[],
  options: Partial<ProxyOptions> = {},
  scripted: ScriptedOptions = {},
) {
  upstream = await startScriptedUpstream(script, scripted);
  return createProxyApp({ upstream: upstream.url, protocol: 'hermes', ...options });
}

/** A chat completions body with `filler` as the value of an extra field, as raw JSON text. */
const withFiller = (filler: string) => `${JSON.stringify(chat()).slice(0, -1)},"x":${filler}}`;

describe('proxy: a request costs memory by its shape, within a budget all requests share', () => {
  it('a 16 MiB body of `{},` is refused with 413 before it is parsed', async () => {
    const proxy = await proxyFor([{ text: 'hi' }]);
    const filler = `[${'{},'.repeat(5_000_000)}{}]`;
    const parse = vi.spyOn(JSON, 'parse');
    const response = await proxy.app.request('/v1/chat/completions', post(withFiller(filler)));
    expect(response.status).toBe(413);
    expect((await json(response)).error.message).toContain(
      'more than 1000000 JSON values (keys included)',
    );
    // The 5 million objects were counted on the bytes, never built.
    expect(parse.mock.calls.some(([text]) => String(text).length > 1_000_000)).toBe(false);
    expect(upstream!.requests).toHaveLength(0);
    expect(proxy.active()).toBe(0);
  });

  it('limits.maxJsonValues sets the count; a Messages client gets the refusal in its shape', async () => {
    const proxy = await proxyFor([{ text: 'hi' }], { limits: { maxJsonValues: 50 } });
    const many = messages({ metadata: { list: Array.from({ length: 60 }, (_, i) => i) } });
    const response = await proxy.app.request('/v1/messages', post(many));
    expect(response.status).toBe(413);
    expect(await json(response)).toEqual({
      type: 'error',
      error: {
        type: 'request_too_large',
        message: expect.stringContaining('more than 50 JSON values'),
      },
    });
    const fits = await proxy.app.request('/v1/messages', post(messages()));
    expect(fits.status).toBe(200);
  });

  it.each([
    ['an extra field', (depth: number) => withFiller(`${'['.repeat(depth)}${']'.repeat(depth)}`)],
    [
      'a tool schema',
      (depth: number) => {
        const schema = `${'{"type":"object","properties":{"a":'.repeat(depth)}{}${'}}'.repeat(depth)}`;
        const tools = `[{"type":"function","function":{"name":"f","parameters":${schema}}}]`;
        return `${JSON.stringify(chat({ tools: [] })).replace('"tools":[]', `"tools":${tools}`)}`;
      },
    ],
  ])(
    'deep nesting in %s is a 400 naming the limit, never a 500 or a logged stack',
    async (_, body) => {
      const proxy = await proxyFor([{ text: 'hi' }]);
      const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
      for (const depth of [200, 100_000]) {
        const response = await proxy.app.request('/v1/chat/completions', post(body(depth)));
        expect(response.status).toBe(400);
        expect((await json(response)).error.message).toContain(
          'nests arrays and objects deeper than 128 levels',
        );
      }
      expect(logged).not.toHaveBeenCalled();
      expect(upstream!.requests).toHaveLength(0);
    },
  );

  it('arguments sent as JSON text are held to the same limits as the body', async () => {
    const proxy = await proxyFor([{ text: 'hi' }]);
    const parse = vi.spyOn(JSON, 'parse');
    const withArguments = (text: string) =>
      chat({
        messages: [
          { role: 'user', content: 'Weather?' },
          {
            role: 'assistant',
            tool_calls: [
              { id: 'c1', type: 'function', function: { name: 'get_weather', arguments: text } },
            ],
          },
          { role: 'tool', tool_call_id: 'c1', content: 'rain' },
        ],
      });
    const many = await proxy.app.request(
      '/v1/chat/completions',
      post(withArguments(`[${'{},'.repeat(1_100_000)}{}]`)),
    );
    expect(many.status).toBe(413);
    const manyError = (await json(many)).error;
    expect(manyError.param).toBe('messages[1].tool_calls[0].function.arguments');
    expect(manyError.message).toContain('more JSON values than the proxy reads');
    // The million objects were counted on the text, never built.
    expect(
      parse.mock.calls.some(
        ([text]) => String(text).length > 3_000_000 && String(text).startsWith('[{}'),
      ),
    ).toBe(false);
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const deep = await proxy.app.request(
      '/v1/chat/completions',
      post(withArguments(`{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}`)),
    );
    expect(deep.status).toBe(400);
    expect((await json(deep)).error.message).toContain(
      'messages[1].tool_calls[0].function.arguments nests arrays and objects deeper than the proxy reads',
    );
    expect(logged).not.toHaveBeenCalled();
    expect(upstream!.requests).toHaveLength(0);
  });

  it('a request that does not fit in the memory left gets 503; one that never fits 413', async () => {
    let release: () => void = () => {};
    const resume = new Promise<void>((resolve) => {
      release = resolve;
    });
    // 6 copies of a 100 KB body: 600 KB of the 1 MB budget while its reply is being answered.
    const proxy = await proxyFor(
      [{ text: 'first', pauseBeforeChunk: 0, resume }, { text: 'second' }],
      { limits: { memoryBudgetBytes: 1_000_000 } },
    );
    const big = chat({ stream: true, messages: [{ role: 'user', content: 'x'.repeat(100_000) }] });
    const first = await proxy.app.request('/v1/chat/completions', post(big));
    expect(first.status).toBe(200);
    const refused = await proxy.app.request('/v1/chat/completions', post(big));
    expect(refused.status).toBe(503);
    expect((await json(refused)).error.message).toContain('the proxy is short of memory');
    const huge = chat({ messages: [{ role: 'user', content: 'x'.repeat(200_000) }] });
    const never = await proxy.app.request('/v1/chat/completions', post(huge));
    expect(never.status).toBe(413);
    expect((await json(never)).error.message).toContain('more than the 976.6 KiB the proxy has');
    release();
    expect(joinedChatStream(await first.text()).content).toBe('first');
    // The first reply is over: its share is back.
    const again = await proxy.app.request('/v1/chat/completions', post(big));
    expect(again.status).toBe(200);
    expect(joinedChatStream(await again.text()).content).toBe('second');
    expect(upstream!.requests).toHaveLength(2);
  });
});

describe('proxy: a slowly sent body', () => {
  it('gets 408 after limits.bodyTimeoutMs and gives its place back', async () => {
    upstream = await startScriptedUpstream([{ text: 'hi' }]);
    const proxy = createProxyApp({
      upstream: upstream.url,
      protocol: 'hermes',
      limits: { bodyTimeoutMs: 300, maxConcurrentRequests: 1 },
    });
    running = await startServer(proxy, { port: 0, host: '127.0.0.1' });
    const { port } = new URL(running.url);
    let socketClosed = false;
    const answer = await new Promise<{ status: number; body: string; connection?: string }>(
      (resolve, reject) => {
        const request = httpRequest(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/v1/chat/completions',
            headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
          },
          (response) => {
            let body = '';
            response.on('data', (data) => {
              body += data;
            });
            response.on('end', () =>
              resolve({
                status: response.statusCode ?? 0,
                body,
                connection: response.headers.connection,
              }),
            );
          },
        );
        request.on('error', reject);
        request.on('socket', (socket) =>
          socket.on('close', () => {
            socketClosed = true;
          }),
        );
        // One byte, then nothing: the body never ends.
        request.write('{');
        // Closed on every path: the answer ends the test.
        setTimeout(() => request.destroy(), 5_000);
      },
    );
    expect(answer.status).toBe(408);
    // The proxy reads no more of it: the connection ends with the answer.
    expect(answer.connection).toBe('close');
    for (let i = 0; i < 50 && !socketClosed; i++) await sleep(20);
    expect(socketClosed).toBe(true);
    expect(JSON.parse(answer.body).error.message).toContain('did not arrive within 0.3 s');
    expect(proxy.active()).toBe(0);
    const next = await fetch(`${running.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(chat()),
    });
    expect(next.status).toBe(200);
  });
});

describe('proxy: a body that breaks off', () => {
  it('is a 400, not a logged 500, and gives its place back', async () => {
    const proxy = await proxyFor([{ text: 'hi' }]);
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"model":'));
        controller.error(new Error('the client went away'));
      },
    });
    const response = await proxy.app.request('/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json', host: '127.0.0.1' },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(400);
    expect((await json(response)).error.message).toContain('the body could not be read');
    expect(logged).not.toHaveBeenCalled();
    expect(proxy.active()).toBe(0);
  });
});

describe('proxy: the model server is untrusted', () => {
  const start = proxyHarness();
  const limits = { maxUpstreamReplyBytes: 64 * 1024, maxUpstreamEventBytes: 16 * 1024 };
  /** Waits until the model server saw the proxy hang up (it does so asynchronously). */
  const hungUp = async (scripted: ScriptedUpstream, expected = 1) => {
    for (let i = 0; i < 100 && scripted.disconnects < expected; i++) await sleep(20);
    return scripted.disconnects;
  };

  it.each([
    ['sse-line', 'longer than 16384 characters'],
    ['sse-event', 'longer than 16384 characters'],
  ] as const)(
    'an endless %s ends the stream with an error event and the connection',
    async (endless, message) => {
      const { url, upstream: scripted } = await start([{ endless }], { limits });
      const response = await fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(chat({ stream: true })),
      });
      // The stream had begun (the server answered): the error comes as the API's error event.
      expect(response.status).toBe(200);
      const text = await response.text();
      expect(text).toContain(message);
      expect(text).toContain('limits.maxUpstreamEventBytes');
      expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
      expect(await hungUp(scripted)).toBe(1);
      expect(scripted.endlessBytes).toBeLessThan(ENDLESS_LIMIT / 4);
    },
  );

  it('an endless whole reply is a 502 once past limits.maxUpstreamReplyBytes, and the connection is closed', async () => {
    const { url, upstream: scripted } = await start([{ endless: 'json' }], { limits });
    for (const path of ['/v1/chat/completions', '/v1/messages']) {
      const response = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(path === '/v1/messages' ? messages() : chat()),
      });
      expect(response.status).toBe(502);
      const body = await json(response);
      expect(JSON.stringify(body)).toContain(
        "the model server's reply is larger than 65536 bytes, the most the proxy reads (limits.maxUpstreamReplyBytes)",
      );
    }
    expect(await hungUp(scripted, 2)).toBe(2);
    expect(scripted.endlessBytes).toBeLessThan(ENDLESS_LIMIT / 4);
  });

  it('a demanded call never started is held only up to the limit: 502, and the connection is closed', async () => {
    const { url, upstream: scripted } = await start([{ endless: 'sse-text' }], { limits });
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(chat({ stream: true, tool_choice: 'required' })),
    });
    expect(response.status).toBe(502);
    const body = await json(response);
    expect(body.error.message).toContain('went past 65536 bytes (limits.maxUpstreamReplyBytes)');
    expect(body.error.param).toBe('tool_choice');
    expect(await hungUp(scripted)).toBe(1);
    expect(scripted.endlessBytes).toBeLessThan(ENDLESS_LIMIT / 4);
  });

  it('a demanded call that starts within the limit is still answered', async () => {
    const { url } = await start(
      [
        {
          text: callText(
            { toolName: 'get_weather', toolCallId: 'c', input: { city: 'Oslo' } },
            'x'.repeat(2_000),
          ),
        },
      ],
      { limits },
    );
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(chat({ stream: true, tool_choice: 'required' })),
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('"name":"get_weather"');
  });

  it('a reply is held within the memory budget too: past it 502, and the connection is closed', async () => {
    const budget = { memoryBudgetBytes: 200_000 };
    const { url, upstream: scripted } = await start(
      [{ text: 'x'.repeat(100_000) }, { endless: 'sse-text' }],
      { limits: budget },
    );
    for (const body of [chat(), chat({ stream: true, tool_choice: 'required' })]) {
      const response = await fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(502);
      expect((await json(response)).error.message).toContain(
        "the model server's reply would take about",
      );
    }
    expect(await hungUp(scripted)).toBe(1);
    expect(scripted.endlessBytes).toBeLessThan(ENDLESS_LIMIT / 4);
  });

  it('a call the model writes is held to the limits of a whole reply', async () => {
    const call = callText({
      toolName: 'get_weather',
      toolCallId: 'c',
      input: { a: Array.from({ length: 100_000 }, () => ({})) },
    });
    const { url } = await start([{ text: call }], { limits: { maxJsonValues: 50_000 } });
    const post = (path: string, body: unknown) =>
      fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const many = await post(
      '/v1/messages',
      messages({ tools: [{ name: 'get_weather', input_schema: { type: 'object' } }] }),
    );
    expect(many.status).toBe(502);
    expect((await json(many)).error.message).toContain(
      'a call of get_weather whose arguments hold more nesting or JSON values than the proxy reads (limits.maxJsonValues)',
    );
  });

  it('what a call the model writes takes counts in the memory budget', async () => {
    const call = callText({
      toolName: 'get_weather',
      toolCallId: 'c',
      input: { a: Array.from({ length: 100_000 }, () => ({})) },
    });
    const { url: small } = await start([{ text: call }], {
      limits: { memoryBudgetBytes: 4_000_000 },
    });
    const costly = await fetch(`${small}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(chat()),
    });
    expect(costly.status).toBe(502);
    expect((await json(costly)).error.message).toContain(
      "the model server's reply would take about",
    );
  });

  it("a model server's long error message is quoted cut short", async () => {
    const proxy = await proxyFor([
      { status: 500, errorMessage: 'CUDA out of memory '.repeat(2000) },
    ]);
    const response = await proxy.app.request('/v1/chat/completions', post(chat()));
    expect(response.status).toBe(500);
    const message: string = (await json(response)).error.message;
    expect(message).toContain('answered 500: CUDA out of memory');
    expect(message.length).toBeLessThan(2200);
  });

  it('a whole reply that is not JSON is a 502 quoting its start, not "no model server answers"', async () => {
    const page = '<!DOCTYPE html>\n<html><body>502 Bad Gateway\u001b[31m</body></html>';
    const proxy = await proxyFor([{ raw: { contentType: 'text/html', body: page } }]);
    const response = await proxy.app.request('/v1/chat/completions', post(chat()));
    expect(response.status).toBe(502);
    const message: string = (await json(response)).error.message;
    expect(message).toContain(
      'the model server\'s reply is not valid JSON; it begins "<!DOCTYPE html>\\n<html>',
    );
    expect(message).not.toContain('no model server answers');
    // Control characters of the reply are escaped, never passed on.
    expect(message).not.toContain('\u001b');
    expect(message).toContain('\\u001b');
  });

  it('a streamed request answered with an HTML page is a 502, not an empty reply', async () => {
    const proxy = await proxyFor([
      { raw: { contentType: 'text/html; charset=utf-8', body: '<html>proxy error</html>' } },
    ]);
    const response = await proxy.app.request('/v1/chat/completions', post(chat({ stream: true })));
    expect(response.status).toBe(502);
    expect((await json(response)).error.message).toContain(
      'answered a streamed request with "text/html", not an event stream; it begins "<html>proxy error</html>"',
    );
  });

  it('a stream event nested past limits.maxJsonDepth ends the stream with an error, never a crash', async () => {
    const deepUsage = `{"choices":[],"usage":{"prompt_tokens":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`;
    const events = `data: {"choices":[{"index":0,"delta":{"content":"hi"}}]}\n\ndata: ${deepUsage}\n\n`;
    const proxy = await proxyFor([{ raw: { contentType: 'text/event-stream', body: events } }]);
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const response = await proxy.app.request('/v1/chat/completions', post(chat({ stream: true })));
    const text = await response.text();
    expect(text).toContain('a stream event with more nesting or JSON values than the proxy reads');
    expect(logged).not.toHaveBeenCalled();
  });

  it('only token counts of the usage reach the client', async () => {
    const usage = {
      prompt_tokens: 3,
      completion_tokens: '4',
      total_tokens: { x: [1] },
      secret: 'x',
    };
    const reply = {
      choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
      usage,
    };
    const proxy = await proxyFor([
      { raw: { contentType: 'application/json', body: JSON.stringify(reply) } },
    ]);
    const response = await proxy.app.request('/v1/chat/completions', post(chat()));
    expect(response.status).toBe(200);
    expect((await json(response)).usage).toEqual({
      prompt_tokens: 3,
      completion_tokens: 0,
      total_tokens: 3,
    });
  });

  it('a whole reply nested past limits.maxJsonDepth is a 502 saying so', async () => {
    const deep = `{"choices":[{"message":{"content":"hi"}}],"x":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    const proxy = await proxyFor([{ raw: { contentType: 'application/json', body: deep } }]);
    const response = await proxy.app.request('/v1/chat/completions', post(chat()));
    expect(response.status).toBe(502);
    expect((await json(response)).error.message).toContain(
      "the model server's reply nests arrays and objects deeper than 128 levels",
    );
  });
});

describe('proxy: one list of fields per API', () => {
  const refusal = (read: () => unknown): HttpError => {
    try {
      read();
    } catch (error) {
      if (error instanceof HttpError) return error;
      throw error;
    }
    throw new Error('the request was not refused');
  };

  it('fields asking for several replies or the old tools form are refused on both APIs', () => {
    const cases: [string, unknown, string][] = [
      ['n', 16, 'n must be 1: the proxy reads one reply per request'],
      ['best_of', 4, 'best_of must be 1'],
      ['functions', [{ name: 'f' }], "functions is the API's deprecated form of tools"],
      ['function_call', 'auto', "function_call is the API's deprecated form of tools"],
    ];
    for (const [field, value, message] of cases) {
      for (const read of [
        () => readChatCompletionsRequest(chat({ [field]: value })),
        () => readMessagesRequest(messages({ [field]: value })),
      ]) {
        const error = refusal(read);
        expect(error.status).toBe(400);
        expect(error.message).toContain(message);
        expect(error.param).toBe(field);
      }
    }
    // One reply is what the proxy reads anyway.
    expect(readMessagesRequest(messages({ n: 1 })).settings).toEqual({ max_tokens: 64 });
  });

  it('chat completions fields Messages says its own way are refused, naming that way', () => {
    expect(
      refusal(() => readMessagesRequest(messages({ parallel_tool_calls: false }))).message,
    ).toContain('tool_choice.disable_parallel_tool_use');
    expect(
      refusal(() => readMessagesRequest(messages({ stream_options: { include_usage: true } })))
        .message,
    ).toContain('is a chat completions field');
  });

  it('every field the proxy controls on chat completions is controlled on Messages too', () => {
    // The lists are not empty (a loop over an empty one would check nothing).
    for (const field of ['n', 'functions', 'function_call', 'tools', 'tool_choice'])
      expect(CHAT_COMPLETIONS_FIELDS.has(field), field).toBe(true);
    for (const [field, rule] of CHAT_COMPLETIONS_FIELDS) {
      expect(MESSAGES_FIELDS.has(field), field).toBe(true);
      if (typeof rule === 'object') expect(MESSAGES_FIELDS.get(field), field).toBe(rule);
    }
  });

  it('nothing from either list reaches the model server as sent; other fields do', async () => {
    const proxy = await proxyFor([{ text: 'hi' }]);
    const first = await proxy.app.request(
      '/v1/messages',
      post(messages({ n: 16, metadata: { user_id: 'u' }, skip_special_tokens: false })),
    );
    expect(first.status).toBe(400);
    expect(upstream!.requests).toHaveLength(0);
    const second = await proxy.app.request(
      '/v1/messages',
      post(messages({ metadata: { user_id: 'u' }, skip_special_tokens: false, seed: 3 })),
    );
    expect(second.status).toBe(200);
    const sent = upstream!.requests[0]!;
    expect(sent.skip_special_tokens).toBe(false);
    expect(sent.seed).toBe(3);
    for (const field of [...MESSAGES_FIELDS.keys()].filter(
      (key) => !['model', 'messages', 'stream'].includes(key),
    ))
      if (
        field !== 'max_tokens' &&
        field !== 'temperature' &&
        field !== 'top_p' &&
        field !== 'top_k'
      )
        expect(sent, field).not.toHaveProperty(field);
  });
});

describe('proxy: GET /v1/models', () => {
  it('takes a place among the requests answered at once', async () => {
    let release: () => void = () => {};
    const resume = new Promise<void>((resolve) => {
      release = resolve;
    });
    const proxy = await proxyFor([{ text: 'hello', pauseBeforeChunk: 0, resume }], {
      limits: { maxConcurrentRequests: 1 },
    });
    const held = await proxy.app.request('/v1/chat/completions', post(chat({ stream: true })));
    expect(held.status).toBe(200);
    const models = await proxy.app.request('/v1/models', { headers: { host: '127.0.0.1' } });
    expect(models.status).toBe(429);
    release();
    await held.text();
    const free = await proxy.app.request('/v1/models', { headers: { host: '127.0.0.1' } });
    expect(free.status).toBe(200);
    expect(await json(free)).toMatchObject({ data: [{ id: 'scripted-model' }] });
    expect(proxy.active()).toBe(0);
  });

  it('answers JSON only: an HTML answer from the model server is a 502 saying so', async () => {
    const proxy = await proxyFor(
      [],
      {},
      {
        models: { contentType: 'text/html', body: '<html><script>alert(1)</script></html>' },
      },
    );
    const response = await proxy.app.request('/v1/models', { headers: { host: '127.0.0.1' } });
    expect(response.status).toBe(502);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect((await json(response)).error.message).toContain(
      'the model server\'s model list is not valid JSON; it begins "<html><script>',
    );
  });
});

describe('proxy: credentials in the upstream URL', () => {
  it('are sent as basic authentication, never shown in a 502', async () => {
    upstream = await startScriptedUpstream([{ text: 'hi' }]);
    const withCredentials = upstream.url.replace('http://', 'http://ada:s3cr%40t@');
    const proxy = createProxyApp({ upstream: withCredentials, protocol: 'hermes' });
    const response = await proxy.app.request('/v1/chat/completions', post(chat()));
    expect(response.status).toBe(200);
    expect(upstream.headers.at(-1)!.authorization).toBe(
      `Basic ${Buffer.from('ada:s3cr@t').toString('base64')}`,
    );
    await upstream.close();
    for (const path of ['/v1/chat/completions', '/v1/models']) {
      const failed = await proxy.app.request(
        path,
        path === '/v1/models' ? { headers: { host: '127.0.0.1' } } : post(chat()),
      );
      expect(failed.status).toBe(502);
      const message: string = (await json(failed)).error.message;
      expect(message).toContain(`no model server answers at ${upstream.url}`);
      expect(message).not.toContain('s3cr');
      expect(message).not.toContain('ada');
    }
  });

  it('together with upstreamApiKey, or in a URL that is not one, are refused without showing them', () => {
    expect(() =>
      createProxyApp({ upstream: 'http://ada:s3cret@127.0.0.1:9/v1', upstreamApiKey: 'k' }),
    ).toThrow(/carries credentials and upstreamApiKey is set/);
    let message = '';
    try {
      createProxyApp({ upstream: 'http://ada:s3cret@127.0.0.1:bad port/v1' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('is not a URL');
    expect(message).toContain('http://***@127.0.0.1');
    expect(message).not.toContain('s3cret');
  });
});
