import { mkdtempSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createServerApp,
  type RunningServer,
  type ServerApp,
  type ServerAppOptions,
  startServer,
} from '../../src/server/index.ts';
import { createBlockDecoder, type DecodedEvent } from '../../src/stream/index.ts';

export interface TestServer {
  readonly url: string;
  readonly server: ServerApp;
  close(): Promise<void>;
}

/** The app on a real HTTP server on loopback, port chosen by the system. */
export async function startTestServer(options: ServerAppOptions): Promise<TestServer> {
  const server = createServerApp(options);
  const running: RunningServer = await startServer(server, { port: 0, host: '127.0.0.1' });
  return { url: running.url, server, close: () => running.close() };
}

export function postJson(
  url: string,
  body: unknown,
  init: { signal?: AbortSignal; headers?: Record<string, string> } = {},
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...init.headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...(init.signal ? { signal: init.signal } : {}),
  });
}

/** Reads a whole SSE response through the incremental decoder, chunk by chunk as it came. */
export async function decodeResponse(response: Response): Promise<DecodedEvent[]> {
  const decoder = createBlockDecoder();
  const events: DecodedEvent[] = [];
  const reader = response.body!.getReader();
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    events.push(...decoder.push(value));
  }
  events.push(...decoder.end());
  return events;
}

/**
 * Reads a response's events a piece at a time with one decoder: `until` reads until an event
 * satisfies a check, `rest` reads to the end. Both return every event read so far.
 */
export class EventReader {
  readonly events: DecodedEvent[] = [];
  private readonly decoder = createBlockDecoder();
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;

  constructor(response: Response) {
    this.reader = response.body!.getReader();
  }

  async until(check: (event: DecodedEvent) => boolean): Promise<DecodedEvent[]> {
    while (true) {
      const { done, value } = await this.reader.read();
      if (done) throw new Error(`the stream ended first: ${JSON.stringify(this.events)}`);
      const next = this.decoder.push(value);
      this.events.push(...next);
      if (next.some(check)) return this.events;
    }
  }

  async rest(): Promise<DecodedEvent[]> {
    while (true) {
      const { done, value } = await this.reader.read();
      if (done) break;
      this.events.push(...this.decoder.push(value));
    }
    this.events.push(...this.decoder.end());
    return this.events;
  }

  cancel(): Promise<void> {
    return this.reader.cancel();
  }
}

export function ofType<T extends DecodedEvent['type']>(events: readonly DecodedEvent[], type: T) {
  return events.filter((event): event is Extract<DecodedEvent, { type: T }> => event.type === type);
}

/** The concatenated deltas of one kind. */
export function joined(
  events: readonly DecodedEvent[],
  type: 'text-delta' | 'thinking-delta' | 'tool-call-delta',
): string {
  return events
    .map((event) => (event.type === type ? (event as { delta: string }).delta : ''))
    .join('');
}

/** Model turns (the xml format) over `repository()`: a search, a question for the user, the answer. */
export const SEARCH_TURN =
  '<thinking>Find the login code.</thinking>\n<search>\n<query>loginUser</query>\n</search>';
export const ASK_TURN =
  '<ask_user>\n<question>Which file should I explain?</question>\n</ask_user>';
export const ANSWER_TURN =
  '<attempt_completion><result>Login is handled by `loginUser` in login.js.</result></attempt_completion>';

/** A small repository for the code tools. */
export function repository(): string {
  const root = mkdtempSync(join(tmpdir(), 'toolwire-serve-'));
  writeFileSync(
    join(root, 'login.js'),
    'export function loginUser(email, password) {\n  return checkPassword(email, password);\n}\n',
  );
  return root;
}

export async function waitFor(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export async function waitForAsync(
  check: () => Promise<boolean>,
  what: string,
  timeoutMs = 5000,
): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A GET of /api/info over `connect`, addressed to `host` (as a rebinding page would). */
export function statusFor(connect: string, port: number | string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: connect, port, path: '/api/info', headers: { host } },
      (response) => {
        response.resume();
        resolve(response.statusCode!);
      },
    );
    request.on('error', reject);
    request.end();
  });
}
