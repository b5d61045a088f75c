/**
 * The one capped reader of a model server's answer body: the probes' bounded GET, error
 * messages and whole replies all read through it, so a body past its cap costs at most the cap.
 */
import type { UpstreamBody } from './upstream-transport.ts';

/** A body read up to a cap. */
export interface CappedBytes {
  /** The body's first bytes, at most the cap. */
  readonly bytes: Uint8Array;
  /** False when the body went past the cap: reading stopped there. */
  readonly whole: boolean;
}

/**
 * A body's bytes up to `maxBytes`; `whole` says whether that was all of it. Once past the cap
 * the body is cancelled and any chunk still delivered is dropped unread; `onChunk` is told the
 * size of each chunk kept (a memory charge). A read that fails rejects.
 */
export async function readBodyCapped(
  body: UpstreamBody,
  maxBytes: number,
  onChunk?: (bytes: number) => void,
): Promise<CappedBytes> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let whole = true;
  await body.forEach((chunk) => {
    if (!whole) return;
    size += chunk.byteLength;
    chunks.push(chunk);
    onChunk?.(chunk.byteLength);
    if (size > maxBytes) {
      whole = false;
      body.cancel();
    }
  });
  const bytes = new Uint8Array(Math.min(size, maxBytes));
  let offset = 0;
  for (const chunk of chunks) {
    const part = chunk.subarray(0, bytes.length - offset);
    bytes.set(part, offset);
    offset += part.length;
  }
  return { bytes, whole };
}
