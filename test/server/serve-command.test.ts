import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { spawnServe } from '../browser/support.ts';
import { postJson } from './helpers.ts';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const RECORDING = fileURLToPath(new URL('../../examples/recorded-run.sse', import.meta.url));

function runCli(args: string[]) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [MAIN, ...args]);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (data) => (stdout += data));
    child.stderr.on('data', (data) => (stderr += data));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

describe('toolwire serve', () => {
  it('serves a recording with --replay, and stops cleanly on SIGTERM', async () => {
    const serve = await spawnServe(['--replay', RECORDING]);
    try {
      expect(serve.output()).toContain(
        'replaying recorded-run.sse (a recording: no model is asked)',
      );
      const info = (await (await fetch(`${serve.url}/api/info`)).json()) as Record<string, unknown>;
      expect(info).toMatchObject({ mode: 'replay', recording: 'recorded-run.sse' });
      const response = await postJson(`${serve.url}/api/runs`, { prompt: 'anything' });
      expect(response.headers.get('x-toolwire-replay')).toBe('recorded-run.sse');
      expect(await response.text()).toBe(await readFile(RECORDING, 'utf8'));
    } finally {
      const exited = new Promise<number | null>((resolve) => serve.child.once('exit', resolve));
      serve.child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  });

  it('prints where it listens and which model it asks', async () => {
    const serve = await spawnServe(['--base-url', 'http://127.0.0.1:9/v1', '--model', 'm1']);
    try {
      expect(serve.output()).toContain('model m1 at http://127.0.0.1:9/v1, protocol xml');
      const info = (await (await fetch(`${serve.url}/api/info`)).json()) as Record<string, unknown>;
      expect(info).toMatchObject({ mode: 'live', model: 'm1', baseURL: 'http://127.0.0.1:9/v1' });
    } finally {
      await serve.stop();
    }
  });

  it('rejects bad usage with status 2 and says what was wrong', async () => {
    const cases: [string[], string][] = [
      [['--port', 'abc'], '--port must be a whole number'],
      [['--port', '70000'], '--port must be at most 65535'],
      [['--max-runs', '0'], '--max-runs must be a whole number of at least 1'],
      [['--protocol', 'yaml'], 'unknown protocol "yaml"'],
      [['--root', '/nonexistent/toolwire'], 'is not a folder'],
      [['--replay', '/nonexistent/run.sse'], '--replay: cannot read'],
      [['extra'], 'serve takes no arguments'],
      [['--nope'], "Unknown option '--nope'"],
    ];
    const results = await Promise.all(cases.map(([args]) => runCli(['serve', ...args])));
    cases.forEach(([args, message], index) => {
      expect(results[index]!.status, args.join(' ')).toBe(2);
      expect(results[index]!.stderr, args.join(' ')).toContain(message);
    });
    expect((await runCli(['--help'])).stdout).toContain('toolwire serve [--port 8787]');
  });
});
