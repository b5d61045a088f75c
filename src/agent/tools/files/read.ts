import { open, stat } from 'node:fs/promises';
import { BinaryFileError, FileTooLargeError } from '../errors.ts';

/** Bytes inspected for a NUL byte to tell binary files from text (as git and ripgrep do). */
export const SNIFF_BYTES = 8_000;

const CHUNK_BYTES = 64 * 1024;

export type LineScan =
  | { readonly binary: true }
  | {
      readonly binary: false;
      /** Lines delivered to the callback. */
      readonly lines: number;
      /** The file goes on past the byte limit; the last line delivered may be incomplete. */
      readonly truncated: boolean;
      /** The callback asked to stop before the end. */
      readonly stopped: boolean;
    };

/**
 * Streams the text lines of a file (1-based numbers, `\r\n` or `\n`, invalid UTF-8 replaced)
 * without reading more than `maxBytes`. A NUL byte in the first bytes makes it binary: nothing
 * is delivered. `onLine` returns false to stop early. Checks `signal` between chunks.
 */
export async function scanLines(
  path: string,
  maxBytes: number,
  onLine: (text: string, line: number) => boolean | undefined,
  signal?: AbortSignal,
): Promise<LineScan> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    const decoder = new TextDecoder('utf-8');
    let offset = 0;
    let pending = '';
    let line = 0;
    const deliver = (text: string): boolean => {
      line += 1;
      return onLine(text.endsWith('\r') ? text.slice(0, -1) : text, line) !== false;
    };
    while (offset < maxBytes) {
      signal?.throwIfAborted();
      const want = Math.min(CHUNK_BYTES, maxBytes - offset);
      const { bytesRead } = await handle.read(buffer, 0, want, offset);
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      if (offset < SNIFF_BYTES && chunk.subarray(0, SNIFF_BYTES - offset).includes(0)) {
        return { binary: true };
      }
      offset += bytesRead;
      const pieces = (pending + decoder.decode(chunk, { stream: true })).split('\n');
      pending = pieces.pop() ?? '';
      for (const piece of pieces) {
        if (!deliver(piece)) return { binary: false, lines: line, truncated: false, stopped: true };
      }
    }
    let truncated = false;
    if (offset >= maxBytes) {
      const { bytesRead } = await handle.read(buffer, 0, 1, offset);
      truncated = bytesRead > 0;
    }
    pending += decoder.decode();
    if (pending !== '') deliver(pending);
    return { binary: false, lines: line, truncated, stopped: false };
  } finally {
    await handle.close();
  }
}

/** A whole text file for parsing; refuses files over `maxBytes` and binary files. */
export async function readWholeText(path: string, shownPath: string, maxBytes: number) {
  const size = (await stat(path)).size;
  if (size > maxBytes) throw new FileTooLargeError(shownPath, size, maxBytes);
  const handle = await open(path, 'r');
  let bytes: Buffer;
  try {
    bytes = await handle.readFile();
  } finally {
    await handle.close();
  }
  // The file may have grown since stat: still never parse more than the limit.
  if (bytes.length > maxBytes) throw new FileTooLargeError(shownPath, bytes.length, maxBytes);
  if (bytes.subarray(0, SNIFF_BYTES).includes(0)) throw new BinaryFileError(shownPath);
  return new TextDecoder('utf-8').decode(bytes);
}

/** Splits text into lines the way `scanLines` numbers them. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
  if (lines.length > 1 && lines.at(-1) === '') lines.pop();
  return lines;
}
