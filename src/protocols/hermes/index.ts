import type { ToolCallProtocol } from '../../core/index.ts';
import { compileOpeners, type Opener } from '../../scan/opener-trie.ts';
import { FencedCallBody } from '../codecs/json/fenced-call-body.ts';
import {
  type JsonCallShape,
  JsonCallsBody,
  type JsonCallsBodyConfig,
} from '../codecs/json/json-calls-body.ts';
import { defineProtocol } from '../define/define-protocol.ts';
import { THINK_TAGS } from '../engine/reasoning-tags.ts';
import {
  formatHermesToolCall,
  formatHermesToolResponse,
  formatHermesToolResponseJson,
  formatHermesTools,
} from './format.ts';

export interface HermesProtocolOptions {
  /** The tag that wraps a call. Default `tool_call` (`<tool_call>…</tool_call>`). */
  readonly callTag?: string;
  /** The tag that wraps a result. Default `tool_response`. */
  readonly responseTag?: string;
  /**
   * Other wrapper tags models fall back to (seen from Hermes, Qwen and Llama models in llama.cpp's
   * tests). Read the same way, except that a block holding no call is just text. Default
   * `function_call`, `tool`, `tools`, `response`, `json`, `JSON`, `xml`, and Nemotron's `TOOLCALL`.
   */
  readonly alternativeCallTags?: readonly string[];
  /**
   * Special-token pairs that wrap JSON calls the same way. Default LFM2's
   * `<|tool_call_start|>` … `<|tool_call_end|>` (its JSON-tools mode).
   */
  readonly tokenWrappers?: readonly (readonly [open: string, close: string])[];
  /** Read `<function=NAME>{…}</function>` and `<function name="NAME">{…}</function>`. Default `true`. */
  readonly functionTags?: boolean;
  /** Read a call written in a markdown code fence (```` ```json ````). Default `true`. */
  readonly fencedCalls?: boolean;
  /**
   * Read a bare `{"name": …, "arguments": …}` object (or an array of them) as a call, when it names a
   * declared tool (Llama 3 and Hermes models sometimes drop the tags). Default `true`.
   */
  readonly bareJsonCalls?: boolean;
}

const DEFAULT_ALTERNATIVE_TAGS = [
  'function_call',
  'tool',
  'tools',
  'response',
  'json',
  'JSON',
  'xml',
  'TOOLCALL',
];

const DEFAULT_TOKEN_WRAPPERS: readonly (readonly [string, string])[] = [
  ['<|tool_call_start|>', '<|tool_call_end|>'],
];

/** How a bare call object starts, with the white space models put after the brace. */
const SINGLE_BRACE_OPENERS = [
  '{"name"',
  '{ "name"',
  '{\n"name"',
  '{\n "name"',
  '{\n  "name"',
  '{\n    "name"',
  '{\n\t"name"',
];

/** The same with every brace doubled, as a template's escaped example shows it (`{{"name": …}}`). */
const BARE_OBJECT_OPENERS = [
  ...SINGLE_BRACE_OPENERS,
  ...SINGLE_BRACE_OPENERS.map((opener) => `{${opener}`),
];

/** A bare array of call objects (Ollama's JSON-list fallback): `[{"name": …}, …]`. */
const BARE_OPENERS = [
  ...BARE_OBJECT_OPENERS,
  ...BARE_OBJECT_OPENERS.flatMap((object) => [`[${object}`, `[ ${object}`, `[\n  ${object}`]),
];

/** `<function=NAME>` or `<function name="NAME">`: the name from what follows the opener. */
const NAME_IN_TAG = /^(?:=\s*["']?([^"'\s>]+)["']?|\s+name\s*=\s*["']([^"']+)["'])\s*$/;

function nameInFunctionTag(header: string): string | undefined {
  const match = NAME_IN_TAG.exec(header);
  return match?.[1] ?? match?.[2];
}

const HERMES_SHAPE: JsonCallShape = {
  nameKeys: ['name', 'tool_name', 'function'],
  argumentKeys: ['arguments', 'parameters', 'args', 'input'],
};

/**
 * JSON inside tags, the format Qwen and Hermes models are trained on (the Hermes JSON-in-tags form):
 * `<tool_call>{"name": "get_weather", "arguments": {"city": "Seoul"}}</tool_call>`.
 */
export function hermesProtocol(options: HermesProtocolOptions = {}): ToolCallProtocol {
  const callTag = options.callTag ?? 'tool_call';
  const responseTag = options.responseTag ?? 'tool_response';
  const alternatives = options.alternativeCallTags ?? DEFAULT_ALTERNATIVE_TAGS;
  const openers: Opener<JsonCallsBodyConfig>[] = [callTag, ...alternatives].map((tag) => ({
    literal: `<${tag}>`,
    delimited: false,
    data: { shape: HERMES_SHAPE, closer: `</${tag}>`, speculative: tag !== callTag },
  }));
  for (const [open, close] of options.tokenWrappers ?? DEFAULT_TOKEN_WRAPPERS) {
    openers.push({
      literal: open,
      delimited: false,
      data: { shape: HERMES_SHAPE, closer: close, speculative: false },
    });
  }
  if (options.functionTags ?? true) {
    for (const literal of ['<function=', '<function ']) {
      openers.push({
        literal,
        delimited: false,
        data: {
          shape: HERMES_SHAPE,
          closer: '</function>',
          speculative: true,
          header: {
            terminator: '>',
            consumed: literal.slice('<function'.length),
            readName: nameInFunctionTag,
          },
        },
      });
    }
  }
  // A fence may hold JSON, or any of the tagged calls above.
  const tagged = compileOpeners(openers.filter((opener) => opener.literal.startsWith('<')));
  const fence: JsonCallsBodyConfig = { shape: HERMES_SHAPE, closer: '```', speculative: true };
  if (options.fencedCalls ?? true) {
    openers.push({ literal: '```', delimited: false, data: fence });
  }
  if (options.bareJsonCalls ?? true) {
    for (const literal of BARE_OPENERS) {
      openers.push({
        literal,
        delimited: false,
        // `</tool_call>` right after a bare call is the closer of a tag the model left out;
        // Llama models in this format join bare calls with `;` as their own format does.
        data: {
          shape: HERMES_SHAPE,
          speculative: true,
          jsonPrefix: literal,
          separator: ';',
          strayCloser: `</${callTag}>`,
        },
      });
    }
  }
  // What a result's text may not hold as it is: any opener this parser reads, its result tag. A
  // fence stays (code in results is common): what it could hold as a call is broken inside it.
  const resultGuard = {
    tags: [responseTag],
    literals: openers.map((opener) => opener.literal).filter((literal) => literal !== '```'),
  };
  return defineProtocol<JsonCallsBodyConfig>({
    name: 'hermes',
    grammar: {
      reasoningTags: THINK_TAGS,
      callOpeners: () => openers,
      openCall: (config, context) =>
        config === fence
          ? new FencedCallBody(context, fence, tagged)
          : new JsonCallsBody(context, config),
    },
    formatTools: (tools) => formatHermesTools(tools, callTag, responseTag),
    formatToolCall: (calls) => formatHermesToolCall(calls, callTag),
    formatToolResponse: (results) => formatHermesToolResponse(results, responseTag, resultGuard),
    formatToolResponseForAnyReader: (results) => formatHermesToolResponseJson(results, responseTag),
  });
}
