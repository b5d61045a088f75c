/**
 * The proxy bench's model server: an OpenAI-compatible `POST /v1/chat/completions` on loopback
 * that streams the scripted reply a request names, one token per Server-Sent Event, as vLLM or
 * llama.cpp's server do. Its events are encoded once at start, so its own cost stays small and
 * the same for every side measured.
 *
 * Pace: 0 writes each token on its own turn of the event loop (every token is a write of its own,
 * as from a real server, but nothing waits); more than 0 sends a token every that many
 * milliseconds, a model's real pace, caught up when a timer fires late (the long replies only:
 * the probes' short ones come unpaced).
 *
 * A request that is not streamed (`stream` not true) gets the whole reply as one chat completion.
 *
 * Child: node bench/proxy-upstream.ts <reply set shape as JSON> (see `benchReplySet`), with an
 * IPC channel: sends
 * `{type:'ready', url}`, takes `{type:'pace', ms}` (answered `{type:'pace', ms}`).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import {
  benchReplySet,
  type ReplySetShape,
  replyRanges,
  requestedReply,
  type ScriptedReply,
} from './proxy-replies.ts';

export interface BenchUpstream {
  /** Base URL, `http://127.0.0.1:PORT/v1`. */
  readonly url: string;
  /** Milliseconds between tokens; 0: none. */
  pace: number;
  close(): Promise<void>;
}

const data = (value: unknown): string => `data: ${JSON.stringify(value)}\n\n`;

/** A reply's stream as its server writes it: role, one event per token, the finish, [DONE]. */
export function replyEvents(reply: ScriptedReply): string[] {
  const base = {
    id: `chatcmpl-bench-${reply.index}`,
    object: 'chat.completion.chunk',
    created: 1,
    model: reply.model,
  };
  const choice = (delta: object, finish: string | null) => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
  return [
    data(choice({ role: 'assistant', content: '' }, null)),
    ...reply.tokens.map((token) => data(choice({ content: token }, null))),
    data(choice({}, 'stop')),
    'data: [DONE]\n\n',
  ];
}

/** A reply as its server answers a request that is not streamed: one chat completion. */
export function replyJson(reply: ScriptedReply): string {
  return JSON.stringify({
    id: `chatcmpl-bench-${reply.index}`,
    object: 'chat.completion',
    created: 1,
    model: reply.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: reply.text },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: {
      prompt_tokens: 400,
      completion_tokens: reply.tokens.length,
      total_tokens: 400 + reply.tokens.length,
    },
  });
}

async function readBody(request: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

function failWith(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ error: { message, type: 'invalid_request_error' } }));
}

/**
 * Starts the server on a free loopback port. Replies numbered `pacedBelow` or more (the probes'
 * short ones) always come unpaced.
 */
export async function startBenchUpstream(
  replies: readonly ScriptedReply[],
  pace = 0,
  pacedBelow = Number.POSITIVE_INFINITY,
): Promise<BenchUpstream> {
  // Indexed by the reply's own number (probe replies come after the long ones).
  const events: string[][] = [];
  const wholes: Buffer[] = [];
  for (const reply of replies) {
    events[reply.index] = replyEvents(reply);
    wholes[reply.index] = Buffer.from(replyJson(reply));
  }
  const state = { pace };
  const server: Server = createServer(async (request, response) => {
    if (request.method !== 'POST' || request.url !== '/v1/chat/completions') {
      failWith(response, 404, `no route ${request.method} ${request.url}`);
      return;
    }
    let index: number | undefined;
    let streamed = false;
    try {
      const body = JSON.parse(await readBody(request));
      index = requestedReply(body);
      streamed = body?.stream === true;
    } catch {
      index = undefined;
    }
    const stream = index === undefined ? undefined : events[index];
    if (!stream) {
      failWith(response, 400, 'the request names no scripted reply');
      return;
    }
    if (!streamed) {
      // A whole reply is written at once, pace or not: a server sends it when it is done.
      const whole = wholes[index!]!;
      response.writeHead(200, {
        'content-type': 'application/json',
        'content-length': whole.byteLength,
      });
      response.end(whole);
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    let gone = false;
    response.on('close', () => {
      gone = true;
    });
    const waitMs = index! < pacedBelow ? state.pace : 0;
    const begun = performance.now();
    for (const [at, event] of stream.entries()) {
      if (gone) return;
      // The role event goes out at once, as a server sends it when the first token is ready.
      // Paced, token `at` is due `at` paces after the start: a timer that fires late is caught up
      // (the tokens due go out together), so a reply takes its length times the pace however
      // busy the machine is, and the load a side meets is the rate asked.
      if (at > 0 && waitMs === 0) await nextTurn();
      if (at > 0 && waitMs > 0) {
        const early = begun + at * waitMs - performance.now();
        if (early > 0) await sleep(early);
      }
      response.write(event);
    }
    response.end();
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    get pace() {
      return state.pace;
    },
    set pace(ms: number) {
      state.pace = ms;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

if (import.meta.main) {
  const shape = JSON.parse(process.argv[2] ?? 'null') as ReplySetShape | null;
  if (!process.send || !Number.isInteger(shape?.count) || !Number.isInteger(shape?.seed))
    throw new Error(
      'usage (as a child with IPC): node bench/proxy-upstream.ts <reply set shape as JSON>',
    );
  const upstream = await startBenchUpstream(
    benchReplySet(shape!),
    0,
    replyRanges(shape!).probes.from,
  );
  process.on('message', (message: { type?: string; ms?: number }) => {
    if (message.type === 'pace' && typeof message.ms === 'number') {
      upstream.pace = message.ms;
      process.send!({ type: 'pace', ms: message.ms });
    }
  });
  process.on('disconnect', () => {
    void upstream.close().then(() => process.exit(0));
  });
  process.send({ type: 'ready', url: upstream.url });
}
