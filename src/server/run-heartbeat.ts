import type { RunStore } from '../store/run-store.ts';
import type { LiveRuns } from './run-registry.ts';

export interface RunHeartbeatOptions {
  readonly store: RunStore;
  readonly live: LiveRuns;
  readonly now: () => number;
  /** Between sweeps and between reader notes. Default 5000. */
  readonly sweepEveryMs?: number;
}

const DEFAULT_SWEEP_EVERY_MS = 5000;

/**
 * The timers that keep runs honest across instances, each a method a test can call with its
 * own clock: `renew` extends the leases of the runs this instance runs (every third of the
 * lease) and aborts those stopped elsewhere, read by no one for too long, or lost; `noteReaders`
 * tells the store which runs this instance serves; `sweep` ends the runs of dead instances and
 * forgets old ones. The store itself has no timers; these are unref'd and cleared on `close`.
 */
export class RunHeartbeat {
  private readonly options: RunHeartbeatOptions;
  private readonly timers: ReturnType<typeof setInterval>[] = [];

  constructor(options: RunHeartbeatOptions) {
    this.options = options;
  }

  start(): void {
    const { store } = this.options;
    const every = this.options.sweepEveryMs ?? DEFAULT_SWEEP_EVERY_MS;
    this.every(Math.max(1, Math.floor(store.limits.leaseMs / 3)), () => this.renew());
    this.every(every, () => this.noteReaders());
    // Jittered, so instances started together do not sweep together.
    this.every(every + Math.floor(Math.random() * (every / 5)), () => this.sweep());
  }

  close(): void {
    for (const timer of this.timers) clearInterval(timer);
    this.timers.length = 0;
  }

  /** Renews every owned run's lease; aborts the ones the news says to. */
  async renew(): Promise<void> {
    const { store, live, now } = this.options;
    await Promise.all(
      live.ownedRuns().map(async ({ lease, controller }) => {
        if (lease === undefined || controller.signal.aborted) return;
        try {
          const news = await store.renew(lease, now());
          if (news.lost)
            controller.abort(new Error('this instance lost the run (its lease ran out)'));
          else if (news.abort !== undefined) controller.abort(new Error(news.abort));
          else if (news.unread)
            controller.abort(
              new Error(`no one has read the run for ${describeMs(store.limits.unreadRunAbortMs)}`),
            );
        } catch (error) {
          controller.abort(error);
        }
      }),
    );
  }

  async noteReaders(): Promise<void> {
    const { store, live, now } = this.options;
    const runs = live.readRuns();
    if (runs.length > 0) await store.noteReaders(runs, now());
  }

  async sweep(): Promise<void> {
    await this.options.store.sweep(this.options.now());
  }

  private every(ms: number, beat: () => Promise<void>): void {
    const timer = setInterval(() => {
      // A failed beat is tried again at the next one; a failing store shows in the runs' appends.
      beat().catch(() => {});
    }, ms);
    timer.unref?.();
    this.timers.push(timer);
  }
}

function describeMs(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000} minute${ms === 60_000 ? '' : 's'}`;
  if (ms % 1000 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}
