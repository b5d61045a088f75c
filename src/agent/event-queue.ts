/**
 * A one-reader queue of events: the run pushes as it goes and never waits for the reader; the
 * reader iterates at its own pace. Events are kept until read, so a run whose events nobody
 * reads still completes (its size is bounded by the run's own limits).
 */
export class EventQueue<T> implements AsyncIterable<T> {
  private readonly buffered: T[] = [];
  private head = 0;
  private closed = false;
  private iterated = false;
  private wake: (() => void) | undefined;

  push(event: T): void {
    if (this.closed) return;
    this.buffered.push(event);
    this.notify();
  }

  close(): void {
    this.closed = true;
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    if (this.iterated) throw new Error('the events of a run can be read only once');
    this.iterated = true;
    while (true) {
      if (this.head < this.buffered.length) {
        const event = this.buffered[this.head]!;
        // Drop what was read so a long run does not keep every event.
        this.buffered[this.head++] = undefined as T;
        if (this.head > 1024 && this.head * 2 > this.buffered.length) {
          this.buffered.splice(0, this.head);
          this.head = 0;
        }
        yield event;
        continue;
      }
      if (this.closed) return;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }
}
