import { BoundedCache } from '../../core/bounded-cache.ts';
import type { ToolCallProtocol } from '../../core/index.ts';
import type { Opener } from '../../scan/opener-trie.ts';
import { type NamedJsonConfig, namedJsonBody } from '../codecs/json/named-json-body.ts';
import { openRawCode } from '../codecs/raw-code/raw-code-body.ts';
import type { RawCodeSpec } from '../codecs/raw-code/raw-code-spec.ts';
import { defineProtocol } from '../define/define-protocol.ts';
import { CALLS_RUN_TOGETHER, type FormatEntry } from '../define/format-entry.ts';
import type { CallBody, CallContext, ResolvedParseOptions } from '../engine/call-body.ts';
import { THINK_TAGS } from '../engine/reasoning-tags.ts';
import { textResultBody } from '../results/result-text.ts';
import {
  type FunctionaryVersion,
  formatFunctionaryToolCall,
  formatFunctionaryToolResponse,
  formatFunctionaryTools,
} from './format.ts';
import { ANSWER_RECIPIENT, CODE_TOOLS, RECIPIENT_OPENER, RecipientBody } from './recipient-body.ts';

export interface FunctionaryProtocolOptions {
  /**
   * The version whose conventions the prompt and the history follow: `v3.1` (Llama 3.1 based,
   * `<function=NAME>{…}</function>`) or `v3.2` (`>>>NAME\n{…}`). Both are read either way.
   * Default `v3.2`.
   */
  readonly version?: FunctionaryVersion;
}

type FunctionaryOpener =
  | { readonly kind: 'function-tag' }
  | { readonly kind: 'python-tag' }
  /** v3.2's `>>>RECIPIENT\n`; `name` is what the opener already read of the recipient. */
  | { readonly kind: 'recipient'; readonly name: string; readonly atOutputStart: boolean };

const NAME_IN_TAG = /^=\s*["']?([^"'\s>]+)["']?\s*$/;

const FUNCTION_TAG: NamedJsonConfig = {
  terminator: '>',
  consumed: '=',
  readName: (header) => NAME_IN_TAG.exec(header)?.[1],
  // Announced once its JSON begins: Qwen3-Coder writes the same tag with parameter tags after it.
  json: { closer: '</function>', speculative: true },
};

const PYTHON_TAG = '<|python_tag|>';

/** v3.1's code: raw, after `<|python_tag|>`, to the end of the message or turn. */
const PYTHON_TAG_CODE: RawCodeSpec = {
  tools: CODE_TOOLS,
  closeAlternatives: ['<|eom_id|>', '<|eot_id|>'],
};

const FIXED_OPENERS: readonly Opener<FunctionaryOpener>[] = [
  { literal: '<function=', delimited: false, data: { kind: 'function-tag' } },
  { literal: PYTHON_TAG, delimited: false, data: { kind: 'python-tag' } },
  {
    literal: RECIPIENT_OPENER,
    delimited: false,
    data: { kind: 'recipient', name: '', atOutputStart: false },
  },
];

/** Distinct tool lists kept; an application has a few, so this only bounds odd callers. */
const MAX_CACHED_TOOL_LISTS = 64;

/**
 * The v3.2 prompt ends with `>>>`, so the output's first recipient comes without it
 * (`all\nHello` or `get_weather\n{…}`): each recipient the model may name, as a line opener
 * (matched at the start of the output without its line break). One array per tool list.
 */
const openersByNames = new BoundedCache<string, readonly Opener<FunctionaryOpener>[]>(
  MAX_CACHED_TOOL_LISTS,
);

/**
 * Keyed by the tools' names, not the array: the AI SDK hands over new tool objects for every
 * step, and a new opener array would be compiled again each time.
 */
function openersFor(options: ResolvedParseOptions): readonly Opener<FunctionaryOpener>[] {
  const key = options.tools.map((tool) => tool.name).join('\u0000');
  let openers = openersByNames.get(key);
  if (openers === undefined) {
    const names = new Set([ANSWER_RECIPIENT, ...options.tools.map((tool) => tool.name)]);
    openers = [
      ...FIXED_OPENERS,
      ...[...names]
        .filter((name) => name.length > 0 && !name.includes('\n'))
        .map((name) => ({
          literal: `\n${name}`,
          delimited: false,
          data: { kind: 'recipient', name, atOutputStart: true } as const,
        })),
    ];
    openersByNames.set(key, openers);
  }
  return openers;
}

function openCall(opener: FunctionaryOpener, context: CallContext): CallBody {
  switch (opener.kind) {
    case 'function-tag':
      return namedJsonBody(context, FUNCTION_TAG);
    case 'recipient':
      return new RecipientBody(context, opener.name, opener.atOutputStart);
    case 'python-tag':
      return openRawCode(context, PYTHON_TAG_CODE, undefined);
  }
}

/**
 * A text result as the templates write it, the text itself, with the openers that stand anywhere
 * broken (a recipient line opens a call only at the output's start).
 */
const RESULT_TEXT = textResultBody({
  tags: [],
  literals: FIXED_OPENERS.map((opener) => opener.literal),
});

/**
 * MeetKai's Functionary: v3.1 (Llama 3.1 based) writes `<function=NAME>{…}</function>` and
 * `<|python_tag|>code`; v3.2 writes `>>>NAME\n{…}` per call and `>>>all\ntext` for its answer.
 */
export function functionaryProtocol(options: FunctionaryProtocolOptions = {}): ToolCallProtocol {
  const version = options.version ?? 'v3.2';
  return defineProtocol<FunctionaryOpener>({
    name: 'functionary',
    grammar: { reasoningTags: THINK_TAGS, callOpeners: openersFor, openCall },
    formatTools: (tools) => formatFunctionaryTools(tools, version),
    formatToolCall: (calls) => formatFunctionaryToolCall(calls, version),
    formatToolResponse: (results) => formatFunctionaryToolResponse(results, version, RESULT_TEXT),
    formatToolResponseForAnyReader: (results) => formatFunctionaryToolResponse(results, version),
  });
}

export const functionaryFormat: FormatEntry = {
  name: 'functionary',
  aliases: ['functionary_v3_2', 'functionary_v3_1', 'meetkai'],
  families: 'Functionary v3.1 (Llama 3.1) and v3.2 (MeetKai)',
  example: '>>>get_weather\n{"city": "Oslo"}',
  create: () => functionaryProtocol(),
  models: [/functionary/],
  agent: CALLS_RUN_TOGETHER,
  toolNamesIn: (text) => [
    ...new Set(
      [...text.matchAll(/(?:<function=|>>>)([^\s>]+)/g)]
        .map((match) => match[1]!)
        .filter((name) => name !== 'all'),
    ),
  ],
};
