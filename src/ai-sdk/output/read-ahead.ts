/**
 * Reads a stream's parts several at a time. A provider usually delivers parts in bursts (a
 * network read holds many); asking for a batch of them at once and waiting one tick costs one
 * wait per batch instead of one per part, which is most of what reading a part costs.
 *
 * At most BATCH reads are in flight beyond what was taken: the stream is asked for a few parts
 * ahead of need, never more.
 */

/** Reads asked for at once when none is in flight. */
const BATCH = 16;

type ReadResult<T> = Awaited<ReturnType<ReadableStreamDefaultReader<T>['read']>>;

interface Slot<T> {
  readonly promise: Promise<ReadResult<T>>;
  /** Set once the read has delivered (a failed read leaves it unset: `next` then throws). */
  result: ReadResult<T> | undefined;
}

// A failed read is seen when `next` awaits it; this only keeps it from counting as unhandled.
const ignoreFailure = () => {};

export class ReadAhead<T> {
  private readonly reader: ReadableStreamDefaultReader<T>;
  /** Reads in flight or delivered and not yet taken, oldest first, from `first` on. */
  private slots: Slot<T>[] = [];
  private first = 0;

  constructor(reader: ReadableStreamDefaultReader<T>) {
    this.reader = reader;
  }

  /** The next part, waiting for it if it has not arrived. Throws when the stream failed. */
  async next(): Promise<ReadResult<T>> {
    if (this.first === this.slots.length) return this.reader.read();
    const slot = this.take();
    return slot.result ?? slot.promise;
  }

  /**
   * The next part if the stream has already delivered it, else undefined (the part, or the
   * failure, then comes from `next`). Waits one tick when it has to ask for more.
   */
  async arrived(): Promise<ReadResult<T> | undefined> {
    if (this.first === this.slots.length) {
      this.request();
      // Reads of parts already queued settle at once; their reactions run before this resumes.
      await undefined;
    }
    const result = this.slots[this.first]!.result;
    if (result !== undefined) this.take();
    return result;
  }

  private request(): void {
    this.slots = [];
    this.first = 0;
    for (let count = 0; count < BATCH; count++) {
      const slot: Slot<T> = { promise: this.reader.read(), result: undefined };
      slot.promise.then((result) => {
        slot.result = result;
      }, ignoreFailure);
      this.slots.push(slot);
    }
  }

  private take(): Slot<T> {
    return this.slots[this.first++]!;
  }
}
