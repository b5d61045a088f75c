import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import {
  isProtocolChoice,
  type ProtocolChoice,
  unknownProtocolMessage,
} from '../protocols/index.ts';
import { FORMAT_FILE_FLAGS } from './format-flags.ts';
import { neutraliseControls } from './terminal-text.ts';
import { UsageError } from './usage-error.ts';

/** What `agent` and `serve` share: where the model is, which protocol, which folder. */

export const DEFAULT_BASE_URL = 'http://127.0.0.1:11434/v1';
export const DEFAULT_MODEL = 'qwen2.5-coder:7b';

/** The `parseArgs` options of the settings below, shared by `agent` and `serve`. */
export const MODEL_FLAGS = {
  root: { type: 'string' },
  protocol: { type: 'string' },
  ...FORMAT_FILE_FLAGS,
  'base-url': { type: 'string' },
  model: { type: 'string' },
} as const;

export const MODEL_ENVIRONMENT =
  'Environment: TOOLWIRE_BASE_URL, TOOLWIRE_MODEL, TOOLWIRE_PROTOCOL, TOOLWIRE_API_KEY.';

/** A flag's whole number of at least `min`, or undefined when the flag is absent. */
export function wholeNumber(value: string | undefined, flag: string, min: number) {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < min) {
    throw new UsageError(`${flag} must be a whole number of at least ${min}, not "${value}"`);
  }
  return number;
}

/** What `--protocol` takes, for the usage texts. */
export const PROTOCOL_HELP = `--protocol takes a format's name or alias (toolwire parse --list shows them with the model
families that write them), auto (any format, told apart from the text), or model (the format
of the model, chosen from its name; hermes for a model no format claims). agent and serve
default to xml, proxy to model. Instead of --protocol, a format from a file:
  --chat-template FILE      the format the model's chat template teaches: a .jinja file, or a
                            tokenizer_config.json holding chat_template
  --format-file FILE        a format spec, JSON (docs/formats.md)
  --response-template FILE  a Hugging Face response template or response schema, JSON`;

/** `--protocol`, else TOOLWIRE_PROTOCOL, else xml: a format's name or alias, `auto` or `model`. */
export function protocolSetting(flag: string | undefined): ProtocolChoice {
  const protocol = flag ?? process.env.TOOLWIRE_PROTOCOL ?? 'xml';
  if (!isProtocolChoice(protocol)) {
    // The name is the user's; it is shown, not acted on, by the terminal.
    throw new UsageError(
      `${neutraliseControls(unknownProtocolMessage(protocol))}; toolwire parse --list shows every format`,
    );
  }
  return protocol;
}

/** The folder the code tools work in, resolved; it must exist. */
export async function rootSetting(flag: string): Promise<string> {
  const root = resolve(flag);
  if (!(await stat(root).catch(() => undefined))?.isDirectory()) {
    throw new UsageError(`--root "${flag}" is not a folder`);
  }
  return root;
}

export interface ModelSetting {
  readonly baseURL: string;
  readonly modelName: string;
}

/** `--base-url` / `--model`, else the environment, else a local Ollama. */
export function modelSetting(flags: { 'base-url'?: string; model?: string }): ModelSetting {
  return {
    baseURL: flags['base-url'] ?? process.env.TOOLWIRE_BASE_URL ?? DEFAULT_BASE_URL,
    modelName: flags.model ?? process.env.TOOLWIRE_MODEL ?? DEFAULT_MODEL,
  };
}
