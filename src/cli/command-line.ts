import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';
import { neutraliseControls } from './terminal-text.ts';
import { UsageError } from './usage-error.ts';

/**
 * A command's arguments read with Node's `parseArgs`, every mistake reported in toolwire's own
 * words (what is wrong, which option, where to look) instead of Node's: an unknown option, an
 * option without its value, a value given to a switch, an argument a command does not take.
 *
 * A value that begins with a dash is the option's value (`--max-steps -1` is -1, which the
 * option's own check then refuses with its range), unless it is one of the command's options
 * (`--root --model x` is a `--root` without its value). Node refuses the first as ambiguous.
 */
export function parseCommandLine<const Options extends ParseArgsOptionsConfig>(
  command: string,
  args: readonly string[],
  options: Options,
  allowPositionals = false,
) {
  const see = `see toolwire help ${command}`;
  const { tokens } = parseArgs({
    args: [...args],
    options,
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  const isOption = (arg: string) =>
    arg.startsWith('--')
      ? Object.hasOwn(options, arg.slice(2).split('=')[0]!)
      : arg.length === 2 && Object.values(options).some((option) => `-${option.short}` === arg);
  // The arguments again, each value written `--name=value`, which the strict parse takes as is.
  const given: string[] = [];
  for (const token of tokens) {
    if (token.kind === 'option-terminator') {
      given.push('--');
      continue;
    }
    if (token.kind === 'positional') {
      if (!allowPositionals)
        throw new UsageError(
          `${command} takes no arguments besides options (got "${shown(token.value)}"); ${see}`,
        );
      given.push(token.value);
      continue;
    }
    const flag = shown(token.rawName);
    const option = Object.hasOwn(options, token.name) ? options[token.name] : undefined;
    if (option === undefined) throw new UsageError(`unknown option ${flag}; ${see}`);
    if (option.type === 'boolean') {
      if (token.value !== undefined)
        throw new UsageError(`${flag} takes no value (got "${shown(token.value)}"); ${see}`);
      given.push(`--${token.name}`);
      continue;
    }
    if (token.value === undefined || (!token.inlineValue && isOption(token.value)))
      throw new UsageError(
        `${flag} needs a value${token.value === undefined ? '' : `, not the option ${shown(token.value)}`}; ${see}`,
      );
    given.push(`--${token.name}=${token.value}`);
  }
  return parseArgs({ args: given, options, allowPositionals: true, strict: true });
}

/** What the user typed, shown, not acted on, by the terminal. */
function shown(text: string): string {
  return neutraliseControls(text);
}
