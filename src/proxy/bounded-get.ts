/**
 * One small GET to a model server that is not trusted, for what the proxy asks about the server
 * itself (which server it is, its chat template): the answer is read within a time limit and up
 * to a byte cap, redirects are not followed, and every way it can go wrong is an answer with the
 * reason, never an exception. Only the caller's own abort rejects.
 *
 * A server that trickles its answer is cut off by the time limit (it covers the body too); one
 * that sends a gigabyte is cut off at the cap, declared or streamed, so neither holds nor fills
 * the proxy.
 */
import { networkErrorCode } from '../core/model-call-error.ts';
import { readBodyCapped } from './capped-body.ts';
import { untilAborted } from './until-aborted.ts';
import {
  fetchTransport,
  type UpstreamResponse,
  type UpstreamTransport,
} from './upstream-transport.ts';

export interface BoundedGetOptions {
  /** Longest the whole GET may take, body included. */
  readonly timeoutMs: number;
  /** Most bytes of the body read; a longer body is no answer. */
  readonly maxBytes: number;
  /** The `Authorization` to send (the proxy's upstream credentials), if any. */
  readonly authorization?: string;
  /** How the request goes (the proxy's own transport); default: `fetch` below. */
  readonly transport?: UpstreamTransport;
  /** The fetch used when no transport is given; default: the global one. Redirects are not followed. */
  readonly fetch?: typeof globalThis.fetch;
  /** Aborts the GET; the promise then rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

/**
 * What the server answered: a 2xx body read whole within the cap, or why there is none. `status`
 * is set whenever the server answered at all (another status, whose body is not read, or a body
 * too large or too slow); without it no HTTP answer came (nothing listens, the name does not
 * resolve, no answer within the time limit).
 */
export type BoundedAnswer =
  | { readonly ok: true; readonly status: number; readonly text: string }
  | { readonly ok: false; readonly status?: number; readonly reason: string };

/**
 * A fetch that hands back a redirect as it is: a redirect the caller did not ask for could lead
 * the question (and the credentials) to another host.
 */
function notFollowingRedirects(fetch: typeof globalThis.fetch): typeof globalThis.fetch {
  return (input, init) => fetch(input, { ...init, redirect: 'manual' });
}

/** GETs `url` within the time limit and the byte cap of `options`. */
export async function boundedGet(url: string, options: BoundedGetOptions): Promise<BoundedAnswer> {
  const outer = options.signal;
  outer?.throwIfAborted();
  const controller = new AbortController();
  let timedOut = false;
  const onOuterAbort = () => controller.abort(outer?.reason);
  outer?.addEventListener('abort', onOuterAbort, { once: true });
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException('the time limit passed', 'TimeoutError'));
  }, options.timeoutMs);
  timer.unref?.();
  let response: UpstreamResponse | undefined;
  /** What a failure means: the caller's abort is thrown, the rest is an answer. */
  const failed = (error: unknown): BoundedAnswer => {
    if (outer?.aborted) throw outer.reason;
    const status = response === undefined ? {} : { status: response.status };
    if (timedOut)
      return { ok: false, ...status, reason: `it did not answer within ${options.timeoutMs} ms` };
    return { ok: false, ...status, reason: `the request failed: ${describeFailure(error)}` };
  };
  const transport =
    options.transport ?? fetchTransport(notFollowingRedirects(options.fetch ?? globalThis.fetch));
  try {
    const sending = transport.send({
      url,
      method: 'GET',
      headers: {
        accept: 'application/json',
        ...(options.authorization === undefined ? {} : { authorization: options.authorization }),
      },
      signal: controller.signal,
    });
    // The time limit and the caller's abort end the wait for the answer's head whatever the
    // transport does with its signal; an answer that still comes after is hung up on. The body
    // read below ends by `cancel()`, which settles `forEach` by the transport's contract
    // (upstream-transport.ts), not by anything here.
    void sending.then(
      (late) => controller.signal.aborted && late.body.cancel(),
      () => {},
    );
    response = await untilAborted(sending, controller.signal);
    const { status } = response;
    if (status < 200 || status > 299) {
      response.body.cancel();
      const redirect = status >= 300 && status < 400 ? ' (a redirect, not followed)' : '';
      return { ok: false, status, reason: `it answered ${status}${redirect}` };
    }
    const declared = Number(response.header('content-length'));
    if (Number.isFinite(declared) && declared > options.maxBytes) {
      response.body.cancel();
      return { ok: false, status, reason: `its answer is larger than ${options.maxBytes} bytes` };
    }
    // Likewise for the reading.
    const body = response.body;
    controller.signal.addEventListener('abort', () => body.cancel(), { once: true });
    const { bytes, whole } = await readBodyCapped(body, options.maxBytes);
    if (controller.signal.aborted) return failed(controller.signal.reason);
    if (!whole)
      return { ok: false, status, reason: `its answer is larger than ${options.maxBytes} bytes` };
    return { ok: true, status, text: new TextDecoder().decode(bytes) };
  } catch (error) {
    response?.body.cancel();
    return failed(error);
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', onOuterAbort);
  }
}

/** fetch's "fetch failed" says nothing: the network's code under it (ECONNREFUSED, …) does. */
function describeFailure(error: unknown): string {
  const code = networkErrorCode(error);
  if (code !== undefined) return code;
  const cause = (error as { cause?: { message?: unknown } } | null)?.cause;
  if (typeof cause?.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}
