import { utf8Length } from '../bytes.ts';
import type { RunStoreLimits, StoredResponses } from '../run-store.ts';

interface StoredResponse {
  readonly json: string;
  readonly bytes: number;
  readonly storedAt: number;
}

/**
 * The proxy's stored Responses in memory: JSON text by id, oldest first (a Map keeps insertion
 * order, and a replaced id moves to the end), bounded by count, bytes and age. Beyond either
 * bound the oldest go; an expired one reads as absent and is dropped by the next sweep.
 */
export class MemoryResponses implements StoredResponses {
  private readonly entries = new Map<string, StoredResponse>();
  private bytes = 0;
  private readonly limits: RunStoreLimits;
  private readonly clock: () => number;

  constructor(limits: RunStoreLimits, clock: () => number) {
    this.limits = limits;
    this.clock = clock;
  }

  async get(id: string): Promise<string | undefined> {
    const entry = this.entries.get(id);
    if (entry === undefined) return undefined;
    if (this.expired(entry, this.clock())) {
      this.remove(id, entry);
      return undefined;
    }
    return entry.json;
  }

  async put(id: string, json: string): Promise<boolean> {
    const bytes = utf8Length(id) + utf8Length(json);
    if (bytes > this.limits.maxStoredResponseBytes) return false;
    const earlier = this.entries.get(id);
    if (earlier !== undefined) this.remove(id, earlier);
    this.entries.set(id, { json, bytes, storedAt: this.clock() });
    this.bytes += bytes;
    const { maxStoredResponses, maxStoredResponseBytes } = this.limits;
    for (const [oldestId, oldest] of this.entries) {
      if (this.entries.size <= maxStoredResponses && this.bytes <= maxStoredResponseBytes) break;
      this.remove(oldestId, oldest);
    }
    return true;
  }

  /** Drops the responses past their time, oldest first. */
  sweep(now: number): void {
    for (const [id, entry] of this.entries) {
      if (!this.expired(entry, now)) break;
      this.remove(id, entry);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  private expired(entry: StoredResponse, now: number): boolean {
    return now - entry.storedAt >= this.limits.storedResponseTtlMs;
  }

  private remove(id: string, entry: StoredResponse): void {
    this.entries.delete(id);
    this.bytes -= entry.bytes;
  }
}
