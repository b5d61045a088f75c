/**
 * Responses kept for `previous_response_id`, bounded by count and by bytes: past either cap the
 * oldest go first. A response larger than the byte cap alone is not kept at all.
 */

export interface ResponseStoreLimits {
  /** Most responses kept. 0 keeps none. */
  readonly maxResponses: number;
  /** Most bytes kept, as `sizeOf` counts them. */
  readonly maxBytes: number;
}

export const DEFAULT_RESPONSE_STORE_LIMITS: ResponseStoreLimits = {
  maxResponses: 1000,
  maxBytes: 64 * 1024 * 1024,
};

/** UTF-8 bytes of a string, counted without encoding it. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        index++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/** A value's size as its JSON text in UTF-8: what it would cost to hold it as sent. */
export function jsonBytes(value: unknown): number {
  return utf8Length(JSON.stringify(value) ?? '');
}

export class ResponseStore<T> {
  private readonly limits: ResponseStoreLimits;
  private readonly sizeOf: (value: T) => number;
  /** Insertion order is age order: the first entry is the oldest. */
  private readonly entries = new Map<string, { readonly value: T; readonly bytes: number }>();
  private heldBytes = 0;

  constructor(
    limits: ResponseStoreLimits = DEFAULT_RESPONSE_STORE_LIMITS,
    sizeOf: (value: T) => number = jsonBytes,
  ) {
    for (const [name, limit] of Object.entries(limits))
      if (!Number.isInteger(limit) || limit < 0)
        throw new RangeError(`ResponseStore: ${name} must be a whole number of at least 0`);
    this.limits = limits;
    this.sizeOf = sizeOf;
  }

  /** Keeps a response under its id (replacing one of that id); false when it alone exceeds the byte cap. */
  put(id: string, value: T): boolean {
    this.delete(id);
    const bytes = this.sizeOf(value);
    if (this.limits.maxResponses === 0 || bytes > this.limits.maxBytes) return false;
    this.entries.set(id, { value, bytes });
    this.heldBytes += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.entries.size <= this.limits.maxResponses && this.heldBytes <= this.limits.maxBytes)
        break;
      this.entries.delete(oldest);
      this.heldBytes -= entry.bytes;
    }
    return true;
  }

  /** The response kept under `id`; undefined when it never was or has been forgotten. */
  get(id: string): T | undefined {
    return this.entries.get(id)?.value;
  }

  delete(id: string): boolean {
    const entry = this.entries.get(id);
    if (entry === undefined) return false;
    this.entries.delete(id);
    this.heldBytes -= entry.bytes;
    return true;
  }

  get size(): number {
    return this.entries.size;
  }

  get bytes(): number {
    return this.heldBytes;
  }
}
