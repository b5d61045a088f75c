/**
 * The proxy bench's load generator: requests (chat completions, Messages or Responses, streamed
 * or not) sent by a number of concurrent workers over kept-alive connections, each timed to its
 * first byte, its first token and its end, with its body kept for the checks (which run after a
 * batch, outside its timing).
 */
import { Agent, request } from 'node:http';

/** One request to send: where, and which scripted reply it asks for. */
export interface Job {
  readonly side: string;
  /** Base URL, `http://127.0.0.1:PORT/v1`. */
  readonly url: string;
  readonly reply: number;
  /** Under the base URL; default `/chat/completions`. */
  readonly path?: string;
  /** The request body; default the reply's in the `bodies` given to `runJobs`. */
  readonly body?: Buffer;
  /** What the bench makes of the reply: the checks read it by this (default none). */
  readonly tag?: string;
}

export interface Exchange {
  readonly side: string;
  readonly reply: number;
  readonly tag?: string;
  readonly status: number;
  /** From sending the request to the response body's first byte. */
  readonly firstByteMs: number;
  /** To the first byte of the first event carrying text or a call (not the empty role event). */
  readonly firstTokenMs: number;
  readonly totalMs: number;
  readonly body: string;
  /** A network failure; the status and body say what else went wrong. */
  readonly error?: string;
}

/**
 * The first event with something in it: content or reasoning that is not empty, or a call, in
 * any of the APIs (chat completions' `content` and `tool_calls`, Messages' `text` and `tool_use`,
 * Responses' `delta` and `function_call`). Matched on the JSON text as it arrives, so finding it
 * costs the client next to nothing.
 */
const FIRST_TOKEN =
  /"(?:content|reasoning_content|text|delta)":"[^"]|"tool_calls":\[|"type":"(?:tool_use|function_call)"/;

/** A client connection pool that never queues a request for want of a socket. */
export function benchAgent(): Agent {
  return new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
}

/**
 * Closes the pool's idle connections. Called before each batch: a server closes a connection
 * idle past its keep-alive time (5 s for Node's), and a client busy checking the last batch's
 * replies may not have seen that yet, so the next batch's first request on it would be reset.
 */
export function dropIdleConnections(agent: Agent): void {
  for (const sockets of Object.values(agent.freeSockets)) {
    // Out of the pool at once (the agent forgets a closed socket only when it has closed).
    for (const socket of sockets?.splice(0) ?? []) socket.destroy();
  }
}

/** Longest one exchange may take: a reply that never ends fails the run instead of hanging it. */
export const EXCHANGE_TIMEOUT_MS = 30_000;

/** Sends one request (its JSON body given) and times its reply. */
export function exchange(
  agent: Agent,
  job: Job,
  body: Buffer,
  timeoutMs = EXCHANGE_TIMEOUT_MS,
): Promise<Exchange> {
  return new Promise((resolve) => {
    const started = performance.now();
    let settled = false;
    let firstByteMs = Number.NaN;
    let firstTokenMs = Number.NaN;
    let head = '';
    let status = 0;
    const parts: Buffer[] = [];
    const finish = (error?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({
        side: job.side,
        reply: job.reply,
        ...(job.tag === undefined ? {} : { tag: job.tag }),
        status,
        firstByteMs,
        firstTokenMs,
        totalMs: performance.now() - started,
        body: Buffer.concat(parts).toString('utf8'),
        ...(error === undefined ? {} : { error }),
      });
    };
    const outgoing = request(
      `${job.url}${job.path ?? '/chat/completions'}`,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': body.byteLength,
          accept: 'application/json, text/event-stream',
        },
      },
      (response) => {
        status = response.statusCode ?? 0;
        response.on('data', (part: Buffer) => {
          const now = performance.now();
          if (parts.length === 0) firstByteMs = now - started;
          parts.push(part);
          if (Number.isNaN(firstTokenMs)) {
            head += part.toString('latin1');
            if (FIRST_TOKEN.test(head)) firstTokenMs = now - started;
          }
        });
        response.on('end', () => finish());
        response.on('error', (error) => finish(error.message));
        response.on('close', () => {
          if (!response.complete) finish('the response was cut off');
        });
      },
    );
    outgoing.on('error', (error) => finish(error.message));
    const timer = setTimeout(() => {
      finish(`no complete reply within ${timeoutMs / 1000} s`);
      outgoing.destroy();
    }, timeoutMs);
    outgoing.end(body);
  });
}

/**
 * Runs the jobs in order with `concurrency` workers, each sending its next request when its
 * last one has ended. `bodies[reply]` is the request body for that reply.
 */
export async function runJobs(
  agent: Agent,
  jobs: readonly Job[],
  concurrency: number,
  bodies: readonly Buffer[],
): Promise<Exchange[]> {
  const results: Exchange[] = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const at = next++;
      const job = jobs[at]!;
      const body = job.body ?? bodies[job.reply];
      if (!body) throw new RangeError(`no request body for reply ${job.reply}`);
      results[at] = await exchange(agent, job, body);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, jobs.length) }, worker));
  return results;
}
