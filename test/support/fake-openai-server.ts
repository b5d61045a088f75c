import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeServer {
  readonly baseURL: string;
  /** The JSON bodies of the chat requests received, in order. */
  readonly requests: Record<string, unknown>[];
  close(): Promise<void>;
}

export interface FakeServerOptions {
  /** What the model writes, one entry per request; or a function of the request. */
  readonly turns: readonly string[] | ((body: Record<string, unknown>, index: number) => string);
  /** Characters per streamed chunk. Default 5. */
  readonly chunkSize?: number;
  /** Pause between streamed chunks, in ms. Default 0. */
  readonly chunkDelayMs?: number;
  /**
   * Awaited before each streamed chunk with the turn's index and the text sent so far: a test
   * holds the stream at a point until what it waits for has happened (no race with the clock).
   */
  readonly beforeChunk?: (turn: number, sent: string) => Promise<void> | void;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A text-only OpenAI-compatible chat server on loopback, as Ollama, vLLM or llama.cpp answer
 * without native tools: streamed (SSE) or whole. Test peer for the CLI, middleware and server.
 */
export async function startFakeOpenAIServer(options: FakeServerOptions): Promise<FakeServer> {
  const requests: Record<string, unknown>[] = [];
  const chunkSize = options.chunkSize ?? 5;
  const server: Server = createServer(async (request, response) => {
    if (request.method !== 'POST' || !request.url?.endsWith('/chat/completions')) {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: `no route ${request.url}` } }));
      return;
    }
    const body = JSON.parse(await readBody(request)) as Record<string, unknown>;
    const index = requests.length;
    requests.push(body);
    const text =
      typeof options.turns === 'function' ? options.turns(body, index) : options.turns[index];
    if (text === undefined) {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: `no scripted turn ${index + 1}` } }));
      return;
    }
    const id = `chatcmpl-${index}`;
    const created = Math.floor(Date.now() / 1000);
    const usage = { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 };
    if (!body.stream) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          id,
          object: 'chat.completion',
          created,
          model: body.model,
          choices: [
            { index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' },
          ],
          usage,
        }),
      );
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (payload: unknown) => response.write(`data: ${JSON.stringify(payload)}\n\n`);
    const chunk = (delta: Record<string, unknown>, finish: string | null) => ({
      id,
      object: 'chat.completion.chunk',
      created,
      model: body.model,
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
    send(chunk({ role: 'assistant', content: '' }, null));
    for (let start = 0; start < text.length; start += chunkSize) {
      if (response.destroyed) return;
      if (options.chunkDelayMs) await new Promise((r) => setTimeout(r, options.chunkDelayMs));
      await options.beforeChunk?.(index, text.slice(0, start));
      if (response.destroyed) return;
      send(chunk({ content: text.slice(start, start + chunkSize) }, null));
    }
    send({ ...chunk({}, 'stop'), usage });
    response.end('data: [DONE]\n\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
