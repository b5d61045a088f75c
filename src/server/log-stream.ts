import { HttpError } from '../http/http-error.ts';
import { sseResponse } from '../http/sse-response.ts';
import { formatEventId, parseEventId } from '../store/event-id.ts';
import type { LogItem, RunStore } from '../store/run-store.ts';

/** How long a response waits for its first event before it sends its headers anyway. */
const HEADERS_WAIT_MS = 500;
/** A comment line after this long without an event keeps proxies from closing an idle stream. */
export const KEEP_ALIVE_MS = 15_000;
const KEEP_ALIVE = ':\n\n';

export interface LogStreamOptions {
  readonly store: RunStore;
  readonly log: string;
  /** The id to read after (exclusive); undefined: from the start. */
  readonly after: string | undefined;
  /** The request's signal: a client that leaves only ends its read, never the run. */
  readonly signal: AbortSignal;
  readonly headers?: Readonly<Record<string, string>>;
  /** Called when the read starts; what it returns is called when it ends (reader bookkeeping). */
  readonly onRead?: () => () => void;
  /**
   * Subscribes to failures that end the read from outside the log (the store failed under the
   * run this instance runs); returns the unsubscribe.
   */
  readonly onInterrupt?: (listener: (message: string) => void) => () => void;
  /**
   * The frame that tells the reader the store failed mid-read (the log's own wire format), after
   * what closes the stream as the reader got it (see `onFrame`).
   */
  readonly failureFrame?: (message: string) => string;
  /** Called with each frame as it is sent, so `failureFrame` knows what the reader has open. */
  readonly onFrame?: (frame: string) => void;
  /** What the 404 says when the log is unknown. */
  readonly unknown?: string;
  /** Idle time after which a comment (`:`, not an event) is sent. Default `KEEP_ALIVE_MS`. */
  readonly keepAliveMs?: number;
}

/**
 * The id a client resumes after: the `Last-Event-ID` header (what an `EventSource` sends when
 * it reconnects) or `?after=`; undefined for neither. A malformed one is a 400.
 */
export function resumeAfter(request: Request): string | undefined {
  const header = request.headers.get('last-event-id');
  const query = new URL(request.url).searchParams.get('after');
  const text = header ?? query ?? undefined;
  if (text === undefined || text === '') return undefined;
  if (parseEventId(text) === undefined)
    throw new HttpError(
      400,
      `${header === null ? '?after=' : 'Last-Event-ID'} ${JSON.stringify(text.slice(0, 64))} is not an event id (MS-SEQ, two whole numbers, as the id: lines of a run's events)`,
    );
  return text;
}

/**
 * An id just before `id`, so a read after it starts at `id` (ids are only ever compared): how a
 * response reads a run from the first entry its driver wrote.
 */
export function idBefore(id: string): string {
  const parsed = parseEventId(id);
  if (parsed === undefined) throw new Error(`the store wrote a malformed event id: ${id}`);
  return formatEventId(
    parsed.seq > 0
      ? { ms: parsed.ms, seq: parsed.seq - 1 }
      : { ms: parsed.ms - 1, seq: Number.MAX_SAFE_INTEGER },
  );
}

/**
 * A log as an SSE response: every entry after `after` with its `id:` line, then the live ones
 * until the log ends (paused, finished, lost). The same bytes on every instance, and across
 * reconnects: what a client read before and after one, joined, is the uninterrupted stream.
 * An unknown log is a 404, an `after` whose entry was trimmed away a 410, both decided before
 * the response starts when the store answers within `HEADERS_WAIT_MS` (it does for either:
 * they come from the catch-up, not from waiting for live events).
 */
export async function logResponse(options: LogStreamOptions): Promise<Response> {
  const { store, log, after, signal } = options;
  const reading = new AbortController();
  const stop = () => reading.abort();
  if (signal.aborted) stop();
  else signal.addEventListener('abort', stop, { once: true });
  const items = store.read(log, after, reading.signal)[Symbol.asyncIterator]();
  let pending: Promise<IteratorResult<LogItem>> | undefined = items.next();
  const first = await firstOrNothing(pending);
  if (first !== undefined && !first.done && 'end' in first.value) {
    const { end } = first.value;
    if (end === 'gone' || end === 'trimmed') {
      stop();
      if (end === 'gone')
        throw new HttpError(
          404,
          options.unknown ?? `no event log has the id ${JSON.stringify(log)}`,
        );
      throw new HttpError(
        410,
        `the events after ${after ?? 'the start'} are no longer kept (the log keeps at most ${store.limits.maxRunEvents} events, for ${store.limits.maxLogAgeMs} ms); read it again from the start`,
      );
    }
  }
  const release = options.onRead?.() ?? (() => {});
  const utf8 = new TextEncoder();
  let interrupt: (message: string) => void = () => {};
  const interrupted = new Promise<{ readonly interrupted: string }>((resolve) => {
    interrupt = (message) => resolve({ interrupted: message });
  });
  const unlisten = options.onInterrupt?.(interrupt) ?? (() => {});
  const finish = () => {
    release();
    unlisten();
    signal.removeEventListener('abort', stop);
    stop();
  };
  const failed = (controller: ReadableStreamDefaultController<Uint8Array>, message: string) => {
    if (options.failureFrame) controller.enqueue(utf8.encode(options.failureFrame(message)));
    controller.close();
  };
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const item = pending ?? items.next();
          pending = item;
          const next = await firstOf(item, interrupted, options.keepAliveMs ?? KEEP_ALIVE_MS);
          if (next === 'idle') {
            // The same item is awaited at the next pull.
            controller.enqueue(utf8.encode(KEEP_ALIVE));
            return;
          }
          pending = undefined;
          if ('interrupted' in next) {
            finish();
            failed(controller, next.interrupted);
            return;
          }
          if (next.done || 'end' in next.value) {
            finish();
            controller.close();
            return;
          }
          options.onFrame?.(next.value.frame);
          controller.enqueue(utf8.encode(`id: ${next.value.id}\n${next.value.frame}`));
        } catch (error) {
          // Asked before finish(), which aborts the read itself: only a client that left (or a
          // store closing its reads) ends quietly; a read the store failed says so.
          const leaving = reading.signal.aborted;
          finish();
          if (leaving) {
            controller.close();
            return;
          }
          failed(
            controller,
            `the run store failed while the run was read: ${(error as Error)?.message ?? String(error)}`,
          );
        }
      },
      cancel() {
        finish();
        void items.return?.();
      },
    },
    { highWaterMark: 0 },
  );
  return sseResponse(body, options.headers);
}

/** The first item if the store gives it soon, else undefined (the response starts without it). */
function firstOrNothing(
  first: Promise<IteratorResult<LogItem>>,
): Promise<IteratorResult<LogItem> | undefined> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve(undefined), HEADERS_WAIT_MS);
    timer.unref?.();
    first.then(
      (item) => {
        clearTimeout(timer);
        resolve(item);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** The item, the interruption, or `idle` when neither came within `idleMs`. */
function firstOf<T, U>(
  item: Promise<T>,
  interrupted: Promise<U>,
  idleMs: number,
): Promise<T | U | 'idle'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const idle = new Promise<'idle'>((resolve) => {
    timer = setTimeout(() => resolve('idle'), idleMs);
    timer.unref?.();
  });
  return Promise.race([item, interrupted, idle]).finally(() => clearTimeout(timer));
}
