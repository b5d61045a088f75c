import type { ToolCallProtocol } from '../../core/index.ts';
import { defineFormat, type FormatHooks } from '../spec/define.ts';
import type { FormatSpec, JsonCallForm } from '../spec/types.ts';
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

const NAME_KEYS = ['name', 'tool_name', 'function'];
const ARGUMENT_KEYS = ['arguments', 'parameters', 'args', 'input'];

/**
 * The spec of Hermes with `options`: JSON inside tags, the format Qwen and Hermes models are
 * trained on (the Hermes JSON-in-tags form):
 * `<tool_call>{"name": "get_weather", "arguments": {"city": "Seoul"}}</tool_call>`.
 */
export function hermesSpec(options: HermesProtocolOptions = {}): FormatSpec {
  const callTag = options.callTag ?? 'tool_call';
  const keys = { nameKeys: NAME_KEYS, argumentKeys: ARGUMENT_KEYS };
  const calls: JsonCallForm[] = [
    callTag,
    ...(options.alternativeCallTags ?? DEFAULT_ALTERNATIVE_TAGS),
  ].map((tag) => ({
    codec: 'json',
    open: `<${tag}>`,
    close: `</${tag}>`,
    ...keys,
    // The alternatives are fallbacks: a block of one holding no call is just text.
    ...(tag === callTag ? {} : { certainty: 'speculative' }),
  }));
  for (const [open, close] of options.tokenWrappers ?? DEFAULT_TOKEN_WRAPPERS) {
    calls.push({ codec: 'json', open, close, ...keys });
  }
  if (options.functionTags ?? true) {
    // `<function=NAME>{…}</function>` and `<function name="NAME">{…}</function>`.
    const functionTag = {
      codec: 'json',
      close: '</function>',
      certainty: 'speculative',
      ...keys,
    } as const;
    calls.push(
      { ...functionTag, open: '<function=', nameHeader: { end: '>', nameQuoted: true } },
      { ...functionTag, open: '<function ', nameHeader: { end: '>', nameAttribute: 'name' } },
    );
  }
  if (options.fencedCalls ?? true) {
    // A fence may hold JSON, or any of the tagged calls above.
    calls.push({
      codec: 'json',
      open: '```',
      close: '```',
      certainty: 'speculative',
      fenceHoldsForms: true,
      ...keys,
    });
  }
  if (options.bareJsonCalls ?? true) {
    for (const literal of BARE_OPENERS) {
      calls.push({
        codec: 'json',
        open: literal,
        openHoldsJson: literal,
        certainty: 'speculative',
        ...keys,
        // Llama models in this format join bare calls with `;` as their own format does, and
        // `</tool_call>` right after a bare call is the closer of a tag the model left out.
        separator: ';',
        strayClose: `</${callTag}>`,
      });
    }
  }
  return {
    spec: 1,
    name: 'hermes',
    calls,
    write: {
      call: `<${callTag}>\n{"name": {name_json}, "arguments": {arguments}}\n</${callTag}>`,
      join: '\n',
    },
    results: {
      each: `<${options.responseTag ?? 'tool_response'}>\n{output}\n</${options.responseTag ?? 'tool_response'}>`,
      join: '\n',
    },
  };
}

/** The writers: the prompt, calls and results as Hermes' template writes them. */
function hermesHooks(spec: FormatSpec, options: HermesProtocolOptions): FormatHooks {
  const callTag = options.callTag ?? 'tool_call';
  const responseTag = options.responseTag ?? 'tool_response';
  // What a result's text may not hold as it is: any opener this parser reads, its result tag. A
  // fence stays (code in results is common): what it could hold as a call is broken inside it.
  const resultGuard = {
    tags: [responseTag],
    literals: spec.calls.map((form) => form.open).filter((literal) => literal !== '```'),
  };
  return {
    formatTools: (tools) => formatHermesTools(tools, callTag, responseTag),
    formatToolCall: (calls) => formatHermesToolCall(calls, callTag),
    formatToolResponse: (results) => formatHermesToolResponse(results, responseTag, resultGuard),
    formatToolResponseForAnyReader: (results) => formatHermesToolResponseJson(results, responseTag),
  };
}

const DEFAULT_SPEC = hermesSpec();
const DEFAULT_HOOKS = hermesHooks(DEFAULT_SPEC, {});
let defaultProtocol: ToolCallProtocol | undefined;

/**
 * JSON inside tags, the format Qwen and Hermes models are trained on (the Hermes JSON-in-tags form):
 * `<tool_call>{"name": "get_weather", "arguments": {"city": "Seoul"}}</tool_call>`.
 */
export function hermesProtocol(options: HermesProtocolOptions = {}): ToolCallProtocol {
  if (Object.keys(options).length === 0) {
    defaultProtocol ??= defineFormat(DEFAULT_SPEC, DEFAULT_HOOKS);
    return defaultProtocol;
  }
  const spec = hermesSpec(options);
  return defineFormat(spec, hermesHooks(spec, options));
}
