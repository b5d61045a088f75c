#!/usr/bin/env node
import { COMMANDS, type Command } from './commands.ts';
import { helpOf, usageOf } from './help.ts';
import { PROTOCOL_HELP } from './model-settings.ts';
import { missingPackages, missingPackagesMessage } from './optional-packages.ts';
import { neutraliseControls } from './terminal-text.ts';
import { UsageError } from './usage-error.ts';
import { packageVersion } from './version.ts';

const OVERVIEW = `Usage:
${Object.values(COMMANDS)
  .map((command) => command.usage)
  .join('\n\n')}

${PROTOCOL_HELP}

toolwire <command> --help shows one command; toolwire --version the version.`;

function isUsageError(error: unknown): boolean {
  return (
    error instanceof UsageError ||
    (error as { code?: string } | null)?.code?.startsWith('ERR_PARSE_ARGS') === true
  );
}

/**
 * A command whose optional packages are not installed: its `--help` still shows its usage (and
 * what to install), anything else says what to install and fails.
 */
function withoutPackages(name: string, command: Command, args: string[], missing: string[]) {
  const message = missingPackagesMessage(name, missing);
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${helpOf(command.usage)}\n${message}\n`);
    return 0;
  }
  process.stderr.write(`toolwire: ${message}\n`);
  return 1;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-v') {
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    // With no command at all, the overview is shown as a usage error is: the call was incomplete.
    process.stdout.write(`${OVERVIEW}\n`);
    return name === undefined ? 2 : 0;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  try {
    if (command === undefined) throw new UsageError(`unknown command "${name}"`);
    const missing = missingPackages(command.needs ?? []);
    if (missing.length > 0) return withoutPackages(name, command, rest, missing);
    return await command.run(rest);
  } catch (error) {
    if (!isUsageError(error)) throw error;
    const usage = command === undefined ? `${OVERVIEW}\n` : usageOf(command.usage);
    const more = command === undefined ? '' : `\ntoolwire ${name} --help shows more.\n`;
    // The message may quote what the user typed: shown, not acted on, by the terminal.
    const message = neutraliseControls((error as Error).message);
    process.stderr.write(`toolwire: ${message}\n\n${usage}${more}`);
    return 2;
  }
}

process.exitCode = await main(process.argv.slice(2));
