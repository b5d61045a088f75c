import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PROXY_USAGE } from '../../src/cli/proxy-command.ts';
import { createRedisRunStore } from '../../src/store/redis/index.ts';
import { type ScriptedUpstream, startScriptedUpstream } from '../proxy/scripted-upstream.ts';
import { runCli, type StartedChild, startCli } from '../support/child-process.ts';
import { type RedisServer, skipRedisTests, startRedis } from '../support/redis-server.ts';

function run(args: string[], env: Record<string, string> = {}) {
  return runCli(args, { env: { ...process.env, ...env } });
}

let proxy: StartedChild | undefined;
let upstream: ScriptedUpstream | undefined;
afterEach(async () => {
  await proxy?.stop();
  proxy = undefined;
  await upstream?.close();
  upstream = undefined;
});

/** Starts `toolwire proxy` and resolves with the line saying where it listens, once printed. */
async function startProxy(args: string[], env: Record<string, string> = {}): Promise<string> {
  proxy = await startCli(['proxy', ...args], {
    env: { ...process.env, ...env },
    readyWhen: /(toolwire proxy: listening on [^\n]*)\n/,
  });
  return proxy.ready[1]!;
}

/** Everything the running proxy printed so far, on stdout and stderr. */
function printedSoFar(): string {
  return proxy?.output() ?? '';
}

describe('toolwire proxy', () => {
  it('--help prints its usage and exits 0', () => {
    const result = run(['proxy', '--help']);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(PROXY_USAGE.split('\n')[0]);
    expect(result.stdout).toContain('--upstream');
  });

  it('without --upstream, or with a bad one, is a usage error (exit 2) showing the proxy usage', () => {
    const missing = run(['proxy']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('proxy needs --upstream');
    expect(missing.stderr).toContain(PROXY_USAGE.split('\n')[0]);
    const bad = run(['proxy', '--upstream', 'localhost:11434']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--upstream must be an http or https URL');
    const secret = run([
      'proxy',
      '--upstream',
      'http://127.0.0.1:9/v1',
      '--api-key-env',
      'TOOLWIRE_TEST_UNSET_KEY',
    ]);
    expect(secret.status).toBe(2);
    expect(secret.stderr).toContain('the environment variable TOOLWIRE_TEST_UNSET_KEY is not set');
    const protocol = run(['proxy', '--upstream', 'http://127.0.0.1:9/v1', '--protocol', 'klingon']);
    expect(protocol.status).toBe(2);
    expect(protocol.stderr).toContain('unknown protocol');
  });

  it('--port 0 listens on a free port and prints its base URL first; the URL answers', async () => {
    upstream = await startScriptedUpstream([{ text: 'hi' }]);
    const line = await startProxy(['--upstream', upstream.url, '--port', '0']);
    const url = /(http:\/\/127\.0\.0\.1:\d+\/v1)$/.exec(line)?.[1];
    expect(url).toBeDefined();
    const models = await fetch(`${url}/models`);
    expect(models.status).toBe(200);
    expect((await models.json()) as unknown).toMatchObject({ data: [{ id: 'scripted-model' }] });
  });

  it('--api-key-env makes it require the key; --upstream-api-key-env sends its own upstream', async () => {
    upstream = await startScriptedUpstream([{ text: 'hi' }]);
    const line = await startProxy(
      [
        '--upstream',
        upstream.url,
        '--port',
        '0',
        '--api-key-env',
        'PROXY_KEY',
        '--upstream-api-key-env',
        'SERVER_KEY',
      ],
      { PROXY_KEY: 'client-secret', SERVER_KEY: 'server-secret' },
    );
    const url = /(http:\/\/\S+\/v1)$/.exec(line)![1]!;
    const body = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    const refused = await fetch(`${url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(refused.status).toBe(401);
    const answered = await fetch(`${url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer client-secret' },
      body,
    });
    expect(answered.status).toBe(200);
    expect(upstream.headers.at(-1)!.authorization).toBe('Bearer server-secret');
  });

  it('credentials in --upstream go upstream as basic authentication and are never printed', async () => {
    upstream = await startScriptedUpstream([{ text: 'hi' }]);
    const line = await startProxy([
      '--upstream',
      upstream.url.replace('http://', 'http://ada:s3cret@'),
      '--port',
      '0',
    ]);
    const url = /(http:\/\/\S+\/v1)$/.exec(line)![1]!;
    const request = () =>
      fetch(`${url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x' }] }),
      });
    expect((await request()).status).toBe(200);
    expect(upstream.headers.at(-1)!.authorization).toBe(
      `Basic ${Buffer.from('ada:s3cret').toString('base64')}`,
    );
    await upstream.close();
    const failed = await request();
    expect(failed.status).toBe(502);
    const message = await failed.text();
    expect(message).toContain(`no model server answers at ${upstream.url}`);
    expect(`${printedSoFar()}\n${message}`).not.toMatch(/s3cret|ada/);
    expect(printedSoFar()).toContain(`upstream ${upstream.url} (with the credentials of its URL)`);
    const both = run(
      ['proxy', '--upstream', 'http://ada:s3cret@127.0.0.1:9/v1', '--upstream-api-key-env', 'K'],
      { K: 'key' },
    );
    expect(both.status).toBe(2);
    expect(both.stderr).toContain('--upstream carries credentials');
    expect(both.stderr).not.toContain('s3cret');
  });

  it('the memory, body-time and model-server caps are flags', async () => {
    upstream = await startScriptedUpstream([{ endless: 'sse-line' }]);
    const line = await startProxy([
      '--upstream',
      upstream.url,
      '--port',
      '0',
      '--memory-budget-mb',
      '1',
      '--max-upstream-event-kb',
      '1',
      '--max-upstream-reply-mb',
      '1',
      '--body-timeout',
      '1',
    ]);
    const url = /(http:\/\/\S+\/v1)$/.exec(line)![1]!;
    const post = (content: string, stream: boolean) =>
      fetch(`${url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', stream, messages: [{ role: 'user', content }] }),
      });
    // Six copies of 300 KB do not fit in 1 MiB.
    const big = await post('x'.repeat(300_000), false);
    expect(big.status).toBe(413);
    expect(await big.text()).toContain('more than the 1 MiB the proxy has for all requests');
    const endless = await post('x', true);
    expect(await endless.text()).toContain('longer than 1024 characters');
    for (const [flag, value] of [
      ['--body-timeout', '0'],
      ['--memory-budget-mb', 'lots'],
      ['--max-upstream-event-kb', '0.5'],
    ]) {
      const bad = run(['proxy', '--upstream', 'http://127.0.0.1:9/v1', flag!, value!]);
      expect(bad.status).toBe(2);
      expect(bad.stderr).toContain(`${flag} must be a whole number of at least 1`);
    }
  });
  it('--max-stored-responses and --max-stored-response-mb bound the responses kept', async () => {
    upstream = await startScriptedUpstream([{ text: 'one' }, { text: 'two' }]);
    const line = await startProxy([
      '--upstream',
      upstream.url,
      '--port',
      '0',
      '--max-stored-responses',
      '0',
    ]);
    const url = /(http:\/\/\S+\/v1)$/.exec(line)![1]!;
    const post = (body: object) =>
      fetch(`${url}/responses`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', ...body }),
      });
    const first = await post({ input: 'hi' });
    expect(first.status).toBe(200);
    const { id } = (await first.json()) as { id: string };
    // With room for none, the response was not kept: naming it is OpenAI's 404.
    const next = await post({ input: 'and?', previous_response_id: id });
    expect(next.status).toBe(404);
    expect(await next.json()).toMatchObject({ error: { code: 'previous_response_not_found' } });
    for (const [flag, value] of [
      ['--max-stored-responses', '-1'],
      ['--max-stored-response-mb', '0'],
    ]) {
      const bad = run(['proxy', '--upstream', 'http://127.0.0.1:9/v1', flag!, value!]);
      expect(bad.status, flag).toBe(2);
      expect(bad.stderr).toContain(`${flag} must be a whole number`);
    }
  });

  it('--constrain and --upstream-kind: the startup lines name them, the kind found is said once', async () => {
    upstream = await startScriptedUpstream(
      [{ text: '<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>' }],
      {
        kind: 'vllm',
      },
    );
    const line = await startProxy([
      '--upstream',
      upstream.url,
      '--port',
      '0',
      '--protocol',
      'hermes',
    ]);
    const url = /(http:\/\/\S+\/v1)$/.exec(line)![1]!;
    const post = () =>
      fetch(`${url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'm',
          messages: [{ role: 'user', content: 'go' }],
          tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
          tool_choice: 'required',
        }),
      });
    expect((await post()).status).toBe(200);
    expect((await post()).status).toBe(200);
    expect(upstream.requests[0]).toHaveProperty('response_format.type', 'structural_tag');
    await proxy?.stop();
    const printed = printedSoFar();
    expect(printed).toContain(
      'constrain demanded, upstream kind auto (asked at the first request that needs it)',
    );
    expect(
      printed.match(/toolwire proxy: upstream kind vllm 0\.12\.0 \(GET \/version/g),
    ).toHaveLength(1);

    for (const [flag, value, takes] of [
      ['--constrain', 'sometimes', 'off, demanded, always'],
      ['--upstream-kind', 'tgi', 'auto, llama.cpp, vllm, sglang, ollama, lmstudio, openai'],
    ]) {
      const bad = run(['proxy', '--upstream', 'http://127.0.0.1:9/v1', flag!, value!]);
      expect(bad.status, flag).toBe(2);
      expect(bad.stderr).toContain(`${flag} takes ${takes}, not "${value}"`);
    }
  });

  it('--constrain off and a named --upstream-kind are said at startup', async () => {
    upstream = await startScriptedUpstream([{ text: 'hi' }]);
    const off = await startCli(
      ['proxy', '--upstream', upstream.url, '--port', '0', '--constrain', 'off'],
      { env: { ...process.env }, readyWhen: /(constrain off)\n/ },
    );
    await off.stop();
    proxy = await startCli(
      ['proxy', '--upstream', upstream.url, '--port', '0', '--upstream-kind', 'llama.cpp'],
      { env: { ...process.env }, readyWhen: /(constrain demanded, upstream kind llama\.cpp)\n/ },
    );
    expect(proxy.ready[1]).toBe('constrain demanded, upstream kind llama.cpp');
  });
});

describe.skipIf(skipRedisTests())('toolwire proxy --store redis://…', () => {
  let redis: RedisServer | undefined;
  const others: StartedChild[] = [];
  beforeAll(async () => {
    redis = await startRedis({ args: ['--requirepass', 'hunter2-secret'] });
  });
  afterEach(async () => {
    for (const child of others.splice(0)) await child.stop();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  const storeUrl = () => `redis://:hunter2-secret@127.0.0.1:${redis!.port}`;

  /** A second proxy on the same store, as another instance. */
  async function another(args: string[], env: Record<string, string> = {}): Promise<string> {
    const child = await startCli(['proxy', ...args], {
      env: { ...process.env, ...env },
      readyWhen: /toolwire proxy: listening on (\S+)\n/,
    });
    others.push(child);
    return child.ready[1]!;
  }

  const post = (url: string, body: object) =>
    fetch(`${url}/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', ...body }),
    });

  it('two proxies on one Redis: a response stored through one continues through the other; the startup line names the store without its password; SIGTERM closes the store and exits 0', async () => {
    upstream = await startScriptedUpstream([
      { text: 'My name is Scripted.' },
      { text: 'You asked.' },
    ]);
    proxy = await startCli(
      [
        'proxy',
        '--upstream',
        upstream.url,
        '--port',
        '0',
        '--store',
        storeUrl(),
        '--store-prefix',
        'cli1:',
      ],
      { env: { ...process.env }, readyWhen: /listening on (\S+)\n[\s\S]*?\n {2}store ([^\n]*)\n/ },
    );
    const a = proxy.ready[1]!;
    expect(proxy.ready[2]).toBe(
      `redis://127.0.0.1:${redis!.port}/0 (stored responses for previous_response_id)`,
    );
    // The other instance takes the store from the environment.
    const b = await another(['--upstream', upstream.url, '--port', '0'], {
      TOOLWIRE_STORE: storeUrl(),
      TOOLWIRE_STORE_PREFIX: 'cli1:',
    });
    const first = await post(a, { input: 'What is your name?' });
    expect(first.status).toBe(200);
    const { id } = (await first.json()) as { id: string };
    const second = await post(b, { input: 'What did I ask?', previous_response_id: id });
    expect(second.status).toBe(200);
    expect(await second.json()).toMatchObject({ output: [{ content: [{ text: 'You asked.' }] }] });
    expect(upstream.requests[1]!.messages.map((message) => message.content)).toEqual([
      'What is your name?',
      'My name is Scripted.',
      'What did I ask?',
    ]);
    // It is in Redis under the prefix.
    const reader = await createRedisRunStore(storeUrl(), { prefix: 'cli1:' });
    try {
      expect(await reader.responses.get(id)).toContain('My name is Scripted.');
    } finally {
      await reader.close();
    }
    // The Redis connection would keep the process up: it exits because the store was closed.
    expect(await proxy.stop('SIGTERM')).toBe(0);
    expect(proxy.output()).not.toContain('hunter2-secret');
    proxy = undefined;
  });

  it('--max-stored-responses bounds the Redis store too', async () => {
    upstream = await startScriptedUpstream([{ text: 'one' }, { text: 'two' }]);
    const url = await another([
      '--upstream',
      upstream.url,
      '--port',
      '0',
      '--store',
      storeUrl(),
      '--store-prefix',
      'cli2:',
      '--max-stored-responses',
      '0',
    ]);
    const first = await post(url, { input: 'hi' });
    const { id } = (await first.json()) as { id: string };
    const next = await post(url, { input: 'and?', previous_response_id: id });
    expect(next.status).toBe(404);
  });

  it('a Redis that is not there: one line without the password, exit 1; a bad --store is a usage error', async () => {
    const nowhere = await startRedis();
    const port = nowhere.port;
    await nowhere.stop();
    const result = run([
      'proxy',
      '--upstream',
      'http://127.0.0.1:9/v1',
      '--port',
      '0',
      '--store',
      `redis://:hunter2-secret@127.0.0.1:${port}`,
    ]);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(`^toolwire: the run store \\(Redis at 127\\.0\\.0\\.1:${port}\\b.*\\n$`),
    );
    expect(result.stderr + result.stdout).not.toContain('hunter2-secret');
    const bad = run(['proxy', '--upstream', 'http://127.0.0.1:9/v1', '--store', 'postgres://x']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--store takes memory or redis://');
  });
});

describe('toolwire proxy --store memory', () => {
  it('is the default, named at startup; --store-prefix with it is a usage error', async () => {
    upstream = await startScriptedUpstream([{ text: 'hi' }]);
    proxy = await startCli(
      ['proxy', '--upstream', upstream.url, '--port', '0', '--store', 'memory'],
      {
        env: { ...process.env, TOOLWIRE_STORE: '' },
        readyWhen: /\n {2}store ([^\n]*)\n/,
      },
    );
    expect(proxy.ready[1]).toBe('memory (stored responses for previous_response_id)');
    const prefixed = run(['proxy', '--upstream', 'http://127.0.0.1:9/v1', '--store-prefix', 'x:'], {
      TOOLWIRE_STORE: '',
    });
    expect(prefixed.status).toBe(2);
    expect(prefixed.stderr).toContain('--store-prefix applies to a redis:// store');
  });
});
