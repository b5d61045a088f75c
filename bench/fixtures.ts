import type { ToolCallProtocol, ToolDefinition } from '../src/index.ts';

/** mulberry32: tiny, fast and good enough to make fixtures repeatable from a seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Random = () => number;

function pick<T>(random: Random, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

function between(random: Random, low: number, high: number): number {
  return low + Math.floor(random() * (high - low + 1));
}

export const weatherTool: ToolDefinition = {
  name: 'get_weather',
  description: 'Current weather for a city',
  inputSchema: {
    type: 'object',
    properties: {
      city: { type: 'string' },
      days: { type: 'integer' },
      unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
    },
    required: ['city'],
    additionalProperties: false,
  },
};

export const writeFileTool: ToolDefinition = {
  name: 'write_file',
  description: 'Write a file to disk, replacing it',
  inputSchema: {
    type: 'object',
    properties: { path: { type: 'string' }, content: { type: 'string' } },
    required: ['path', 'content'],
    additionalProperties: false,
  },
};

export const searchTool: ToolDefinition = {
  name: 'search',
  description: 'Search the code base',
  inputSchema: {
    type: 'object',
    properties: { query: { type: 'string' }, allow_tests: { type: 'boolean' } },
    required: ['query'],
    additionalProperties: false,
  },
};

export const completionTool: ToolDefinition = {
  name: 'attempt_completion',
  description: 'Report the finished task',
  inputSchema: {
    type: 'object',
    properties: { result: { type: 'string' } },
    required: ['result'],
    additionalProperties: false,
  },
};

export const TOOLS: readonly ToolDefinition[] = [
  weatherTool,
  writeFileTool,
  searchTool,
  completionTool,
];

const WORDS = (
  'the a model tool call file value stream parser chunk token output input text result ' +
  'weather city search query function module test build config error buffer schema ' +
  'because then when while after before with from into over under each every some ' +
  'quick careful simple small large fast slow new old first last next'
).split(' ');

const CITIES = ['Paris', 'Seoul', 'New York', 'São Paulo', 'Zürich', 'Cape Town', 'Oslo', 'Lima'];
const EXTENSIONS = ['ts', 'md', 'py', 'json', 'txt'];

function sentence(random: Random): string {
  const words: string[] = [];
  const count = between(random, 6, 18);
  for (let index = 0; index < count; index++) words.push(pick(random, WORDS));
  const first = words[0]!;
  words[0] = first[0]!.toUpperCase() + first.slice(1);
  // Now and then a comparison or inline markup, so scanners meet stray `<` in prose.
  if (random() < 0.1) words.push(pick(random, ['(x < y)', '`<div>`', 'a -> b', '&&']));
  return words.join(' ') + pick(random, ['.', '.', '.', '?', '!', ':']);
}

/** Prose of about `chars` characters: sentences, paragraphs, a list now and then. */
export function prose(random: Random, chars: number): string {
  let out = '';
  while (out.length < chars) {
    out += random() < 0.08 ? `\n- ${sentence(random)}` : ` ${sentence(random)}`;
    if (random() < 0.15) out += '\n\n';
  }
  return out.slice(0, Math.max(chars, 1)).trim() || 'Ok.';
}

const CODE_LINES = [
  'export function add(a: number, b: number): number {',
  '  return a + b;',
  '}',
  'if (left < right && ready) {',
  '  queue.push({ id: next++, name: "item" });',
  '} else {',
  "  console.log('done: <' + count + '>');",
  'const total = items.reduce((sum, item) => sum + item.price, 0);',
  '// keep the cache warm between runs',
  'for (const [key, value] of map) out[key] = value;',
  '  throw new Error("bad input: " + input);',
  'def handler(event, context):',
  '    return {"status": 200, "body": json.dumps(event)}',
  '',
];

/** Code-like lines: quotes, `<`, `&`, braces and blank lines, as files written by agents have. */
export function codeText(random: Random, chars: number): string {
  const lines: string[] = [];
  let length = 0;
  while (length < chars) {
    const line = random() < 0.2 ? sentence(random) : pick(random, CODE_LINES);
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join('\n').slice(0, chars);
}

export interface FixtureCall {
  readonly toolName: string;
  readonly input: Record<string, unknown>;
}

function randomCall(random: Random, index: number, contentChars: number): FixtureCall {
  const kind = random();
  if (kind < 0.35) {
    const input: Record<string, unknown> = { city: pick(random, CITIES) };
    if (random() < 0.7) input.days = between(random, 1, 14);
    if (random() < 0.7) input.unit = pick(random, ['celsius', 'fahrenheit']);
    return { toolName: 'get_weather', input };
  }
  if (kind < 0.65) {
    const content = codeText(random, between(random, contentChars / 2, contentChars * 1.5));
    // Files usually end with a newline; half do here, so both XML renderings occur.
    const ending = random() < 0.5 ? '\n' : '';
    return {
      toolName: 'write_file',
      input: {
        path: `src/module_${index}/file_${between(random, 1, 99)}.${pick(random, EXTENSIONS)}`,
        content: content + ending,
      },
    };
  }
  if (kind < 0.9) {
    const input: Record<string, unknown> = {
      query: `${pick(random, WORDS)} ${pick(random, WORDS)} ${pick(random, WORDS)}`,
    };
    if (random() < 0.6) input.allow_tests = random() < 0.5;
    return { toolName: 'search', input };
  }
  return {
    toolName: 'attempt_completion',
    input: { result: prose(random, between(random, 40, 200)) },
  };
}

/** Calls and the output a model would have written for them in one protocol's syntax. */
export interface ModelOutput {
  readonly text: string;
  readonly calls: readonly FixtureCall[];
}

/**
 * `calls` tool calls between prose, about `targetChars` long. The calls depend only on the seed,
 * so every protocol renders the same calls; prose fills the remaining space.
 */
export function modelOutput(
  protocol: ToolCallProtocol,
  options: { calls: number; targetChars: number; seed: number },
): ModelOutput {
  const random = seededRandom(options.seed);
  // About 40% of the output is write_file content, the rest prose and small calls.
  const contentChars = Math.round((options.targetChars * 0.4) / (options.calls * 0.3));
  const calls: FixtureCall[] = [];
  for (let index = 0; index < options.calls; index++)
    calls.push(randomCall(random, index, contentChars));
  const rendered = calls.map((call) => protocol.formatToolCall(call));
  const callChars = rendered.reduce((sum, text) => sum + text.length, 0);
  const gap = Math.max(20, (options.targetChars - callChars) / (options.calls + 1));
  const proseRandom = seededRandom(options.seed + 1);
  const parts: string[] = [];
  for (const text of rendered) {
    parts.push(prose(proseRandom, between(proseRandom, gap * 0.5, gap * 1.5)), '\n\n', text, '\n');
  }
  parts.push(prose(proseRandom, gap));
  return { text: parts.join(''), calls };
}

/** One write_file call whose content is `contentChars` long, with a sentence either side. */
export function largeArgumentOutput(
  protocol: ToolCallProtocol,
  contentChars: number,
  seed: number,
): ModelOutput {
  const random = seededRandom(seed);
  const call: FixtureCall = {
    toolName: 'write_file',
    input: { path: 'src/generated/big.ts', content: codeText(random, contentChars) },
  };
  const text = `I will write the generated module now.\n\n${protocol.formatToolCall(call)}\n\nDone.`;
  return { text, calls: [call] };
}

/** `text` in pieces of `size` characters. */
export function chunksOf(text: string, size: number): string[] {
  const chunks: string[] = [];
  for (let start = 0; start < text.length; start += size)
    chunks.push(text.slice(start, start + size));
  return chunks;
}
