import { BoundedCache } from '../../core/bounded-cache.ts';
import type { ToolCallProtocol } from '../../core/index.ts';
import { LINE_FEED } from '../../scan/char-codes.ts';
import { isWhiteSpace } from '../../scan/characters.ts';
import type { Opener } from '../../scan/opener-trie.ts';
import { JsonCallsBody } from '../codecs/json/json-calls-body.ts';
import { type NamedJsonConfig, namedJsonBody } from '../codecs/json/named-json-body.ts';
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
import { RawCodeBody } from './raw-code-body.ts';

export interface FunctionaryProtocolOptions {
  /**
   * The version whose conventions the prompt and the history follow: `v3.1` (Llama 3.1 based,
   * `<function=NAME>{…}</function>`) or `v3.2` (`>>>NAME\n{…}`). Both are read either way.
   * Default `v3.2`.
   */
  readonly version?: FunctionaryVersion;
}

/** The code interpreter's names: raw code after `<|python_tag|>` or `>>>python` goes to it. */
const CODE_TOOLS = ['python', 'ipython'];

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

const FIXED_OPENERS: readonly Opener<FunctionaryOpener>[] = [
  { literal: '<function=', delimited: false, data: { kind: 'function-tag' } },
  { literal: '<|python_tag|>', delimited: false, data: { kind: 'python-tag' } },
  { literal: '>>>', delimited: false, data: { kind: 'recipient', name: '', atOutputStart: false } },
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
    const names = new Set(['all', ...options.tools.map((tool) => tool.name)]);
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

const MAX_RECIPIENT = 256;

/**
 * v3.2's `>>>RECIPIENT\n` and what follows it: `all` is the answer to the user (text), `python`
 * raw code, any other declared tool JSON arguments up to the next `>>>`.
 */
class RecipientBody implements CallBody {
  private delegate: CallBody | undefined;
  private recipient: string;
  private checkedStart: boolean;
  /** The opener is a recipient at the output's start, not `>>>`. */
  private readonly atOutputStart: boolean;
  /** What the opener itself read of the recipient. */
  private readonly openerName: string;
  /** What the body read after the opener when it turned out not to be a recipient. */
  private given = '';
  private readonly context: CallContext;

  constructor(context: CallContext, opener: Extract<FunctionaryOpener, { kind: 'recipient' }>) {
    this.context = context;
    this.recipient = opener.name;
    this.openerName = opener.name;
    this.checkedStart = !opener.atOutputStart;
    this.atOutputStart = opener.atOutputStart;
  }

  get leftover(): string {
    return this.delegate?.leftover ?? this.given;
  }

  /**
   * How much of `line` can still begin a recipient: white space, a prefix of `all` or of a
   * declared tool's name, or the whole name and white space. The line is not one past that.
   */
  private recipientPrefix(line: string): number {
    let nameStart = 0;
    while (nameStart < line.length && isWhiteSpace(line.charCodeAt(nameStart))) nameStart++;
    let longest = nameStart;
    const reach = (name: string) => {
      let end = nameStart;
      while (end < line.length && end - nameStart < name.length) {
        if (line.charCodeAt(end) !== name.charCodeAt(end - nameStart)) return end;
        end++;
      }
      if (end - nameStart < name.length) return end;
      while (end < line.length && isWhiteSpace(line.charCodeAt(end))) end++;
      return end;
    };
    longest = Math.max(longest, reach('all'));
    for (const tool of this.context.options.tools) longest = Math.max(longest, reach(tool.name));
    return longest;
  }

  write(text: string, start: number, end: number): number {
    if (this.delegate) return this.delegate.write(text, start, end);
    if (!this.checkedStart) {
      this.checkedStart = true;
      // Only the output's first line may name a recipient without `>>>`.
      if (this.context.callText(0, 1) === '\n') return this.notACall(start);
    }
    // Read no further than a recipient can go: what was read is handed back when the line is
    // not one, and a line read to its end per `>>>` would make `>>>>>>…` quadratic.
    const limit = Math.min(end, start + MAX_RECIPIENT + 1 - this.recipient.length);
    let stop = start;
    while (stop < limit && text.charCodeAt(stop) !== LINE_FEED) stop++;
    const line = this.recipient + text.slice(start, stop);
    const possible = Math.min(this.recipientPrefix(line), MAX_RECIPIENT);
    if (possible < line.length) {
      // Not a recipient: what followed the opener is read again, and after `>>>` the opener's
      // last two characters too (`>>>>get_weather` is `>` then a recipient).
      this.given = (this.atOutputStart ? '' : '>>') + line.slice(this.openerName.length, possible);
      return this.notACall(start + possible - this.recipient.length);
    }
    this.recipient = line;
    if (stop === end) return -1;
    const recipient = this.recipient.trim();
    if (recipient === 'all') {
      this.context.settle({ kind: 'markup' });
      return stop + 1;
    }
    const tool = this.context.options.toolsByName.get(recipient);
    if (tool && CODE_TOOLS.includes(recipient)) {
      this.delegate = new RawCodeBody(this.context, tool, ['>>>'], true);
      return this.delegate.write(text, stop + 1, end);
    }
    this.delegate = new JsonCallsBody(this.context, {
      shape: { nameKeys: [], argumentKeys: [] },
      speculative: false,
      header: { terminator: '\n', consumed: this.recipient, readName: (header) => header.trim() },
    });
    return this.delegate.write(text, stop, end);
  }

  private notACall(index: number): number {
    this.context.settle({ kind: 'not-a-call' });
    return index;
  }

  finish(interrupted: boolean): void {
    if (this.delegate) this.delegate.finish(interrupted);
    else this.context.settle({ kind: 'not-a-call' });
  }

  abandon(): void {
    this.delegate?.abandon();
  }
}

function openCall(opener: FunctionaryOpener, context: CallContext): CallBody {
  switch (opener.kind) {
    case 'function-tag':
      return namedJsonBody(context, FUNCTION_TAG);
    case 'recipient':
      return new RecipientBody(context, opener);
    case 'python-tag': {
      const tool = CODE_TOOLS.map((name) => context.options.toolsByName.get(name)).find(Boolean);
      if (!tool) return new TextBody(context);
      return new RawCodeBody(context, tool, ['<|eom_id|>', '<|eot_id|>'], false);
    }
  }
}

/** An opener that is text here (`<|python_tag|>` with no code interpreter declared). */
class TextBody implements CallBody {
  private readonly context: CallContext;

  constructor(context: CallContext) {
    this.context = context;
  }

  write(_text: string, start: number): number {
    this.context.settle({ kind: 'not-a-call' });
    return start;
  }

  finish(): void {
    this.context.settle({ kind: 'not-a-call' });
  }

  abandon(): void {}
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
