import type { ToolCallProtocol } from '../../core/index.ts';
import type { Opener } from '../../scan/opener-trie.ts';
import {
  bareArrayLiterals,
  bareArrayOpeners,
  type JsonOpening,
  openJsonCall,
} from '../codecs/json/json-call-formats-openers.ts';
import type { JsonCallShape } from '../codecs/json/json-calls-body.ts';
import { defineProtocol } from '../define/define-protocol.ts';
import { CALLS_RUN_TOGETHER, type FormatEntry } from '../define/format-entry.ts';
import type { CallBody, CallContext } from '../engine/call-body.ts';
import { THINK_TAGS } from '../engine/reasoning-tags.ts';
import { formatXlamToolCall, formatXlamToolResponse, formatXlamTools } from './format.ts';
import { GenericCallsBody, GenericResponseBody } from './generic-bodies.ts';

export interface XlamProtocolOptions {
  /**
   * Read llama.cpp's generic JSON answers too: `{"tool_calls": […]}`, `{"tool_call": {…}}`, and
   * `{"response": "…"}` (whose string is the answer). Default `true`.
   */
  readonly genericJson?: boolean;
}

const XLAM_SHAPE: JsonCallShape = { nameKeys: ['name'], argumentKeys: ['arguments', 'parameters'] };

type XlamOpening = JsonOpening | { readonly generic: 'calls' | 'response' };

const CALL_OPENERS: readonly Opener<XlamOpening>[] = [
  // xLAM's own output: the list alone, or in a Markdown fence.
  ...bareArrayOpeners(XLAM_SHAPE, bareArrayLiterals(['name', 'arguments'])),
  {
    literal: '```',
    delimited: false,
    data: { shape: XLAM_SHAPE, closer: '```', speculative: true, skipLanguageTag: true },
  },
  // Wrappers vLLM's xLAM parser also accepts.
  { literal: '[TOOL_CALLS]', delimited: false, data: { shape: XLAM_SHAPE, speculative: true } },
  {
    literal: '<tool_call>',
    delimited: false,
    data: { shape: XLAM_SHAPE, closer: '</tool_call>', speculative: false },
  },
];

/** `{` and the white space llama.cpp's generic answers put before their one key. */
const OBJECT_STARTS = ['{', '{ ', '{\n', '{\n  ', '{\n    ', '{\n\t'];

const WITH_GENERIC: readonly Opener<XlamOpening>[] = [
  ...CALL_OPENERS,
  ...OBJECT_STARTS.flatMap((start): Opener<XlamOpening>[] => [
    { literal: `${start}"tool_call`, delimited: false, data: { generic: 'calls' } },
    { literal: `${start}"response"`, delimited: false, data: { generic: 'response' } },
  ]),
];

function openXlamCall(opening: XlamOpening, context: CallContext): CallBody {
  if ('generic' in opening) {
    return opening.generic === 'calls'
      ? new GenericCallsBody(context, XLAM_SHAPE)
      : new GenericResponseBody(context);
  }
  return openJsonCall(opening, context);
}

/**
 * Salesforce xLAM: a JSON list of calls, `[{"name": …, "arguments": {…}}, …]`, bare or fenced;
 * also llama.cpp's generic JSON answers. Only well-formed calls to declared tools count.
 */
export function xlamProtocol(options: XlamProtocolOptions = {}): ToolCallProtocol {
  const openers = (options.genericJson ?? true) ? WITH_GENERIC : CALL_OPENERS;
  return defineProtocol<XlamOpening>({
    name: 'xlam',
    grammar: {
      // Read as reasoning like every format's (vLLM's xLAM parser leaves them in the content).
      reasoningTags: THINK_TAGS,
      callOpeners: () => openers,
      openCall: openXlamCall,
    },
    formatTools: formatXlamTools,
    formatToolCall: formatXlamToolCall,
    formatToolResponse: formatXlamToolResponse,
  });
}

export const xlamFormat: FormatEntry = {
  name: 'xlam',
  aliases: ['generic', 'json-list'],
  families: 'Salesforce xLAM; llama.cpp generic JSON',
  example: '[{"name": "get_weather", "arguments": {"city": "Oslo"}}]',
  create: () => xlamProtocol(),
  models: [/xlam/],
  agent: CALLS_RUN_TOGETHER,
};
