import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { type AgentTools, runAgent } from '../../src/agent/index.ts';
import { agentCommand, describeUsage, TerminalView } from '../../src/cli/agent-command.ts';
import { openAICompatibleModel } from '../../src/cli/openai-model.ts';
import {
  FORMATS,
  formatEntry,
  formatForModel,
  PROTOCOL_NAMES,
  protocolByName,
} from '../../src/protocols/index.ts';
import { scriptedModel } from '../agent/scripted-model.ts';
import { type FakeServer, startFakeOpenAIServer } from '../support/fake-openai-server.ts';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

/** The CLI processes a test started and that have not ended: killed after each test. */
const children = new Set<ChildProcess>();

/** `toolwire ARGS` as a child process, killed after the test whatever becomes of it. */
function spawnCli(
  args: string[],
  env: Record<string, string> = {},
): ChildProcess & {
  stdout: NodeJS.ReadableStream;
  stderr: NodeJS.ReadableStream;
} {
  const child = spawn(process.execPath, [MAIN, ...args], {
    env: { ...process.env, ...env, NO_COLOR: '1' },
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** Runs the CLI without blocking the event loop (the fake server lives in this process). */
function runCli(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawnCli(args, env);
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
  for (const child of children) child.kill('SIGKILL');
  children.clear();
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
    // Streams ask for usage: many servers send none otherwise.
    expect(server.requests[0]!.stream_options).toEqual({ include_usage: true });
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

describe('toolwire agent --protocol', () => {
  /** A run in the format of `name`: a search, then the answer as that format ends a run. */
  function turnsIn(name: string): string[] {
    const protocol = protocolByName(name);
    const search = protocol.formatToolCall({ toolName: 'search', input: { query: 'loginUser' } });
    const answer = 'Login is handled by loginUser.';
    const ends = formatEntry(name)?.agent.completion ?? 'no-call';
    return [
      `Let me look.\n${search}`,
      ends === 'tool'
        ? protocol.formatToolCall({ toolName: 'attempt_completion', input: { result: answer } })
        : answer,
    ];
  }

  async function runIn(format: string, args: string[], env: Record<string, string> = {}) {
    server = await startFakeOpenAIServer({ turns: turnsIn(format) });
    const result = await runCli(
      [
        'agent',
        'How does login work?',
        '--root',
        repository(),
        '--base-url',
        server.baseURL,
        ...args,
      ],
      env,
    );
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('→ search {"query":"loginUser"}');
    // Once: a streamed answer is not printed again.
    expect(result.stdout.split('Login is handled by loginUser.')).toHaveLength(2);
  }

  it('model: the format of the --model id', async () => {
    const id = 'qwen2.5-coder:7b';
    await runIn(formatForModel(id).name, ['--protocol', 'model', '--model', id]);
    expect(server!.requests[0]!.model).toBe(id);
  });

  it('model from TOOLWIRE_PROTOCOL, with the model from TOOLWIRE_MODEL', async () => {
    const id = 'qwen2.5-coder:7b';
    await runIn(formatForModel(id).name, [], { TOOLWIRE_PROTOCOL: 'model', TOOLWIRE_MODEL: id });
  });

  it('an alias, in any case', async () => {
    const entry = FORMATS.find((format) => format.aliases.length > 0)!;
    await runIn(entry.name, ['--protocol', entry.aliases[0]!.toUpperCase()]);
  });

  it('auto: calls in any format (it prompts in one of them)', async () => {
    await runIn('hermes', ['--protocol', 'auto']);
  });

  it('an unknown name: status 2, the names listed', async () => {
    const { status, stderr } = await runCli(['agent', 'q', '--root', '.', '--protocol', 'yaml']);
    expect(status).toBe(2);
    expect(stderr).toContain(`expected one of ${[...PROTOCOL_NAMES, 'model'].join(', ')}`);
  });
});

// ── terminal control sequences ──────────────────────────────────────────────────────────────

/** Sequences a hostile file or model writes: clipboard, erase, title, bell, one-byte CSI/OSC. */
const HOSTILE = {
  clipboard: '\x1b]52;c;ZXZpbA==\x07',
  erase: '\x1b[2K\x1b[1A\x1b[2K',
  title: '\x1b]0;owned\x07',
  c1: '\x9b2K\x9d0;c1title\x9c',
  overwrite: 'shown\rHIDDEN',
  bidi: '\u202eesrever',
} as const;
const HOSTILE_TEXT = Object.values(HOSTILE).join(' ');

/** What must never reach the terminal from model or tool text. */
const ACTIVE = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]|\r(?!\n)/;

function expectInert(bytes: string) {
  expect(bytes).not.toMatch(ACTIVE);
  // Each sequence is there, visible.
  expect(bytes).toContain('\\x1b]52;c;ZXZpbA==\\x07');
  expect(bytes).toContain('\\x1b[2K\\x1b[1A\\x1b[2K');
  expect(bytes).toContain('\\x1b]0;owned\\x07');
}

describe('toolwire agent: terminal control sequences from the model and tools', () => {
  it('writes none of them to stdout, from reasoning, text, calls, results or the answer', async () => {
    const root = repository();
    writeFileSync(join(root, 'evil.txt'), `notes\n${HOSTILE_TEXT}\nmore\n`);
    const json = (text: string) => JSON.stringify(text).slice(1, -1);
    server = await startFakeOpenAIServer({
      chunkSize: 3,
      turns: [
        `<thinking>Reading ${HOSTILE_TEXT}</thinking>\nLet me look ${HOSTILE.title}.\n<extract>\n<file_path>evil.txt</file_path>\n</extract>`,
        `<attempt_completion><result>The file says ${HOSTILE_TEXT}</result></attempt_completion>`,
      ],
    });
    const { status, stdout, stderr } = await runCli([
      'agent',
      'What is in evil.txt?',
      '--root',
      root,
      '--base-url',
      server.baseURL,
    ]);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    // The model's text reached the CLI with its escapes, and the tool read the file.
    expect(json(HOSTILE_TEXT)).toContain('\\u001b');
    expect(server.requests[1]!.messages).toBeDefined();
    expect(JSON.stringify(server.requests[1]!.messages)).toContain('ZXZpbA==');
    expectInert(stdout);
    expect(stdout).toContain('\\x9b2K\\x9d0;c1title\\x9c');
    expect(stdout).toContain('shown\\x0dHIDDEN');
    expect(stdout).toContain('\\u202eesrever');
    // xml cuts each turn after its call, then still reads the usage the server sends last.
    expect(stdout).toContain('2 steps, 24 input and 14 output tokens');
  });

  it('on a terminal, the only escapes written are its own colours and progress line', async () => {
    const tools: AgentTools = {
      read_note: {
        inputSchema: { type: 'object', properties: { name: { type: 'string' } } },
        execute: async () => {
          // Long enough for the progress line to be drawn.
          await new Promise((resolve) => setTimeout(resolve, 450));
          return `note: ${HOSTILE_TEXT}\nsecond line`;
        },
      },
      fail: {
        inputSchema: { type: 'object' },
        execute: () => {
          throw new Error(`broken ${HOSTILE_TEXT}`);
        },
      },
    };
    const { model } = scriptedModel([
      `<think>${HOSTILE_TEXT}</think>Text ${HOSTILE.clipboard}\r\n<tool_call>{"name": "read_note", "arguments": {"name": ${JSON.stringify(HOSTILE_TEXT)}}}</tool_call>\n<tool_call>{"name": "fail", "arguments": {}}</tool_call>`,
      `Answer: ${HOSTILE_TEXT}`,
    ]);
    let written = '';
    const view = new TerminalView({
      isTTY: true,
      write: (text) => {
        written += text;
      },
    });
    const run = runAgent({ model, protocol: 'hermes', tools, prompt: 'notes?' });
    for await (const event of run) view.show(event);
    view.stopProgress();
    expect((await run.result).stopReason).toBe('completed');
    // The view's own sequences: SGR colours, and the progress line's return-and-erase.
    const own = written.replace(/\x1b\[\d+m/g, '').replace(/\r\x1b\[2K/g, '');
    expect(written).toMatch(/\r\x1b\[2K.*running read_note/);
    expect(own).not.toMatch(ACTIVE);
    expectInert(own);
    // \r\n from the model is a line ending, not an overwrite.
    expect(own).toContain('Text \\x1b]52;c;ZXZpbA==\\x07\r\n');
    expect(own).toMatch(/✗ fail execution: broken \\x1b\]52/);
  });
});

describe('toolwire agent: token usage', () => {
  async function lastLine(usage: { input: number; output: number } | 'none') {
    const { model } = scriptedModel([
      { text: '<tool_call>{"name": "noop", "arguments": {}}</tool_call>', usage },
      { text: 'Done.', usage },
    ]);
    const tools: AgentTools = { noop: { inputSchema: { type: 'object' }, execute: () => 'ok' } };
    let written = '';
    const view = new TerminalView({
      write: (text) => {
        written += text;
      },
    });
    const run = runAgent({ model, protocol: 'hermes', tools, prompt: 'go' });
    for await (const event of run) view.show(event);
    return written.trimEnd().split('\n').at(-1);
  }

  it('prints "unknown" when the server reports no usage, not 0', async () => {
    expect(await lastLine('none')).toBe('2 steps, token usage unknown');
  });

  it('prints the counts the server reported, summed over the steps', async () => {
    expect(await lastLine({ input: 30, output: 4 })).toBe('2 steps, 60 input and 8 output tokens');
  });

  it('describes a count that is known alone', () => {
    expect(describeUsage({ inputTokens: 5, outputTokens: undefined })).toBe(
      '5 input and unknown output tokens',
    );
    expect(describeUsage({ inputTokens: 0, outputTokens: 0 })).toBe('0 input and 0 output tokens');
  });

  it('asks an OpenAI-compatible server for usage in streams, and counts what it sends', async () => {
    server = await startFakeOpenAIServer({ turns: ['Hello.'] });
    const model = openAICompatibleModel({ baseURL: server.baseURL, modelName: 'm' });
    const result = await runAgent({ model, protocol: 'hermes', tools: {}, prompt: 'hi' }).result;
    expect(server.requests[0]!.stream).toBe(true);
    expect(server.requests[0]!.stream_options).toEqual({ include_usage: true });
    // The fake server's usage: 12 prompt and 7 completion tokens.
    expect(result.usage).toEqual({ inputTokens: 12, outputTokens: 7 });
  });
});

// ── the run as the user sees it ─────────────────────────────────────────────────────────────

describe('toolwire agent: the run on the terminal', () => {
  const answer = 'Login is handled by loginUser in login.js.';

  it('prints a streamed final answer once, not again as "Answer:"', async () => {
    server = await startFakeOpenAIServer({
      turns: [
        'Let me look.\n<tool_call>{"name": "search", "arguments": {"query": "loginUser"}}</tool_call>',
        `  ${answer}\n`,
      ],
    });
    const { status, stdout } = await runCli([
      'agent',
      'How does login work?',
      '--root',
      repository(),
      '--base-url',
      server.baseURL,
      '--protocol',
      'hermes',
    ]);
    expect(status).toBe(0);
    expect(stdout.split(answer)).toHaveLength(2);
    expect(stdout).not.toContain('Answer:');
    expect(stdout.trimEnd().split('\n').at(-1)).toBe('2 steps, 24 input and 14 output tokens');
  });

  it('still prints an answer given in a completion call (never streamed), once', async () => {
    server = await startFakeOpenAIServer({
      turns: [`<attempt_completion><result>${answer}</result></attempt_completion>`],
    });
    const { status, stdout } = await runCli([
      'agent',
      'How does login work?',
      '--root',
      repository(),
      '--base-url',
      server.baseURL,
    ]);
    expect(status).toBe(0);
    expect(stdout).toContain(`Answer:\n${answer}`);
    expect(stdout.split(answer)).toHaveLength(2);
  });

  it('numbers the steps from 1', async () => {
    server = await startFakeOpenAIServer({
      turns: [
        '<search>\n<query>loginUser</query>\n</search>',
        `<attempt_completion><result>${answer}</result></attempt_completion>`,
      ],
    });
    const { stdout } = await runCli([
      'agent',
      'How does login work?',
      '--root',
      repository(),
      '--base-url',
      server.baseURL,
    ]);
    const headers = stdout.match(/── step \d+/g);
    expect(headers).toEqual(['── step 1', '── step 2']);
    expect(stdout.indexOf('── step 1')).toBeLessThan(stdout.indexOf('→ search'));
  });

  it('Ctrl-C (SIGINT) stops the run, says so in one line and exits 130', async () => {
    server = await startFakeOpenAIServer({
      // Slow enough that the run is still streaming when the signal comes.
      turns: [`Thinking about it. ${'word '.repeat(400)}`],
      chunkDelayMs: 50,
    });
    const child = spawnCli(['agent', 'q', '--root', repository(), '--base-url', server.baseURL]);
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (data) => (stderr += data));
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    await new Promise<void>((resolve) =>
      child.stdout.on('data', (data) => {
        stdout += data;
        if (stdout.includes('Thinking')) resolve();
      }),
    );
    const started = Date.now();
    child.kill('SIGINT');
    expect(await closed).toBe(130);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(stderr.trim().split('\n')).toEqual([
      'toolwire: interrupted (Ctrl-C); the run was stopped',
    ]);
    expect(stdout).not.toContain('Stopped (aborted)');
  });
});

describe('toolwire agent: ask_user', () => {
  const ASK = (question: string) =>
    `<tool_call>{"name": "ask_user", "arguments": {"question": ${JSON.stringify(question)}}}</tool_call>`;

  /** Runs the command in this process with `input` as its standard input. */
  async function runWith(
    input: PassThrough & { isTTY?: boolean },
    onOutput: (written: string) => void = () => {},
  ) {
    let stdout = '';
    let stderr = '';
    const status = await agentCommand(
      [
        'Which file handles login?',
        '--root',
        repository(),
        '--base-url',
        server!.baseURL,
        '--protocol',
        'hermes',
      ],
      {
        write: (text) => {
          stdout += text;
          onOutput(stdout);
        },
      },
      { write: (text) => (stderr += text) },
      input,
    );
    return { status, stdout, stderr };
  }

  function terminalInput(): PassThrough & { isTTY: boolean } {
    return Object.assign(new PassThrough(), { isTTY: true });
  }

  const systemOf = (request: Record<string, unknown>) =>
    JSON.stringify((request.messages as { role: string }[]).filter((m) => m.role === 'system'));

  it('on a terminal: shows the question and sends the line the user types as the answer', async () => {
    server = await startFakeOpenAIServer({
      turns: [ASK(`Which file? ${HOSTILE.title}`), 'It is login.js.'],
    });
    const input = terminalInput();
    let answered = false;
    const { status, stdout } = await runWith(input, (written) => {
      if (!answered && written.endsWith('> ')) {
        answered = true;
        input.write('the one named login.js\n');
      }
    });
    expect(status).toBe(0);
    expect(answered).toBe(true);
    expect(stdout).toContain('? Which file? \\x1b]0;owned\\x07\n> ');
    expect(stdout).not.toMatch(ACTIVE);
    expect(systemOf(server.requests[0]!)).toContain('ask_user');
    const toolResult = JSON.stringify(server.requests[1]!.messages);
    expect(toolResult).toContain('the one named login.js');
    expect(stdout).toMatch(/← ask_user 1 line: the one named login\.js/);
  });

  it('two questions in one turn are asked one after the other, each answered by its line', async () => {
    server = await startFakeOpenAIServer({
      turns: [`${ASK('First?')}\n${ASK('Second?')}`, 'Done.'],
    });
    const input = terminalInput();
    let prompts = 0;
    const { status, stdout } = await runWith(input, (written) => {
      const shown = written.split('> ').length - 1;
      if (shown > prompts) {
        prompts = shown;
        input.write(`answer ${prompts}\n`);
      }
    });
    expect(status).toBe(0);
    expect(prompts).toBe(2);
    expect(stdout.indexOf('? First?')).toBeLessThan(stdout.indexOf('? Second?'));
    expect(stdout).toMatch(/← ask_user 1 line: answer 1/);
    expect(stdout).toMatch(/← ask_user 1 line: answer 2/);
  });

  it('the input ending before an answer is an error the model reads', async () => {
    server = await startFakeOpenAIServer({ turns: [ASK('Which file?'), 'Never mind.'] });
    const input = terminalInput();
    const { status, stdout } = await runWith(input, (written) => {
      if (written.endsWith('> ')) input.end();
    });
    expect(status).toBe(0);
    expect(stdout).toContain('✗ ask_user');
    expect(JSON.stringify(server.requests[1]!.messages)).toContain('gave no answer');
  });

  it('without a terminal on stdin the agent has no ask_user, as before', async () => {
    server = await startFakeOpenAIServer({ turns: ['It is login.js.'] });
    const { status } = await runWith(Object.assign(new PassThrough(), { isTTY: false }));
    expect(status).toBe(0);
    expect(systemOf(server.requests[0]!)).not.toContain('ask_user');
  });
});
