import { LOG_ENTRY_OVERHEAD, utf8Length } from '../bytes.ts';
import { compareEventIds, type EventId, formatEventId, nextEventId } from '../event-id.ts';
import type { LogEnd } from '../run-store.ts';

/** One kept entry: a frame to send, or a control entry that tells followers the log ended. */
export interface MemoryLogEntry {
  readonly id: EventId;
  readonly text: string;
  readonly frame: string | undefined;
  readonly end: Exclude<LogEnd, 'trimmed' | 'gone'> | undefined;
  readonly bytes: number;
}

/** What entries holding these frames cost, counted as the Redis store counts them. */
export function logEntriesBytes(frames: readonly string[]): number {
  let bytes = 0;
  for (const frame of frames) bytes += LOG_ENTRY_OVERHEAD + utf8Length(frame);
  return bytes;
}

/** Where a reader stands: the entries it has not read start at `index` (absolute). */
export type LogPosition =
  | { readonly found: true; readonly index: number }
  | { readonly found: false };

/**
 * One event log in memory: entries in id order, trimmed from the front by count and age, and the
 * waiters of its followers, woken (never polled) when an entry is added or the log goes away.
 * Entries are addressed by absolute index (entries ever trimmed + index in the array), so a
 * follower's place survives trimming; the array drops its trimmed head in amortised O(1).
 */
export class MemoryLog {
  private entries: MemoryLogEntry[] = [];
  /** The first kept entry's position in `entries` (the ones before it are trimmed). */
  private head = 0;
  /** Entries trimmed away over the log's life. */
  private trimmedCount = 0;
  /** The newest trimmed entry's id: a reader after an older id would miss entries. */
  private trimmedThrough: EventId | undefined;
  private last: EventId | undefined;
  private readonly waiters = new Set<() => void>();
  /** Bytes of the kept entries. */
  bytes = 0;
  /** Deleted with its run: its followers end with `gone`. */
  deleted = false;

  /** Absolute index one past the newest entry. */
  get nextIndex(): number {
    return this.trimmedCount + this.entries.length - this.head;
  }

  /** The entry at an absolute index, if kept. */
  at(index: number): MemoryLogEntry | undefined {
    const local = index - this.trimmedCount;
    return local < 0 ? undefined : this.entries[this.head + local];
  }

  /** Adds frames (or a control entry) at time `now`; returns the new ids. */
  add(frames: readonly string[], now: number): string[] {
    const ids: string[] = [];
    for (const frame of frames) ids.push(this.push(frame, undefined, now));
    this.wake();
    return ids;
  }

  /** Adds the control entry that ends the log's reading (until more is appended). */
  close(end: 'paused' | 'finished' | 'lost', now: number): void {
    this.push(undefined, end, now);
    this.wake();
  }

  /** Drops entries beyond `maxEntries` and those older than `minMs`, oldest first. */
  trim(maxEntries: number, minMs: number): void {
    while (this.entries.length - this.head > maxEntries) this.dropFirst();
    let first = this.entries[this.head];
    while (first !== undefined && first.id.ms < minMs) {
      this.dropFirst();
      first = this.entries[this.head];
    }
    // Drop the trimmed head once it is at least half the array: amortised O(1) per entry.
    if (this.head > 64 && this.head * 2 >= this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
  }

  /**
   * Where a reader after `after` starts (undefined: from the start), or not found when entries it
   * has not read were trimmed away.
   */
  positionAfter(after: EventId | undefined): LogPosition {
    if (this.trimmedThrough !== undefined) {
      if (after === undefined || compareEventIds(after, this.trimmedThrough) < 0)
        return { found: false };
    }
    if (after === undefined) return { found: true, index: this.trimmedCount };
    // Binary search for the first kept entry with an id after `after`.
    let low = this.head;
    let high = this.entries.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (compareEventIds(this.entries[middle]!.id, after) <= 0) low = middle + 1;
      else high = middle;
    }
    return { found: true, index: this.trimmedCount + low - this.head };
  }

  /** Whether entries at or after `index` were trimmed before a reader got to them. */
  trimmedPast(index: number): boolean {
    return index < this.trimmedCount;
  }

  /** Calls `wake` once when an entry is added or the log is deleted; returns the cancel. */
  onChange(wake: () => void): () => void {
    this.waiters.add(wake);
    return () => this.waiters.delete(wake);
  }

  /** Deletes the log: its followers wake and end. */
  delete(): void {
    this.deleted = true;
    this.entries = [];
    this.head = 0;
    this.bytes = 0;
    this.wake();
  }

  private wake(): void {
    if (this.waiters.size === 0) return;
    const waiters = [...this.waiters];
    this.waiters.clear();
    for (const wake of waiters) wake();
  }

  private push(frame: string | undefined, end: MemoryLogEntry['end'], now: number): string {
    const id = nextEventId(this.last, now);
    this.last = id;
    const text = formatEventId(id);
    const bytes = LOG_ENTRY_OVERHEAD + (frame === undefined ? 0 : utf8Length(frame));
    this.entries.push({ id, text, frame, end, bytes });
    this.bytes += bytes;
    return text;
  }

  private dropFirst(): void {
    const first = this.entries[this.head];
    if (first === undefined) return;
    this.entries[this.head] = undefined as unknown as MemoryLogEntry;
    this.head++;
    this.trimmedCount++;
    this.trimmedThrough = first.id;
    this.bytes -= first.bytes;
  }
}
