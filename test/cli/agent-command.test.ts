import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeServer, startFakeOpenAIServer } from '../support/fake-openai-server.ts';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

/** Runs the CLI without blocking the event loop (the fake server lives in this process). */
function runCli(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [MAIN, ...args], {
      env: { ...process.env, ...env, NO_COLOR: '1' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (data) => (stdout += data));
    child.stderr.on('data', (data) => (stderr += data));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

function repository(): string {
  const root = mkdtempSync(join(tmpdir(), 'toolwire-agent-'));
  writeFileSync(
    join(root, 'login.js'),
    'export function loginUser(email, password) {\n  return checkPassword(email, password);\n}\n',
  );
  return root;
}

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('toolwire agent', () => {
  it('runs the code assistant against an OpenAI-compatible server and prints the run', async () => {
    server = await startFakeOpenAIServer({
      turns: [
        '<thinking>Find the login code.</thinking>\n<search>\n<query>loginUser</query>\n</search>',
        '<attempt_completion><result>Login is handled by loginUser in login.js.</result></attempt_completion>',
      ],
    });
    const root = repository();
    const { status, stdout, stderr } = await runCli([
      'agent',
      'How does login work?',
      '--root',
      root,
      '--base-url',
      server.baseURL,
      '--model',
      'test-model',
    ]);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(stdout).toContain('Find the login code.');
    expect(stdout).toContain('→ search {"query":"loginUser"}');
    expect(stdout).toMatch(/← search \d+ lines?: Search: loginUser/);
    expect(stdout).toContain('Answer:\nLogin is handled by loginUser in login.js.');
    // The model got the protocol in its prompt, the search result in the next turn, no native tools.
    expect(server.requests).toHaveLength(2);
    expect(server.requests[0]!.model).toBe('test-model');
    expect(server.requests[0]!.tools).toBeUndefined();
    const messages = server.requests[1]!.messages as { role: string; content: string }[];
    expect(JSON.stringify(messages[0])).toContain('attempt_completion');
    expect(messages.at(-1)!.content).toContain('<tool_result tool_name="search">');
    expect(messages.at(-1)!.content).toContain('login.js');
  });

  it('says plainly when no model server answers, and how to start one', async () => {
    const root = repository();
    const { status, stderr } = await runCli([
      'agent',
      'hi',
      '--root',
      root,
      '--base-url',
      'http://127.0.0.1:9/v1',
    ]);
    expect(status).toBe(3);
    expect(stderr).toContain('No model server answers at http://127.0.0.1:9/v1.');
    expect(stderr).toContain('ollama serve');
  });

  it('rejects bad usage with status 2', async () => {
    expect((await runCli(['agent', '--root', '.'])).status).toBe(2);
    const missingRoot = await runCli(['agent', 'question']);
    expect(missingRoot.status).toBe(2);
    expect(missingRoot.stderr).toContain('missing --root');
    const badProtocol = await runCli(['agent', 'q', '--root', '.', '--protocol', 'yaml']);
    expect(badProtocol.stderr).toContain('unknown protocol "yaml"');
  });
});
