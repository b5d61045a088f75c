/**
 * Usage errors read in toolwire's own words whatever finds them: Node's argument parser
 * (`parseArgs`) no longer speaks to the user. Run in-process through the CLI's entry.
 */
import { describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../src/cli/command-line.ts';
import { runCommandLine } from '../../src/cli/run-command-line.ts';

async function cli(args: string[]) {
  let stdout = '';
  let stderr = '';
  const status = await runCommandLine(args, {
    stdout: {
      write: (text) => {
        stdout += text;
      },
    },
    stderr: {
      write: (text) => {
        stderr += text;
      },
    },
  });
  return { status, stdout, stderr, said: stderr.split('\n')[0] };
}

describe('usage errors through the CLI entry', () => {
  const cases: [string[], string][] = [
    [['serve', '--bogus'], 'toolwire: unknown option --bogus; see toolwire help serve'],
    [['parse', '--bogus=1'], 'toolwire: unknown option --bogus; see toolwire help parse'],
    [['proxy', '-x'], 'toolwire: unknown option -x; see toolwire help proxy'],
    [
      ['agent', 'q', '--root', '.', '--max-steps', '-1'],
      'toolwire: --max-steps must be a whole number of at least 1, not "-1"',
    ],
    [['serve', '--port', '-5'], 'toolwire: --port must be a whole number of at least 0, not "-5"'],
    [
      ['proxy', '--upstream', 'http://127.0.0.1:9/v1', '--max-requests', '-2'],
      'toolwire: --max-requests must be a whole number of at least 1, not "-2"',
    ],
    [['agent', 'q', '--root'], 'toolwire: --root needs a value; see toolwire help agent'],
    [
      ['agent', 'q', '--root', '--model', 'm'],
      'toolwire: --root needs a value, not the option --model; see toolwire help agent',
    ],
    [
      ['parse', '--list=yes'],
      'toolwire: --list takes no value (got "yes"); see toolwire help parse',
    ],
    [
      ['parse', 'extra'],
      'toolwire: parse takes no arguments besides options (got "extra"); see toolwire help parse',
    ],
    [
      ['serve', 'extra'],
      'toolwire: serve takes no arguments besides options (got "extra"); see toolwire help serve',
    ],
  ];

  it.each(cases)('%j', async (args, message) => {
    const { status, stdout, stderr, said } = await cli(args);
    expect(status).toBe(2);
    expect(stdout).toBe('');
    expect(said).toBe(message);
    // Node's own wording never reaches the user.
    expect(stderr).not.toMatch(/Unknown option '|ambiguous|ERR_PARSE_ARGS|Unexpected argument/);
    // The command's usage follows, as for any usage error.
    expect(stderr).toContain(`toolwire ${args[0]} --help shows more.`);
  });

  it('toolwire help <command> shows that command’s help; an unknown one is a usage error', async () => {
    const serve = await cli(['help', 'serve']);
    expect(serve.status).toBe(0);
    expect(serve.stdout).toContain('toolwire serve [--port 8787]');
    expect(serve.stdout).not.toContain('toolwire parse --protocol');
    const unknown = await cli(['help', 'nope']);
    expect(unknown.status).toBe(2);
    expect(unknown.said).toBe(
      'toolwire: unknown command "nope"; the commands are parse, agent, serve, proxy, grammar',
    );
    expect((await cli(['help'])).stdout).toContain('toolwire help <command>');
  });

  it('a value that begins with a dash is the option’s value', () => {
    const { values } = parseCommandLine('t', ['--name', '-x', '--n=--y'], {
      name: { type: 'string' },
      n: { type: 'string' },
    });
    expect(values).toEqual({ name: '-x', n: '--y' });
  });

  it('values and positionals come back typed as Node’s strict parse gives them', () => {
    const { values, positionals } = parseCommandLine(
      't',
      ['a', '--many', '1', '--many=2', '-h', '--', '--not-an-option'],
      {
        many: { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h' },
      },
      true,
    );
    expect(values).toEqual({ many: ['1', '2'], help: true });
    expect(positionals).toEqual(['a', '--not-an-option']);
  });
});
