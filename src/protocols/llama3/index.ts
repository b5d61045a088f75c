import type { ToolCallProtocol, ToolDefinition } from '../../core/index.ts';
import { DOT, MINUS } from '../../scan/char-codes.ts';
import { createJsonValueStreamer, type JsonValueStreamer } from '../../scan/json-value-streamer.ts';
import { LiteralFinder } from '../../scan/literal-finder.ts';
import type { Opener } from '../../scan/opener-trie.ts';
import { createValuePolicy } from '../../schema/index.ts';
import {
  type JsonCallShape,
  JsonCallsBody,
  type JsonCallsBodyConfig,
} from '../codecs/json/json-calls-body.ts';
import { PythonCallsBody, type PythonCallsConfig } from '../codecs/python/python-call-body.ts';
import { isNamePart } from '../codecs/python/python-call-values.ts';
import { defineProtocol } from '../define/define-protocol.ts';
import { CALLS_RUN_TOGETHER, type FormatEntry } from '../define/format-entry.ts';
import { CallAssembler, MAX_KEPT_ARGUMENT_CHARS } from '../engine/call-assembler.ts';
import type { CallBody, CallContext } from '../engine/call-body.ts';
import { THINK_TAGS } from '../engine/reasoning-tags.ts';
import { formatLlama3ToolCall, formatLlama3ToolResponse, formatLlama3Tools } from './format.ts';

export interface Llama3ProtocolOptions {
  /**
   * The tool that receives the code Llama writes after `<|python_tag|>` when it is not a call
   * (its built-in code interpreter), as `{"code": …}`. Default `code_interpreter`; the code is
   * text when no tool of that name is declared.
   */
  readonly codeTool?: string;
}

const SHAPE: JsonCallShape = {
  nameKeys: ['name'],
  argumentKeys: ['parameters', 'arguments'],
};

/** How a bare call object starts: `{"name"`, or `{"type": "function", "name"` (Llama 3.2). */
const SINGLE_BRACE_OPENERS = [
  '{"name"',
  '{ "name"',
  '{\n"name"',
  '{\n  "name"',
  '{\n    "name"',
  '{"type"',
  '{ "type"',
];

/** The same with every brace doubled, as a template's escaped example shows it (`{{"name": …}}`). */
const BARE_OPENERS = [
  ...SINGLE_BRACE_OPENERS,
  ...SINGLE_BRACE_OPENERS.map((opener) => `{${opener}`),
];

/** Several calls are separated by `;` (`{…}; {…}`), as the model card's prompt asks. */
const SEPARATOR = ';';

/** The name in `<function=NAME>`, Llama 3.1's format for tools defined in the prompt. */
function nameInFunctionTag(header: string): string | undefined {
  const name = header.slice(1).trim();
  if (name.length === 0) return undefined;
  for (let index = 0; index < name.length; index++) {
    const code = name.charCodeAt(index);
    if (!isNamePart(code) && code !== MINUS && code !== DOT) return undefined;
  }
  return name;
}

type Llama3Call =
  | { readonly kind: 'json'; readonly config: JsonCallsBodyConfig }
  | { readonly kind: 'tag'; readonly config: PythonCallsConfig };

/** `<|eom_id|>` ends a message that waits for a tool's result; `<|eot_id|>` ends a turn. */
const END_TOKENS = ['<|eom_id|>', '<|eot_id|>'] as const;

/**
 * Llama 3.1 and 3.3's JSON tool calls: a bare `{"name": …, "parameters": {…}}` (several are
 * separated by `;`), the same after `<|python_tag|>`, a built-in tool's call there
 * (`<|python_tag|>brave_search.call(query="…")`), or code for its code interpreter; and
 * `<function=NAME>{…}</function>` for tools defined in the prompt.
 */
export function llama3Protocol(options: Llama3ProtocolOptions = {}): ToolCallProtocol {
  const codeTool = options.codeTool ?? 'code_interpreter';
  const tag: PythonCallsConfig = {
    speculative: false,
    single: true,
    nameSuffix: '.call',
    closer: END_TOKENS[0],
    json: { shape: SHAPE, speculative: false, closer: END_TOKENS[0], separator: SEPARATOR },
    otherwise: (context, from) => {
      const tool = context.options.toolsByName.get(codeTool);
      return tool ? new CodeBody(context, tool, from) : undefined;
    },
  };
  const openers: Opener<Llama3Call>[] = [
    { literal: '<|python_tag|>', delimited: false, data: { kind: 'tag', config: tag } },
    {
      literal: '<function=',
      delimited: false,
      data: {
        kind: 'json',
        config: {
          shape: SHAPE,
          closer: '</function>',
          speculative: true,
          header: { terminator: '>', consumed: '=', readName: nameInFunctionTag },
        },
      },
    },
    ...BARE_OPENERS.map((literal) => ({
      literal,
      delimited: false,
      data: {
        kind: 'json' as const,
        config: { shape: SHAPE, speculative: true, jsonPrefix: literal, separator: SEPARATOR },
      },
    })),
  ];
  return defineProtocol<Llama3Call>({
    name: 'llama3',
    grammar: {
      reasoningTags: THINK_TAGS,
      callOpeners: () => openers,
      openCall: (call, context) =>
        call.kind === 'json'
          ? new JsonCallsBody(context, call.config)
          : new PythonCallsBody(context, call.config),
    },
    formatTools: (tools) => formatLlama3Tools(tools, codeTool),
    formatToolCall: (calls) => formatLlama3ToolCall(calls, codeTool),
    formatToolResponse: formatLlama3ToolResponse,
  });
}

/**
 * The code Llama writes after `<|python_tag|>` for its code interpreter, up to `<|eom_id|>`,
 * `<|eot_id|>` or the end of the output: one call of the code tool, `{"code": …}`, streamed.
 */
class CodeBody implements CallBody {
  private readonly context: CallContext;
  private readonly assembler: CallAssembler;
  private readonly streamer: JsonValueStreamer;
  private readonly finders = END_TOKENS.map((token) => new LiteralFinder(token));
  /** Call offset up to which the code has streamed. */
  private streamedTo: number;

  constructor(context: CallContext, tool: ToolDefinition, from: number) {
    this.context = context;
    this.streamedTo = from;
    this.assembler = new CallAssembler(context, tool);
    this.streamer = createJsonValueStreamer(
      createValuePolicy(tool.inputSchema),
      this.assembler.delta,
      { maxKeptStringChars: MAX_KEPT_ARGUMENT_CHARS },
    );
    this.assembler.start();
    this.streamer.startObject();
    this.streamer.key('code');
    this.streamer.startString();
  }

  write(text: string, start: number, end: number): number {
    let found = -1;
    let token = '';
    for (const finder of this.finders) {
      const at = finder.find(text, start, end);
      if (at !== -1 && (found === -1 || at < found)) {
        found = at;
        token = finder.literal;
      }
    }
    const offsetOf = (index: number) => this.context.callLength - (end - index);
    if (found === -1) {
      // Characters that may begin an end token wait for the next write.
      const held = Math.max(...this.finders.map((finder) => finder.partial));
      this.streamTo(offsetOf(end) - held, true);
      return -1;
    }
    this.streamTo(offsetOf(found) - token.length, false);
    this.complete();
    return found;
  }

  private streamTo(offset: number, mayHold: boolean): void {
    let to = offset;
    if (to <= this.streamedTo) return;
    const code = this.context.callText(this.streamedTo, to);
    const last = code.charCodeAt(code.length - 1);
    // Never end a piece between the halves of a surrogate pair.
    if (mayHold && last >= 0xd800 && last <= 0xdbff) to--;
    if (to <= this.streamedTo) return;
    this.streamer.stringChunk(to === offset ? code : code.slice(0, -1));
    this.streamedTo = to;
  }

  private complete(): void {
    this.streamer.endString();
    this.streamer.endObject();
    const readBack = !this.streamer.keptStreamedStrings && this.context.options.validate;
    this.assembler.complete(
      readBack ? JSON.parse(this.assembler.inputText()) : this.streamer.value,
    );
  }

  finish(interrupted: boolean): void {
    if (interrupted) {
      this.assembler.fail(
        'incomplete-call',
        'the output was cut off inside the code after <|python_tag|>; it was not run',
      );
      return;
    }
    this.streamTo(this.context.callLength, false);
    this.complete();
  }

  abandon(): void {
    this.assembler.end();
  }
}

export const llama3Format: FormatEntry = {
  name: 'llama3',
  aliases: ['llama3.1', 'llama3.3', 'llama_3_x', 'llama3_json'],
  families: 'Llama 3.1 and 3.3 (JSON, <|python_tag|> built-ins)',
  example: '{"name": "get_weather", "parameters": {"city": "Oslo"}}',
  create: () => llama3Protocol(),
  models: [/llama-?3\.[13]/, /llama-?3(?![.\d])/],
  agent: CALLS_RUN_TOGETHER,
};
