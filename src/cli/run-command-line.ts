import { isErrorOfKind } from '../core/errors.ts';
import { COMMANDS, type Command, type CommandOutput } from './commands.ts';
import { helpOf, usageOf } from './help.ts';
import { PROTOCOL_HELP } from './model-settings.ts';
import { missingPackages, missingPackagesMessage } from './optional-packages.ts';
import { neutraliseControls } from './terminal-text.ts';
import { UsageError } from './usage-error.ts';
import { packageVersion } from './version.ts';

/** Where the CLI writes: the process's own streams, or a test's. */
export interface CliOutput {
  readonly stdout: CommandOutput;
  readonly stderr: CommandOutput;
}

const OVERVIEW = `Usage:
${Object.values(COMMANDS)
  .map((command) => command.usage)
  .join('\n\n')}

${PROTOCOL_HELP}

toolwire <command> --help (or toolwire help <command>) shows one command; toolwire --version the version.`;

function isUsageError(error: unknown): boolean {
  // Node's own parse errors should not get here (command-line.ts words them); if one does, it
  // is still the user's mistake, not a crash.
  return (
    UsageError.isInstance(error) ||
    (error as { code?: string } | null)?.code?.startsWith('ERR_PARSE_ARGS') === true
  );
}

function commandNamed(name: string): Command | undefined {
  return Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
}

/**
 * A command whose optional packages are not installed: its `--help` still shows its usage (and
 * what to install), anything else says what to install and fails.
 */
function withoutPackages(
  name: string,
  command: Command,
  args: string[],
  missing: string[],
  io: CliOutput,
) {
  const message = missingPackagesMessage(name, missing);
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout.write(`${helpOf(command.usage)}\n${message}\n`);
    return 0;
  }
  io.stderr.write(`toolwire: ${message}\n`);
  return 1;
}

/** `toolwire help [command]`: the overview, or one command's help. */
function help(args: string[], io: CliOutput): number {
  const [name, ...rest] = args;
  if (name === undefined) {
    io.stdout.write(`${OVERVIEW}\n`);
    return 0;
  }
  const command = commandNamed(name);
  if (command === undefined || rest.length > 0) {
    const what =
      command === undefined
        ? `unknown command "${neutraliseControls(name)}"`
        : 'help takes one command';
    io.stderr.write(`toolwire: ${what}; the commands are ${Object.keys(COMMANDS).join(', ')}\n`);
    return 2;
  }
  io.stdout.write(helpOf(command.usage));
  return 0;
}

/** Runs `toolwire ARGV` and resolves with its exit status (2 for a usage error). */
export async function runCommandLine(
  argv: string[],
  io: CliOutput = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-v') {
    io.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  if (name === 'help') return help(rest, io);
  if (name === undefined || name === '--help' || name === '-h') {
    // With no command at all, the overview is shown as a usage error is: the call was incomplete.
    io.stdout.write(`${OVERVIEW}\n`);
    return name === undefined ? 2 : 0;
  }
  const command = commandNamed(name);
  try {
    if (command === undefined) throw new UsageError(`unknown command "${name}"`);
    const missing = missingPackages(command.needs ?? []);
    if (missing.length > 0) return withoutPackages(name, command, rest, missing, io);
    return await command.run(rest, io);
  } catch (error) {
    if (isErrorOfKind(error, 'invalid-tool-definition')) {
      // A file the user gave is wrong, not the command line: its place says it all.
      io.stderr.write(`toolwire: ${neutraliseControls(error.message)}\n`);
      return 2;
    }
    if (!isUsageError(error)) throw error;
    const usage = command === undefined ? `${OVERVIEW}\n` : usageOf(command.usage);
    const more = command === undefined ? '' : `\ntoolwire ${name} --help shows more.\n`;
    // The message may quote what the user typed: shown, not acted on, by the terminal.
    const message = neutraliseControls((error as Error).message);
    io.stderr.write(`toolwire: ${message}\n\n${usage}${more}`);
    return 2;
  }
}
