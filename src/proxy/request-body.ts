import { estimateJsonCost, type JsonShapeLimits, measureJson } from '../server/json-shape.ts';
import { ProxyError } from './errors.ts';
import type { MemoryReservation } from './memory-budget.ts';

export interface BodyLimits extends JsonShapeLimits {
  readonly maxBodyBytes: number;
  /** Longest the whole body may take to arrive. */
  readonly bodyTimeoutMs: number;
}

function tooLarge(maxBytes: number): ProxyError {
  return new ProxyError(
    413,
    `the body is larger than ${maxBytes} bytes, the most the proxy reads (limits.maxBodyBytes)`,
  );
}

/** Reads the body's bytes: capped in size as they arrive, and in time as a whole. */
async function readBytes(
  request: Request,
  limits: BodyLimits,
  reservation: MemoryReservation,
): Promise<Uint8Array> {
  if (!request.body)
    throw new ProxyError(400, 'the request has no body; a JSON object is expected');
  const reader = request.body.getReader();
  let timedOut = false;
  // A client sending a byte now and then would hold its place among the requests answered at
  // once for as long as Node lets it (300 s): the body has this long to arrive, not each byte.
  const timer = setTimeout(() => {
    timedOut = true;
    reader.cancel().catch(() => {});
  }, limits.bodyTimeoutMs);
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      let read: Awaited<ReturnType<typeof reader.read>>;
      try {
        read = await reader.read();
      } catch (error) {
        // The client went away or broke the body off: no answer reaches it, and nothing failed here.
        throw new ProxyError(
          400,
          `the body could not be read: ${(error as Error)?.message ?? String(error)}`,
        );
      }
      const { done, value } = read;
      if (timedOut)
        throw new ProxyError(
          408,
          `the body did not arrive within ${limits.bodyTimeoutMs / 1000} s (limits.bodyTimeoutMs)`,
        );
      if (done) break;
      size += value.byteLength;
      if (size > limits.maxBodyBytes) throw tooLarge(limits.maxBodyBytes);
      reservation.grow(value.byteLength);
      chunks.push(value);
    }
  } catch (error) {
    reader.cancel().catch(() => {});
    throw error;
  } finally {
    clearTimeout(timer);
  }
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/**
 * A request's JSON body, read within the limits: its size (413), the time it takes to arrive
 * (408), its nesting (400) and its count of values (413) are checked on the bytes before they
 * are parsed, and what answering it will cost is reserved in the shared memory budget (413
 * when it never fits, 503 when it does not fit now).
 */
export async function readRequestJson(
  request: Request,
  limits: BodyLimits,
  reservation: MemoryReservation,
): Promise<{ body: unknown; values: number }> {
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/json\b/i.test(type))
    throw new ProxyError(
      415,
      `the body must be JSON, sent with content-type application/json (got ${type ? JSON.stringify(type.slice(0, 100)) : 'none'})`,
    );
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > limits.maxBodyBytes) throw tooLarge(limits.maxBodyBytes);
  const bytes = await readBytes(request, limits, reservation);
  const shape = measureJson(bytes, limits);
  if ('exceeds' in shape) {
    if (shape.exceeds === 'maxDepth')
      throw new ProxyError(
        400,
        `the body nests arrays and objects deeper than ${limits.maxDepth} levels, the most the proxy reads (limits.maxJsonDepth)`,
      );
    throw new ProxyError(
      413,
      `the body holds more than ${limits.maxValues} JSON values (keys included), the most the proxy reads (limits.maxJsonValues)`,
    );
  }
  reservation.growTo(estimateJsonCost(bytes.byteLength, shape));
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ProxyError(400, 'the body is not valid UTF-8');
  }
  try {
    return { body: JSON.parse(text), values: shape.values };
  } catch (error) {
    throw new ProxyError(400, `the body is not valid JSON: ${(error as Error).message}`);
  }
}
