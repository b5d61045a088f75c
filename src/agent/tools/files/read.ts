import { BinaryFileError, FileTooLargeError } from '../errors.ts';
import type { Pacer } from '../pacer.ts';
import type { Settings } from '../settings.ts';
import { type FileToOpen, openInRoot } from './open-in-root.ts';

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

/** What `scanLines` does with a line: false stops; a promise is awaited (for long work). */
export type LineHandler = (
  text: string,
  line: number,
) => boolean | undefined | Promise<boolean | undefined>;

/**
 * Streams the text lines of a file (1-based numbers, `\r\n` or `\n`, invalid UTF-8 replaced)
 * without reading more than `settings.maxFileBytes`. A NUL byte in the first bytes makes it
 * binary: nothing is delivered. `onLine` returns false to stop early. The file is opened with
 * `openInRoot` (refused if it now leads out of the root); `pacer` gives the event loop its turns
 * and stops the scan when the call is aborted.
 */
export async function scanLines(
  settings: Settings,
  file: FileToOpen,
  onLine: LineHandler,
  pacer: Pacer,
): Promise<LineScan> {
  const maxBytes = settings.maxFileBytes;
  pacer.check();
  const handle = await openInRoot(settings, file);
  try {
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    const decoder = new TextDecoder('utf-8');
    let offset = 0;
    // The line being read, in pieces joined once it ends (a long line is not copied per chunk).
    const fragments: string[] = [];
    let line = 0;
    const deliver = async (text: string): Promise<boolean> => {
      line += 1;
      let verdict = onLine(text.endsWith('\r') ? text.slice(0, -1) : text, line);
      if (verdict instanceof Promise) verdict = await verdict;
      if (pacer.due()) await pacer.pause();
      return verdict !== false;
    };
    while (offset < maxBytes) {
      pacer.check();
      const want = Math.min(CHUNK_BYTES, maxBytes - offset);
      const { bytesRead } = await handle.read(buffer, 0, want, offset);
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      if (offset < SNIFF_BYTES && chunk.subarray(0, SNIFF_BYTES - offset).includes(0)) {
        return { binary: true };
      }
      offset += bytesRead;
      const text = decoder.decode(chunk, { stream: true });
      let start = 0;
      for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
        fragments.push(text.slice(start, end));
        const whole = fragments.join('');
        fragments.length = 0;
        start = end + 1;
        if (!(await deliver(whole))) {
          return { binary: false, lines: line, truncated: false, stopped: true };
        }
      }
      fragments.push(text.slice(start));
    }
    let truncated = false;
    if (offset >= maxBytes) {
      const { bytesRead } = await handle.read(buffer, 0, 1, offset);
      truncated = bytesRead > 0;
    }
    fragments.push(decoder.decode());
    const last = fragments.join('');
    if (last !== '') await deliver(last);
    return { binary: false, lines: line, truncated, stopped: false };
  } finally {
    await handle.close();
  }
}

/**
 * A whole text file for parsing, opened with `openInRoot`; refuses files over
 * `settings.maxFileBytes` and binary files.
 */
export async function readWholeText(settings: Settings, file: FileToOpen): Promise<string> {
  const maxBytes = settings.maxFileBytes;
  const handle = await openInRoot(settings, file);
  let bytes: Buffer;
  try {
    const size = (await handle.stat()).size;
    if (size > maxBytes) throw new FileTooLargeError(file.rel, size, maxBytes);
    bytes = await handle.readFile();
  } finally {
    await handle.close();
  }
  // The file may have grown since stat: still never parse more than the limit.
  if (bytes.length > maxBytes) throw new FileTooLargeError(file.rel, bytes.length, maxBytes);
  if (bytes.subarray(0, SNIFF_BYTES).includes(0)) throw new BinaryFileError(file.rel);
  return new TextDecoder('utf-8').decode(bytes);
}
