import { mkdtempSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostSettings } from '../../src/cli/serve-command.ts';
import { FORMATS, formatForModel, PROTOCOL_NAMES } from '../../src/protocols/index.ts';
import { canonicalHost, isLoopbackHostname } from '../../src/server/index.ts';
import { createRunStore } from '../../src/store/index.ts';
import { spawnServe } from '../browser/support.ts';
import { runCliAsync as runCli, startCli } from '../support/child-process.ts';
import { startFakeOpenAIServer } from '../support/fake-openai-server.ts';
import { runInProcess as inProcess } from '../support/in-process-cli.ts';
import { type RedisServer, skipRedisTests, startRedis } from '../support/redis-server.ts';
import { postJson, statusFor, waitFor } from './helpers.ts';

const RECORDING = fileURLToPath(new URL('../../examples/recorded-run.sse', import.meta.url));

describe('toolwire serve', () => {
  it('serves a recording with --replay, and stops cleanly on SIGTERM', async () => {
    const serve = await spawnServe(['--replay', RECORDING]);
    try {
      expect(serve.output()).toContain(
        'replaying recorded-run.sse (a recording: no model is asked)',
      );
      const info = (await (await fetch(`${serve.url}/api/info`)).json()) as Record<string, unknown>;
      expect(info).toMatchObject({
        mode: 'replay',
        recording: 'recorded-run.sse',
        replayDelayMs: 25,
      });
      const response = await postJson(`${serve.url}/api/runs`, { prompt: 'anything' });
      expect(response.headers.get('x-toolwire-replay')).toBe('recorded-run.sse');
      expect(await response.text()).toBe(await readFile(RECORDING, 'utf8'));
    } finally {
      await serve.stop('SIGTERM');
      expect(await serve.exited()).toBe(0);
    }
  });

  it('prints where it listens and which model it asks', async () => {
    const serve = await spawnServe(['--base-url', 'http://127.0.0.1:9/v1', '--model', 'm1']);
    try {
      expect(serve.output()).toContain('model m1 at http://127.0.0.1:9/v1, protocol xml');
      // Without --store, runs are kept in the process, as before: nothing else to start.
      expect(serve.output()).toContain('\n  store memory\n');
      const info = (await (await fetch(`${serve.url}/api/info`)).json()) as Record<string, unknown>;
      expect(info).toMatchObject({ mode: 'live', model: 'm1', baseURL: 'http://127.0.0.1:9/v1' });
    } finally {
      await serve.stop();
    }
  });

  it('--protocol model serves the format of --model, and says so', async () => {
    const id = 'qwen2.5-coder:7b';
    const format = formatForModel(id).name;
    const serve = await spawnServe([
      '--base-url',
      'http://127.0.0.1:9/v1',
      '--model',
      id,
      '--protocol',
      'model',
    ]);
    try {
      expect(serve.output()).toContain(`protocol ${format} (the model's format)`);
      const info = (await (await fetch(`${serve.url}/api/info`)).json()) as Record<string, unknown>;
      expect(info).toMatchObject({ model: id, protocol: format });
    } finally {
      await serve.stop();
    }
  });

  it('--protocol takes an alias or auto, and shows the name it means', async () => {
    const entry = FORMATS.find((format) => format.aliases.length > 0)!;
    const alias = await spawnServe([
      '--base-url',
      'http://127.0.0.1:9/v1',
      '--protocol',
      entry.aliases[0]!,
    ]);
    const auto = await spawnServe(['--base-url', 'http://127.0.0.1:9/v1', '--protocol', 'auto']);
    try {
      expect(alias.output()).toContain(`, protocol ${entry.name}, `);
      expect(auto.output()).toContain(', protocol auto, ');
    } finally {
      await Promise.all([alias.stop(), auto.stop()]);
    }
  });

  it('rejects bad usage with status 2 and says what was wrong', async () => {
    const cases: [string[], string][] = [
      [['--port', 'abc'], '--port must be a whole number'],
      [['--port', '70000'], '--port must be at most 65535'],
      [['--max-runs', '0'], '--max-runs must be a whole number of at least 1'],
      [['--protocol', 'yaml'], 'unknown protocol "yaml"'],
      [['--protocol', 'yaml'], `expected one of ${[...PROTOCOL_NAMES, 'model'].join(', ')}`],
      [['--root', '/nonexistent/toolwire'], 'is not a folder'],
      [['--replay', '/nonexistent/run.sse'], '--replay: cannot read'],
      [['--replay', RECORDING, '--replay-delay', 'abc'], '--replay-delay must be a whole number'],
      [['--replay', RECORDING, '--replay-delay=-1'], 'from 0 to 60000, not "-1"'],
      [['--replay', RECORDING, '--replay-delay', '1.5'], 'not "1.5"'],
      [['--replay', RECORDING, '--replay-delay', ''], 'not ""'],
      [['--replay', RECORDING, '--replay-delay', '1e3'], 'not "1e3"'],
      [['--replay', RECORDING, '--replay-delay', '60001'], 'not "60001"'],
      [['--replay-delay', '10'], '--replay-delay needs --replay'],
      [['--host', 'evil.com/x'], '--host "evil.com/x" is not a host name'],
      [['--allow-host', 'a b'], '--allow-host "a b" is not a host name'],
      [['extra'], 'serve takes no arguments'],
      [['--nope'], 'unknown option --nope; see toolwire help serve'],
      [
        ['--store', 'memroy'],
        '--store takes memory or redis://HOST:PORT[/DB]: "memroy" is neither',
      ],
      [['--store', 'redis://h:1/x'], 'the database after the port must be a number'],
      [['--store-prefix', 'a:'], '--store-prefix applies to a redis:// store'],
    ];
    // In-process: a usage error is found before anything starts (one child process proves the
    // exit status reaches the shell; nineteen would only make the test slow on a busy machine).
    for (const [args, message] of cases) {
      const run = await inProcess(['serve', ...args]);
      expect(run.status, args.join(' ')).toBe(2);
      expect(run.stderr, args.join(' ')).toContain(message);
    }
    const spawned = await runCli(['serve', '--port', 'abc']);
    expect(spawned.status).toBe(2);
    expect(spawned.stderr).toContain('--port must be a whole number');
    const help = (await runCli(['--help'])).stdout;
    expect(help).toContain('toolwire serve [--port 8787]');
    expect(help).toContain('[--protocol xml|NAME|auto|model | --chat-template FILE');
    expect(help).toContain('[--replay <file.sse> [--replay-delay MS]]');
    expect(help).toContain('--replay-delay waits MS milliseconds between its messages');
    for (const command of ['serve', 'proxy']) {
      const text = (await inProcess([command, '--help'])).stdout;
      expect(text, command).toContain(
        '[--store memory|redis://HOST:PORT[/DB]] [--store-prefix PREFIX]',
      );
      expect(text, command).toContain('Environment: TOOLWIRE_STORE, TOOLWIRE_STORE_PREFIX.');
    }
    expect((await inProcess(['serve', '--help'])).stdout).toContain('Advanced: TOOLWIRE_LEASE_MS');
  });

  it('--replay-delay paces the replay: the delay given is honoured, 0 is reported as such', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'toolwire-replay-'));
    const file = join(folder, 'short.sse');
    writeFileSync(file, ': one\n\n: two\n\n: three\n\n: four\n\n');
    const paced = await spawnServe(['--replay', file, '--replay-delay', '150']);
    const fast = await spawnServe(['--replay', file, '--replay-delay', '0']);
    try {
      const info = async (url: string) =>
        ((await (await fetch(`${url}/api/info`)).json()) as { replayDelayMs: number })
          .replayDelayMs;
      expect(await info(paced.url)).toBe(150);
      expect(await info(fast.url)).toBe(0);
      const started = performance.now();
      const response = await postJson(`${paced.url}/api/runs`, { prompt: 'go' });
      expect(await response.text()).toBe(await readFile(file, 'utf8'));
      expect(performance.now() - started).toBeGreaterThanOrEqual(440);
    } finally {
      await Promise.all([paced.stop(), fast.stop()]);
    }
  });
});

describe('toolwire serve: who may address it', () => {
  it('keeps the Host check on for every spelling of a loopback --host', () => {
    const spellings = [
      '127.0.0.1',
      '127.1',
      '2130706433',
      '0x7f.1',
      '0177.0.0.1',
      '127.9.9.9',
      '::1',
      '[::1]',
      '0:0:0:0:0:0:0:1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      'localhost',
    ];
    for (const host of spellings) {
      const settings = hostSettings(host, []);
      expect(settings, host).toMatchObject({ loopback: true, allowIpAddressHosts: false });
      // Only loopback names: nothing else is admitted.
      for (const name of settings.allowedHostnames)
        expect(isLoopbackHostname(canonicalHost(name)!.hostname), `${host}: ${name}`).toBe(true);
    }
    expect(hostSettings('127.1', ['proxy.example']).allowedHostnames).toContain('proxy.example');
  });

  it('on a network --host admits IP addresses and that host’s name, and still no other name', () => {
    expect(hostSettings('0.0.0.0', [])).toMatchObject({
      loopback: false,
      allowIpAddressHosts: true,
      allowedHostnames: ['localhost', '127.0.0.1', '[::1]'],
    });
    expect(hostSettings('devbox.lan', []).allowedHostnames).toContain('devbox.lan');
  });

  it('refuses a rebinding Host when bound to 127.1 or 0:0:0:0:0:0:0:1', async () => {
    for (const [bind, connect] of [
      ['127.1', '127.0.0.1'],
      ['0:0:0:0:0:0:0:1', '::1'],
    ] as const) {
      const serve = await spawnServe(['--replay', RECORDING, '--host', bind]);
      try {
        const port = new URL(serve.url).port;
        expect(await statusFor(connect, port, `evil.com:${port}`), bind).toBe(403);
        expect(await statusFor(connect, port, `localhost.evil.com:${port}`), bind).toBe(403);
        expect(await statusFor(connect, port, `localhost:${port}`), bind).toBe(200);
        expect(serve.output()).not.toContain('warning');
      } finally {
        await serve.stop();
      }
    }
  });

  it('on 0.0.0.0 warns that the API is open, admits IP addresses, refuses other names', async () => {
    const serve = await spawnServe(['--replay', RECORDING, '--host', '0.0.0.0']);
    try {
      const port = new URL(serve.url).port;
      expect(await statusFor('127.0.0.1', port, `127.0.0.1:${port}`)).toBe(200);
      expect(await statusFor('127.0.0.1', port, `192.0.2.7:${port}`)).toBe(200);
      expect(await statusFor('127.0.0.1', port, `evil.com:${port}`)).toBe(403);
      // The warning goes to stderr, which may arrive after the address on stdout.
      await waitFor(() => serve.output().includes('warning'), 'the warning', 60_000);
      expect(serve.output()).toContain(
        'warning: 0.0.0.0 is not a loopback address. The API has no authentication',
      );
    } finally {
      await serve.stop();
    }
  });
});

describe('toolwire serve: TOOLWIRE_LEASE_MS', () => {
  it('takes whole milliseconds from 100 to 3600000, else a usage error', async () => {
    const saved = process.env.TOOLWIRE_LEASE_MS;
    try {
      for (const value of ['abc', '99', '3600001', '1.5', '-5', '1e4']) {
        process.env.TOOLWIRE_LEASE_MS = value;
        const run = await inProcess(['serve', '--replay', RECORDING]);
        expect(run.status, value).toBe(2);
        expect(run.stderr, value).toContain(
          `TOOLWIRE_LEASE_MS must be a whole number of milliseconds from 100 to 3600000, not "${value}"`,
        );
      }
    } finally {
      if (saved === undefined) delete process.env.TOOLWIRE_LEASE_MS;
      else process.env.TOOLWIRE_LEASE_MS = saved;
    }
  });
});

describe.skipIf(skipRedisTests())('toolwire serve --store redis://', () => {
  const PASSWORD = 'open-sesame-42';
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis({ args: ['--requirepass', PASSWORD] });
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('keeps runs in Redis with the server’s limits, never prints the password, and on SIGTERM lets a run write its end before it closes the store', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const fake = await startFakeOpenAIServer({
      turns: ['<thinking>Working on it, step by step'],
      beforeChunk: (_turn, sent) => (sent.length >= 20 ? held : undefined),
    });
    const url = `redis://:${PASSWORD}@127.0.0.1:${redis.port}/1`;
    const store = await createRunStore(url, { prefix: 'serve-test:' });
    const serve = await startCli(
      [
        'serve',
        '--port',
        '0',
        '--base-url',
        fake.baseURL,
        '--model',
        'scripted',
        '--store-prefix',
        'serve-test:',
      ],
      {
        readyWhen: /listening on (http:\/\/[^\s]+)\s[\s\S]*store [^\n]*\n/,
        // From the environment, as a deployment would set it.
        env: { ...process.env, TOOLWIRE_STORE: url, TOOLWIRE_LEASE_MS: '60000' },
      },
    );
    try {
      expect(serve.output()).toContain(
        `\n  store redis://127.0.0.1:${redis.port}/1 (key prefix serve-test:)\n`,
      );
      const started = await postJson(`${serve.ready[1]}/api/runs`, { prompt: 'Explain login' });
      const runId = started.headers.get('x-run-id')!;
      // The shutdown closes this connection; the run's end is in the store.
      void started.text().catch(() => {});
      const running = await store.getRun(runId);
      expect(running).toMatchObject({ status: 'running' });
      // The lease is the server's (TOOLWIRE_LEASE_MS), counted by the store; it renews every 20 s.
      expect(running!.leaseUntil! - running!.createdAt).toBe(60_000);

      expect(await serve.stop('SIGTERM')).toBe(0);
      // The shutdown aborted the run, and its end reached Redis before the store was closed.
      expect(await store.getRun(runId)).toMatchObject({ status: 'finished', outcome: 'aborted' });
      expect(serve.output()).not.toContain(PASSWORD);
    } finally {
      release();
      await serve.stop('SIGKILL');
      await store.close();
      await fake.close();
    }
  });

  it('a Redis that is not there: status 1 and one line naming it, no stack trace, no password, no wait', async () => {
    const gone = await startRedis();
    await gone.stop();
    const run = await runCli([
      'serve',
      '--port',
      '0',
      '--replay',
      RECORDING,
      '--store',
      `redis://:${PASSWORD}@127.0.0.1:${gone.port}`,
    ]);
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(
      new RegExp(
        `^toolwire: the run store \\(Redis at 127\\.0\\.0\\.1:${gone.port}/0\\) failed connect: [^\n]+\n$`,
      ),
    );
    expect(run.stderr).not.toContain(PASSWORD);
  });
});
