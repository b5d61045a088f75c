/**
 * How the proxy reaches the model server: Node's own HTTP client over kept-alive connections
 * (the default), or a `fetch` the caller gave. Both answer in one small shape whose body hands
 * over its chunks as they arrive, on the turn each arrives, so a streamed reply is read without
 * a promise, a web stream or a decoder layer per network read.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { urlToHttpOptions } from 'node:url';

/** One request to the model server. */
export interface UpstreamRequest {
  readonly url: string;
  readonly method: 'GET' | 'POST';
  readonly headers: Readonly<Record<string, string>>;
  /** The body's JSON text. */
  readonly body?: string;
  /** Aborts the request and its reply (the client left, the time ran out, the proxy hung up). */
  readonly signal: AbortSignal;
}

/** The model server's answer: its status and headers at once, its body as it comes. */
export interface UpstreamResponse {
  readonly status: number;
  /** A header's value (names in lower case), or undefined. */
  header(name: string): string | undefined;
  readonly body: UpstreamBody;
}

/** A reply's body, handed over chunk by chunk. */
export interface UpstreamBody {
  /**
   * Calls `onChunk` with each chunk, on the turn it arrives; resolves when the body has ended
   * or was cancelled, rejects when it broke off or `onChunk` threw (the body is then cancelled).
   * Called once.
   */
  forEach(onChunk: (chunk: Uint8Array) => void): Promise<void>;
  /** Stops reading until `resume` (the client reads slower than the model writes). */
  pause(): void;
  resume(): void;
  /** Stops reading for good and closes the connection: nothing more of it is wanted. */
  cancel(): void;
}

export interface UpstreamTransport {
  send(request: UpstreamRequest): Promise<UpstreamResponse>;
  /** Closes the connections kept open. */
  close(): void;
}

/** Most request URLs whose parse is kept (a proxy asks a few: its upstream's paths). */
const MAX_KEPT_URLS = 64;

/** Node's HTTP client, with connections kept alive between requests (one pool per proxy). */
export function nodeTransport(): UpstreamTransport {
  const agents = {
    'http:': new HttpAgent({ keepAlive: true }),
    'https:': new HttpsAgent({ keepAlive: true }),
  };
  // Parsed once per URL, not per request.
  const targets = new Map<string, ReturnType<typeof urlToHttpOptions>>();
  const targetOf = (href: string) => {
    let target = targets.get(href);
    if (!target) {
      if (targets.size >= MAX_KEPT_URLS) targets.clear();
      target = urlToHttpOptions(new URL(href));
      targets.set(href, target);
    }
    return target;
  };
  return {
    send(request) {
      const target = targetOf(request.url);
      const secure = target.protocol === 'https:';
      // Encoded once: its length is the bytes sent.
      const body = request.body === undefined ? undefined : Buffer.from(request.body);
      return new Promise<UpstreamResponse>((resolve, reject) => {
        const sent = (secure ? httpsRequest : httpRequest)(
          {
            ...target,
            method: request.method,
            headers:
              body === undefined
                ? request.headers
                : { ...request.headers, 'content-length': String(body.byteLength) },
            agent: secure ? agents['https:'] : agents['http:'],
            signal: request.signal,
          },
          (reply) => resolve(nodeResponse(reply)),
        );
        sent.once('error', reject);
        sent.end(body);
      });
    },
    close() {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}

function nodeResponse(reply: IncomingMessage): UpstreamResponse {
  return {
    status: reply.statusCode ?? 0,
    header(name) {
      const value = reply.headers[name];
      return Array.isArray(value) ? value.join(', ') : value;
    },
    body: nodeBody(reply),
  };
}

function nodeBody(reply: IncomingMessage): UpstreamBody {
  let cancelled = false;
  let settle: ((error?: unknown) => void) | undefined;
  return {
    forEach(onChunk) {
      return new Promise<void>((resolve, reject) => {
        settle = (error) => {
          if (settle === undefined) return;
          settle = undefined;
          if (error === undefined || cancelled) resolve();
          else reject(error);
        };
        reply.on('data', (chunk: Buffer) => {
          if (settle === undefined) return;
          try {
            onChunk(chunk);
          } catch (error) {
            settle(error);
            cancelled = true;
            reply.destroy();
          }
        });
        reply.once('end', () => settle?.());
        reply.once('error', (error) => settle?.(error));
        reply.once('close', () => {
          // Closed before its end: the connection broke (or was cancelled).
          if (!reply.complete) settle?.(new Error('the connection closed before the reply ended'));
          else settle?.();
        });
        if (cancelled) settle();
      });
    },
    pause: () => reply.pause(),
    resume: () => reply.resume(),
    cancel() {
      cancelled = true;
      settle?.();
      reply.destroy();
    },
  };
}

/** A caller's `fetch` (tests, custom agents), in the same shape. */
export function fetchTransport(fetch: typeof globalThis.fetch): UpstreamTransport {
  return {
    async send(request) {
      const response = await fetch(request.url, {
        method: request.method,
        headers: request.headers,
        ...(request.body === undefined ? {} : { body: request.body }),
        signal: request.signal,
        // As Node's transport: a redirect is the server's answer, never followed with the
        // proxy's key and the prompt to wherever it points.
        redirect: 'manual',
      });
      return {
        status: response.status,
        header: (name) => response.headers.get(name) ?? undefined,
        body: webBody(response.body),
      };
    },
    close() {},
  };
}

function webBody(stream: ReadableStream<Uint8Array> | null): UpstreamBody {
  const reader = stream?.getReader();
  let cancelled = false;
  let paused: Promise<void> | undefined;
  let unpause: (() => void) | undefined;
  const resume = () => {
    paused = undefined;
    unpause?.();
    unpause = undefined;
  };
  return {
    async forEach(onChunk) {
      if (!reader) return;
      try {
        for (;;) {
          if (paused) await paused;
          if (cancelled) return;
          let read: Awaited<ReturnType<typeof reader.read>>;
          try {
            read = await reader.read();
          } catch (error) {
            if (cancelled) return;
            throw error;
          }
          if (read.done || cancelled) return;
          onChunk(read.value);
        }
      } catch (error) {
        cancelled = true;
        reader.cancel().catch(() => {});
        throw error;
      }
    },
    pause() {
      paused ??= new Promise<void>((resolve) => {
        unpause = resolve;
      });
    },
    resume,
    cancel() {
      cancelled = true;
      // A reading waiting on a pause sees the cancel at once.
      resume();
      reader?.cancel().catch(() => {});
    },
  };
}
