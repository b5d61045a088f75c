import type { ToolCallProtocol } from '../../core/index.ts';
import type { Opener } from '../../scan/opener-trie.ts';
import { defineProtocol } from '../common/define-protocol.ts';
import { CALLS_RUN_TOGETHER, type FormatEntry } from '../common/format-entry.ts';
import {
  ParameterTagsBody,
  type ParameterTagsOpener,
  type ParameterTagsSyntax,
} from '../common/parameter-tags-body.ts';
import { SEED_THINK_TAGS } from '../common/reasoning-tags.ts';
import { formatToolResponses, formatToolResponsesForAnyReader } from '../qwen3-coder/format.ts';
import { formatSeedOssToolCall, formatSeedOssTools } from './format.ts';

/** Qwen3-Coder's tags, with values written inline (`<parameter=k>v</parameter>`). */
const SEED_OSS_SYNTAX: ParameterTagsSyntax = {
  callOpen: '<function',
  callClose: '</function>',
  parameterOpen: '<parameter',
  parameterClose: '</parameter>',
  layout: 'inline',
};

const OPENERS: readonly Opener<ParameterTagsOpener>[] = [
  {
    literal: '<seed:tool_call>',
    delimited: false,
    data: { syntax: SEED_OSS_SYNTAX, blockClose: '</seed:tool_call>' },
  },
  // `<seed:tool_call>` is a special token, stripped by servers that skip special tokens.
  {
    literal: '<function=',
    delimited: false,
    data: { syntax: SEED_OSS_SYNTAX, bare: { consumed: '=', strayClose: '</seed:tool_call>' } },
  },
];

/**
 * ByteDance Seed-OSS's format:
 * `<seed:tool_call>\n<function=get_weather>\n<parameter=city>Oslo</parameter>\n</function>\n</seed:tool_call>`,
 * reasoning in `<seed:think>`.
 */
export function seedOssProtocol(): ToolCallProtocol {
  return defineProtocol<ParameterTagsOpener>({
    name: 'seed-oss',
    grammar: {
      reasoningTags: SEED_THINK_TAGS,
      callOpeners: () => OPENERS,
      openCall: (opener, context) => new ParameterTagsBody(context, opener),
    },
    formatTools: formatSeedOssTools,
    formatToolCall: formatSeedOssToolCall,
    formatToolResponse: formatToolResponses,
    formatToolResponseForAnyReader: formatToolResponsesForAnyReader,
  });
}

export const seedOssFormat: FormatEntry = {
  name: 'seed-oss',
  aliases: ['seed_oss', 'seedoss'],
  families: 'ByteDance Seed-OSS',
  example:
    '<seed:tool_call>\n<function=get_weather>\n<parameter=city>Oslo</parameter>\n</function>\n</seed:tool_call>',
  create: seedOssProtocol,
  models: [/seed-?oss/],
  agent: CALLS_RUN_TOGETHER,
};
