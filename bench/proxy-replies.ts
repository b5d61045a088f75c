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

/**
 * `count` replies alternating between the formats, each a few sentences and one call (every
 * fifth two, as parallel calls), the same for a given seed.
 */
export function scriptedReplies(count: number, seed: number): ScriptedReply[] {
  const formats = Object.keys(REPLY_FORMATS) as ReplyFormat[];
  const replies: ScriptedReply[] = [];
  for (let index = 0; index < count; index++) {
    const random = seededRandom(seed + index);
    const format = formats[index % formats.length]!;
    const protocol = protocolByName(format);
    const calls = [benchCall(random, index)];
    if (index % 5 === 4) calls.push(benchCall(random, index + count));
    const said = prose(random, between(random, 60, 240));
    const text = `${said}\n\n${protocol.formatToolCall(calls)}`;
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

/** The words in the user message that name the reply the upstream is to send. */
const REPLY_MARK = 'bench reply #';

/** The chat completions request a client sends for a reply: its tools, streamed. */
export function chatRequestBody(reply: ScriptedReply): string {
  return JSON.stringify({
    model: reply.model,
    stream: true,
    messages: [
      { role: 'system', content: 'You are a coding agent. Use the tools to change the project.' },
      {
        role: 'user',
        content: `Make the change described in ${REPLY_MARK}${reply.index}, then run the tests.`,
      },
    ],
    tools: BENCH_TOOLS.map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
    })),
    tool_choice: 'auto',
    temperature: 0.2,
  });
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
    if (message?.role !== 'user' || typeof message.content !== 'string') continue;
    const start = message.content.lastIndexOf(REPLY_MARK);
    if (start < 0) return undefined;
    const digits = /^\d+/.exec(message.content.slice(start + REPLY_MARK.length));
    return digits ? Number(digits[0]) : undefined;
  }
  return undefined;
}
