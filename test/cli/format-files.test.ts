/**
 * The flags that give a format as a file (`--format-file`, `--chat-template`,
 * `--response-template`) on `parse` and `agent`: which one was given, how each file is read, and
 * every way a file can be wrong, as a one-line usage error (status 2, no stack trace).
 */
import { mkdtempSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { agentCommand } from '../../src/cli/agent-command.ts';
import { formatFileChoice } from '../../src/cli/format-flags.ts';
import {
  commandProtocol,
  MAX_FORMAT_FILE_BYTES,
  oneLine,
  readFormatFile,
  tokensOf,
} from '../../src/cli/format-source.ts';
import { parseCommand } from '../../src/cli/parse-command.ts';
import { runCommandLine } from '../../src/cli/run-command-line.ts';
import { UsageError } from '../../src/cli/usage-error.ts';
import { protocolByName } from '../../src/protocols/index.ts';
import { runCli } from '../support/child-process.ts';
import { type FakeServer, startFakeOpenAIServer } from '../support/fake-openai-server.ts';

const fixture = (path: string) => fileURLToPath(new URL(`../fixtures/${path}`, import.meta.url));
const CLI = fixture('cli/');
const TEMPLATES = fixture('chat-templates/');
const TOOLS = `${TEMPLATES}chat-template-tools.json`;
const HOUSE = `${CLI}house-format.json`;

const directory = mkdtempSync(join(tmpdir(), 'toolwire-format-files-'));
const write = (name: string, text: string) => {
  const path = join(directory, name);
  writeFileSync(path, text);
  return path;
};

interface TemplateCase {
  readonly template: string;
  readonly text: string;
  readonly calls: readonly { readonly name: string; readonly input: unknown }[];
}
const CASES = (
  JSON.parse(readFileSync(`${TEMPLATES}chat-template-cases.json`, 'utf8')) as {
    cases: TemplateCase[];
  }
).cases;

/** A stream a command writes to, kept. */
function sink() {
  let text = '';
  return {
    write(chunk: string) {
      text += chunk;
    },
    text: () => text,
  };
}

/** Standard input holding `text`, not a terminal. */
function stdin(text: string) {
  return (async function* () {
    yield text;
  })();
}

/** The calls among parse events printed one JSON per line. */
function callsOf(stdout: string) {
  return stdout
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as { type: string; toolName?: string; input?: string })
    .filter((event) => event.type === 'tool-call')
    .map((event) => ({ name: event.toolName, input: JSON.parse(event.input!) as unknown }));
}

/** `toolwire ARGS` in this process: its status and what it wrote. */
async function cli(args: string[]) {
  const stdout = sink();
  const stderr = sink();
  const status = await runCommandLine(args, { stdout, stderr });
  return { status, stdout: stdout.text(), stderr: stderr.text() };
}

describe('formatFileChoice', () => {
  it('is the one flag given, or none', () => {
    expect(formatFileChoice({})).toBeUndefined();
    expect(formatFileChoice({ protocol: 'hermes' })).toBeUndefined();
    expect(formatFileChoice({ 'chat-template': 'a.jinja' })).toEqual({
      flag: 'chat-template',
      file: 'a.jinja',
    });
  });

  it('refuses two, or one with --protocol, naming both', () => {
    expect(() => formatFileChoice({ 'chat-template': 'a', 'format-file': 'b' })).toThrow(
      '--format-file and --chat-template each choose the format: give one of them',
    );
    expect(() => formatFileChoice({ 'response-template': 'a', protocol: 'xml' })).toThrow(
      '--response-template and --protocol each choose the format: give one of them',
    );
    expect(() => formatFileChoice({ 'response-template': 'a', protocol: 'xml' })).toThrow(
      UsageError,
    );
  });
});

describe('readFormatFile', () => {
  it('--format-file: a FormatSpec as JSON', async () => {
    const { protocol, source } = await readFormatFile({ flag: 'format-file', file: HOUSE });
    expect(protocol.name).toBe('house-format');
    expect(source).toBe(`--format-file ${HOUSE}`);
    expect(protocol.formatToolCall({ toolName: 'f', input: { a: 1 } })).toBe(
      '<call>{"name": "f", "arguments": {"a":1}}</call>',
    );
  });

  it('--chat-template: a .jinja file, or a tokenizer_config.json holding chat_template', async () => {
    const jinja = `${TEMPLATES}hermes.vllm.jinja`;
    const fromJinja = await readFormatFile({ flag: 'chat-template', file: jinja });
    const config = write(
      'tokenizer_config.json',
      JSON.stringify({
        bos_token: '<s>',
        eos_token: { content: '</s>' },
        chat_template: readFileSync(jinja, 'utf8'),
      }),
    );
    const fromConfig = await readFormatFile({ flag: 'chat-template', file: config });
    const call = protocolByName('hermes').formatToolCall({
      toolName: 'get_weather',
      input: { city: 'Oslo' },
    });
    const tools = JSON.parse(readFileSync(TOOLS, 'utf8'));
    for (const { protocol } of [fromJinja, fromConfig])
      expect(
        protocol.parseGeneratedText(call, { tools }).filter((part) => part.type === 'tool-call'),
      ).toMatchObject([{ toolName: 'get_weather', input: '{"city":"Oslo"}' }]);
  });

  it('--response-template: a Hugging Face response template', async () => {
    const { protocol } = await readFormatFile({
      flag: 'response-template',
      file: `${CLI}cohere.response-template.json`,
    });
    const text =
      '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Oslo"}}]<|END_ACTION|>';
    const tools = JSON.parse(readFileSync(TOOLS, 'utf8'));
    expect(
      protocol.parseGeneratedText(text, { tools }).filter((part) => part.type === 'tool-call'),
    ).toMatchObject([{ toolName: 'get_weather', input: '{"city":"Oslo"}' }]);
  });

  const huge = join(directory, 'model.gguf');
  writeFileSync(huge, '');
  truncateSync(huge, MAX_FORMAT_FILE_BYTES + 1);

  it.each([
    ['format-file', join(directory, 'missing.json'), 'no such file'],
    ['chat-template', directory, 'is a folder, not a file'],
    ['format-file', write('broken.json', '{"spec": 1,'), 'not valid JSON:'],
    ['response-template', write('broken2.json', 'nope'), 'not valid JSON:'],
    ['format-file', `${CLI}bad-field.format.json`, 'format spec calls[0].open:'],
    ['format-file', write('list.json', '[]'), 'format spec: must be a JSON object'],
    ['chat-template', `${CLI}no-calls.jinja`, 'renders no tool call'],
    ['chat-template', write('empty.json', '{"bos_token": "<s>"}'), 'no "chat_template" field'],
    ['response-template', HOUSE, 'response template'],
    ['chat-template', huge, `is ${MAX_FORMAT_FILE_BYTES + 1} bytes; a format file is at most`],
  ] as const)('--%s %s: a one-line usage error naming the file (%s)', async (flag, file, what) => {
    const error = await readFormatFile({ flag, file }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(UsageError.isInstance(error)).toBe(true);
    const { message } = error as UsageError;
    expect(message.startsWith(`--${flag} ${JSON.stringify(file)}: `)).toBe(true);
    expect(message).toContain(what);
    expect(message).not.toContain('\n');
  });

  it("says that --chat-template auto is the proxy's", async () => {
    await expect(readFormatFile({ flag: 'chat-template', file: 'auto' })).rejects.toThrow(
      '--chat-template "auto": no such file (auto, the model server\'s own template, is for toolwire proxy)',
    );
  });

  it('shows what a file says with control characters inert', async () => {
    const file = write('control.json', '{"spec": 1, "name": "a\\u001b[2Jb"}');
    const error = (await readFormatFile({ flag: 'format-file', file }).catch(
      (thrown: unknown) => thrown,
    )) as Error;
    expect(error.message).not.toContain('\x1b');
  });
});

describe('tokensOf and oneLine', () => {
  it("reads a tokenizer_config.json's bos and eos tokens, as strings or {content}", () => {
    expect(tokensOf('{"bos_token": "<s>", "eos_token": {"content": "</s>"}}')).toEqual({
      bosToken: '<s>',
      eosToken: '</s>',
    });
    expect(tokensOf('{{ bos_token }}{% for m in messages %}{% endfor %}')).toEqual({});
    expect(tokensOf('{"bos_token": null}')).toEqual({});
    expect(tokensOf('{"a": ')).toEqual({});
  });

  it('puts a message on one line', () => {
    expect(oneLine('a\n  b\n\n c ')).toBe('a b c');
  });
});

describe('toolwire parse with a format file', () => {
  // Templates whose cases the derivation reads today; each case whole and in small chunks.
  const TEMPLATE_NAMES = [
    'hermes.vllm.jinja',
    'qwen3-coder.vllm.jinja',
    'llama3.1-json.vllm.jinja',
    'mistral.vllm.jinja',
    'deepseek-v3.1.vllm.jinja',
  ];
  const cases = CASES.filter((entry) => TEMPLATE_NAMES.includes(entry.template));

  it('has cases for each template it reads', () => {
    for (const name of TEMPLATE_NAMES)
      expect(cases.some((entry) => entry.template === name)).toBe(true);
  });

  it.each(cases.map((entry) => [entry.template, entry] as const))(
    '--chat-template %s reads the calls the template rendered, whole and in chunks',
    async (_name, entry) => {
      for (const chunk of [[], ['--chunk-size', '1'], ['--chunk-size', '3']]) {
        const out = sink();
        const status = await parseCommand(
          ['--chat-template', `${TEMPLATES}${entry.template}`, '--tools', TOOLS, ...chunk],
          out,
          sink(),
          stdin(entry.text),
        );
        expect(status).toBe(0);
        expect(callsOf(out.text()), chunk.join(' ')).toEqual(entry.calls);
      }
    },
  );

  it('--format-file reads calls in the spec', async () => {
    const out = sink();
    const text = 'Sure.<call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</call>';
    await parseCommand(['--format-file', HOUSE, '--tools', TOOLS], out, sink(), stdin(text));
    expect(callsOf(out.text())).toEqual([{ name: 'get_weather', input: { city: 'Oslo' } }]);
  });

  it('as a process: status 0 and the calls, whole and with --chunk-size', () => {
    const entry = cases.find((each) => each.template === 'hermes.vllm.jinja')!;
    for (const chunk of [[], ['--chunk-size', '2']]) {
      const result = runCli(
        ['parse', '--chat-template', `${TEMPLATES}${entry.template}`, '--tools', TOOLS, ...chunk],
        { input: entry.text },
      );
      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
      expect(callsOf(result.stdout)).toEqual(entry.calls);
    }
  });

  it('a bad file: status 2, its fault on the first line, no stack trace', async () => {
    const missing = join(directory, 'nowhere.jinja');
    const result = await cli(['parse', '--chat-template', missing, '--tools', TOOLS]);
    expect(result.status).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe(
      `toolwire: --chat-template ${JSON.stringify(missing)}: no such file`,
    );
    expect(result.stderr).not.toMatch(/^\s+at /m);
    const spec = await cli([
      'parse',
      '--format-file',
      `${CLI}bad-field.format.json`,
      '--tools',
      TOOLS,
    ]);
    expect(spec.status).toBe(2);
    expect(spec.stderr.split('\n')[0]).toContain('format spec calls[0].open');
  });

  it('refuses two ways of choosing the format, and --model with a file', async () => {
    const both = await cli([
      'parse',
      '--chat-template',
      'a',
      '--protocol',
      'xml',
      '--tools',
      TOOLS,
    ]);
    expect(both.status).toBe(2);
    expect(both.stderr).toContain('--chat-template and --protocol each choose the format');
    const model = await cli([
      'parse',
      '--format-file',
      HOUSE,
      '--model',
      'qwen3',
      '--tools',
      TOOLS,
    ]);
    expect(model.status).toBe(2);
    expect(model.stderr).toContain('--model chooses the format of a model, and --format-file');
  });

  it('mentions the flags in its usage and help', async () => {
    const help = await cli(['parse', '--help']);
    for (const flag of ['--chat-template', '--format-file', '--response-template'])
      expect(help.stdout).toContain(flag);
  });
});

describe('commandProtocol (agent and serve)', () => {
  it('a file replaces --protocol and TOOLWIRE_PROTOCOL, and is named in the startup line', async () => {
    const before = process.env.TOOLWIRE_PROTOCOL;
    process.env.TOOLWIRE_PROTOCOL = 'not-a-format';
    try {
      const { protocol, described } = await commandProtocol({ 'format-file': HOUSE }, 'm');
      expect(typeof protocol === 'object' && protocol.name).toBe('house-format');
      expect(described).toBe(`house-format (--format-file ${HOUSE})`);
    } finally {
      if (before === undefined) delete process.env.TOOLWIRE_PROTOCOL;
      else process.env.TOOLWIRE_PROTOCOL = before;
    }
  });

  it('else the choice for the model', async () => {
    expect(await commandProtocol({ protocol: 'model' }, 'qwen3-coder:30b')).toEqual({
      protocol: 'qwen3-coder',
      described: "qwen3-coder (the model's format)",
    });
    expect(await commandProtocol({ protocol: 'Hermes' }, 'm')).toEqual({
      protocol: 'hermes',
      described: 'hermes',
    });
  });
});

describe('toolwire agent with a format file', () => {
  let server: FakeServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('--format-file: the model is told the format and its calls are read in it', async () => {
    const root = mkdtempSync(join(tmpdir(), 'toolwire-agent-format-'));
    writeFileSync(join(root, 'login.js'), 'export function loginUser() {}\n');
    server = await startFakeOpenAIServer({
      turns: [
        'Let me look.<call>{"name": "search", "arguments": {"query": "loginUser"}}</call>',
        'Login is handled by loginUser.',
      ],
    });
    const out = sink();
    const err = sink();
    const status = await agentCommand(
      ['Where is login?', '--root', root, '--base-url', server.baseURL, '--format-file', HOUSE],
      out,
      err,
      Object.assign(stdin(''), { isTTY: false }) as never,
    );
    expect(err.text()).toBe('');
    expect(status).toBe(0);
    expect(out.text()).toContain('→ search {"query":"loginUser"}');
    expect(out.text()).toContain('Login is handled by loginUser.');
    const system = JSON.stringify(server.requests[0]!.messages);
    expect(system).toContain('<call>');
  });

  it('a bad file is a usage error before any model is asked', async () => {
    const result = await cli([
      'agent',
      'q',
      '--root',
      directory,
      '--chat-template',
      `${CLI}no-calls.jinja`,
      '--base-url',
      'http://127.0.0.1:9/v1',
    ]);
    expect(result.status).toBe(2);
    expect(result.stderr.split('\n')[0]).toContain(
      `toolwire: --chat-template ${JSON.stringify(`${CLI}no-calls.jinja`)}: `,
    );
  });
});
