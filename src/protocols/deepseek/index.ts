import type { ToolCallProtocol } from '../../core/index.ts';
import { LESS_THAN } from '../../scan/char-codes.ts';
import { isWhiteSpace } from '../../scan/characters.ts';
import type { Opener } from '../../scan/opener-trie.ts';
import { type NamedJsonConfig, namedJsonBody } from '../codecs/json/named-json-body.ts';
import {
  ParameterTagsBody,
  type ParameterTagsOpener,
} from '../codecs/tagged/parameter-tags-body.ts';
import { defineProtocol } from '../define/define-protocol.ts';
import { CALLS_RUN_TOGETHER, type FormatEntry } from '../define/format-entry.ts';
import type { CallBody, CallContext } from '../engine/call-body.ts';
import { MarkupBody } from '../engine/markup-body.ts';
import { THINK_TAGS } from '../engine/reasoning-tags.ts';
import { textResultBody } from '../results/result-text.ts';
import { dsmlOpeners, dsmlToolNamesIn } from './dsml.ts';
import {
  type DeepseekVersion,
  formatDeepseekToolCall,
  formatDeepseekToolResponse,
  formatDeepseekTools,
} from './format.ts';

export interface DeepseekProtocolOptions {
  /**
   * The version whose conventions the prompt and the history follow: `v3` (V3 and R1:
   * `function<｜tool▁sep｜>NAME` and fenced JSON), `v3.1` (`NAME<｜tool▁sep｜>{…}`, also V3.2-Exp),
   * `v3.2` (DSML: `<｜DSML｜function_calls>` with parameter tags).
   * Every version is read either way, and V4's DSML (`<｜DSML｜tool_calls>`) too. Default `v3.1`.
   */
  readonly version?: DeepseekVersion;
}

/**
 * DeepSeek's special tokens, spelled with full-width bars and `▁`, and with the ASCII bars some
 * servers and chat templates put in their place (Ollama's DeepSeek template).
 */
interface TokenSpelling {
  readonly bar: string;
  readonly callsBegin: string;
  /** R1 sometimes writes `<｜tool▁calls｜>` for the section and drops the call's own opener. */
  readonly callsShort: string;
  readonly callsEnd: string;
  readonly callBegin: string;
  readonly callEnd: string;
  readonly separator: string;
  readonly endOfSentence: string;
}

function spelling(bar: string): TokenSpelling {
  const token = (name: string) => `<${bar}${name.replaceAll('_', '▁')}${bar}>`;
  return {
    bar,
    callsBegin: token('tool_calls_begin'),
    callsShort: token('tool_calls'),
    callsEnd: token('tool_calls_end'),
    callBegin: token('tool_call_begin'),
    callEnd: token('tool_call_end'),
    separator: token('tool_sep'),
    endOfSentence: token('end_of_sentence'),
  };
}

const SPELLINGS = [spelling('｜'), spelling('|')];

type DeepseekOpener =
  | { readonly kind: 'markup' }
  | { readonly kind: 'dsml'; readonly opener: ParameterTagsOpener }
  /** `section`: the section token, which V3 sometimes writes right before a call's header. */
  | { readonly kind: 'call'; readonly tokens: TokenSpelling; readonly section: boolean };

const OPENERS: readonly Opener<DeepseekOpener>[] = SPELLINGS.flatMap((tokens) => [
  { literal: tokens.callsBegin, delimited: false, data: { kind: 'call', tokens, section: true } },
  { literal: tokens.callsShort, delimited: false, data: { kind: 'call', tokens, section: false } },
  { literal: tokens.callBegin, delimited: false, data: { kind: 'call', tokens, section: false } },
  { literal: tokens.callsEnd, delimited: false, data: { kind: 'markup' } },
  { literal: tokens.endOfSentence, delimited: false, data: { kind: 'markup' } },
  ...dsmlOpeners(tokens.bar).map(
    (dsml): Opener<DeepseekOpener> => ({
      literal: dsml.literal,
      delimited: false,
      data: { kind: 'dsml', opener: dsml.data },
    }),
  ),
]);

const TOOL_NAME = /^\s*([^\s<>{}]+)\s*$/;

function toolName(header: string): string | undefined {
  return TOOL_NAME.exec(header)?.[1];
}

/** The readers of the two header shapes, per spelling (made once). */
const CONFIGS = new Map<TokenSpelling, { v3: NamedJsonConfig; v31: NamedJsonConfig }>();

function configsFor(tokens: TokenSpelling) {
  let configs = CONFIGS.get(tokens);
  if (configs === undefined) {
    const json = { closer: tokens.callEnd, speculative: false, fencedJson: true };
    configs = {
      // V3 and R1: `function<｜tool▁sep｜>NAME\n```json\n{…}\n```` (the type word is read first).
      v3: { terminator: '\n', readName: toolName, json },
      // V3.1: `NAME<｜tool▁sep｜>{…}`.
      v31: { terminator: tokens.separator, readName: toolName, json },
    };
    CONFIGS.set(tokens, configs);
  }
  return configs;
}

/**
 * One call after `<｜tool▁call▁begin｜>`: V3 and R1 write the type `function` and the separator
 * before the name, V3.1 the name before the separator. The first characters tell which; the
 * JSON reader takes over from there with the header read so far.
 */
class DeepseekCallBody implements CallBody {
  private delegate: CallBody | undefined;
  /** Characters of `function<｜tool▁sep｜>` matched so far. */
  private matched = 0;
  private sectionDecided: boolean;
  private readonly typePrefix: string;

  private readonly context: CallContext;
  private readonly tokens: TokenSpelling;

  constructor(context: CallContext, tokens: TokenSpelling, section: boolean) {
    this.context = context;
    this.tokens = tokens;
    this.sectionDecided = !section;
    this.typePrefix = `function${tokens.separator}`;
  }

  get leftover(): string {
    return this.delegate?.leftover ?? '';
  }

  write(text: string, start: number, end: number): number {
    if (this.delegate) return this.delegate.write(text, start, end);
    let index = start;
    if (!this.sectionDecided) {
      while (index < end && isWhiteSpace(text.charCodeAt(index))) index++;
      if (index === end) return -1;
      this.sectionDecided = true;
      // The section token before a call's own opener is framing.
      if (text.charCodeAt(index) === LESS_THAN) {
        this.context.settle({ kind: 'markup' });
        return index;
      }
    }
    const configs = configsFor(this.tokens);
    while (index < end && this.matched < this.typePrefix.length) {
      if (text.charCodeAt(index) !== this.typePrefix.charCodeAt(this.matched)) {
        this.delegate = namedJsonBody(this.context, {
          ...configs.v31,
          consumed: this.typePrefix.slice(0, this.matched),
        });
        return this.delegate.write(text, index, end);
      }
      this.matched++;
      index++;
    }
    if (this.matched < this.typePrefix.length) return -1;
    this.delegate = namedJsonBody(this.context, configs.v3);
    return index < end ? this.delegate.write(text, index, end) : -1;
  }

  finish(interrupted: boolean): void {
    if (this.delegate) this.delegate.finish(interrupted);
    else this.context.settle({ kind: this.sectionDecided ? 'not-a-call' : 'markup' });
  }

  abandon(): void {
    this.delegate?.abandon();
  }
}

/**
 * A text result as the templates write it, the text itself: what could open a call here (the
 * openers, special tokens all) or close V3.2's result block is broken.
 */
const RESULT_TEXT = textResultBody({
  tags: ['result', 'function_results'],
  literals: OPENERS.map((opener) => opener.literal),
});

/**
 * DeepSeek V3, R1 and V3.1: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME
 * \n```json\n{…}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>` (V3, R1) and
 * `<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}<｜tool▁call▁end｜>` (V3.1), V3.2's DSML
 * (`<｜DSML｜function_calls><｜DSML｜invoke name="f"><｜DSML｜parameter name="k" string="true">v…`),
 * V4's DSML (the same in `<｜DSML｜tool_calls>`), reasoning in `<think>`.
 */
export function deepseekProtocol(options: DeepseekProtocolOptions = {}): ToolCallProtocol {
  const version = options.version ?? 'v3.1';
  return defineProtocol<DeepseekOpener>({
    name: 'deepseek',
    grammar: {
      reasoningTags: THINK_TAGS,
      callOpeners: () => OPENERS,
      openCall: (opener, context) =>
        opener.kind === 'markup'
          ? new MarkupBody(context)
          : opener.kind === 'dsml'
            ? new ParameterTagsBody(context, opener.opener)
            : new DeepseekCallBody(context, opener.tokens, opener.section),
    },
    formatTools: (tools) => formatDeepseekTools(tools, version),
    formatToolCall: (calls) => formatDeepseekToolCall(calls, version),
    formatToolResponse: (results) => formatDeepseekToolResponse(results, version, RESULT_TEXT),
    formatToolResponseForAnyReader: (results) => formatDeepseekToolResponse(results, version),
  });
}

export const deepseekFormat: FormatEntry = {
  name: 'deepseek',
  aliases: ['deepseek_v3', 'deepseek_r1', 'deepseek_v3_1', 'deepseek-v3', 'deepseek-r1'],
  families: 'DeepSeek V3, R1, V3.1, V3.2, V4',
  example:
    '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Oslo"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
  create: () => deepseekProtocol(),
  // R1's distills are Qwen and Llama models that write their base model's format.
  models: [
    /deepseek-(?:v3|v4|r1(?!-distill)|chat|reasoner)/,
    /deepseek-ai\/deepseek-(?:v3|v4|r1(?!-distill))/,
  ],
  agent: CALLS_RUN_TOGETHER,
  toolNamesIn: (text) => [
    ...new Set([
      ...Array.from(
        text.matchAll(
          /<[｜|]tool▁call▁begin[｜|]>(?:function<[｜|]tool▁sep[｜|]>\s*([^\s<>{}]+)|\s*([^\s<>{}]+?)\s*<[｜|]tool▁sep[｜|]>)/g,
        ),
        (match) => (match[1] ?? match[2])!,
      ),
      ...dsmlToolNamesIn(text),
    ]),
  ],
};
