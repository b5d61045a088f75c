import type { ToolCallProtocol } from '../../core/index.ts';
import { BACKSLASH, QUOTATION_MARK } from '../../scan/char-codes.ts';
import { isWhiteSpace } from '../../scan/characters.ts';
import { LiteralFinder } from '../../scan/literal-finder.ts';
import { type NamedJsonConfig, namedJsonBody } from '../codecs/json/named-json-body.ts';
import { defineProtocol } from '../define/define-protocol.ts';
import { CALLS_RUN_TOGETHER, type FormatEntry } from '../define/format-entry.ts';
import type { CallBody, CallContext } from '../engine/call-body.ts';
import { MarkupBody } from '../engine/markup-body.ts';
import { THINK_TAGS } from '../engine/reasoning-tags.ts';
import type { CallOpener } from '../engine/stream-engine.ts';
import { textResultBody } from '../results/result-text.ts';
import { formatKimiK2ToolCall, formatKimiK2ToolResponse, formatKimiK2Tools } from './format.ts';

/**
 * The section tokens around a turn's calls, with the singular spelling some Kimi-K2 releases
 * write: framing only, dropped.
 */
const SECTION_TOKENS = [
  '<|tool_calls_section_begin|>',
  '<|tool_call_section_begin|>',
  '<|tool_calls_section_end|>',
  '<|tool_call_section_end|>',
];

/**
 * A call's id as Kimi writes it, `functions.NAME:INDEX`; vLLM's parser also sees `NAME:INDEX`.
 * An id without its index (`functions.bad.0`) is not one of Kimi's.
 */
const CALL_ID = /^\s*(?:functions\.)?([^\s:<>]+):\d+\s*$/;

export function toolNameInKimiId(id: string): string | undefined {
  return CALL_ID.exec(id)?.[1];
}

type KimiOpener = { readonly kind: 'section' } | { readonly kind: 'call' };

const CALL_BEGIN = '<|tool_call_begin|>';
const ARGUMENT_BEGIN = '<|tool_call_argument_begin|>';
const CALL_END = '<|tool_call_end|>';

const CALL_CONFIG: NamedJsonConfig = {
  terminator: ARGUMENT_BEGIN,
  readName: toolNameInKimiId,
  json: { closer: CALL_END, speculative: false },
};

const Phase = {
  /** The call's id, read by the JSON body too. */
  Header: 0,
  /** White space after `<|tool_call_argument_begin|>`. */
  BeforeArguments: 1,
  /** Arguments that are not a string: the JSON body reads them. */
  Json: 2,
  /** Arguments written as a JSON string. */
  String: 3,
  /** After that string: white space, then `<|tool_call_end|>`. */
  AfterString: 4,
} as const;
type Phase = (typeof Phase)[keyof typeof Phase];

/**
 * One Kimi call: its id, then its arguments. Some outputs write the arguments double-encoded, as
 * a JSON string whose content is the object (`"{\"city\": \"Oslo\"}"`): that string is decoded
 * once when it holds an object, and the object is read as the arguments; any other string fails
 * the call as other malformed arguments do. Everything else is the JSON body's.
 */
class KimiCallBody implements CallBody {
  private readonly inner: CallBody;
  private phase: Phase = Phase.Header;
  private readonly argumentBegin = new LiteralFinder(ARGUMENT_BEGIN);
  /** The string's JSON text, quotes included, once it begins. */
  private stringText = '';
  private escaped = false;
  /** Characters of `<|tool_call_end|>` matched after the string. */
  private endMatched = 0;
  private toolName: string | undefined;
  private readonly context: CallContext;

  constructor(context: CallContext) {
    this.context = context;
    this.inner = namedJsonBody(context, CALL_CONFIG);
  }

  get leftover(): string | undefined {
    return this.inner.leftover;
  }

  write(text: string, start: number, end: number): number {
    let index = start;
    if (this.phase === Phase.Header) {
      const found = this.argumentBegin.find(text, start, end);
      // The JSON body reads the id (and decides whether it names a declared tool).
      const stop = this.inner.write(text, start, found === -1 ? end : found);
      if (stop !== -1 || found === -1) return stop;
      this.toolName = toolNameInKimiId(this.idBefore(found, end));
      this.phase = Phase.BeforeArguments;
      index = found;
    }
    if (this.phase === Phase.BeforeArguments) {
      while (index < end && isWhiteSpace(text.charCodeAt(index))) index++;
      if (index === end) return -1;
      if (text.charCodeAt(index) !== QUOTATION_MARK) {
        this.phase = Phase.Json;
        return this.inner.write(text, index, end);
      }
      this.phase = Phase.String;
    }
    if (this.phase === Phase.Json) return this.inner.write(text, index, end);
    if (this.phase === Phase.String) {
      const from = index;
      // The opening quote is the first character when the string begins in this write.
      if (this.stringText.length === 0) index++;
      for (; index < end; index++) {
        const code = text.charCodeAt(index);
        if (this.escaped) this.escaped = false;
        else if (code === BACKSLASH) this.escaped = true;
        else if (code === QUOTATION_MARK) break;
      }
      if (index === end) {
        this.stringText += text.slice(from, end);
        return -1;
      }
      index++;
      this.stringText += text.slice(from, index);
      this.phase = Phase.AfterString;
    }
    // After the string: white space, then the call's end.
    for (; index < end; index++) {
      const code = text.charCodeAt(index);
      if (this.endMatched === 0 && isWhiteSpace(code)) continue;
      if (code !== CALL_END.charCodeAt(this.endMatched)) return this.fail(index);
      if (++this.endMatched === CALL_END.length) return this.readDecoded(index + 1, true);
    }
    return -1;
  }

  /** The call's id, from the raw text before `<|tool_call_argument_begin|>` ending at `found`. */
  private idBefore(found: number, end: number): string {
    const at = this.context.callLength - (end - found);
    return this.context.callText(CALL_BEGIN.length, at - ARGUMENT_BEGIN.length);
  }

  /**
   * The string ended (and the call's end was read, if `closed`): its content read as the
   * arguments when it is a JSON object; `stop` is where the call ends.
   */
  private readDecoded(stop: number, closed: boolean): number {
    const object = objectTextIn(this.stringText);
    if (object === undefined) return this.fail(stop);
    // The decoded text stands for the string: the JSON body reads it as the arguments.
    const decoded = closed ? object + CALL_END : object;
    const read = this.inner.write(decoded, 0, decoded.length);
    if (closed && read === -1) return this.fail(stop);
    return stop;
  }

  /** The arguments are not an object, nor a string holding one: the call fails. */
  private fail(stop: number): number {
    this.inner.abandon();
    this.context.settle({
      kind: 'fault',
      code: 'malformed-call',
      message: `the arguments of a call to "${this.toolName ?? 'a tool'}" are a JSON string that holds no JSON object; it was not run`,
      ...(this.toolName === undefined ? {} : { toolName: this.toolName }),
    });
    return stop;
  }

  finish(interrupted: boolean): void {
    if (this.phase === Phase.AfterString && this.endMatched === 0 && !interrupted) {
      // Only the call's end is missing: read as any call whose closing markup is missing.
      const object = objectTextIn(this.stringText);
      if (object !== undefined && this.inner.write(object, 0, object.length) === -1) {
        this.inner.finish(false);
        return;
      }
    }
    if (this.phase === Phase.String || this.phase === Phase.AfterString) {
      this.inner.abandon();
      this.context.settle({
        kind: 'fault',
        code: 'incomplete-call',
        message: `the output ended inside the arguments of a call to "${this.toolName ?? 'a tool'}"; it was not run`,
        ...(this.toolName === undefined ? {} : { toolName: this.toolName }),
      });
      return;
    }
    this.inner.finish(interrupted);
  }

  abandon(): void {
    this.inner.abandon();
  }
}

/** The text of the JSON object a JSON string literal holds, or undefined when it holds none. */
function objectTextIn(literal: string): string | undefined {
  let content: unknown;
  try {
    content = JSON.parse(literal);
  } catch {
    return undefined;
  }
  if (typeof content !== 'string' || !content.trimStart().startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(content);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? content
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Every opener is a special token: Kimi-K2-Thinking writes its section before it closes its
 * reasoning, and a section there is a call, never a mention of one (`inReasoning`).
 */
const OPENERS: readonly CallOpener<KimiOpener>[] = [
  ...SECTION_TOKENS.map((literal) => ({
    literal,
    delimited: false,
    inReasoning: true,
    data: { kind: 'section' } as const,
  })),
  { literal: CALL_BEGIN, delimited: false, inReasoning: true, data: { kind: 'call' } },
];

/** A text result as the template writes it, the text itself, with this parser's openers broken. */
const RESULT_TEXT = textResultBody({ tags: [], literals: OPENERS.map((opener) => opener.literal) });

/**
 * Moonshot's Kimi-K2: `<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:0
 * <|tool_call_argument_begin|>{…}<|tool_call_end|>…<|tool_calls_section_end|>`, reasoning in
 * `<think>` (Kimi-K2-Thinking).
 */
export function kimiK2Protocol(): ToolCallProtocol {
  return defineProtocol<KimiOpener>({
    name: 'kimi-k2',
    grammar: {
      reasoningTags: THINK_TAGS,
      callOpeners: () => OPENERS,
      openCall: (opener, context) =>
        opener.kind === 'section' ? new MarkupBody(context) : new KimiCallBody(context),
    },
    formatTools: formatKimiK2Tools,
    formatToolCall: formatKimiK2ToolCall,
    formatToolResponse: (results) => formatKimiK2ToolResponse(results, RESULT_TEXT),
    formatToolResponseForAnyReader: (results) => formatKimiK2ToolResponse(results),
  });
}

export const kimiK2Format: FormatEntry = {
  name: 'kimi-k2',
  aliases: ['kimi', 'kimi_k2', 'moonshot'],
  families: 'Kimi-K2, Kimi-K2-Thinking (Moonshot AI)',
  example:
    '<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Oslo"}<|tool_call_end|><|tool_calls_section_end|>',
  create: () => kimiK2Protocol(),
  models: [/kimi-k2/, /kimi_k2/],
  agent: CALLS_RUN_TOGETHER,
  toolNamesIn: (text) => [
    ...new Set(
      [...text.matchAll(/<\|tool_call_begin\|>\s*(?:functions\.)?([^\s:<>]+)/g)].map(
        (match) => match[1]!,
      ),
    ),
  ],
};
