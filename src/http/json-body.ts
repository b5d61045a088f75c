import { IncomingMessage } from 'node:http';
import { parseJsonText } from '../core/parse-json.ts';
import { HttpError } from './http-error.ts';
import { type JsonShape, type JsonShapeLimits, measureJson } from './json-shape.ts';

/** What a request body may be: its size, its nesting and values, the time it takes to arrive. */
export interface JsonBodyLimits extends JsonShapeLimits {
  /** Largest body read, in bytes; larger get 413. */
  readonly maxBytes: number;
  /** Longest the whole body may take to arrive, in milliseconds; then 408. Default: no limit. */
  readonly timeoutMs?: number;
}

export interface JsonBodyOptions {
  /** Who reads the body, as refusals say it: `the most this server reads`. Default `this server`. */
  readonly reader?: string;
  /** The setting behind each limit, named in its refusal so the operator knows what to raise. */
  readonly settings?: Partial<Record<keyof JsonBodyLimits, string>>;
  /** Called with each chunk's size as it arrives (a memory budget grows); may throw to refuse. */
  readonly onBytes?: (bytes: number) => void;
  /**
   * Reads the body as JSON whatever its content type says (Ollama's API: its clients and its
   * documented `curl -d` calls send none, or a form's). Default: only `application/json`.
   */
  readonly anyContentType?: boolean;
  /** Called once the body is measured, before it is parsed; may throw to refuse. */
  readonly onMeasured?: (bytes: number, shape: JsonShape) => void;
}

/** A parsed body and its count of values (keys included), for limits on what it carries. */
export interface JsonBody {
  readonly body: unknown;
  readonly values: number;
}

/**
 * A request's JSON body, read within limits. Bytes are counted as they arrive, so a body without
 * a Content-Length cannot grow past `maxBytes` either (413); the whole body has `timeoutMs` to
 * arrive (408), so a client sending a byte now and then cannot hold its place for as long as Node
 * lets it. Values and nesting are counted on the bytes before they are parsed, so a small body of
 * `{},` or `[[[[…` is refused (413, 400) instead of costing a hundred times its size or
 * overflowing the stack of what walks it.
 */
export async function readJsonBody(
  request: Request | IncomingMessage,
  limits: JsonBodyLimits,
  options: JsonBodyOptions = {},
): Promise<JsonBody> {
  /** `(limits.maxBodyBytes)`: the setting to raise, when the caller named it. */
  const setting = (limit: keyof JsonBodyLimits) => {
    const name = options.settings?.[limit];
    return name === undefined ? '' : ` (${name})`;
  };
  const most = (limit: keyof JsonBodyLimits) =>
    `the most ${options.reader ?? 'this server'} reads${setting(limit)}`;
  const header = (name: string): string | undefined => {
    if (!(request instanceof IncomingMessage)) return request.headers.get(name) ?? undefined;
    const value = request.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  };
  const type = header('content-type') ?? '';
  if (!options.anyContentType && !/^application\/json\b/i.test(type))
    throw new HttpError(
      415,
      `the body must be JSON, sent with content-type application/json (got ${type ? JSON.stringify(type.slice(0, 100)) : 'none'})`,
    );
  const tooLarge = () =>
    new HttpError(413, `the body is larger than ${limits.maxBytes} bytes, ${most('maxBytes')}`);
  const declared = Number(header('content-length') ?? Number.NaN);
  if (declared > limits.maxBytes) throw tooLarge();
  const reader = bodyReader(request);
  if (!reader) throw new HttpError(400, 'the request has no body; a JSON object is expected');

  let timedOut = false;
  const timer =
    limits.timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          reader.cancel();
        }, limits.timeoutMs);
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      let read: Awaited<ReturnType<typeof reader.read>>;
      try {
        read = await reader.read();
      } catch (error) {
        // The client went away or broke the body off: no answer reaches it, and nothing failed here.
        throw new HttpError(
          400,
          `the body could not be read: ${(error as Error)?.message ?? String(error)}`,
          { cause: error },
        );
      }
      if (timedOut)
        throw new HttpError(
          408,
          `the body did not arrive within ${limits.timeoutMs! / 1000} s${setting('timeoutMs')}`,
        );
      if (read.done) break;
      size += read.value.byteLength;
      if (size > limits.maxBytes) throw tooLarge();
      options.onBytes?.(read.value.byteLength);
      chunks.push(read.value);
    }
  } catch (error) {
    reader.cancel();
    throw error;
  } finally {
    clearTimeout(timer);
  }
  const bytes = joined(chunks, size);

  const shape = measureJson(bytes, limits);
  if ('exceeds' in shape) {
    if (shape.exceeds === 'maxDepth')
      throw new HttpError(
        400,
        `the body nests arrays and objects deeper than ${limits.maxDepth} levels, ${most('maxDepth')}`,
      );
    throw new HttpError(
      413,
      `the body holds more than ${limits.maxValues} JSON values (keys included), ${most('maxValues')}`,
    );
  }
  options.onMeasured?.(bytes.byteLength, shape);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new HttpError(400, 'the body is not valid UTF-8');
  }
  try {
    return { body: parseJsonText(text), values: shape.values };
  } catch (error) {
    throw new HttpError(400, `the body is not valid JSON: ${(error as Error).message}`);
  }
}

/** A body read chunk by chunk: `done` at its end; `cancel` stops reading (a pending read ends). */
interface BodyReader {
  read(): Promise<{ done: true; value?: undefined } | { done: false; value: Uint8Array }>;
  cancel(): void;
}

/** A reader of a web request's body or of Node's (read straight from the socket's stream). */
function bodyReader(request: Request | IncomingMessage): BodyReader | undefined {
  if (request instanceof IncomingMessage) return incomingReader(request);
  if (!request.body) return undefined;
  const reader = request.body.getReader();
  return { read: () => reader.read(), cancel: () => void reader.cancel().catch(() => {}) };
}

function incomingReader(incoming: IncomingMessage): BodyReader {
  const chunks: Uint8Array[] = [];
  let ended = false;
  let failure: unknown;
  let wake: (() => void) | undefined;
  const notify = () => {
    const waiting = wake;
    wake = undefined;
    waiting?.();
  };
  const onData = (chunk: Buffer) => {
    chunks.push(chunk);
    // One chunk at a time: a body is not read faster than it is counted against the limits.
    incoming.pause();
    notify();
  };
  const onEnd = () => {
    ended = true;
    notify();
  };
  const onError = (error: unknown) => {
    failure ??= error;
    notify();
  };
  const onClose = () => {
    if (!incoming.complete) onError(new Error('the client closed the connection'));
    else onEnd();
  };
  const stop = () => {
    incoming.off('data', onData);
    incoming.off('end', onEnd);
    incoming.off('error', onError);
    incoming.off('close', onClose);
  };
  incoming.on('data', onData);
  incoming.on('end', onEnd);
  incoming.on('error', onError);
  incoming.on('close', onClose);
  return {
    async read() {
      for (;;) {
        const chunk = chunks.shift();
        if (chunk !== undefined) {
          if (chunks.length === 0 && !ended) incoming.resume();
          return { done: false, value: chunk };
        }
        if (failure !== undefined) {
          stop();
          throw failure;
        }
        if (ended) {
          stop();
          return { done: true };
        }
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    },
    cancel() {
      ended = true;
      chunks.length = 0;
      stop();
      notify();
    },
  };
}

function joined(chunks: readonly Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
