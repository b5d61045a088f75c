/**
 * Sizes as a store holds them: strings as UTF-8 bytes (what Redis keeps), plus a fixed share per
 * run and per log entry for their fields. Both stores count alike (the Redis scripts take these
 * constants), so `maxRememberedBytes` means the same in each.
 */

/** What a remembered run costs besides its strings: its fields and bookkeeping. */
export const RUN_OVERHEAD = 256;

/** What each log entry costs besides its frame: its id and bookkeeping. */
export const LOG_ENTRY_OVERHEAD = 32;

/** The UTF-8 length of `text`, counted without encoding it. */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) continue;
    if (code < 0x800) bytes += 1;
    else if (code >= 0xd800 && code <= 0xdbff) {
      // A surrogate pair: two units, four bytes.
      bytes += 2;
      index++;
    } else bytes += 2;
  }
  return bytes;
}
