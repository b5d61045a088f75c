import type { ParseEvent, ToolCallProtocol, ToolDefinition } from '../core/index.ts';
import { BY_MODEL, FORMATS, protocolByName, protocolNameFor } from '../protocols/index.ts';
import { parseCommandLine } from './command-line.ts';
import { FORMAT_FILE_FLAGS, formatFileChoice } from './format-flags.ts';
import { readFormatFile } from './format-source.ts';
import { HELP_OPTION, helpOf } from './help.ts';
import { protocolSetting } from './model-settings.ts';
import { readToolsFile } from './read-tools.ts';
import { PARSE_USAGE } from './usage.ts';
import { UsageError } from './usage-error.ts';

export { PARSE_USAGE };

export interface ParseCommandInput {
  readonly protocol: ToolCallProtocol;
  readonly tools: readonly ToolDefinition[];
  readonly text: string;
  /** Push the text in pieces of this many characters; whole at once when undefined. */
  readonly chunkSize?: number;
}

/** Runs the stream parser over the text as the CLI would, returning every event in order. */
export function runParse({ protocol, tools, text, chunkSize }: ParseCommandInput): ParseEvent[] {
  const parser = protocol.createStreamParser({ tools });
  const events: ParseEvent[] = [];
  if (chunkSize === undefined) {
    // One event at a time: a long output may give more events than a call takes arguments.
    for (const event of parser.push(text)) events.push(event);
  } else {
    for (let start = 0; start < text.length; start += chunkSize) {
      for (const event of parser.push(text.slice(start, start + chunkSize))) events.push(event);
    }
  }
  for (const event of parser.end()) events.push(event);
  return events;
}

/**
 * `toolwire parse --list`: one line per format (its name, the families that write it, its
 * aliases), then the two choices that are not formats.
 */
export function formatList(): string {
  const rows: [string, string][] = FORMATS.map((entry) => [
    entry.name,
    entry.aliases.length > 0
      ? `${entry.families} (also: ${entry.aliases.join(', ')})`
      : entry.families,
  ]);
  rows.push(
    ['auto', 'any format above, told apart from the text alone'],
    [BY_MODEL, 'the format of the --model ID; hermes for a model no format claims'],
  );
  const width = Math.max(...rows.map(([name]) => name.length));
  return rows.map(([name, about]) => `${name.padEnd(width)}  ${about}\n`).join('');
}

/** The protocol `--protocol` and `--model` ask for; `--model` alone means `--protocol model`. */
export function parseProtocol(flags: { protocol?: string; model?: string }): ToolCallProtocol {
  if (flags.protocol === undefined && flags.model === undefined) {
    throw new UsageError(
      "missing --protocol (or --model ID to read that model's format, or a format file: --format-file)",
    );
  }
  const choice = protocolSetting(flags.protocol ?? BY_MODEL);
  if (choice.toLowerCase() === BY_MODEL && flags.model === undefined) {
    throw new UsageError('--protocol model needs --model ID: the model whose format to read');
  }
  return protocolByName(protocolNameFor(choice, flags.model ?? ''));
}

interface Output {
  write(text: string): void;
}

/** Standard input: the model's output, from a pipe, a file or a terminal. */
export interface Input extends AsyncIterable<Buffer | string> {
  readonly isTTY?: boolean;
}

async function readAll(input: Input): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * `toolwire parse`: prints the events of the output on standard input, one JSON per line.
 * Resolves with the exit status.
 */
export async function parseCommand(
  args: string[],
  out: Output = process.stdout,
  err: Output = process.stderr,
  input: Input = process.stdin,
): Promise<number> {
  const { values } = parseCommandLine('parse', args, {
    ...HELP_OPTION,
    protocol: { type: 'string' },
    ...FORMAT_FILE_FLAGS,
    model: { type: 'string' },
    tools: { type: 'string' },
    'chunk-size': { type: 'string' },
    list: { type: 'boolean' },
  });
  if (values.help) {
    out.write(helpOf(PARSE_USAGE));
    return 0;
  }
  if (values.list) {
    out.write(formatList());
    return 0;
  }
  const fromFile = formatFileChoice(values);
  if (fromFile && values.model !== undefined)
    throw new UsageError(
      `--model chooses the format of a model, and --${fromFile.flag} gives one: give one of them`,
    );
  const protocol = fromFile ? (await readFormatFile(fromFile)).protocol : parseProtocol(values);
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
  // On a terminal, a run that prints nothing would look hung: say what it waits for.
  if (input.isTTY)
    err.write(
      'toolwire parse: waiting for the model output on standard input (paste it, then press Ctrl-D on a line of its own to end it)\n',
    );
  const text = await readAll(input);
  const events = runParse({ protocol, tools, text, chunkSize });
  out.write(events.map((event) => JSON.stringify(event)).join('\n') + (events.length ? '\n' : ''));
  return 0;
}
