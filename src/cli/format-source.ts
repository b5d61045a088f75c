/**
 * The format a command line gives besides a name: a file that describes it. `--format-file`
 * reads a FormatSpec as JSON; `--chat-template` derives the format from the model's chat
 * template (a `.jinja` file, or a `tokenizer_config.json` holding `chat_template`);
 * `--response-template` from a Hugging Face response template (or legacy response schema).
 * Every way a file can be wrong (missing, unreadable, not JSON, a bad field, a template that
 * cannot be analysed) is a one-line usage error naming the flag, the file and the fault.
 */
import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { ToolCallProtocol } from '../core/index.ts';
import { parseJsonText } from '../core/parse-json.ts';
import {
  type ChatTemplateOptions,
  chatTemplateFromFile,
  protocolFromChatTemplate,
} from '../protocols/derive/chat-template.ts';
import { protocolFromResponseTemplate } from '../protocols/derive/response-template.ts';
import { BY_MODEL, type ProtocolName, protocolNameFor } from '../protocols/index.ts';
import { defineFormat, readFormatSpec } from '../protocols/spec/define.ts';
import {
  type FormatFileChoice,
  type FormatFileFlag,
  type FormatFlagValues,
  formatFileChoice,
} from './format-flags.ts';
import { protocolSetting } from './model-settings.ts';
import { neutraliseControls } from './terminal-text.ts';
import { UsageError } from './usage-error.ts';

/** How a flag's file becomes a protocol: `text` is the file's, `file` its path as given. */
type FileReader = (text: string, file: string) => ToolCallProtocol;

const READERS = {
  'format-file': (text) => defineFormat(readFormatSpec(jsonOf(text))),
  'chat-template': (text, file) =>
    protocolFromChatTemplate(chatTemplateFromFile(text, basename(file)), tokensOf(text)),
  'response-template': (text) => protocolFromResponseTemplate(jsonOf(text)),
} satisfies Record<FormatFileFlag, FileReader>;

/** The larger files are not formats (a model's weights given by mistake): refused unread. */
export const MAX_FORMAT_FILE_BYTES = 16 * 1024 * 1024;

/** A protocol read from a file, and how to say where it came from. */
export interface FileFormat {
  readonly protocol: ToolCallProtocol;
  /** `--format-file spec.json`, for the lines a command prints. */
  readonly source: string;
}

/** Reads the flag's file into a protocol; any fault is a usage error naming the file. */
export async function readFormatFile({ flag, file }: FormatFileChoice): Promise<FileFormat> {
  const where = `--${flag} ${JSON.stringify(file)}`;
  const fail = (problem: string, cause?: unknown): never => {
    // One line, and what the file says shown, not acted on, by the terminal.
    const line = neutraliseControls(oneLine(problem));
    throw new UsageError(`${where}: ${line}`, cause === undefined ? {} : { cause });
  };
  const size = await stat(file).then(
    (info) => (info.isDirectory() ? fail('is a folder, not a file') : info.size),
    (error: NodeJS.ErrnoException) =>
      fail(
        flag === 'chat-template' && file === 'auto' && error.code === 'ENOENT'
          ? "no such file (auto, the model server's own template, is for toolwire proxy)"
          : fileProblem(error),
        error,
      ),
  );
  if (size > MAX_FORMAT_FILE_BYTES)
    fail(`is ${size} bytes; a format file is at most ${MAX_FORMAT_FILE_BYTES}`);
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) =>
    fail(fileProblem(error), error),
  );
  try {
    const reader: FileReader = READERS[flag];
    return { protocol: reader(text, file), source: `--${flag} ${file}` };
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error), error);
  }
}

/** A message on one line (a template's text in it may span several). */
export function oneLine(text: string): string {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0)
    .join(' ');
}

/** What Node's file error means, without the path Node repeats. */
function fileProblem(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ENOENT':
      return 'no such file';
    case 'EACCES':
    case 'EPERM':
      return 'not allowed to read it';
    case 'EISDIR':
      return 'is a folder, not a file';
    default:
      return `cannot read it: ${error.message}`;
  }
}

/** The file's JSON; a syntax error says so (the reader's own message names the place). */
function jsonOf(text: string): unknown {
  try {
    return parseJsonText(text);
  } catch (error) {
    throw new SyntaxError(`not valid JSON: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * The `bos_token` and `eos_token` of a tokenizer_config.json, which templates write around a
 * turn (a string, or `{content}`); none for a `.jinja` file.
 */
export function tokensOf(text: string): ChatTemplateOptions {
  // A JSON object's text; a template begins otherwise (`{{`, `{%`, text).
  if (!/^\s*\{\s*"/.test(text)) return {};
  let config: unknown;
  try {
    config = parseJsonText(text);
  } catch {
    return {};
  }
  if (typeof config !== 'object' || config === null) return {};
  const token = (value: unknown): string | undefined => {
    if (typeof value === 'string') return value;
    const content = (value as { content?: unknown } | null)?.content;
    return typeof content === 'string' ? content : undefined;
  };
  const { bos_token: bos, eos_token: eos } = config as Record<string, unknown>;
  const bosToken = token(bos);
  const eosToken = token(eos);
  return {
    ...(bosToken === undefined ? {} : { bosToken }),
    ...(eosToken === undefined ? {} : { eosToken }),
  };
}

/** The protocol `agent` and `serve` run in, and how their startup line names it. */
export interface CommandProtocol {
  readonly protocol: ProtocolName | ToolCallProtocol;
  /** `qwen3-coder (the model's format)`, `my-format (--format-file spec.json)`. */
  readonly described: string;
}

/**
 * A format file's protocol when one is given (it replaces `--protocol` and TOOLWIRE_PROTOCOL),
 * else `protocolSetting`'s choice for the model of that name.
 */
export async function commandProtocol(
  values: FormatFlagValues,
  modelName: string,
): Promise<CommandProtocol> {
  const fromFile = formatFileChoice(values);
  if (fromFile) {
    const { protocol, source } = await readFormatFile(fromFile);
    return { protocol, described: `${protocol.name} (${source})` };
  }
  const choice = protocolSetting(values.protocol as string | undefined);
  const name = protocolNameFor(choice, modelName);
  return {
    protocol: name,
    described: choice.toLowerCase() === BY_MODEL ? `${name} (the model's format)` : name,
  };
}
