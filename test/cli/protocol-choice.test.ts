import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { protocolSetting } from '../../src/cli/model-settings.ts';
import { formatList, parseProtocol, runParse } from '../../src/cli/parse-command.ts';
import { UsageError } from '../../src/cli/usage-error.ts';
import {
  FORMATS,
  formatEntry,
  formatForModel,
  PROTOCOL_NAMES,
  protocolByName,
} from '../../src/protocols/index.ts';
import { runCli } from '../support/child-process.ts';

const directory = mkdtempSync(join(tmpdir(), 'toolwire-cli-protocols-'));
const toolsFile = join(directory, 'tools.json');
const TOOLS = [
  {
    name: 'get_weather',
    description: 'Weather',
    inputSchema: {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
    },
  },
];
writeFileSync(toolsFile, JSON.stringify(TOOLS));

function run(args: string[], input = '') {
  return runCli(args, { input });
}

/** The calls of the CLI's output, as `{toolName, input}`. */
function callsOf(stdout: string) {
  return stdout
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as { type: string; toolName?: string; input?: string })
    .filter((event) => event.type === 'tool-call')
    .map(({ toolName, input }) => ({ toolName, input }));
}

/** A call to get_weather written in the format of that protocol name. */
function callIn(name: string, city: string): string {
  return protocolByName(name).formatToolCall({ toolName: 'get_weather', input: { city } });
}

// Models the issue names; each must map to whatever format the registry says.
const MODEL_IDS = ['qwen2.5-coder:7b', 'qwen3-coder:30b', 'gpt-oss:20b', 'llama3.2', 'glm-4.6'];

describe('toolwire parse --list', () => {
  it('prints every registered format with its families and aliases, one per line, and exits 0', () => {
    const { status, stdout, stderr } = run(['parse', '--list']);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    // One per format, then auto and model.
    expect(lines).toHaveLength(FORMATS.length + 2);
    FORMATS.forEach((entry, index) => {
      const line = lines[index]!;
      expect(line.split(/\s+/)[0]).toBe(entry.name);
      expect(line).toContain(entry.families);
      for (const alias of entry.aliases) expect(line).toContain(alias);
    });
    expect(lines.at(-2)!.split(/\s+/)[0]).toBe('auto');
    expect(lines.at(-1)!.split(/\s+/)[0]).toBe('model');
  });

  it('lists every name --protocol takes', () => {
    const names = formatList()
      .trimEnd()
      .split('\n')
      .map((line) => line.split(/\s+/)[0]);
    expect(names).toEqual([...PROTOCOL_NAMES.filter((name) => name !== 'auto'), 'auto', 'model']);
  });
});

describe('toolwire parse --protocol', () => {
  it.each(['xml', 'hermes', 'execute'])('reads %s by an alias or in another case', (name) => {
    const entry = formatEntry(name)!;
    const text = `Sure. ${callIn(name, 'Oslo')}`;
    for (const spelling of [name, entry.aliases[0] ?? name, name.toUpperCase()]) {
      const { status, stdout } = run(['parse', '--protocol', spelling, '--tools', toolsFile], text);
      expect(status, spelling).toBe(0);
      expect(callsOf(stdout), spelling).toEqual([
        { toolName: 'get_weather', input: '{"city":"Oslo"}' },
      ]);
    }
  });

  it('takes every registered name and alias, in any case', () => {
    for (const entry of FORMATS) {
      for (const spelling of [entry.name, ...entry.aliases, entry.name.toUpperCase()]) {
        expect(parseProtocol({ protocol: spelling }).name, spelling).toBe(entry.name);
      }
    }
    expect(parseProtocol({ protocol: 'Auto' }).name).toBe('auto');
  });

  it('auto reads calls of any format from the text alone', () => {
    const text = `${callIn('hermes', 'Rome')} then ${callIn('xml', 'Lima')}`;
    const { status, stdout } = run(['parse', '--protocol', 'auto', '--tools', toolsFile], text);
    expect(status).toBe(0);
    const expected = runParse({ protocol: protocolByName('auto'), tools: TOOLS, text })
      .filter((event) => event.type === 'tool-call')
      .map((event) => ({ toolName: event.toolName, input: event.input }));
    expect(callsOf(stdout)).toEqual(expected);
    expect(callsOf(stdout).map((call) => call.input)).toEqual([
      '{"city":"Rome"}',
      '{"city":"Lima"}',
    ]);
  });

  it('model reads the format of the --model id; --model alone means the same', () => {
    const id = 'qwen2.5-coder:7b';
    const format = formatForModel(id).name;
    const text = callIn(format, 'Kyiv');
    for (const args of [
      ['--protocol', 'model', '--model', id],
      ['--model', id],
    ]) {
      const { status, stdout, stderr } = run(['parse', ...args, '--tools', toolsFile], text);
      expect(stderr, args.join(' ')).toBe('');
      expect(status).toBe(0);
      expect(callsOf(stdout)).toEqual([{ toolName: 'get_weather', input: '{"city":"Kyiv"}' }]);
    }
  });

  it('model picks each model id its registered format', () => {
    for (const id of MODEL_IDS) {
      expect(parseProtocol({ protocol: 'model', model: id }).name, id).toBe(
        formatForModel(id).name,
      );
    }
    // A name wins over --model: the model id only matters to `model`.
    expect(parseProtocol({ protocol: 'xml', model: 'qwen2.5-coder:7b' }).name).toBe('xml');
  });

  it('refuses an unknown name with status 2, listing every name, auto and model', () => {
    const { status, stderr } = run(['parse', '--protocol', 'yaml', '--tools', toolsFile]);
    expect(status).toBe(2);
    const message = stderr.split('\n')[0]!;
    expect(message).toContain('unknown protocol "yaml"');
    for (const name of [...PROTOCOL_NAMES, 'model']) expect(message).toContain(name);
    expect(message).toContain('toolwire parse --list');
  });

  it('needs a model id for model, and a protocol or a model at all', () => {
    const noId = run(['parse', '--protocol', 'model', '--tools', toolsFile]);
    expect(noId.status).toBe(2);
    expect(noId.stderr).toContain('--protocol model needs --model ID');
    const nothing = run(['parse', '--tools', toolsFile]);
    expect(nothing.status).toBe(2);
    expect(nothing.stderr).toContain('missing --protocol');
  });

  it('shows an unknown name with control characters inert', () => {
    const { status, stderr } = run(['parse', '--protocol', 'x\x1b]0;owned\x07\u202ey']);
    expect(status).toBe(2);
    expect(stderr).not.toMatch(/[\x1b\x07\u202e]/);
    // Shown as escapes, so the user sees what was typed.
    expect(stderr).toMatch(/unknown protocol "x\\u001b\]0;owned\\u0007\\u202ey"/);
  });

  it('documents --list, auto and model in the usage', () => {
    const help = run(['--help']).stdout;
    expect(help).toContain('toolwire parse --list');
    expect(help).toContain('--protocol <name|auto|model>');
    expect(help).toContain('[--model ID]');
    expect(help).toMatch(/auto \(any format/);
    expect(help).toMatch(/model \(the format/);
  });
});

describe('protocolSetting (agent and serve)', () => {
  const saved = process.env.TOOLWIRE_PROTOCOL;
  afterEach(() => {
    if (saved === undefined) delete process.env.TOOLWIRE_PROTOCOL;
    else process.env.TOOLWIRE_PROTOCOL = saved;
  });

  it('takes any name, alias, auto or model, from the flag or TOOLWIRE_PROTOCOL', () => {
    delete process.env.TOOLWIRE_PROTOCOL;
    for (const entry of FORMATS) {
      for (const name of [entry.name, ...entry.aliases]) expect(protocolSetting(name)).toBe(name);
    }
    expect(protocolSetting('auto')).toBe('auto');
    expect(protocolSetting('model')).toBe('model');
    expect(protocolSetting(undefined)).toBe('xml');
    process.env.TOOLWIRE_PROTOCOL = 'model';
    expect(protocolSetting(undefined)).toBe('model');
  });

  it('refuses an unknown name with a usage error listing the names', () => {
    delete process.env.TOOLWIRE_PROTOCOL;
    expect(() => protocolSetting('yaml')).toThrow(UsageError);
    expect(() => protocolSetting('yaml')).toThrow(
      `expected one of ${[...PROTOCOL_NAMES, 'model'].join(', ')}`,
    );
    process.env.TOOLWIRE_PROTOCOL = 'nope';
    expect(() => protocolSetting(undefined)).toThrow('unknown protocol "nope"');
  });
});
