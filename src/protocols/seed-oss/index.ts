import type { ToolCallProtocol } from '../../core/index.ts';
import type { FormatEntry } from '../define/format-entry.ts';
import { SEED_THINK_TAGS } from '../engine/reasoning-tags.ts';
import { formatToolResponses, formatToolResponsesForAnyReader } from '../qwen3-coder/format.ts';
import { formatEntryFromSpec } from '../spec/define.ts';
import type { FormatSpec } from '../spec/types.ts';
import { formatSeedOssTools } from './format.ts';

/** Qwen3-Coder's tags, with values written inline (`<parameter=k>v</parameter>`). */
const SEED_OSS_SYNTAX = {
  callOpen: '<function',
  callClose: '</function>',
  parameterOpen: '<parameter',
  parameterClose: '</parameter>',
  layout: 'inline',
} as const;

/**
 * ByteDance Seed-OSS's format:
 * `<seed:tool_call>\n<function=get_weather>\n<parameter=city>Oslo</parameter>\n</function>\n</seed:tool_call>`,
 * reasoning in `<seed:think>`.
 */
export const seedOssSpec: FormatSpec = {
  spec: 1,
  name: 'seed-oss',
  aliases: ['seed_oss', 'seedoss'],
  families: 'ByteDance Seed-OSS',
  example:
    '<seed:tool_call>\n<function=get_weather>\n<parameter=city>Oslo</parameter>\n</function>\n</seed:tool_call>',
  reasoning: SEED_THINK_TAGS,
  calls: [
    {
      codec: 'tagged',
      open: '<seed:tool_call>',
      close: '</seed:tool_call>',
      syntax: SEED_OSS_SYNTAX,
    },
    // `<seed:tool_call>` is a special token, stripped by servers that skip special tokens.
    {
      codec: 'tagged',
      open: '<function=',
      syntax: SEED_OSS_SYNTAX,
      openConsumed: '=',
      strayClose: '</seed:tool_call>',
    },
  ],
  write: {
    call: '<seed:tool_call>\n<function={name}>\n{arguments}</function>\n</seed:tool_call>',
    parameter: '<parameter={key}>{value}</parameter>\n',
    join: '\n',
  },
  results: { each: '<tool_response>\n{output}\n</tool_response>', join: '\n' },
};

export const seedOssFormat: FormatEntry = formatEntryFromSpec(seedOssSpec, {
  models: [/seed-?oss/],
  hooks: {
    formatTools: formatSeedOssTools,
    formatToolResponse: formatToolResponses,
    formatToolResponseForAnyReader: formatToolResponsesForAnyReader,
  },
});

export function seedOssProtocol(): ToolCallProtocol {
  return seedOssFormat.create();
}
