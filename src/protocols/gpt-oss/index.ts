import type { ToolCallProtocol } from '../../core/index.ts';
import { LESS_THAN } from '../../scan/char-codes.ts';
import { isWhiteSpace } from '../../scan/characters.ts';
import type { Opener } from '../../scan/opener-trie.ts';
import { type NamedJsonConfig, namedJsonBody } from '../codecs/json/named-json-body.ts';
import { defineProtocol } from '../define/define-protocol.ts';
import { CALLS_RUN_TOGETHER, type FormatEntry } from '../define/format-entry.ts';
import type { CallBody, CallContext } from '../engine/call-body.ts';
import { MarkupBody } from '../engine/markup-body.ts';
import { HARMONY_THINK_TAGS } from '../engine/reasoning-tags.ts';
import { formatGptOssToolCall, formatGptOssToolResponse, formatGptOssTools } from './format.ts';
import {
  ChannelMessageBody,
  SpacedHeaderBody,
  type SpacedHeaderRoutes,
} from './spaced-header-body.ts';
import { StrippedAnalysisBody } from './stripped-analysis-body.ts';

/** The recipient of a message header: `to=functions.NAME` (or a built-in tool, `to=python`). */
const RECIPIENT = /\bto=(?:functions\.)?([^\s<>]+)/;

export function recipientIn(header: string): string | undefined {
  return RECIPIENT.exec(header)?.[1];
}

const BARE_NAME = /^\s*([^\s<>{}]+)\s*$/;

function bareName(header: string): string | undefined {
  return BARE_NAME.exec(header)?.[1];
}

type HarmonyOpener =
  | { readonly kind: 'markup' }
  | { readonly kind: 'call'; readonly config: NamedJsonConfig }
  /** `<|start|>assistant`: framing, or the role header of a call when a recipient follows. */
  | { readonly kind: 'start' }
  | { readonly kind: 'stripped-analysis' }
  /** A special token, then horizontal white space before its word (see spaced-header-body.ts). */
  | { readonly kind: 'spaced'; readonly routes: SpacedHeaderRoutes };

/** A message addressed to a tool: its header runs to `<|message|>`, its JSON to `<|call|>`. */
function headerCall(consumed: string): NamedJsonConfig {
  return {
    terminator: '<|message|>',
    consumed,
    readName: recipientIn,
    json: { closer: '<|call|>', speculative: false },
  };
}

const ROLE_HEADER_CALL = headerCall('');

/**
 * `<|channel|> NAME`: with white space and a recipient after it, a call's header (read as the
 * unspaced openers read theirs); with `<|message|>` after it, a message's header.
 */
const SPACED_CHANNEL: SpacedHeaderRoutes = {
  words: new Set(['commentary', 'analysis', 'final']),
  next: (context, openerLength, channel, spaced, code) => {
    if (code === LESS_THAN) return new ChannelMessageBody(context, openerLength, channel);
    return spaced ? namedJsonBody(context, ROLE_HEADER_CALL) : undefined;
  },
};

/** `<|start|> assistant`: as `<|start|>assistant` (see StartBody). */
const SPACED_START: SpacedHeaderRoutes = {
  words: new Set(['assistant']),
  next: (context, _openerLength, _role, spaced) =>
    spaced ? namedJsonBody(context, ROLE_HEADER_CALL) : new MarkupBody(context),
};

/** The special tokens a space or a tab may follow, each with its routes. */
const SPACED_OPENERS: readonly Opener<HarmonyOpener>[] = [
  ['<|channel|>', SPACED_CHANNEL] as const,
  ['<|start|>', SPACED_START] as const,
].flatMap(([token, routes]) =>
  [' ', '\t'].map((space) => ({
    literal: token + space,
    delimited: false,
    data: { kind: 'spaced', routes } as const,
  })),
);

const OPENERS: readonly Opener<HarmonyOpener>[] = [
  // Channels with a recipient: `<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>`
  // (llama.cpp also sees calls on the analysis channel).
  ...['commentary', 'analysis', 'final'].map((channel) => ({
    literal: `<|channel|>${channel} `,
    delimited: false,
    data: { kind: 'call', config: headerCall(' ') } as const,
  })),
  // The recipient in the role header, when the prompt ended with `<|start|>assistant`.
  {
    literal: '\n to=',
    delimited: false,
    data: { kind: 'call', config: headerCall(' to=') },
  },
  { literal: '<|start|>assistant', delimited: false, data: { kind: 'start' } },
  // Channels whose message is the answer: their headers are dropped, the message is text.
  ...[
    '<|channel|>final<|message|>',
    '<|channel|>commentary<|message|>',
    '<|end|>',
    '<|return|>',
    '<|call|>',
  ].map((literal) => ({ literal, delimited: false, data: { kind: 'markup' } as const })),
  // What is left when the server strips special tokens (`<|constrain|>json<|message|>` → ` json`).
  {
    literal: 'commentary to=functions.',
    delimited: false,
    data: {
      kind: 'call',
      config: {
        terminator: ' json',
        readName: bareName,
        maxLength: 128,
        json: { speculative: true },
      },
    },
  },
  { literal: '\nanalysis', delimited: false, data: { kind: 'stripped-analysis' } },
  ...SPACED_OPENERS,
];

/**
 * After `<|start|>assistant`: white space begins a role header with its recipient
 * (`<|start|>assistant to=functions.NAME<|channel|>commentary json<|message|>{…}`); anything else
 * means the token is framing, dropped, and the channel that follows is read as usual.
 */
class StartBody implements CallBody {
  private delegate: CallBody | undefined;
  private readonly context: CallContext;

  constructor(context: CallContext) {
    this.context = context;
  }

  get leftover(): string {
    return this.delegate?.leftover ?? '';
  }

  write(text: string, start: number, end: number): number {
    if (this.delegate) return this.delegate.write(text, start, end);
    if (!isWhiteSpace(text.charCodeAt(start))) {
      this.context.settle({ kind: 'markup' });
      return start;
    }
    this.delegate = namedJsonBody(this.context, ROLE_HEADER_CALL);
    return this.delegate.write(text, start, end);
  }

  finish(interrupted: boolean): void {
    if (this.delegate) this.delegate.finish(interrupted);
    else this.context.settle({ kind: 'markup' });
  }

  abandon(): void {
    this.delegate?.abandon();
  }
}

/**
 * OpenAI's gpt-oss, in the harmony format: `<|channel|>commentary to=functions.NAME
 * <|constrain|>json<|message|>{…}<|call|>`, the `analysis` channel as reasoning, the `final`
 * channel's message as the answer; also what remains when a server strips the special tokens.
 */
export function gptOssProtocol(): ToolCallProtocol {
  return defineProtocol<HarmonyOpener>({
    name: 'gpt-oss',
    grammar: {
      reasoningTags: HARMONY_THINK_TAGS,
      callOpeners: () => OPENERS,
      openCall: (opener, context) => {
        switch (opener.kind) {
          case 'markup':
            return new MarkupBody(context);
          case 'start':
            return new StartBody(context);
          case 'stripped-analysis':
            return new StrippedAnalysisBody(context);
          case 'call':
            return namedJsonBody(context, opener.config);
          case 'spaced':
            return new SpacedHeaderBody(context, context.callLength, opener.routes);
        }
      },
    },
    formatTools: formatGptOssTools,
    formatToolCall: formatGptOssToolCall,
    formatToolResponse: formatGptOssToolResponse,
  });
}

export const gptOssFormat: FormatEntry = {
  name: 'gpt-oss',
  aliases: ['harmony', 'gpt_oss', 'openai-harmony'],
  families: 'gpt-oss 20b/120b (OpenAI harmony format)',
  example:
    '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Oslo"}<|call|>',
  create: () => gptOssProtocol(),
  models: [/gpt-oss/, /gpt_oss/],
  agent: CALLS_RUN_TOGETHER,
  toolNamesIn: (text) => [
    ...new Set([...text.matchAll(/\bto=functions\.([^\s<>{}]+)/g)].map((match) => match[1]!)),
  ],
};
