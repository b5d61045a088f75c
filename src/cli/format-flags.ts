/**
 * The flags that give a format as a file instead of a name (`--format-file`, `--chat-template`,
 * `--response-template`), and which one a command line gave. Each replaces `--protocol`; a
 * command takes one of them at most. Reading the file is format-source.ts's job: this module
 * loads nothing, so the usage texts and `--help` stay light.
 */
import { UsageError } from './usage-error.ts';

/** The `parseArgs` options of the flags, for every command that takes `--protocol`. */
export const FORMAT_FILE_FLAGS = {
  'format-file': { type: 'string' },
  'chat-template': { type: 'string' },
  'response-template': { type: 'string' },
} as const;

/** A flag that gives the format as a file. */
export type FormatFileFlag = keyof typeof FORMAT_FILE_FLAGS;

/** The flag given and its file. */
export interface FormatFileChoice {
  readonly flag: FormatFileFlag;
  readonly file: string;
}

/** A command's parsed flags, as far as the format goes. */
export type FormatFlagValues = Readonly<
  Partial<Record<FormatFileFlag | 'protocol', string | boolean | undefined>>
>;

/**
 * The format file flag given, if any. Two of them, or one with `--protocol`, is a usage error
 * naming both: each chooses the whole format.
 */
export function formatFileChoice(values: FormatFlagValues): FormatFileChoice | undefined {
  const flags = [...(Object.keys(FORMAT_FILE_FLAGS) as FormatFileFlag[]), 'protocol' as const];
  const given = flags.filter((flag) => typeof values[flag] === 'string');
  if (given.length > 1)
    throw new UsageError(
      `--${given[0]} and --${given[1]} each choose the format: give one of them`,
    );
  const flag = given[0];
  if (flag === undefined || flag === 'protocol') return undefined;
  return { flag, file: values[flag] as string };
}
