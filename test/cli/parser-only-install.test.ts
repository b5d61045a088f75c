/**
 * toolwire as a parser-only user has it: its code with only its `dependencies` installed (no
 * optional peer). `parse`, `--help` and `--version` work; `agent` and `serve` say which
 * packages to install; the library's entry points load, and `toolwire/code-tools` says what it
 * needs.
 */
import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands.ts';
import { missingPackagesMessage } from '../../src/cli/optional-packages.ts';
import { AGENT_USAGE, PARSE_USAGE, SERVE_USAGE } from '../../src/cli/usage.ts';
import { ROOT, readManifest } from '../package/loaded-packages.ts';
import { runChild } from '../support/child-process.ts';

const manifest = readManifest();
let app: string;

/**
 * A folder holding a copy of src/ and package.json, and a node_modules with the package's
 * `dependencies` only (linked to the repository's copies; what those import resolves from
 * there, as it would from their own install).
 */
function parserOnlyInstall(): string {
  const dir = mkdtempSync(join(tmpdir(), 'toolwire-parser-only-'));
  for (const entry of ['src', 'package.json', 'examples'])
    cpSync(fileURLToPath(new URL(entry, ROOT)), join(dir, entry), { recursive: true });
  for (const name of Object.keys(manifest.dependencies)) {
    const link = join(dir, 'node_modules', name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(realpathSync(fileURLToPath(new URL(`node_modules/${name}`, ROOT))), link);
  }
  return dir;
}

function toolwire(args: string[], input = '') {
  return runChild(process.execPath, [join(app, 'src/cli/main.ts'), ...args], { cwd: app, input });
}

/** Imports a module of the copy in a fresh process: the error's message, or '' when it loads. */
function importError(module: string): string {
  const result = runChild(
    process.execPath,
    [
      '--input-type=module',
      '--eval',
      `try { await import(${JSON.stringify(join(app, module))}); } catch (error) { process.stdout.write(String(error.message)); }`,
    ],
    { cwd: app },
  );
  expect(result.status, result.stderr).toBe(0);
  return result.stdout;
}

const firstLine = (usage: string) => usage.split('\n')[0]!;

beforeAll(() => {
  app = parserOnlyInstall();
});
afterAll(() => {
  rmSync(app, { recursive: true, force: true });
});

describe('a parser-only install', () => {
  it('has none of the optional packages (the copy cannot reach them)', () => {
    expect(importError('src/http/node-server.ts')).toContain('@hono/node-server');
  });

  it('runs toolwire parse', () => {
    const output = toolwire(
      ['parse', '--protocol', 'xml', '--tools', 'examples/tools.json'],
      '<get_weather><city>Oslo</city></get_weather>',
    );
    expect(output.stderr).toBe('');
    expect(output.status).toBe(0);
    const events = output.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; toolName?: string });
    expect(events.filter((event) => event.type === 'tool-call').map((e) => e.toolName)).toEqual([
      'get_weather',
    ]);
  });

  it('runs toolwire parse --chat-template (the template renderer is a dependency)', () => {
    const template = fileURLToPath(new URL('test/fixtures/chat-templates/hermes.vllm.jinja', ROOT));
    const output = toolwire(
      ['parse', '--chat-template', template, '--tools', 'examples/tools.json', '--chunk-size', '4'],
      '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>',
    );
    expect(output.stderr).toBe('');
    expect(output.status).toBe(0);
    expect(output.stdout).toContain('"type":"tool-call"');
    expect(output.stdout).toContain('"toolName":"get_weather"');
  });

  it('prints the overview, the version, and parse --help', () => {
    const overview = toolwire(['--help']);
    expect(overview.status).toBe(0);
    for (const usage of [PARSE_USAGE, AGENT_USAGE, SERVE_USAGE])
      expect(overview.stdout).toContain(firstLine(usage));
    expect(toolwire(['--version']).stdout).toBe(`${manifest.version}\n`);
    const help = toolwire(['parse', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain(firstLine(PARSE_USAGE));
  });

  it('reports a parse usage error with the parse usage, status 2', () => {
    const output = toolwire(['parse', '--no-such-flag']);
    expect(output.status).toBe(2);
    expect(output.stderr).toContain(firstLine(PARSE_USAGE));
  });

  it.each([
    ['serve', []],
    ['agent', ['where is the parser?', '--root', '.']],
  ])('toolwire %s names the packages to install and fails, status 1', (name, args) => {
    const needs = COMMANDS[name]!.needs ?? [];
    expect(needs.length).toBeGreaterThan(0);
    const output = toolwire([name, ...args]);
    expect(output.status).toBe(1);
    expect(output.stdout).toBe('');
    expect(output.stderr).toBe(`toolwire: ${missingPackagesMessage(name, needs)}\n`);
    expect(output.stderr).toContain(`toolwire ${name} needs `);
    expect(output.stderr).toContain(`npm install ${needs.join(' ')}\n`);
  });

  it.each([
    ['serve', SERVE_USAGE],
    ['agent', AGENT_USAGE],
  ])('toolwire %s --help still prints its usage, and what to install, status 0', (name, usage) => {
    const output = toolwire([name, '--help']);
    expect(output.status).toBe(0);
    expect(output.stdout).toContain(firstLine(usage));
    expect(output.stdout).toContain(missingPackagesMessage(name, COMMANDS[name]!.needs ?? []));
  });

  it.each([
    'src/index.ts',
    'src/ai-sdk/index.ts',
    'src/ai-sdk/v3.ts',
    'src/agent/index.ts',
    'src/stream/index.ts',
  ])('loads the library entry point %s', (module) => {
    expect(importError(module)).toBe('');
  });

  it('toolwire/code-tools says it needs @ast-grep/napi and how to install it', () => {
    const message = importError('src/agent/tools/index.ts');
    expect(message).toContain('toolwire/code-tools needs @ast-grep/napi');
    expect(message).toContain('npm install @ast-grep/napi');
  });
});
