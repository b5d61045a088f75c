import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AGENT_USAGE } from '../../src/cli/agent-command.ts';
import { PARSE_USAGE, parseCommand } from '../../src/cli/parse-command.ts';
import { SERVE_USAGE } from '../../src/cli/serve-command.ts';
import { packageVersion } from '../../src/cli/version.ts';
import { runCli } from '../support/child-process.ts';
import { runInProcess as run } from '../support/in-process-cli.ts';

const PACKAGE = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
) as { version: string };

/** The first line of each command's usage: what tells one command's usage from another's. */
const USAGE_LINES = {
  parse: PARSE_USAGE.split('\n')[0]!,
  agent: AGENT_USAGE.split('\n')[0]!,
  serve: SERVE_USAGE.split('\n')[0]!,
} as const;
type CommandName = keyof typeof USAGE_LINES;
const COMMAND_NAMES = Object.keys(USAGE_LINES) as CommandName[];

/** Text holding the usage of `command` and of no other command. */
function expectUsageOfOnly(text: string, command: CommandName) {
  for (const name of COMMAND_NAMES) {
    if (name === command) expect(text).toContain(USAGE_LINES[name]);
    else expect(text).not.toContain(USAGE_LINES[name]);
  }
}

describe('toolwire --help', () => {
  it.each(['--help', '-h', 'help'])(
    '%s prints the overview of every command, status 0',
    async (flag) => {
      const { status, stdout, stderr } = await run([flag]);
      expect(status).toBe(0);
      expect(stderr).toBe('');
      for (const line of Object.values(USAGE_LINES)) expect(stdout).toContain(line);
      expect(stdout).toContain('--protocol takes');
    },
  );

  it('no command at all: the overview, status 2', async () => {
    const { status, stdout } = await run([]);
    expect(status).toBe(2);
    for (const line of Object.values(USAGE_LINES)) expect(stdout).toContain(line);
  });
});

describe('toolwire <command> --help', () => {
  const cases = COMMAND_NAMES.flatMap((command) =>
    ['--help', '-h'].map((flag) => [command, flag] as const),
  );

  it.each(cases)('%s %s prints that command usage alone, status 0', async (command, flag) => {
    const { status, stdout, stderr } = await run([command, flag]);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(stdout.startsWith(`Usage:\n${USAGE_LINES[command]}`)).toBe(true);
    expectUsageOfOnly(stdout, command);
    expect(stdout).toContain('--protocol takes');
  });

  it('wins over what the command would otherwise need or do', async () => {
    // parse would wait on standard input, agent needs a question and --root, serve would listen.
    const parse = await run(['parse', '--protocol', 'xml', '--tools', 'nowhere.json', '--help']);
    expect(parse.status).toBe(0);
    expectUsageOfOnly(parse.stdout, 'parse');
    const agent = await run(['agent', '--model', 'm', '-h']);
    expect(agent.status).toBe(0);
    expectUsageOfOnly(agent.stdout, 'agent');
    // A real process: a server started by mistake would be killed at the bound, not hang here.
    const serve = runCli(['serve', '--port', '0', '--help']);
    expect(serve.status).toBe(0);
    expect(serve.stdout).not.toContain('listening');
    expectUsageOfOnly(serve.stdout, 'serve');
  });
});

describe('toolwire --version', () => {
  it.each(['--version', '-v'])('%s prints the version in package.json, status 0', async (flag) => {
    const { status, stdout, stderr } = await run([flag]);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(stdout).toBe(`${PACKAGE.version}\n`);
  });

  it('as a real process too: what it prints and its status reach the shell', () => {
    const { status, stdout, stderr } = runCli(['--version']);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(stdout).toBe(`${PACKAGE.version}\n`);
    const usage = runCli(['parse', '--bogus']);
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain('toolwire: unknown option --bogus');
  });

  it('reads the package.json two folders above the CLI file: from src/cli and dist/cli', () => {
    const root = mkdtempSync(join(tmpdir(), 'toolwire-version-'));
    writeFileSync(
      join(root, 'package.json'),
      JSON.stringify({ name: 'toolwire', version: '9.8.7' }),
    );
    for (const build of ['src', 'dist']) {
      mkdirSync(join(root, build, 'cli'), { recursive: true });
      const cliFile = pathToFileURL(join(root, build, 'cli', 'main.js'));
      expect(packageVersion(cliFile)).toBe('9.8.7');
    }
  });

  it('says which file it could not read the version from', () => {
    const root = mkdtempSync(join(tmpdir(), 'toolwire-version-'));
    const cliFile = pathToFileURL(join(root, 'dist', 'cli', 'main.js'));
    expect(() => packageVersion(cliFile)).toThrow(`${join(root, 'package.json')}`);
    writeFileSync(join(root, 'package.json'), '{"name": "toolwire"}');
    expect(() => packageVersion(cliFile)).toThrow('has no "version"');
  });
});

describe('a usage error shows the usage of the command at hand', () => {
  const cases: [CommandName, string[], string][] = [
    ['parse', ['parse', '--bogus'], 'unknown option --bogus'],
    ['parse', ['parse', '--protocol', 'xml'], 'missing --tools'],
    ['agent', ['agent', 'question'], 'missing --root'],
    ['agent', ['agent', 'q', '--root', '.', '--max-steps', '0'], '--max-steps must be'],
    ['serve', ['serve', 'extra'], 'serve takes no arguments'],
    ['serve', ['serve', '--port', 'x'], '--port must be'],
  ];

  it.each(cases)('%s: %j', async (command, args, message) => {
    const { status, stdout, stderr } = await run(args);
    expect(status).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain(`toolwire: ${message}`);
    expectUsageOfOnly(stderr, command);
    expect(stderr).toContain(`toolwire ${command} --help`);
  });

  it('an unknown command: every command', async () => {
    const { status, stdout, stderr } = await run(['frobnicate']);
    expect(status).toBe(2);
    expect(stderr).toContain('unknown command "frobnicate"');
    for (const line of Object.values(USAGE_LINES)) expect(stdout + stderr).toContain(line);
  });

  it('what the user typed reaches the terminal inert', async () => {
    const title = '\x1b]0;owned\x07';
    const unknownOption = await run(['parse', `--x${title}`]);
    expect(unknownOption.status).toBe(2);
    expect(unknownOption.stderr).not.toContain('\x1b');
    expect(unknownOption.stderr).toContain('\\x1b]0;owned\\x07');
    const unknownCommand = await run([`x${title}`]);
    expect(unknownCommand.status).toBe(2);
    expect(unknownCommand.stderr).not.toContain('\x1b');
  });
});

describe('toolwire parse on a terminal', () => {
  const directory = mkdtempSync(join(tmpdir(), 'toolwire-parse-tty-'));
  const toolsFile = join(directory, 'tools.json');
  writeFileSync(toolsFile, JSON.stringify([{ name: 'noop', inputSchema: { type: 'object' } }]));

  async function parseWith(isTTY: boolean) {
    let out = '';
    let err = '';
    let errBeforeInput: string | undefined;
    const input = Object.assign(
      Readable.from(
        (async function* () {
          // What the terminal shows before the user types anything.
          errBeforeInput = err;
          yield 'Hi <tool_call>{"name": "noop", "arguments": {}}</tool_call>';
        })(),
      ),
      { isTTY },
    );
    const status = await parseCommand(
      ['--protocol', 'hermes', '--tools', toolsFile],
      { write: (text) => (out += text) },
      { write: (text) => (err += text) },
      input,
    );
    return { status, out, err, errBeforeInput };
  }

  it('says on stderr that it waits for the model output, and how to end it, before reading', async () => {
    const { status, out, errBeforeInput } = await parseWith(true);
    expect(status).toBe(0);
    expect(errBeforeInput).toMatch(/waiting for the model output on standard input/);
    expect(errBeforeInput).toContain('Ctrl-D');
    // The events still go to stdout alone.
    expect(out).toContain('"type":"tool-call"');
    expect(out).not.toContain('waiting');
  });

  it('says nothing when the input comes from a pipe or a file', async () => {
    const { status, err } = await parseWith(false);
    expect(status).toBe(0);
    expect(err).toBe('');
    // A real process reading a real pipe.
    const piped = runCli(['parse', '--protocol', 'hermes', '--tools', toolsFile], {
      input: 'Hello',
    });
    expect(piped.status).toBe(0);
    expect(piped.stderr).toBe('');
  });
});
