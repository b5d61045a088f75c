/**
 * The scripted replies of the proxy bench: what a model writes when asked with tools (a few
 * sentences, then one or two calls in its format, arguments from a few hundred bytes to a few KB),
 * split into token-sized pieces as a model server streams them, and the chat completions request a
 * client sends for each. The upstream, the load generator and the checks all build the same list
 * from the same seed.
 */
import type { ToolDefinition } from '../src/index.ts';
import { protocolByName } from '../src/index.ts';
import {
  codeText,
  type FixtureCall,
  prose,
  searchTool,
  seededRandom,
  writeFileTool,
} from './fixtures.ts';

/** The formats the replies are written in, each with a model id `--protocol model` maps to it. */
export const REPLY_FORMATS = {
  hermes: 'NousResearch/Hermes-3-Llama-3.1-8B',
  'qwen3-coder': 'Qwen/Qwen3-Coder-30B-A3B-Instruct',
} as const;

export type ReplyFormat = keyof typeof REPLY_FORMATS;

const editFileTool: ToolDefinition = {
  name: 'edit_file',
  description: 'Replace exact text in a file',
  inputSchema: {
    type: 'object',
    properties: {
      path: { type: 'string' },
      old_text: { type: 'string' },
      new_text: { type: 'string' },
    },
    required: ['path', 'old_text', 'new_text'],
    additionalProperties: false,
  },
};

const runCommandTool: ToolDefinition = {
  name: 'run_command',
  description: 'Run a shell command in the project folder',
  inputSchema: {
    type: 'object',
    properties: {
      command: { type: 'string' },
      timeout_seconds: { type: 'integer' },
      env: { type: 'object', additionalProperties: { type: 'string' } },
    },
    required: ['command'],
    additionalProperties: false,
  },
};

/** The tools every bench request offers. */
export const BENCH_TOOLS: readonly ToolDefinition[] = [
  writeFileTool,
  editFileTool,
  searchTool,
  runCommandTool,
];

export interface ScriptedReply {
  /** Its place in the list: the request names it, the upstream answers with it. */
  readonly index: number;
  readonly format: ReplyFormat;
  readonly model: string;
  /** The text before the calls. */
  readonly prose: string;
  readonly calls: readonly FixtureCall[];
  /** The whole text the model writes: the prose, then the calls in the format's syntax. */
  readonly text: string;
  /** `text` in the pieces the upstream streams, a token of a few characters each. */
  readonly tokens: readonly string[];
}

type Random = () => number;

function between(random: Random, low: number, high: number): number {
  return low + Math.floor(random() * (high - low + 1));
}

/** Code of about `chars` characters that reads back as written: no edge whitespace. */
function codeOf(random: Random, chars: number): string {
  return codeText(random, chars).trim() || 'return null;';
}

/**
 * One call with arguments of realistic size: mostly a few hundred bytes, now and then a few KB
 * (a whole file written).
 */
function benchCall(random: Random, index: number): FixtureCall {
  const kind = random();
  if (kind < 0.35) {
    const large = random() < 0.3;
    return {
      toolName: 'write_file',
      input: {
        path: `src/feature_${index}/module_${between(random, 1, 40)}.ts`,
        content: `${codeOf(random, large ? between(random, 2000, 4000) : between(random, 300, 900))}\n`,
      },
    };
  }
  if (kind < 0.65)
    return {
      toolName: 'edit_file',
      input: {
        path: `src/feature_${index}/index.ts`,
        old_text: codeOf(random, between(random, 80, 300)),
        new_text: codeOf(random, between(random, 150, 600)),
      },
    };
  if (kind < 0.85)
    return {
      toolName: 'run_command',
      input: {
        command: `npx vitest run test/feature_${index} --reporter=dot`,
        timeout_seconds: between(random, 30, 600),
        env: { CI: '1', NODE_OPTIONS: '--max-old-space-size=4096' },
      },
    };
  return {
    toolName: 'search',
    input: { query: prose(random, between(random, 20, 60)), allow_tests: random() < 0.5 },
  };
}

/** Token-sized pieces: 1 to 6 characters, as a tokenizer's pieces come out of a model server. */
export function tokenPieces(text: string, random: Random): string[] {
  const pieces: string[] = [];
  for (let start = 0; start < text.length; ) {
    const size = between(random, 1, 6);
    pieces.push(text.slice(start, start + size));
    start += size;
  }
  return pieces;
}

/** Characters per token of `tokenPieces`, on average (pieces of 1 to 6). */
const CHARS_PER_TOKEN = 3.5;

/**
 * `count` replies alternating between the formats, each a few sentences and one call (every
 * fifth two, as parallel calls), the same for a given seed. With `tokensPerReply`, the prose is
 * as long as it takes for the whole reply to come to about that many tokens (a model that
 * explains before it calls), never shorter than it would be without.
 */
export function scriptedReplies(
  count: number,
  seed: number,
  tokensPerReply?: number,
): ScriptedReply[] {
  const formats = Object.keys(REPLY_FORMATS) as ReplyFormat[];
  const replies: ScriptedReply[] = [];
  for (let index = 0; index < count; index++) {
    const random = seededRandom(seed + index);
    const format = formats[index % formats.length]!;
    const protocol = protocolByName(format);
    const calls = [benchCall(random, index)];
    if (index % 5 === 4) calls.push(benchCall(random, index + count));
    const callText = protocol.formatToolCall(calls);
    const shortest = between(random, 60, 240);
    const sized =
      tokensPerReply === undefined
        ? shortest
        : Math.max(shortest, Math.round(tokensPerReply * CHARS_PER_TOKEN) - callText.length - 2);
    const said = prose(random, sized);
    const text = `${said}\n\n${callText}`;
    replies.push({
      index,
      format,
      model: REPLY_FORMATS[format],
      prose: said,
      calls,
      text,
      tokens: tokenPieces(text, random),
    });
  }
  return replies;
}

/**
 * Short replies (a sentence, then one small call), numbered after the `after` long ones: what the
 * proxy bench's first-byte probes ask for, so a probe takes a fraction of a second even paced.
 */
export function probeReplies(count: number, seed: number, after: number): ScriptedReply[] {
  const formats = Object.keys(REPLY_FORMATS) as ReplyFormat[];
  return Array.from({ length: count }, (_, at) => {
    const index = after + at;
    const random = seededRandom(seed + index);
    const format = formats[at % formats.length]!;
    const calls: FixtureCall[] = [
      { toolName: 'search', input: { query: `probe ${index}`, allow_tests: at % 2 === 0 } },
    ];
    const said = prose(random, between(random, 10, 30));
    const text = `${said}\n\n${protocolByName(format).formatToolCall(calls)}`;
    return {
      index,
      format,
      model: REPLY_FORMATS[format],
      prose: said,
      calls,
      text,
      tokens: tokenPieces(text, random),
    };
  });
}

/** What the bench's model server knows: how many replies of each kind, and how long. */
export interface ReplySetShape {
  readonly count: number;
  readonly seed: number;
  /** About this many tokens each (0: as short as they come). */
  readonly tokensPerReply: number;
  /**
   * The same `count` replies again (the same calls) at about this many tokens, for the paced
   * streams; 0: none.
   */
  readonly pacedTokensPerReply: number;
  /** Short replies the first-byte probes ask for. */
  readonly probes: number;
}

export interface ReplyRange {
  /** The index of its first reply. */
  readonly from: number;
  readonly count: number;
}

export interface ReplyRanges {
  readonly long: ReplyRange;
  readonly paced: ReplyRange;
  readonly probes: ReplyRange;
}

/** Where each kind of reply is in the set. */
export function replyRanges(shape: ReplySetShape): ReplyRanges {
  const paced = shape.pacedTokensPerReply > 0 ? shape.count : 0;
  return {
    long: { from: 0, count: shape.count },
    paced: { from: shape.count, count: paced },
    probes: { from: shape.count + paced, count: shape.probes },
  };
}

/** The replies numbered from `from` on (their request names them by their number). */
function renumbered(replies: readonly ScriptedReply[], from: number): ScriptedReply[] {
  return replies.map((reply, at) => ({ ...reply, index: from + at }));
}

/**
 * Every reply the bench's model server knows, each at the index it is named by: the long ones,
 * the paced ones, then the probes' short ones (see `replyRanges`).
 */
export function benchReplySet(shape: ReplySetShape): ScriptedReply[] {
  const { count, seed, tokensPerReply, pacedTokensPerReply, probes } = shape;
  const ranges = replyRanges(shape);
  return [
    ...scriptedReplies(count, seed, tokensPerReply > 0 ? tokensPerReply : undefined),
    ...(pacedTokensPerReply > 0
      ? renumbered(scriptedReplies(count, seed, pacedTokensPerReply), ranges.paced.from)
      : []),
    ...probeReplies(probes, seed, ranges.probes.from),
  ];
}

/** The APIs the proxy serves that the bench asks through it. */
export const BENCH_APIS = ['chat', 'messages', 'responses'] as const;
export type BenchApi = (typeof BENCH_APIS)[number];

/** Each API's path under the base URL (`…/v1`). */
export const API_PATHS: Readonly<Record<BenchApi, string>> = {
  chat: '/chat/completions',
  messages: '/messages',
  responses: '/responses',
};

const SYSTEM_TEXT = 'You are a coding agent. Use the tools to change the project.';

function userText(reply: ScriptedReply): string {
  return `Make the change described in ${REPLY_MARK}${reply.index}, then run the tests.`;
}

/**
 * The request a client of `api` sends for a reply: the same system text, user message and tools
 * in that API's shape, streamed or not. Chat completions is also what a pass-through forwards.
 */
export function apiRequestBody(api: BenchApi, reply: ScriptedReply, stream: boolean): string {
  if (api === 'chat') return chatRequestBody(reply, stream);
  if (api === 'messages')
    return JSON.stringify({
      model: reply.model,
      max_tokens: 8192,
      stream,
      system: SYSTEM_TEXT,
      messages: [{ role: 'user', content: userText(reply) }],
      tools: BENCH_TOOLS.map((tool) => ({
        name: tool.name,
        description: tool.description,
        input_schema: tool.inputSchema,
      })),
      tool_choice: { type: 'auto' },
      temperature: 0.2,
    });
  return JSON.stringify({
    model: reply.model,
    stream,
    store: false,
    instructions: SYSTEM_TEXT,
    input: [{ type: 'message', role: 'user', content: userText(reply) }],
    tools: BENCH_TOOLS.map((tool) => ({
      type: 'function',
      name: tool.name,
      description: tool.description,
      parameters: tool.inputSchema,
      strict: false,
    })),
    tool_choice: 'auto',
    temperature: 0.2,
  });
}

/** The words in the user message that name the reply the upstream is to send. */
const REPLY_MARK = 'bench reply #';

/** The chat completions request a client sends for a reply: its tools, streamed unless not. */
export function chatRequestBody(reply: ScriptedReply, stream = true): string {
  return JSON.stringify({
    model: reply.model,
    stream,
    messages: [
      { role: 'system', content: SYSTEM_TEXT },
      { role: 'user', content: userText(reply) },
    ],
    tools: BENCH_TOOLS.map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
    })),
    tool_choice: 'auto',
    temperature: 0.2,
  });
}

/** A message's text: its content string, or its text parts joined. */
function textOf(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  let text = '';
  for (const part of content as { type?: unknown; text?: unknown }[])
    if (part?.type === 'text' && typeof part.text === 'string') text += part.text;
  return text;
}

/**
 * Which reply a request asks for: the number after the mark in its last user message. Both the
 * client's request and the proxy's rendering of it keep that text.
 */
export function requestedReply(body: unknown): number | undefined {
  const messages = (body as { messages?: unknown } | null)?.messages;
  if (!Array.isArray(messages)) return undefined;
  for (let at = messages.length - 1; at >= 0; at--) {
    const message = messages[at] as { role?: unknown; content?: unknown } | null;
    if (message?.role !== 'user') continue;
    const text = textOf(message.content);
    if (text === undefined) continue;
    const start = text.lastIndexOf(REPLY_MARK);
    if (start < 0) return undefined;
    const digits = /^\d+/.exec(text.slice(start + REPLY_MARK.length));
    return digits ? Number(digits[0]) : undefined;
  }
  return undefined;
}
