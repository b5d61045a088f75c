/**
 * `toolwire grammar`, run as a function: each syntax printed as a server takes it, the choice
 * and `--no-parallel` followed, a format given as a file, and every mistake a usage error.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { grammarCommand } from '../../../src/cli/grammar-command.ts';
import { isErrorOfKind } from '../../../src/core/errors.ts';
import { hermesProtocol } from '../../../src/protocols/hermes/index.ts';
import { disposedAfterAll, searchTool, weatherTool } from '../../support/grammar-fixtures.ts';
import { accepts, compileEbnf, compileStructuralTag } from '../../support/xgrammar.ts';

const folder = mkdtempSync(join(tmpdir(), 'toolwire-grammar-'));
const toolsFile = join(folder, 'tools.json');
// One tool in the OpenAI shape, one in toolwire's: the command reads both.
writeFileSync(
  toolsFile,
  JSON.stringify([
    {
      type: 'function',
      function: { name: weatherTool.name, parameters: weatherTool.inputSchema },
    },
    searchTool,
  ]),
);
/** A schema no grammar holds exactly (`pattern`): refused for every format. */
const refusedToolsFile = join(folder, 'refused-tools.json');
writeFileSync(
  refusedToolsFile,
  JSON.stringify([
    {
      name: 'lookup',
      inputSchema: {
        type: 'object',
        properties: { code: { type: 'string', pattern: '^[A-Z]{3}$' } },
        required: ['code'],
      },
    },
  ]),
);
const formatFile = join(folder, 'format.json');
writeFileSync(
  formatFile,
  JSON.stringify({
    spec: 1,
    name: 'my-format',
    calls: [{ codec: 'json', open: '<call>', close: '</call>' }],
    write: { call: '<call>{"name": {name_json}, "arguments": {arguments}}</call>' },
    results: { each: '<result>{output}</result>' },
  }),
);

const keep = disposedAfterAll();

async function run(args: string[]) {
  let out = '';
  let err = '';
  const status = await grammarCommand(
    args,
    {
      write: (text) => {
        out += text;
      },
    },
    {
      write: (text) => {
        err += text;
      },
    },
  );
  return { status, out, err };
}

async function failure(args: string[]): Promise<unknown> {
  try {
    await run(args);
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

const write = (toolName: string, input: unknown) =>
  hermesProtocol().formatToolCall([{ toolName, input }]);

describe('toolwire grammar', () => {
  it('prints GBNF for a demanded call that xgrammar compiles and that holds the tools', async () => {
    const { status, out, err } = await run([
      '--tools',
      toolsFile,
      '--protocol',
      'hermes',
      '--tool-choice',
      'required',
      '--syntax',
      'gbnf',
    ]);
    expect(status).toBe(0);
    expect(err).toBe('');
    expect(out).toMatch(/^root ::= /);
    const engine = await keep(compileEbnf(out));
    expect(await accepts(engine, write('search', { query: 'x' }))).toBe(true);
    expect(await accepts(engine, write('lookup', { query: 'x' }))).toBe(false);
    expect(await accepts(engine, 'no call')).toBe(false);
  });

  it('under auto, GBNF is lazy: the trigger word goes to standard error, and to --json', async () => {
    const plain = await run(['--tools', toolsFile, '--protocol', 'hermes', '--syntax', 'gbnf']);
    expect(plain.err).toContain('"grammar_triggers": [{"type":1,"value":"<tool_call>"}]');
    const json = await run([
      '--tools',
      toolsFile,
      '--protocol',
      'hermes',
      '--syntax',
      'gbnf',
      '--json',
    ]);
    expect(JSON.parse(json.out)).toMatchObject({
      syntax: 'gbnf',
      lazy: true,
      triggers: ['<tool_call>'],
    });
  });

  it('a named tool and --no-parallel are followed', async () => {
    const { out } = await run([
      '--tools',
      toolsFile,
      '--protocol',
      'hermes',
      '--tool-choice',
      'search',
      '--no-parallel',
      '--syntax',
      'ebnf',
    ]);
    const engine = await keep(compileEbnf(out));
    expect(await accepts(engine, write('search', { query: 'x' }))).toBe(true);
    expect(await accepts(engine, write('get_weather', { city: 'x' }))).toBe(false);
    const two = hermesProtocol().formatToolCall([
      { toolName: 'search', input: { query: 'a' } },
      { toolName: 'search', input: { query: 'b' } },
    ]);
    expect(await accepts(engine, two)).toBe(false);
  });

  it('prints a structural tag and a JSON Schema as JSON', async () => {
    const tag = await run([
      '--tools',
      toolsFile,
      '--protocol',
      'hermes',
      '--tool-choice',
      'required',
      '--syntax',
      'structural-tag',
    ]);
    const engine = await keep(compileStructuralTag(JSON.parse(tag.out)));
    expect(await accepts(engine, write('search', { query: 'x' }))).toBe(true);
    const schema = await run([
      '--tools',
      toolsFile,
      '--protocol',
      'xlam',
      '--tool-choice',
      'required',
      '--syntax',
      'json-schema',
    ]);
    expect(JSON.parse(schema.out)).toMatchObject({ type: 'array', minItems: 1 });
  });

  it('reads the format from --format-file', async () => {
    const { out } = await run([
      '--tools',
      toolsFile,
      '--format-file',
      formatFile,
      '--tool-choice',
      'required',
      '--syntax',
      'gbnf',
    ]);
    expect(out).toContain('"<call>');
  });

  it('every mistake is a usage error that says what is wrong', async () => {
    const cases: [string[], RegExp][] = [
      [['--tools', toolsFile, '--protocol', 'hermes'], /missing --syntax/],
      [
        ['--tools', toolsFile, '--protocol', 'hermes', '--syntax', 'regex'],
        /--syntax must be one of gbnf, ebnf, structural-tag, json-schema, not "regex"/,
      ],
      [['--protocol', 'hermes', '--syntax', 'gbnf'], /missing --tools/],
      [['--tools', toolsFile, '--syntax', 'gbnf'], /missing --protocol/],
      [
        [
          '--tools',
          toolsFile,
          '--protocol',
          'hermes',
          '--tool-choice',
          'required',
          '--syntax',
          'json-schema',
        ],
        /no grammar for format "hermes": its calls are not written as JSON alone/,
      ],
      [
        ['--tools', refusedToolsFile, '--protocol', 'pythonic', '--syntax', 'gbnf'],
        /no grammar for format "pythonic": tool "lookup", argument code: JSON Schema keyword "pattern"/,
      ],
    ];
    for (const [args, message] of cases) {
      const error = await failure(args);
      expect(isErrorOfKind(error, 'usage'), String(error)).toBe(true);
      expect((error as Error).message).toMatch(message);
    }
    const unknown = await failure([
      '--tools',
      toolsFile,
      '--protocol',
      'hermes',
      '--tool-choice',
      'lookup',
      '--syntax',
      'gbnf',
    ]);
    expect(isErrorOfKind(unknown, 'unknown-tool-choice')).toBe(true);
  });

  it('--help prints the usage', async () => {
    const { out } = await run(['--help']);
    expect(out).toContain(
      'toolwire grammar --tools <tools.json> --syntax gbnf|ebnf|structural-tag|json-schema',
    );
  });
});
