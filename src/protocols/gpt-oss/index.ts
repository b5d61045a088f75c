import type { ToolCallProtocol } from '../../core/index.ts';
import { isWhiteSpace } from '../../scan/characters.ts';
import type { HeaderModeSpec } from '../codecs/harmony/header-spec.ts';
import { type NamedJsonConfig, namedJsonBody } from '../codecs/json/named-json-body.ts';
import type { FormatEntry } from '../define/format-entry.ts';
import { HARMONY_THINK_TAGS } from '../engine/reasoning-tags.ts';
import { defineFormat, type FormatHooks, formatEntryFromSpec } from '../spec/define.ts';
import type { FormatSpec } from '../spec/types.ts';
import { formatGptOssToolResponse, formatGptOssTools } from './format.ts';
import { StrippedAnalysisBody } from './stripped-analysis-body.ts';

/**
 * Harmony's messages: `<|start|>assistant<|channel|>CHANNEL to=RECIPIENT <|constrain|>json<|message|>…`,
 * the role left out after a prompt that wrote it (`<|channel|>…`), the recipient in the channel
 * or in the role (`<|start|>assistant to=functions.NAME<|channel|>commentary json<|message|>`),
 * white space after the special tokens (LLM-jp 4.1's `<|channel|> commentary`). A message to
 * `functions.NAME` is a call of NAME, its JSON arguments ended by `<|call|>`; without a
 * recipient, the `analysis` channel is reasoning and `commentary` and `final` are the answer.
 */
export const GPT_OSS_HEADER: HeaderModeSpec = {
  open: '<|start|>',
  roles: ['assistant'],
  recipient: 'to=',
  namePrefixes: ['functions.'],
  channel: {
    marker: '<|channel|>',
    names: { analysis: 'reasoning', commentary: 'text', final: 'text' },
  },
  constrain: '<|constrain|>',
  message: '<|message|>',
  ends: ['<|end|>', '<|return|>'],
  toolMessage: { arguments: 'json', close: '<|call|>' },
  // The generation prompt ends with `<|start|>assistant`: ` to=functions.NAME<|channel|>…`.
  startInHeader: true,
};

const STRIPPED_CALL_OPEN = 'commentary to=functions.';

/** The stripped call's name: one word, no markup, at most 128 characters with its spaces. */
const STRIPPED_CALL: NamedJsonConfig = {
  terminator: ' json',
  readName: (header) => {
    const name = header.trim();
    for (let index = 0; index < name.length; index++) {
      const character = name[index]!;
      if (isWhiteSpace(name.charCodeAt(index)) || '<>{}'.includes(character)) return undefined;
    }
    return name.length === 0 ? undefined : name;
  },
  maxLength: 128,
  json: { speculative: true },
};

/**
 * OpenAI's gpt-oss, in the harmony format (see GPT_OSS_HEADER), and what remains when a server
 * strips the special tokens (`analysis…assistantcommentary to=functions.NAME json{…}`, what
 * Ollama, LM Studio and vLLM users report).
 */
export const gptOssSpec: FormatSpec = {
  spec: 1,
  name: 'gpt-oss',
  aliases: ['harmony', 'gpt_oss', 'openai-harmony'],
  families: 'gpt-oss 20b/120b (OpenAI harmony format)',
  models: ['gpt-oss', 'gpt_oss'],
  example:
    '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Oslo"}<|call|>',
  // The analysis channel's message is reasoning (also where the prompt opened it).
  reasoning: HARMONY_THINK_TAGS,
  header: GPT_OSS_HEADER,
  calls: [
    // Stripped tokens: `commentary to=functions.NAME json{…}` (`<|constrain|>json<|message|>` → ` json`).
    {
      codec: 'json',
      open: STRIPPED_CALL_OPEN,
      certainty: 'speculative',
      nameHeader: { end: ' json' },
    },
  ],
  write: {
    call: '<|start|>assistant<|channel|>commentary to=functions.{name} <|constrain|>json<|message|>{arguments}<|call|>',
  },
  results: {
    each: '<|start|>functions.{name} to=assistant<|channel|>commentary<|message|>{output}<|end|>',
    join: '\n',
    output: 'json',
  },
};

/**
 * What gpt-oss needs beyond its spec: the stripped analysis channel, harmony's developer message
 * (tools as a TypeScript namespace) and its result envelope (an error as `{"error": …}`).
 */
const GPT_OSS_HOOKS: FormatHooks = {
  // The stripped call's header is short and holds no markup: a long or marked-up one is prose,
  // read on (a header read up to the spec's default 256 characters would take real calls after
  // it into the prose).
  callBody: (form, context) =>
    form.open === STRIPPED_CALL_OPEN ? namedJsonBody(context, STRIPPED_CALL) : undefined,
  readers: [
    {
      name: 'analysis channel with its special tokens stripped',
      open: ['\nanalysis'],
      kind: 'speculative',
      read: (context) => new StrippedAnalysisBody(context),
    },
  ],
  formatTools: formatGptOssTools,
  formatToolResponse: formatGptOssToolResponse,
};

/** OpenAI's gpt-oss (harmony): see gptOssSpec. */
export function gptOssProtocol(): ToolCallProtocol {
  return defineFormat(gptOssSpec, GPT_OSS_HOOKS);
}

export const gptOssFormat: FormatEntry = formatEntryFromSpec(gptOssSpec, {
  hooks: GPT_OSS_HOOKS,
  toolNamesIn: (text) => [
    ...new Set([...text.matchAll(/\bto=functions\.([^\s<>{}]+)/g)].map((match) => match[1]!)),
  ],
});
