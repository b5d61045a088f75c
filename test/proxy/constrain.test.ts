/**
 * `constrain`: the proxy makes the model server enforce tool_choice. For each kind of server, a
 * scripted upstream that answers that kind's probes records what the proxy sent; the grammar it
 * got compiles in xgrammar and accepts the call the model is expected to write, and the reply is
 * read as that call.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolCallProtocol, ToolDefinition } from '../../src/core/index.ts';
import { type RunningServer, startServer } from '../../src/http/node-server.ts';
import { protocolByName } from '../../src/protocols/index.ts';
import { REFUSALS_IN_A_ROW } from '../../src/proxy/context.ts';
import { createProxyApp, type ProxyOptions } from '../../src/proxy/index.ts';
import type { UpstreamKind } from '../../src/proxy/upstream-kind.ts';
import {
  accepts,
  compileEbnf,
  compileJsonSchema,
  compileStructuralTag,
  type EngineGrammar,
} from '../support/xgrammar.ts';
import { gbnfProblems } from '../support/xgrammar-gbnf-rules.ts';
import {
  type ScriptedOptions,
  type ScriptedReply,
  type ScriptedUpstream,
  startScriptedUpstream,
  type UpstreamBody,
} from './scripted-upstream.ts';

const WEATHER: ToolDefinition = {
  name: 'get_weather',
  description: 'Current weather for a city',
  inputSchema: {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  },
};

const chatTool = (tool: ToolDefinition, strict?: boolean) => ({
  type: 'function',
  function: {
    name: tool.name,
    description: tool.description,
    parameters: tool.inputSchema,
    ...(strict === undefined ? {} : { strict }),
  },
});

const PARIS = { toolName: 'get_weather', input: { city: 'Paris' } };

interface Running {
  readonly url: string;
  readonly upstream: ScriptedUpstream;
  readonly logged: string[];
}

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of cleanup.reverse()) await close();
  cleanup = [];
});

async function start(
  script: readonly ScriptedReply[] | ((body: UpstreamBody, index: number) => ScriptedReply),
  upstreamOptions: ScriptedOptions,
  options: Partial<ProxyOptions> = {},
): Promise<Running> {
  const upstream = await startScriptedUpstream(script, upstreamOptions);
  cleanup.push(() => upstream.close());
  const logged: string[] = [];
  const proxy = createProxyApp({
    upstream: upstream.url,
    protocol: 'hermes',
    log: (line) => logged.push(line),
    ...options,
  });
  const running: RunningServer = await startServer(proxy, { port: 0, host: '127.0.0.1' });
  cleanup.push(() => running.close());
  return { url: running.url, upstream, logged };
}

/** A call as the client APIs write it: chat completions' arguments text, Ollama's object. */
interface WrittenCall {
  readonly index?: number;
  readonly function?: { readonly name?: string; readonly arguments?: unknown };
}

/** A whole chat completion, as far as these tests read it. */
interface ChatAnswer {
  readonly choices: readonly { readonly message: { readonly tool_calls?: WrittenCall[] } }[];
}

/** A chat completions request; a streamed answer is returned as its SSE text. */
async function chat(
  url: string,
  body: Record<string, unknown>,
): Promise<{ status: number; json?: ChatAnswer; sse?: string }> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'scripted-model',
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [chatTool(WEATHER)],
      ...body,
    }),
  });
  if (body.stream === true && response.status === 200)
    return { status: response.status, sse: await response.text() };
  return { status: response.status, json: (await response.json()) as ChatAnswer };
}

/** The call's name and arguments as the client got them, streamed or whole. */
function clientCalls(answer: { json?: ChatAnswer; sse?: string }): {
  name: string;
  args: unknown;
}[] {
  if (answer.json)
    return (answer.json.choices[0]?.message.tool_calls ?? []).map((call) => ({
      name: call.function?.name ?? '',
      args: JSON.parse(String(call.function?.arguments)),
    }));
  const calls: { name: string; args: string }[] = [];
  for (const line of (answer.sse ?? '').split('\n')) {
    if (!line.startsWith('data: {')) continue;
    const deltas: WrittenCall[] = JSON.parse(line.slice(6)).choices?.[0]?.delta?.tool_calls ?? [];
    for (const call of deltas) {
      const index = call.index ?? 0;
      calls[index] ??= { name: '', args: '' };
      calls[index].name += call.function?.name ?? '';
      calls[index].args += String(call.function?.arguments ?? '');
    }
  }
  return calls.map((call) => ({ name: call.name, args: JSON.parse(call.args) }));
}

/** The grammar the body carries, compiled the way the kind's server compiles it. */
async function grammarOf(kind: UpstreamKind, body: UpstreamBody): Promise<EngineGrammar> {
  switch (kind) {
    case 'llama.cpp': {
      const text = body.grammar as string;
      expect(gbnfProblems(text)).toEqual([]);
      return compileEbnf(text);
    }
    case 'vllm':
    case 'sglang': {
      const format = body.response_format as { type: string };
      expect(format.type).toBe('structural_tag');
      return compileStructuralTag(format);
    }
    case 'ollama':
    case 'lmstudio': {
      const format = body.response_format as {
        type: string;
        json_schema: { name: string; schema: unknown };
      };
      expect(format.type).toBe('json_schema');
      return compileJsonSchema(format.json_schema.schema, { anyWhitespace: true });
    }
    case 'openai':
      throw new Error('openai takes no grammar');
  }
}

const FIELD_OF: Record<Exclude<UpstreamKind, 'openai'>, string> = {
  'llama.cpp': 'grammar',
  vllm: 'response_format',
  sglang: 'response_format',
  ollama: 'response_format',
  lmstudio: 'response_format',
};

describe('each kind of server gets its own constraint for a demanded call', () => {
  // Ollama and LM Studio take a JSON Schema of the whole reply: a format whose calls are JSON.
  const cases: [Exclude<UpstreamKind, 'openai'>, string, boolean][] = [
    ['llama.cpp', 'hermes', false],
    ['llama.cpp', 'qwen3-coder', true],
    ['vllm', 'hermes', true],
    ['vllm', 'qwen3-coder', false],
    ['sglang', 'hermes', false],
    ['sglang', 'hermes', true],
    ['ollama', 'xlam', false],
    ['lmstudio', 'xlam', true],
  ];
  it.each(cases)('%s, %s (streamed: %s)', async (kind, format, stream) => {
    const protocol: ToolCallProtocol = protocolByName(format);
    const written = protocol.formatToolCall(PARIS);
    const proxy = await start([{ text: written }], { kind }, { protocol: format });
    const answer = await chat(proxy.url, { tool_choice: 'required', stream });
    expect(answer.status).toBe(200);
    expect(clientCalls(answer)).toEqual([{ name: 'get_weather', args: { city: 'Paris' } }]);

    const [body] = proxy.upstream.requests;
    expect(body).not.toHaveProperty('tools');
    expect(body).toHaveProperty(FIELD_OF[kind]);
    const grammar = await grammarOf(kind, body!);
    try {
      expect(await accepts(grammar, written)).toBe(true);
      // A demanded call cannot be skipped.
      expect(await accepts(grammar, 'It is sunny in Paris.')).toBe(false);
    } finally {
      grammar.dispose();
    }
    expect(proxy.logged).toEqual([expect.stringMatching(new RegExp(`^upstream kind ${kind}`))]);
  });

  it('detects the kind once, at the first request that wants a constraint', async () => {
    const text = protocolByName('hermes').formatToolCall(PARIS);
    const proxy = await start([{ text }], { kind: 'vllm' });
    await chat(proxy.url, { tool_choice: 'auto' });
    expect(proxy.upstream.probes).toEqual([]);
    await chat(proxy.url, { tool_choice: 'required' });
    const probes = proxy.upstream.probes.length;
    expect(probes).toBeGreaterThan(0);
    await chat(proxy.url, { tool_choice: 'required' });
    expect(proxy.upstream.probes.length).toBe(probes);
    expect(proxy.logged).toEqual(['upstream kind vllm 0.12.0 (GET /version: version 0.12.0)']);
  });

  it('a named upstream kind is not probed', async () => {
    const text = protocolByName('hermes').formatToolCall(PARIS);
    const proxy = await start([{ text }], {}, { upstreamKind: 'sglang' });
    await chat(proxy.url, { tool_choice: { type: 'function', function: { name: 'get_weather' } } });
    expect(proxy.upstream.probes).toEqual([]);
    expect(proxy.upstream.requests[0]).toHaveProperty('response_format.type', 'structural_tag');
  });
});

describe('detection', () => {
  it('finding no server is not kept: the next request that wants a constraint asks again', async () => {
    let down = true;
    // The model server cannot be reached for the first detection's GETs only.
    const through: typeof fetch = (input, init) =>
      down && (init?.method ?? 'GET') === 'GET'
        ? Promise.reject(new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } }))
        : fetch(input, init);
    const text = protocolByName('hermes').formatToolCall(PARIS);
    const proxy = await start([{ text }], { kind: 'vllm' }, { fetch: through });
    expect((await chat(proxy.url, { tool_choice: 'required' })).status).toBe(200);
    expect(proxy.upstream.requests[0]).not.toHaveProperty('response_format');
    expect(proxy.logged).toEqual([]);
    down = false;
    expect((await chat(proxy.url, { tool_choice: 'required' })).status).toBe(200);
    expect(proxy.upstream.requests[1]).toHaveProperty('response_format.type', 'structural_tag');
    expect(proxy.logged).toEqual([expect.stringMatching(/^upstream kind vllm 0\.12\.0/)]);
  });

  it('a server still loading its model (503 to every path) is asked again, not kept as openai', async () => {
    let loading = true;
    const text = protocolByName('hermes').formatToolCall(PARIS);
    const proxy = await start([{ text }], { kind: 'llama.cpp', loading: () => loading });
    // While it loads, the request itself is answered 503 too: passed on to the client.
    expect((await chat(proxy.url, { tool_choice: 'required' })).status).not.toBe(200);
    expect(proxy.logged).toEqual([]);
    loading = false;
    expect((await chat(proxy.url, { tool_choice: 'required' })).status).toBe(200);
    expect(proxy.upstream.requests.at(-1)).toHaveProperty('grammar');
    expect(proxy.logged).toEqual([expect.stringMatching(/^upstream kind llama\.cpp /)]);
  });

  it('a client that leaves while the kind is asked does not stop the asking', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let asked!: () => void;
    const askedOnce = new Promise<void>((resolve) => {
      asked = resolve;
    });
    // The probes wait for the gate, so the first client can leave while they are out.
    const held: typeof fetch = async (input, init) => {
      if ((init?.method ?? 'GET') === 'GET') {
        asked();
        await gate;
      }
      return fetch(input, init);
    };
    const text = protocolByName('hermes').formatToolCall(PARIS);
    const proxy = await start([{ text }], { kind: 'sglang' }, { fetch: held });
    const leaving = new AbortController();
    const first = fetch(`${proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      signal: leaving.signal,
      body: JSON.stringify({
        model: 'scripted-model',
        messages: [{ role: 'user', content: 'Weather?' }],
        tools: [chatTool(WEATHER)],
        tool_choice: 'required',
      }),
    });
    await askedOnce;
    leaving.abort();
    await expect(first).rejects.toThrow();
    const second = chat(proxy.url, { tool_choice: 'required' });
    open();
    expect((await second).status).toBe(200);
    // One detection: each probe's path once; only the second client's request went upstream.
    expect(new Set(proxy.upstream.probes).size).toBe(proxy.upstream.probes.length);
    expect(proxy.upstream.requests).toHaveLength(1);
    expect(proxy.upstream.requests[0]).toHaveProperty('response_format.type', 'structural_tag');
  });
});

describe('vLLM by version', () => {
  it('before 0.12 gets guided_grammar (EBNF), which that version reads', async () => {
    const text = protocolByName('hermes').formatToolCall(PARIS);
    const proxy = await start([{ text }], { kind: 'vllm', version: '0.11.2' });
    const answer = await chat(proxy.url, { tool_choice: 'required' });
    expect(clientCalls(answer)).toEqual([{ name: 'get_weather', args: { city: 'Paris' } }]);
    const [body] = proxy.upstream.requests;
    expect(body).not.toHaveProperty('response_format');
    const grammar = await compileEbnf(body!.guided_grammar as string);
    try {
      expect(await accepts(grammar, text)).toBe(true);
    } finally {
      grammar.dispose();
    }
  });
});

describe('when nothing is sent', () => {
  it('constrain off: no field and no probe', async () => {
    const text = protocolByName('hermes').formatToolCall(PARIS);
    const proxy = await start([{ text }], { kind: 'llama.cpp' }, { constrain: 'off' });
    await chat(proxy.url, { tool_choice: 'required' });
    expect(proxy.upstream.probes).toEqual([]);
    expect(proxy.upstream.requests[0]).not.toHaveProperty('grammar');
  });

  it('an openai server gets nothing, and an answer without the call is asked again', async () => {
    const text = protocolByName('hermes').formatToolCall(PARIS);
    const proxy = await start([{ text: 'It is sunny.' }, { text }], {});
    const answer = await chat(proxy.url, { tool_choice: 'required' });
    expect(answer.status).toBe(200);
    expect(clientCalls(answer)).toHaveLength(1);
    expect(proxy.upstream.requests).toHaveLength(2);
    for (const body of proxy.upstream.requests) {
      expect(body).not.toHaveProperty('grammar');
      expect(body).not.toHaveProperty('response_format');
    }
    expect(proxy.logged).toEqual([expect.stringMatching(/^upstream kind openai \(/)]);
  });

  it('with a constraint taken, an answer without the call is not asked again', async () => {
    const proxy = await start([{ text: 'It is sunny.' }], { kind: 'llama.cpp' });
    const answer = await chat(proxy.url, { tool_choice: 'required' });
    expect(answer.status).toBe(422);
    expect(proxy.upstream.requests).toHaveLength(1);
  });

  it('auto under demanded, without a strict tool: no field and no probe', async () => {
    const proxy = await start([{ text: 'Hello.' }], { kind: 'sglang' });
    await chat(proxy.url, {});
    expect(proxy.upstream.probes).toEqual([]);
    expect(proxy.upstream.requests[0]).not.toHaveProperty('response_format');
  });

  it("the client's own response_format is the one the server gets", async () => {
    const text = protocolByName('hermes').formatToolCall(PARIS);
    const own = { type: 'json_object' };
    const proxy = await start([{ text }], { kind: 'vllm' });
    await chat(proxy.url, { tool_choice: 'required', response_format: own });
    expect(proxy.upstream.requests[0]!.response_format).toEqual(own);
  });

  it('Ollama under auto, even with constrain always: a JSON Schema would forbid text', async () => {
    const proxy = await start(
      [{ text: 'Hello.' }],
      { kind: 'ollama' },
      { protocol: 'xlam', constrain: 'always' },
    );
    await chat(proxy.url, {});
    expect(proxy.upstream.requests[0]).not.toHaveProperty('response_format');
  });
});

describe('Ollama by version', () => {
  it('before 0.5.0, which ignores a json_schema response_format, gets none and keeps the retry', async () => {
    const text = protocolByName('xlam').formatToolCall(PARIS);
    const proxy = await start(
      [{ text: 'It is sunny.' }, { text }],
      { kind: 'ollama', version: '0.4.7' },
      { protocol: 'xlam' },
    );
    const answer = await chat(proxy.url, { tool_choice: 'required' });
    expect(answer.status).toBe(200);
    expect(clientCalls(answer)).toEqual([{ name: 'get_weather', args: { city: 'Paris' } }]);
    expect(proxy.upstream.requests).toHaveLength(2);
    for (const body of proxy.upstream.requests) expect(body).not.toHaveProperty('response_format');
  });

  it('0.5.0 gets the JSON Schema', async () => {
    const text = protocolByName('xlam').formatToolCall(PARIS);
    const proxy = await start(
      [{ text }],
      { kind: 'ollama', version: '0.5.0' },
      { protocol: 'xlam' },
    );
    await chat(proxy.url, { tool_choice: 'required' });
    expect(proxy.upstream.requests[0]).toHaveProperty('response_format.type', 'json_schema');
  });
});

describe('a constrained reply cut off by length', () => {
  it("is the client's, with finish_reason length, and not asked again (as without a grammar)", async () => {
    const whole = protocolByName('hermes').formatToolCall(PARIS);
    const cut = whole.slice(0, whole.indexOf('Paris'));
    const proxy = await start([{ text: cut, finishReason: 'length' }], { kind: 'llama.cpp' });
    const answer = await chat(proxy.url, { tool_choice: 'required' });
    expect(answer.status).toBe(200);
    expect(proxy.upstream.requests).toHaveLength(1);
    expect(proxy.upstream.requests[0]).toHaveProperty('grammar');
    expect(
      (answer.json as unknown as { choices: { finish_reason: string }[] }).choices[0]!
        .finish_reason,
    ).toBe('length');
  });
});

describe('auto', () => {
  it('a strict tool under demanded is constrained, text still free', async () => {
    const text = `Let me look.\n${protocolByName('hermes').formatToolCall(PARIS)}`;
    const proxy = await start([{ text }], { kind: 'llama.cpp' });
    const answer = await chat(proxy.url, { tools: [chatTool(WEATHER, true)] });
    expect(clientCalls(answer)).toHaveLength(1);
    const grammar = await grammarOf('llama.cpp', proxy.upstream.requests[0]!);
    try {
      expect(await accepts(grammar, text)).toBe(true);
      expect(await accepts(grammar, 'It is sunny in Paris.')).toBe(true);
    } finally {
      grammar.dispose();
    }
  });

  it('constrain always sends vLLM a triggered structural tag', async () => {
    const text = `Let me look.\n${protocolByName('hermes').formatToolCall(PARIS)}`;
    const proxy = await start([{ text }], { kind: 'vllm' }, { constrain: 'always' });
    const answer = await chat(proxy.url, { stream: true });
    expect(clientCalls(answer)).toHaveLength(1);
    const grammar = await grammarOf('vllm', proxy.upstream.requests[0]!);
    try {
      expect(await accepts(grammar, text)).toBe(true);
      expect(await accepts(grammar, 'It is sunny in Paris.')).toBe(true);
    } finally {
      grammar.dispose();
    }
  });
});

describe('a server that refuses the constraint', () => {
  it.each([false, true])(
    'that does not know the field: asked once more without it, and not sent it again (streamed: %s)',
    async (stream) => {
      const text = protocolByName('hermes').formatToolCall(PARIS);
      const proxy = await start([{ text }], {
        kind: 'llama.cpp',
        refuseFields: {
          fields: ['grammar'],
          message: 'grammar: Extra inputs are not permitted',
        },
      });
      const first = await chat(proxy.url, { tool_choice: 'required', stream });
      expect(first.status).toBe(200);
      expect(clientCalls(first)).toHaveLength(1);
      expect(proxy.upstream.requests.map((body) => 'grammar' in body)).toEqual([true, false]);
      const second = await chat(proxy.url, { tool_choice: 'required', stream });
      expect(second.status).toBe(200);
      expect(proxy.upstream.requests.map((body) => 'grammar' in body)).toEqual([
        true,
        false,
        false,
      ]);
      expect(proxy.logged).toHaveLength(2);
      expect(proxy.logged[1]).toMatch(
        /refused the constrained decoding field grammar \(HTTP 400: grammar: Extra inputs are not permitted\); it does not take it/,
      );
    },
  );

  it(`any other refusal stops the field only after ${REFUSALS_IN_A_ROW} in a row`, async () => {
    const text = protocolByName('hermes').formatToolCall(PARIS);
    const proxy = await start([{ text }], {
      kind: 'llama.cpp',
      refuseFields: { fields: ['grammar'] },
    });
    for (let request = 0; request < REFUSALS_IN_A_ROW + 1; request++)
      expect((await chat(proxy.url, { tool_choice: 'required' })).status).toBe(200);
    const withGrammar = proxy.upstream.requests.map((body) => 'grammar' in body);
    // Each of the first three is tried with the grammar, then without; the fourth goes without.
    expect(withGrammar).toEqual([true, false, true, false, true, false, false]);
    expect(proxy.logged).toHaveLength(2);
    expect(proxy.logged[1]).toMatch(
      /field grammar \(HTTP 400: Cannot use custom grammar constraints with tools\.\); 3 refusals in a row/,
    );
  });

  it("after one request's grammar is refused, a different request is still constrained", async () => {
    const text = protocolByName('hermes').formatToolCall(PARIS);
    const named = protocolByName('hermes').formatToolCall({
      toolName: 'get_time',
      input: { zone: 'CET' },
    });
    const TIME: ToolDefinition = {
      name: 'get_time',
      inputSchema: { type: 'object', properties: { zone: { type: 'string' } } },
    };
    // The server's compiler refuses only the grammar that names get_weather.
    const proxy = await start(
      (body) => ({ text: String(body.grammar ?? '').includes('get_time') ? named : text }),
      {
        kind: 'llama.cpp',
        refuseFields: {
          fields: ['grammar'],
          message: 'failed to parse grammar',
          when: (body) => String(body.grammar).includes('get_weather'),
        },
      },
    );
    expect((await chat(proxy.url, { tool_choice: 'required' })).status).toBe(200);
    const other = await chat(proxy.url, { tools: [chatTool(TIME)], tool_choice: 'required' });
    expect(other.status).toBe(200);
    expect(clientCalls(other)).toEqual([{ name: 'get_time', args: { zone: 'CET' } }]);
    expect(proxy.upstream.requests.map((body) => 'grammar' in body)).toEqual([true, false, true]);
    // One refusal is not the field's fault: nothing said about it.
    expect(proxy.logged).toHaveLength(1);
  });

  it('vLLM steps down from the structural tag to structured_outputs.grammar, one field at a time', async () => {
    const text = protocolByName('hermes').formatToolCall(PARIS);
    const proxy = await start([{ text }], {
      kind: 'vllm',
      refuseFields: {
        fields: ['response_format'],
        message:
          "response_format: structural tag 'format' is not supported by the outlines backend",
      },
    });
    for (let request = 0; request < 2; request++) {
      const answer = await chat(proxy.url, { tool_choice: 'required' });
      expect(clientCalls(answer)).toEqual([{ name: 'get_weather', args: { city: 'Paris' } }]);
    }
    const sent = proxy.upstream.requests.map((body) =>
      'response_format' in body ? 'tag' : 'structured_outputs' in body ? 'grammar' : 'none',
    );
    expect(sent).toEqual(['tag', 'grammar', 'grammar']);
    const grammar = await compileEbnf(
      (proxy.upstream.requests[2]!.structured_outputs as { grammar: string }).grammar,
    );
    try {
      expect(await accepts(grammar, text)).toBe(true);
    } finally {
      grammar.dispose();
    }
    expect(proxy.logged[1]).toMatch(/field response_format\.structural_tag \(HTTP 400: /);
  });

  it('a refusal of something else is not blamed on the constraint', async () => {
    const proxy = await start([{ text: 'x' }], {
      kind: 'vllm',
      refuseFields: { fields: ['messages'], status: 422, message: 'bad messages: not supported' },
    });
    const answer = await chat(proxy.url, { tool_choice: 'required' });
    // The model server's refusal, passed on.
    expect(answer.status).toBe(422);
    const sent = () =>
      proxy.upstream.requests.map((body) =>
        'response_format' in body ? 'tag' : 'structured_outputs' in body ? 'grammar' : 'none',
      );
    expect(sent()).toEqual(['tag', 'grammar', 'none']);
    // Still sent: the server refused the request either way.
    await chat(proxy.url, { tool_choice: 'required' });
    expect(sent().slice(3)).toEqual(['tag', 'grammar', 'none']);
    expect(proxy.logged).toHaveLength(1);
  });

  it("a line from the server's refusal reaches the log as one line, without controls", async () => {
    const text = protocolByName('hermes').formatToolCall(PARIS);
    const proxy = await start([{ text }], {
      kind: 'llama.cpp',
      refuseFields: {
        fields: ['grammar'],
        message:
          'grammar: unknown field\n\u001b[31mFAKE toolwire proxy: all good\u001b[0m\r\u2028x',
      },
    });
    await chat(proxy.url, { tool_choice: 'required' });
    expect(proxy.logged).toHaveLength(2);
    for (const line of proxy.logged) expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028]/);
    expect(proxy.logged[1]).toContain(
      'grammar: unknown field [31mFAKE toolwire proxy: all good [0m x',
    );
  });
});

describe("the client's own constraint", () => {
  // Each kind's fields that constrain output, sent by the client under a name other than the
  // proxy's field for that kind: the proxy sends none of its own, and a refusal is not counted.
  const cases: Array<[UpstreamKind, Record<string, unknown>]> = [
    ['llama.cpp', { response_format: { type: 'json_object' } }],
    ['llama.cpp', { json_schema: { type: 'object' } }],
    ['vllm', { structured_outputs: { regex: '.*' } }],
    ['vllm', { guided_json: { type: 'object' } }],
    ['sglang', { regex: '.*' }],
    ['sglang', { ebnf: 'root ::= "x"' }],
    ['sglang', { json_schema: '{"type":"object"}' }],
    ['ollama', { format: 'json' }],
    ['lmstudio', { format: 'json' }],
  ];
  it.each(cases)("%s with %j: none of the proxy's", async (kind, own) => {
    const text = protocolByName('xlam').formatToolCall(PARIS);
    const proxy = await start([{ text }], { kind }, { protocol: 'xlam' });
    expect((await chat(proxy.url, { tool_choice: 'required', ...own })).status).toBe(200);
    const [body] = proxy.upstream.requests;
    for (const field of ['grammar', 'response_format', 'structured_outputs', 'ebnf'])
      if (!(field in own)) expect(body).not.toHaveProperty(field);
    for (const [field, value] of Object.entries(own)) expect(body![field]).toEqual(value);
  });

  it('a refusal caused by it switches nothing off: the next plain request is constrained', async () => {
    const text = protocolByName('hermes').formatToolCall(PARIS);
    const proxy = await start([{ text }], {
      kind: 'llama.cpp',
      refuseFields: {
        fields: ['response_format'],
        message: 'Either "json_schema" or "grammar" can be specified, but not both',
      },
    });
    const own = await chat(proxy.url, {
      tool_choice: 'required',
      response_format: { type: 'json_object' },
    });
    // The server's refusal of the client's own field, passed on; the proxy added nothing.
    expect(own.status).toBe(400);
    expect(proxy.upstream.requests[0]).not.toHaveProperty('grammar');
    expect((await chat(proxy.url, { tool_choice: 'required' })).status).toBe(200);
    expect(proxy.upstream.requests[1]).toHaveProperty('grammar');
    expect(proxy.logged).toHaveLength(1);
  });
});

describe('client APIs', () => {
  it("Anthropic's Messages with tool_choice any", async () => {
    const text = protocolByName('hermes').formatToolCall(PARIS);
    const proxy = await start([{ text }], { kind: 'sglang' });
    const response = await fetch(`${proxy.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({
        model: 'scripted-model',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'Weather in Paris?' }],
        tools: [{ name: WEATHER.name, input_schema: WEATHER.inputSchema }],
        tool_choice: { type: 'any' },
      }),
    });
    const json = (await response.json()) as { content: unknown[] };
    expect(json.content).toContainEqual(
      expect.objectContaining({ type: 'tool_use', name: 'get_weather', input: { city: 'Paris' } }),
    );
    const grammar = await grammarOf('sglang', proxy.upstream.requests[0]!);
    try {
      expect(await accepts(grammar, text)).toBe(true);
    } finally {
      grammar.dispose();
    }
  });

  it('an Anthropic tool marked strict is constrained under auto', async () => {
    const text = protocolByName('hermes').formatToolCall(PARIS);
    const proxy = await start([{ text }], { kind: 'llama.cpp' });
    await fetch(`${proxy.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({
        model: 'scripted-model',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'Weather in Paris?' }],
        tools: [{ name: WEATHER.name, input_schema: WEATHER.inputSchema, strict: true }],
      }),
    });
    expect(proxy.upstream.requests[0]).toHaveProperty('grammar');
  });

  it('a Responses API function tool marked strict is constrained; one that does not say so is not', async () => {
    const text = protocolByName('hermes').formatToolCall(PARIS);
    const proxy = await start([{ text }, { text: 'Hello.' }], { kind: 'llama.cpp' });
    const responses = (tool: Record<string, unknown>) =>
      fetch(`${proxy.url}/v1/responses`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'scripted-model',
          store: false,
          input: 'Weather in Paris?',
          tools: [
            {
              type: 'function',
              name: WEATHER.name,
              parameters: WEATHER.inputSchema,
              ...tool,
            },
          ],
        }),
      });
    const strict = await responses({ strict: true });
    expect(strict.status).toBe(200);
    const json = (await strict.json()) as { output: { type: string; name?: string }[] };
    expect(json.output).toContainEqual(
      expect.objectContaining({ type: 'function_call', name: 'get_weather' }),
    );
    expect(proxy.upstream.requests[0]).toHaveProperty('grammar');
    // OpenAI's API takes a function tool without `strict` as strict; only an explicit true
    // demands a grammar here, so a client that never asked for one is not constrained.
    await responses({});
    expect(proxy.upstream.requests[1]).not.toHaveProperty('grammar');
    const refused = await responses({ strict: 'yes' });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('tools[0].strict');
  });

  it("Ollama's /api/chat under constrain always", async () => {
    const text = `Let me look.\n${protocolByName('hermes').formatToolCall(PARIS)}`;
    const proxy = await start([{ text }], { kind: 'vllm' }, { constrain: 'always' });
    const response = await fetch(`${proxy.url}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'scripted-model',
        stream: false,
        messages: [{ role: 'user', content: 'Weather in Paris?' }],
        tools: [chatTool(WEATHER)],
      }),
    });
    const json = (await response.json()) as { message: { tool_calls: WrittenCall[] } };
    expect(json.message.tool_calls).toEqual([
      expect.objectContaining({
        function: expect.objectContaining({ name: 'get_weather', arguments: { city: 'Paris' } }),
      }),
    ]);
    expect(proxy.upstream.requests[0]).toHaveProperty('response_format.type', 'structural_tag');
  });
});

describe('strict', () => {
  it('a strict that is not true or false is a 400 naming it', async () => {
    const proxy = await start([{ text: 'x' }], { kind: 'vllm' });
    const tool = chatTool(WEATHER);
    const answer = await chat(proxy.url, {
      tools: [{ ...tool, function: { ...tool.function, strict: 'yes' } }],
    });
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.json)).toContain('tools[0].function.strict');
    expect(proxy.upstream.requests).toHaveLength(0);
  });

  it('strict false or null is no demand', async () => {
    const proxy = await start([{ text: 'Hello.' }], { kind: 'vllm' });
    const tool = chatTool(WEATHER);
    await chat(proxy.url, { tools: [{ ...tool, function: { ...tool.function, strict: null } }] });
    await chat(proxy.url, { tools: [chatTool(WEATHER, false)] });
    expect(proxy.upstream.probes).toEqual([]);
    expect(proxy.upstream.requests.some((body) => 'response_format' in body)).toBe(false);
  });
});

describe('options', () => {
  it('refuses a constrain or upstreamKind that is none', () => {
    expect(() =>
      createProxyApp({ upstream: 'http://127.0.0.1:1/v1', constrain: 'sometimes' as never }),
    ).toThrow(/constrain must be off, demanded, always, not sometimes/);
    expect(() =>
      createProxyApp({ upstream: 'http://127.0.0.1:1/v1', upstreamKind: 'tgi' as never }),
    ).toThrow(
      /upstreamKind must be auto, llama.cpp, vllm, sglang, ollama, lmstudio, openai, not tgi/,
    );
  });
});
