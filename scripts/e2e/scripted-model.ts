/**
 * A scripted text-only model behind an OpenAI-compatible chat completions API, for the end-to-end
 * runs of real agent programs through `toolwire proxy` (scripts/e2e/codex.ts, claude-code.ts).
 *
 * It plays a model with no tool support of its own: it reads the tools from the system text the
 * proxy rendered (hermes JSON signatures or qwen3-coder `<function>` blocks), and
 * - first writes, in that format's markup, a call to the client's shell tool (Codex's
 *   `exec_command` / `shell`…, Claude Code's `Bash`) running `echo MARKER > marker.txt && cat
 *   marker.txt`;
 * - once a user message (the proxy's rendering of the tool result) holds the marker, answers with
 *   a final text naming it;
 * - answers any request whose prompt has no shell tool (title or topic side requests) with "OK.".
 * Every request it receives is appended to a JSON-lines log with the reply it gave.
 *
 * Standalone: `node scripts/e2e/scripted-model.ts [--port 0] [--log FILE] [--marker TEXT]`.
 */
import { appendFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';

export type ScriptedFormat = 'hermes' | 'qwen3-coder';

export interface ScriptedModelOptions {
  /** The text the shell command writes; the final answer names it. */
  marker: string;
  /** JSON-lines file every request (and the reply given) is appended to. */
  logFile: string;
  /** The markup calls are written in; detected from the prompt when absent. */
  format?: ScriptedFormat;
  port?: number;
}

export interface ScriptedModel {
  /** `http://127.0.0.1:PORT/v1` */
  baseUrl: string;
  /** What each chat completions request was answered with, in order. */
  replies: readonly ScriptedReply[];
  close(): Promise<void>;
}

export interface ScriptedReply {
  kind: 'call' | 'final' | 'no-marker' | 'plain';
  format: ScriptedFormat;
  tool?: string;
  text: string;
}

interface ToolSignature {
  name: string;
  /** Parameter name → its JSON Schema `type` (as text; absent when the prompt gives none). */
  parameters: Map<string, string>;
}

/** Shell tools agent programs declare, the most specific first. */
const SHELL_TOOL_NAMES = [
  'Bash',
  'exec_command',
  'shell_command',
  'shell',
  'local_shell',
  'container.exec',
];

const QWEN3_CODER_PROMPT_SIGN = '<function=example_function_name>';

type ChatMessage = { role?: unknown; content?: unknown };

function messageText(message: ChatMessage): string {
  const { content } = message;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) =>
      typeof part === 'object' && part !== null && typeof part.text === 'string' ? part.text : '',
    )
    .join('');
}

/** Each `<tools>…</tools>` section of the text, the tags excluded. */
function toolSections(text: string): string[] {
  const sections: string[] = [];
  let from = 0;
  for (;;) {
    const start = text.indexOf('<tools>\n', from);
    if (start < 0) return sections;
    const end = text.indexOf('\n</tools>', start);
    if (end < 0) return sections;
    sections.push(text.slice(start + '<tools>\n'.length, end));
    from = end;
  }
}

/** Hermes lists one OpenAI tool declaration per line as JSON. */
function hermesTools(section: string): ToolSignature[] {
  const tools: ToolSignature[] = [];
  for (const line of section.split('\n')) {
    let declaration: unknown;
    try {
      declaration = JSON.parse(line);
    } catch {
      continue;
    }
    const fn = (declaration as { function?: { name?: unknown; parameters?: unknown } })?.function;
    if (typeof fn?.name !== 'string') continue;
    const parameters = new Map<string, string>();
    const properties = (fn.parameters as { properties?: Record<string, { type?: unknown }> })
      ?.properties;
    for (const [name, schema] of Object.entries(properties ?? {})) {
      parameters.set(name, typeof schema?.type === 'string' ? schema.type : '');
    }
    tools.push({ name: fn.name, parameters });
  }
  return tools;
}

/** The text between `open` and the next `close` at or after `from`, and where it ends. */
function between(text: string, open: string, close: string, from: number) {
  const start = text.indexOf(open, from);
  if (start < 0) return undefined;
  const end = text.indexOf(close, start + open.length);
  if (end < 0) return undefined;
  return { value: text.slice(start + open.length, end), start, end: end + close.length };
}

/** Qwen3-Coder lists `<function>\n<name>N</name>…<parameters>\n<parameter>\n<name>P</name>\n<type>T</type>…`. */
function qwen3CoderTools(section: string): ToolSignature[] {
  const tools: ToolSignature[] = [];
  let from = 0;
  for (;;) {
    const block = between(section, '<function>\n', '\n</parameters>\n</function>', from);
    if (!block) return tools;
    from = block.end;
    const name = between(block.value, '<name>', '</name>', 0);
    if (!name) continue;
    const parameters = new Map<string, string>();
    let at = 0;
    for (;;) {
      const parameter = between(block.value, '<parameter>\n', '\n</parameter>', at);
      if (!parameter) break;
      at = parameter.end;
      const parameterName = between(parameter.value, '<name>', '</name>', 0);
      if (!parameterName) continue;
      const type = between(parameter.value, '\n<type>', '</type>', 0);
      parameters.set(parameterName.value, type?.value ?? '');
    }
    tools.push({ name: name.value, parameters });
  }
}

function detectFormat(systemText: string): ScriptedFormat {
  return systemText.includes(QWEN3_CODER_PROMPT_SIGN) ? 'qwen3-coder' : 'hermes';
}

export function toolsInPrompt(systemText: string, format: ScriptedFormat): ToolSignature[] {
  const read = format === 'hermes' ? hermesTools : qwen3CoderTools;
  return toolSections(systemText).flatMap(read);
}

function shellTool(tools: readonly ToolSignature[]): ToolSignature | undefined {
  for (const name of SHELL_TOOL_NAMES) {
    const tool = tools.find((candidate) => candidate.name === name);
    if (tool) return tool;
  }
  return undefined;
}

/** Arguments for the shell tool, shaped by its parameters (a string or an argv array). */
function shellArguments(tool: ToolSignature, command: string): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  if (tool.parameters.has('cmd')) args.cmd = command;
  else if (tool.parameters.get('command') === 'array') args.command = ['bash', '-lc', command];
  else args.command = command;
  if (tool.parameters.has('description')) args.description = 'Write the toolwire e2e marker file';
  return args;
}

function writeCall(format: ScriptedFormat, name: string, args: Record<string, unknown>): string {
  if (format === 'hermes') {
    return `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;
  }
  const parameters = Object.entries(args)
    .map(([key, value]) => {
      const text = typeof value === 'string' ? value : JSON.stringify(value);
      return `<parameter=${key}>\n${text}\n</parameter>\n`;
    })
    .join('');
  return `<tool_call>\n<function=${name}>\n${parameters}</function>\n</tool_call>`;
}

export function markerCommand(marker: string): string {
  return `echo ${marker} > marker.txt && cat marker.txt`;
}

/** The scripted model's whole reply to one conversation. */
export function scriptedReply(
  messages: readonly ChatMessage[],
  marker: string,
  forcedFormat?: ScriptedFormat,
): ScriptedReply {
  const systemText = messages
    .filter((message) => message.role === 'system')
    .map(messageText)
    .join('\n');
  const format = forcedFormat ?? detectFormat(systemText);
  const tool = shellTool(toolsInPrompt(systemText, format));
  if (!tool) return { kind: 'plain', format, text: 'OK.' };
  const resultSeen = messages.some(
    (message) => message.role === 'user' && messageText(message).includes(marker),
  );
  if (resultSeen) {
    return { kind: 'final', format, tool: tool.name, text: `Done: marker.txt holds ${marker}.` };
  }
  const calledBefore = messages.some(
    (message) => message.role === 'assistant' && messageText(message).includes(marker),
  );
  if (calledBefore) {
    // The call went out but its result never came back with the marker: say so, do not loop.
    return {
      kind: 'no-marker',
      format,
      tool: tool.name,
      text: 'The command ran, but its result did not hold the marker.',
    };
  }
  const call = writeCall(format, tool.name, shellArguments(tool, markerCommand(marker)));
  return {
    kind: 'call',
    format,
    tool: tool.name,
    text: `I will write the marker file with ${tool.name}.\n\n${call}`,
  };
}

/** The text in a few pieces, so the proxy parses a call across chunk boundaries. */
function pieces(text: string): string[] {
  const size = Math.max(1, Math.ceil(text.length / 7));
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function sendJson(response: ServerResponse, status: number, value: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(value));
}

function answerChat(
  response: ServerResponse,
  body: Record<string, unknown>,
  reply: ScriptedReply,
  sequence: number,
): void {
  const id = `chatcmpl-e2e-${sequence}`;
  const model = typeof body.model === 'string' ? body.model : 'scripted';
  const created = Math.floor(Date.now() / 1000);
  const promptTokens = Math.ceil(JSON.stringify(body.messages ?? []).length / 4);
  const completionTokens = Math.ceil(reply.text.length / 4);
  const usage = {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
  };
  if (body.stream !== true) {
    sendJson(response, 200, {
      id,
      object: 'chat.completion',
      created,
      model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: reply.text },
          finish_reason: 'stop',
        },
      ],
      usage,
    });
    return;
  }
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, ...extra })}\n\n`;
  response.write(chunk([{ index: 0, delta: { role: 'assistant', content: '' } }]));
  for (const piece of pieces(reply.text)) {
    response.write(chunk([{ index: 0, delta: { content: piece }, finish_reason: null }]));
  }
  response.write(chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]));
  const streamOptions = body.stream_options as { include_usage?: unknown } | undefined;
  if (streamOptions?.include_usage === true) response.write(chunk([], { usage }));
  response.end('data: [DONE]\n\n');
}

export async function startScriptedModel(options: ScriptedModelOptions): Promise<ScriptedModel> {
  const replies: ScriptedReply[] = [];
  let sequence = 0;
  const log = (entry: Record<string, unknown>) =>
    appendFileSync(
      options.logFile,
      `${JSON.stringify({ at: new Date().toISOString(), ...entry })}\n`,
    );

  const server = createServer(async (request, response) => {
    const text = await readBody(request);
    const path = (request.url ?? '/').split('?')[0];
    if (request.method === 'GET' && path === '/v1/models') {
      log({ method: request.method, path });
      sendJson(response, 200, {
        object: 'list',
        data: [{ id: 'scripted', object: 'model', created: 0, owned_by: 'toolwire-e2e' }],
      });
      return;
    }
    if (request.method !== 'POST' || path !== '/v1/chat/completions') {
      log({ method: request.method, path, body: text, status: 404 });
      sendJson(response, 404, { error: { message: `no route ${request.method} ${path}` } });
      return;
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(text);
    } catch {
      log({ method: request.method, path, body: text, status: 400 });
      sendJson(response, 400, { error: { message: 'body is not JSON' } });
      return;
    }
    sequence += 1;
    const messages = Array.isArray(body.messages) ? (body.messages as ChatMessage[]) : [];
    const reply = scriptedReply(messages, options.marker, options.format);
    replies.push(reply);
    log({ method: request.method, path, request: sequence, body, reply });
    answerChat(response, body, reply, sequence);
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    replies,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '0' },
      log: { type: 'string', default: 'scripted-model.jsonl' },
      marker: { type: 'string', default: `toolwire-e2e-${process.pid}` },
      format: { type: 'string' },
    },
  });
  const format = values.format as ScriptedFormat | undefined;
  const model = await startScriptedModel({
    marker: values.marker,
    logFile: values.log,
    port: Number(values.port),
    ...(format ? { format } : {}),
  });
  console.log(`scripted model: listening on ${model.baseUrl} (marker ${values.marker})`);
}
