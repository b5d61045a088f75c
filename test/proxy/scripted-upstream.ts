import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { UpstreamKind } from '../../src/proxy/upstream-kind.ts';

/** What the scripted model server answers to one chat completions request. */
export interface ScriptedReply {
  /** The model's text. */
  readonly text?: string;
  /** Reasoning the server split off itself (`reasoning_content`). */
  readonly reasoning?: string;
  /** How a streamed reply splits the text (default: pieces of 5 characters). */
  readonly chunks?: readonly string[];
  readonly finishReason?: string | null;
  readonly usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  /** Answer with this status and an OpenAI error body instead. */
  readonly status?: number;
  readonly errorMessage?: string;
  /** Wait this long between streamed chunks. */
  readonly delayMs?: number;
  /** Stop the stream after this many chunks, leaving the connection open until the client leaves. */
  readonly hangAfter?: number;
  /**
   * Hold the stream before sending the chunk of this index until `resume` settles, so a test can
   * see what reached the client while the model server was still in the middle of its reply.
   */
  readonly pauseBeforeChunk?: number;
  readonly resume?: Promise<unknown>;
  /**
   * A reply that never ends, written as fast as the client reads it until the client hangs up
   * (or `ENDLESS_LIMIT` bytes, so a test ends even when nothing stops it): `sse-line` one SSE
   * line, `sse-event` one event of ever more `data:` lines, `sse-text` well-formed events of
   * prose, `json` one JSON reply whose content string never closes.
   */
  readonly endless?: 'sse-line' | 'sse-event' | 'sse-text' | 'json';
  /** Answer with exactly this (status 200), whatever was asked. */
  readonly raw?: { readonly contentType: string; readonly body: string };
}

/** The most an endless reply writes: far past every limit a test sets. */
export const ENDLESS_LIMIT = 64 * 1024 * 1024;

export interface ScriptedOptions {
  /** What `GET /v1/models` answers instead of a JSON list of one model. */
  readonly models?: { readonly contentType: string; readonly body: string };
  /**
   * Answer the GET a server of this kind answers about itself (`PROBE_ANSWERS`), as the proxy's
   * `upstreamKind: 'auto'` asks it; every other GET is a 404.
   */
  readonly kind?: UpstreamKind;
  /** The version that answer says (vLLM's, SGLang's, Ollama's; llama.cpp's build). */
  readonly version?: string;
  /**
   * A chat completions request with any of these body fields is answered with `status` (default
   * 400, as llama.cpp answers a grammar sent with tools) and this message, and not scripted.
   */
  readonly refuseFields?: {
    readonly fields: readonly string[];
    readonly status?: number;
    readonly message?: string;
    /** Refuse only a body this says yes to (one request's grammar, not the field itself). */
    readonly when?: (body: UpstreamBody) => boolean;
  };
  /**
   * While this says true, every request is answered 503 `{"error":{"message":"Loading model"}}`,
   * as llama.cpp's server answers every path while it loads its model.
   */
  readonly loading?: () => boolean;
}

/**
 * What each kind's server answers about itself, in the shape its source gives (the fields
 * src/proxy/upstream-kind.ts checks), with `version` in it:
 * - llama.cpp `GET /props` (tools/server/server-context.cpp, props handler): settings, slots, build;
 * - Ollama `GET /api/version` (server/routes.go): `{version}`;
 * - SGLang `GET /server_info` (python/sglang/srt/entrypoints/http_server.py): the server
 *   arguments with `internal_states` and `version`;
 * - vLLM `GET /version` (vllm/entrypoints/openai/api_server.py `show_version`): `{version}`;
 * - LM Studio `GET /api/v0/models` (lmstudio.ai/docs, REST API v0): a list of models with state.
 */
export function probeAnswer(
  kind: UpstreamKind,
  version: string,
): { readonly path: string; readonly body: unknown } | undefined {
  switch (kind) {
    case 'llama.cpp':
      return {
        path: '/props',
        body: {
          default_generation_settings: { n_ctx: 4096, params: { temperature: 0.8 } },
          total_slots: 1,
          model_path: '/models/scripted.gguf',
          build_info: `b${version}-0123abc`,
        },
      };
    case 'ollama':
      return { path: '/api/version', body: { version } };
    case 'sglang':
      return {
        path: '/server_info',
        body: {
          model_path: 'scripted/model',
          tp_size: 1,
          tool_call_parser: null,
          grammar_backend: 'xgrammar',
          internal_states: [{}],
          version,
        },
      };
    case 'vllm':
      return { path: '/version', body: { version } };
    case 'lmstudio':
      return {
        path: '/api/v0/models',
        body: {
          object: 'list',
          data: [{ id: 'scripted-model', object: 'model', type: 'llm', state: 'loaded' }],
        },
      };
    case 'openai':
      return undefined;
  }
}

/** A version each kind's server could say, for `probeAnswer` when a test names none. */
const DEFAULT_VERSIONS: Record<UpstreamKind, string> = {
  'llama.cpp': '6500',
  ollama: '0.12.6',
  sglang: '0.5.4',
  vllm: '0.12.0',
  lmstudio: '0.3.30',
  openai: '',
};

export interface ScriptedUpstream {
  /** Base URL, `http://127.0.0.1:PORT/v1`. */
  readonly url: string;
  /** Bodies of the chat completions requests received, in order. */
  readonly requests: UpstreamBody[];
  /** Headers of every request received. */
  readonly headers: IncomingMessage['headers'][];
  /** Paths of the GET requests received other than `/v1/models` (a kind's probes), in order. */
  readonly probes: string[];
  /** Replies (streamed or endless) whose client went away before their end. */
  readonly disconnects: number;
  /** Bytes written by endless replies. */
  readonly endlessBytes: number;
  close(): Promise<void>;
}

/** A chat completions request body as the scripted server received it. */
export interface UpstreamBody {
  readonly model: string;
  readonly messages: { readonly role: string; readonly content: unknown }[];
  readonly stream?: boolean;
  readonly stream_options?: { readonly include_usage?: boolean };
  readonly [setting: string]: unknown;
}

export const USAGE = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 };

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

async function readBody(request: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of request) body += chunk;
  return body;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * An OpenAI-compatible model server on loopback that answers each chat completions request with
 * the next scripted reply (or the reply a function picks), streamed or whole as asked, and
 * lists one model.
 */
export async function startScriptedUpstream(
  script: readonly ScriptedReply[] | ((body: UpstreamBody, index: number) => ScriptedReply),
  options: ScriptedOptions = {},
): Promise<ScriptedUpstream> {
  const requests: UpstreamBody[] = [];
  const headers: IncomingMessage['headers'][] = [];
  const probes: string[] = [];
  let answered = 0;
  const probe =
    options.kind === undefined
      ? undefined
      : probeAnswer(options.kind, options.version ?? DEFAULT_VERSIONS[options.kind]);
  let disconnects = 0;
  let endlessBytes = 0;
  /** Writes `head`, then `piece` again and again with back-pressure, until the client leaves. */
  const writeEndlessly = async (
    response: ServerResponse,
    type: string,
    head: string,
    piece: string,
  ) => {
    let closed = false;
    response.on('close', () => {
      if (!response.writableFinished) {
        closed = true;
        disconnects++;
      }
    });
    response.writeHead(200, { 'content-type': type });
    response.write(head);
    while (!closed && endlessBytes < ENDLESS_LIMIT) {
      endlessBytes += piece.length;
      if (!response.write(piece))
        await new Promise((resolve) => {
          response.once('drain', resolve);
          response.once('close', resolve);
        });
    }
    if (!closed) response.end();
  };
  const server: Server = createServer(async (request, response) => {
    headers.push(request.headers);
    const body = await readBody(request);
    if (options.loading?.() === true) {
      if (request.method === 'GET' && request.url !== undefined) probes.push(request.url);
      response.writeHead(503, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { code: 503, message: 'Loading model' } }));
      return;
    }
    if (request.method === 'GET' && request.url === '/v1/models' && options.models) {
      response.writeHead(200, { 'content-type': options.models.contentType });
      response.end(options.models.body);
      return;
    }
    if (request.method === 'GET' && request.url === '/v1/models') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          object: 'list',
          data: [{ id: 'scripted-model', object: 'model', owned_by: 'test' }],
        }),
      );
      return;
    }
    if (request.method === 'GET' && request.url !== undefined) probes.push(request.url);
    if (request.method === 'GET' && probe !== undefined && request.url === probe.path) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(probe.body));
      return;
    }
    if (request.method !== 'POST' || request.url !== '/v1/chat/completions') {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: `no route ${request.url}` } }));
      return;
    }
    const parsed = JSON.parse(body) as UpstreamBody;
    requests.push(parsed);
    const refuse = options.refuseFields;
    if (
      refuse?.fields.some((field) => field in parsed) &&
      (refuse.when === undefined || refuse.when(parsed))
    ) {
      response.writeHead(refuse.status ?? 400, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          error: {
            message: refuse.message ?? 'Cannot use custom grammar constraints with tools.',
            type: 'invalid_request_error',
          },
        }),
      );
      return;
    }
    // A refused request takes no scripted reply: the next one answered gets it.
    const index = answered++;
    const reply =
      typeof script === 'function'
        ? script(parsed, index)
        : (script[index] ?? script[script.length - 1]!);
    if (reply.raw) {
      response.writeHead(200, { 'content-type': reply.raw.contentType });
      response.end(reply.raw.body);
      return;
    }
    const prose = 'and so on, '.repeat(100);
    switch (reply.endless) {
      case 'sse-line':
        return writeEndlessly(
          response,
          'text/event-stream',
          'data: {"choices":[{"index":0,"delta":{"content":"',
          prose,
        );
      case 'sse-event':
        return writeEndlessly(response, 'text/event-stream', '', `data: ${prose}\n`);
      case 'sse-text':
        return writeEndlessly(
          response,
          'text/event-stream',
          '',
          `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: prose } }] })}\n\n`,
        );
      case 'json':
        return writeEndlessly(
          response,
          'application/json',
          '{"choices":[{"index":0,"message":{"role":"assistant","content":"',
          prose,
        );
    }
    if (reply.status !== undefined) {
      response.writeHead(reply.status, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          error: { message: reply.errorMessage ?? 'scripted failure', type: 'server_error' },
        }),
      );
      return;
    }
    const text = reply.text ?? '';
    const finish = reply.finishReason === undefined ? 'stop' : reply.finishReason;
    const id = `chatcmpl-up${index}`;
    const base = { id, object: 'chat.completion.chunk', created: 1, model: parsed.model };
    if (!parsed.stream) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          id,
          object: 'chat.completion',
          created: 1,
          model: parsed.model,
          choices: [
            {
              index: 0,
              message: {
                role: 'assistant',
                content: text,
                ...(reply.reasoning ? { reasoning_content: reply.reasoning } : {}),
              },
              finish_reason: finish,
            },
          ],
          usage: reply.usage ?? USAGE,
        }),
      );
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    let closed = false;
    response.on('close', () => {
      if (!response.writableFinished) {
        closed = true;
        disconnects++;
      }
    });
    const send = (data: unknown) => response.write(`data: ${JSON.stringify(data)}\n\n`);
    send({
      ...base,
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }],
    });
    if (reply.reasoning)
      send({
        ...base,
        choices: [{ index: 0, delta: { reasoning_content: reply.reasoning }, finish_reason: null }],
      });
    const parts = reply.chunks ?? pieces(text, 5);
    for (const [n, part] of parts.entries()) {
      if (reply.hangAfter !== undefined && n >= reply.hangAfter) return;
      if (closed) return;
      if (reply.pauseBeforeChunk === n && reply.resume) await reply.resume.catch(() => {});
      if (closed) return;
      if (reply.delayMs) await sleep(reply.delayMs);
      send({ ...base, choices: [{ index: 0, delta: { content: part }, finish_reason: null }] });
    }
    send({ ...base, choices: [{ index: 0, delta: {}, finish_reason: finish }] });
    if (parsed.stream_options?.include_usage)
      send({ ...base, choices: [], usage: reply.usage ?? USAGE });
    response.end('data: [DONE]\n\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    headers,
    probes,
    get disconnects() {
      return disconnects;
    },
    get endlessBytes() {
      return endlessBytes;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
