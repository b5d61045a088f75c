#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { isProtocolName, PROTOCOL_NAMES, protocolByName } from '../protocols/index.ts';
import { AGENT_USAGE, agentCommand } from './agent-command.ts';
import { runParse } from './parse-command.ts';
import { readToolsFile } from './read-tools.ts';
import { SERVE_USAGE, serveCommand } from './serve-command.ts';
import { UsageError } from './usage-error.ts';

const USAGE = `Usage:
  toolwire parse --protocol <${PROTOCOL_NAMES.join('|')}> --tools <tools.json> [--chunk-size N] < output.txt

Reads a model's raw output on standard input and prints one JSON object per line: the parse
events (text-delta, reasoning-delta, tool-input-start/delta/end, tool-call, error).
The tools file is a JSON array of {"name", "description"?, "inputSchema"}.

${AGENT_USAGE}

${SERVE_USAGE}`;

async function readStandardInput(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function parseCommand(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      protocol: { type: 'string' },
      tools: { type: 'string' },
      'chunk-size': { type: 'string' },
    },
    strict: true,
  });
  if (values.protocol === undefined) throw new UsageError('missing --protocol');
  if (!isProtocolName(values.protocol)) {
    throw new UsageError(
      `unknown protocol "${values.protocol}": expected one of ${PROTOCOL_NAMES.join(', ')}`,
    );
  }
  if (values.tools === undefined) throw new UsageError('missing --tools <file.json>');
  let chunkSize: number | undefined;
  if (values['chunk-size'] !== undefined) {
    chunkSize = Number(values['chunk-size']);
    if (!Number.isInteger(chunkSize) || chunkSize < 1) {
      throw new UsageError(
        `--chunk-size must be a whole number of at least 1, not "${values['chunk-size']}"`,
      );
    }
  }
  const tools = await readToolsFile(values.tools);
  const text = await readStandardInput();
  const events = runParse({ protocol: protocolByName(values.protocol), tools, text, chunkSize });
  process.stdout.write(
    events.map((event) => JSON.stringify(event)).join('\n') + (events.length ? '\n' : ''),
  );
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === 'parse') {
      await parseCommand(rest);
      return 0;
    }
    if (command === 'agent') return await agentCommand(rest);
    if (command === 'serve') return await serveCommand(rest);
    if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
      process.stdout.write(`${USAGE}\n`);
      return command === undefined ? 2 : 0;
    }
    throw new UsageError(`unknown command "${command}"`);
  } catch (error) {
    if (
      error instanceof UsageError ||
      (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
    ) {
      process.stderr.write(`toolwire: ${(error as Error).message}\n\n${USAGE}\n`);
      return 2;
    }
    throw error;
  }
}

process.exitCode = await main(process.argv.slice(2));
