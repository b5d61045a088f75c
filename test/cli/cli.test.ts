import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/child-process.ts';
import { runInProcess as inProcess } from '../support/in-process-cli.ts';

const directory = mkdtempSync(join(tmpdir(), 'toolwire-cli-'));
const toolsFile = join(directory, 'tools.json');
writeFileSync(
  toolsFile,
  JSON.stringify([
    {
      name: 'get_weather',
      description: 'Weather',
      inputSchema: {
        type: 'object',
        properties: { city: { type: 'string' }, days: { type: 'integer' } },
        required: ['city'],
      },
    },
  ]),
);

function run(args: string[], input = '') {
  const result = runCli(args, { input });
  return {
    status: result.status,
    stderr: result.stderr,
    events: result.stdout
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line) as { type: string; [key: string]: unknown }),
  };
}

describe('toolwire parse', () => {
  const output =
    'Checking. <think>which city?</think><get_weather><city>Oslo</city><days>2</days></get_weather>';

  it('prints one JSON event per line: text, reasoning, tool input and the call', () => {
    const { status, events } = run(['parse', '--protocol', 'xml', '--tools', toolsFile], output);
    expect(status).toBe(0);
    // Consecutive deltas folded: how many there are depends on how the input streams.
    const types = events
      .map((event) => event.type)
      .filter((type, index, all) => type !== all[index - 1]);
    expect(types).toEqual([
      'text-start',
      'text-delta',
      'text-end',
      'reasoning-start',
      'reasoning-delta',
      'reasoning-end',
      'tool-input-start',
      'tool-input-delta',
      'tool-input-end',
      'tool-call',
    ]);
    const call = events.at(-1)!;
    expect(call).toMatchObject({ toolName: 'get_weather', input: '{"city":"Oslo","days":2}' });
    expect(typeof call.toolCallId).toBe('string');
  });

  it('gives the same text and calls with --chunk-size', () => {
    const pick = (events: { type: string; [key: string]: unknown }[]) =>
      events.filter((event) => event.type === 'tool-call').map((event) => event.input);
    const whole = run(['parse', '--protocol', 'xml', '--tools', toolsFile], output);
    const chunked = run(
      ['parse', '--protocol', 'xml', '--tools', toolsFile, '--chunk-size', '3'],
      output,
    );
    expect(chunked.status).toBe(0);
    expect(pick(chunked.events)).toEqual(pick(whole.events));
  });

  it('reads hermes and execute too, and reports malformed calls as error events', () => {
    const hermes = run(
      ['parse', '--protocol', 'hermes', '--tools', toolsFile],
      '<tool_call>{"name": "get_weather", "arguments": {"city": "Rome"}}</tool_call><tool_call>oops</tool_call>',
    );
    expect(hermes.events.find((event) => event.type === 'tool-call')).toMatchObject({
      input: '{"city":"Rome"}',
    });
    expect(hermes.events.find((event) => event.type === 'error')).toMatchObject({
      error: { code: 'malformed-call', raw: '<tool_call>oops</tool_call>' },
    });
    const execute = run(
      ['parse', '--protocol', 'execute', '--tools', toolsFile],
      '<execute>[{"name": "get_weather", "args": {"city": "Lima"}}]</execute>',
    );
    expect(execute.events.find((event) => event.type === 'tool-call')).toMatchObject({
      input: '{"city":"Lima"}',
    });
  });

  it('exits 2 with a clear message on bad usage', async () => {
    // One child process proves the status reaches the shell; the rest run in this process (a
    // usage error is found before any input is read), which a busy machine does not slow down.
    const unknown = run(['parse', '--protocol', 'yaml', '--tools', toolsFile]);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('unknown protocol "yaml": expected one of xml, ');

    const missing = await inProcess([
      'parse',
      '--protocol',
      'xml',
      '--tools',
      join(directory, 'nope.json'),
    ]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('cannot read tools file');

    const invalidFile = join(directory, 'invalid.json');
    writeFileSync(invalidFile, '{"name": "x"');
    expect(
      (await inProcess(['parse', '--protocol', 'xml', '--tools', invalidFile])).stderr,
    ).toContain('is not valid JSON');

    const notArray = join(directory, 'object.json');
    writeFileSync(notArray, '{"name": "x"}');
    expect((await inProcess(['parse', '--protocol', 'xml', '--tools', notArray])).stderr).toContain(
      'must hold a JSON array',
    );

    const noSchema = join(directory, 'no-schema.json');
    writeFileSync(noSchema, '[{"name": "x"}]');
    expect((await inProcess(['parse', '--protocol', 'xml', '--tools', noSchema])).stderr).toContain(
      '"inputSchema" must be a JSON Schema object',
    );

    const chunkSize = ['--chunk-size', '0'];
    expect(
      (await inProcess(['parse', '--protocol', 'xml', '--tools', toolsFile, ...chunkSize])).status,
    ).toBe(2);
    expect((await inProcess(['frobnicate'])).status).toBe(2);
    expect((await inProcess(['parse', '--bogus'])).status).toBe(2);
  });
});
