import { ModelCallError } from '../core/model-call-error.ts';
import { HttpError } from '../http/http-error.ts';
import { formatBytes } from '../http/memory-estimate.ts';

/** Who needs the memory: the client's request, or the model server's reply to it. */
export type MemoryUse = 'request' | 'reply';

/**
 * Memory shared by every request being answered: each reserves what it is estimated to cost
 * (its body as it arrives, then what parsing and answering it take, then a whole reply or the
 * events held for a demanded call) and gives it back when its reply ends. A request that can
 * never fit is refused with 413 (a reply that never fits is the model server's fault: a `model-bad-reply`, 502), one
 * that does not fit now with 503: the limit on concurrent requests alone lets a few large ones
 * exhaust the heap.
 */
export class MemoryBudget {
  readonly total: number;
  private used = 0;

  constructor(total: number) {
    this.total = total;
  }

  /** Bytes reserved now, by every request. */
  get reserved(): number {
    return this.used;
  }

  /** A reservation of nothing yet, for one request. */
  open(): MemoryReservation {
    return new MemoryReservation(this);
  }

  /** @internal */
  take(bytes: number, held: number, use: MemoryUse): void {
    if (held + bytes > this.total && use === 'reply')
      throw new ModelCallError('model-bad-reply', {
        detail: `the model server's reply would take about ${formatBytes(held + bytes)} of memory to hold with its request, more than the ${formatBytes(this.total)} the proxy has for all requests (limits.memoryBudgetBytes); the proxy closed the connection`,
      });
    if (held + bytes > this.total)
      throw new HttpError(
        413,
        `the request would take about ${formatBytes(held + bytes)} of memory to answer, more than the ${formatBytes(this.total)} the proxy has for all requests (limits.memoryBudgetBytes); send a smaller request`,
      );
    if (this.used + bytes > this.total)
      throw new HttpError(
        503,
        `the proxy is short of memory: requests being answered hold ${formatBytes(this.used)} of its ${formatBytes(this.total)} (limits.memoryBudgetBytes) and this one needs about ${formatBytes(held + bytes)}; try again shortly`,
      );
    this.used += bytes;
  }

  /** @internal */
  give(bytes: number): void {
    this.used -= bytes;
  }
}

/** One request's share of the budget; grows as more is known and is released once. */
export class MemoryReservation {
  private readonly budget: MemoryBudget;
  private held = 0;
  private released = false;

  constructor(budget: MemoryBudget) {
    this.budget = budget;
  }

  get bytes(): number {
    return this.held;
  }

  /** Reserves `bytes` more, or throws the 413, 502 or 503 the request gets. */
  grow(bytes: number, use: MemoryUse = 'request'): void {
    if (this.released || bytes <= 0) return;
    this.budget.take(bytes, this.held, use);
    this.held += bytes;
  }

  /** Reserves up to `bytes` in all (more than held already). */
  growTo(bytes: number, use: MemoryUse = 'request'): void {
    this.grow(bytes - this.held, use);
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.budget.give(this.held);
    this.held = 0;
  }
}
