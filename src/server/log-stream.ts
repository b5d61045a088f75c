import { parseJsonText } from '../core/parse-json.ts';
import { HttpError } from '../http/http-error.ts';
import { sseResponse } from '../http/sse-response.ts';
import { compareEventIds, formatEventId, parseEventId } from '../store/event-id.ts';
import type { LogItem, RunStore } from '../store/run-store.ts';
import type { LiveRuns } from './live-runs.ts';

/** How long a response waits for its first event before it sends its headers anyway. */
const HEADERS_WAIT_MS = 500;
/** A comment line after this long without an event keeps proxies from closing an idle stream. */
const KEEP_ALIVE_MS = 15_000;
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
  /**
   * Called with each frame as it is sent, so `failureFrame` knows what the reader has open; on a
   * read resumed after `after`, first with the log's frames up to `after` (what the reader had).
   */
  readonly onFrame?: (frame: string) => void;
  /**
   * The reader has nothing open at `after` (it is just before a continuation's first entry, whose
   * segment starts afresh): the frames before it are not read for `onFrame`.
   */
  readonly afterIsBoundary?: boolean;
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
 * What closes a reader's stream well formed when the store fails mid-read: it is told every
 * frame the reader got (`sent`), and gives the frames that close what is open, then the
 * failure (`frame`). Each wire has its own (blocks-wire.ts, ui-message-wire.ts, ag-ui-wire.ts).
 */
export interface ReadFailure {
  sent(frame: string): void;
  frame(message: string): string;
}

const JSON_FRAME = 'data: {"type":"';

/**
 * The frame's JSON event when it is a `data: {"type":"…"` frame of one of `types` (the wire
 * encoders write `type` first), else undefined: a `ReadFailure` parses only the few frames that
 * open or close something, not every delta. A frame that is not JSON is undefined too.
 */
export function framedEvent(
  frame: string,
  types: ReadonlySet<string>,
): Readonly<Record<string, unknown>> | undefined {
  if (!frame.startsWith(JSON_FRAME)) return undefined;
  const end = frame.indexOf('"', JSON_FRAME.length);
  if (end === -1 || !types.has(frame.slice(JSON_FRAME.length, end))) return undefined;
  try {
    const event = parseJsonText(frame.slice('data: '.length));
    return typeof event === 'object' && event !== null
      ? (event as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The store and the instance's live runs, as a route reads a run's log with them. */
export interface RunReadContext {
  readonly store: RunStore;
  readonly live: Pick<LiveRuns, 'reading' | 'onInterrupt'>;
  readonly now: () => number;
}

/**
 * The reader bookkeeping of a read of run `runId`'s log, the same for every route: the read is
 * noted in the store at once, not only at the next heartbeat (a client back just before the
 * unread limit must not lose its run to a renewal that comes first), counted here while it
 * lasts, and told when the store fails under the run this instance runs.
 */
export function runReadHooks(
  context: RunReadContext,
  runId: string,
): Pick<LogStreamOptions, 'onRead' | 'onInterrupt'> {
  const { store, live, now } = context;
  return {
    onRead: () => {
      store.noteReaders([runId], now()).catch(() => {});
      return live.reading(runId);
    },
    onInterrupt: (listener) => live.onInterrupt(runId, listener),
  };
}

/** What a wait for the store gave: its value, the idle time passed, or the run's interruption. */
type Waited<T> = { readonly value: T } | 'idle' | 'interrupted';

/**
 * A log as an SSE response: every entry after `after` with its `id:` line, then the live ones
 * until the log ends (paused, finished, lost). The same bytes on every instance, and across
 * reconnects: what a client read before and after one, joined, is the uninterrupted stream.
 * An unknown log is a 404, an `after` whose entry was trimmed away a 410, both decided before
 * the response starts when the store answers within `HEADERS_WAIT_MS` (it does for either:
 * they come from the catch-up, not from waiting for live events).
 *
 * A read resumed after `after` with an `onFrame` first reads the log's entries up to `after`
 * into `onFrame` only (not to the reader, who has them), so that a failure closes what the
 * reader has open from before its reconnect: a read of the log's start, as a read from the start
 * costs, paid once per resumed read (`afterIsBoundary` skips it).
 */
export async function logResponse(options: LogStreamOptions): Promise<Response> {
  const { store, log, after, signal } = options;
  const idleMs = options.keepAliveMs ?? KEEP_ALIVE_MS;
  const reading = new AbortController();
  const stop = () => reading.abort();
  if (signal.aborted) stop();
  else signal.addEventListener('abort', stop, { once: true });
  const items = store.read(log, after, reading.signal)[Symbol.asyncIterator]();
  let pending: Promise<IteratorResult<LogItem>> | undefined = items.next();
  const { onFrame } = options;
  let seeding =
    after !== undefined && onFrame !== undefined && options.afterIsBoundary !== true
      ? replayUpTo(store, log, after, reading.signal, onFrame)
      : undefined;
  // Settled by the pull that waits for it; never left unhandled if the response ends first.
  seeding?.catch(() => {});
  let first: IteratorResult<LogItem> | undefined;
  try {
    first = await firstOrNothing(pending);
  } catch (error) {
    stop();
    throw error;
  }
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
  // The store failed under the run: kept until a pull sees it. `wake` is the one pull waiting,
  // if any: a listener, not a promise that every pull would race (and keep a reaction on).
  let interruption: string | undefined;
  let wake: (() => void) | undefined;
  const unlisten =
    options.onInterrupt?.((message) => {
      interruption ??= message;
      wake?.();
    }) ?? (() => {});
  const waitFor = <T>(promise: Promise<T>, interruptible = true): Promise<Waited<T>> =>
    new Promise((resolve, reject) => {
      if (interruptible && interruption !== undefined) {
        resolve('interrupted');
        return;
      }
      let settled = false;
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (wake === interrupted) wake = undefined;
        outcome();
      };
      const interrupted = () => settle(() => resolve('interrupted'));
      const timer = setTimeout(() => settle(() => resolve('idle')), idleMs);
      timer.unref?.();
      if (interruptible) wake = interrupted;
      promise.then(
        (value) => settle(() => resolve({ value })),
        (error: unknown) => settle(() => reject(error)),
      );
    });
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
          if (seeding !== undefined) {
            // Not cut short by an interruption: the failure frame needs what the seed reads.
            if ((await waitFor(seeding, false)) === 'idle') {
              controller.enqueue(utf8.encode(KEEP_ALIVE));
              return;
            }
            seeding = undefined;
          }
          const item = pending ?? items.next();
          pending = item;
          const next = await waitFor(item);
          if (next === 'idle') {
            // The same item is awaited at the next pull.
            controller.enqueue(utf8.encode(KEEP_ALIVE));
            return;
          }
          if (next === 'interrupted') {
            finish();
            failed(controller, interruption ?? '');
            return;
          }
          pending = undefined;
          const { value } = next;
          if (value.done || 'end' in value.value) {
            finish();
            controller.close();
            return;
          }
          onFrame?.(value.value.frame);
          controller.enqueue(utf8.encode(`id: ${value.value.id}\n${value.value.frame}`));
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

/** Feeds `onFrame` the log's frames up to `after` (inclusive): what a resumed reader has had. */
async function replayUpTo(
  store: RunStore,
  log: string,
  after: string,
  signal: AbortSignal,
  onFrame: (frame: string) => void,
): Promise<void> {
  const last = parseEventId(after);
  if (last === undefined) return;
  for await (const item of store.read(log, undefined, signal)) {
    if ('end' in item) return;
    const id = parseEventId(item.id);
    const order = id === undefined ? 1 : compareEventIds(id, last);
    if (order > 0) return;
    onFrame(item.frame);
    if (order === 0) return;
  }
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
