import type { RunStore } from '../store/run-store.ts';
import type { LiveRuns } from './live-runs.ts';

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
  /** When each owned run's lease was last renewed (or, before that, taken), by lease token. */
  private readonly renewedAt = new Map<string, number>();

  constructor(options: RunHeartbeatOptions) {
    this.options = options;
  }

  start(): void {
    const every = this.options.sweepEveryMs ?? DEFAULT_SWEEP_EVERY_MS;
    this.every(this.renewEveryMs(), () => this.renew());
    this.every(every, () => this.noteReaders());
    // Jittered, so instances started together do not sweep together.
    this.every(every + Math.floor(Math.random() * (every / 5)), () => this.sweep());
  }

  close(): void {
    for (const timer of this.timers) clearInterval(timer);
    this.timers.length = 0;
  }

  /**
   * Renews every owned run's lease, a run being stopped too (until its end is written, so it
   * ends as asked, not `instance_lost`); aborts the ones the news says to. A renewal that fails
   * is tried again at the next beat: only a lease that surely ran out (`leaseMs` after the last
   * renewal that worked) or one the store says is lost ends the run.
   */
  async renew(): Promise<void> {
    const { store, live, now } = this.options;
    const owned = live
      .ownedRuns()
      .flatMap(({ lease, controller }) => (lease === undefined ? [] : [{ lease, controller }]));
    const tokens = new Set(owned.map(({ lease }) => lease.token));
    for (const token of this.renewedAt.keys()) if (!tokens.has(token)) this.renewedAt.delete(token);
    await Promise.all(
      owned.map(async ({ lease, controller }) => {
        const asked = now();
        // A run first seen here took its lease at most one beat ago.
        if (!this.renewedAt.has(lease.token))
          this.renewedAt.set(lease.token, asked - this.renewEveryMs());
        try {
          const news = await store.renew(lease, asked);
          this.renewedAt.set(lease.token, asked);
          if (news.lost)
            controller.abort(new Error('this instance lost the run (its lease ran out)'));
          // A run already stopping only needs its lease.
          else if (controller.signal.aborted) return;
          else if (news.abort !== undefined) controller.abort(new Error(news.abort));
          else if (news.unread)
            controller.abort(
              new Error(`no one has read the run for ${describeMs(store.limits.unreadRunAbortMs)}`),
            );
        } catch (error) {
          const renewed = this.renewedAt.get(lease.token) ?? asked;
          if (now() >= renewed + store.limits.leaseMs) controller.abort(error);
        }
      }),
    );
  }

  /** How often leases are renewed: every third of a lease, so one or two can fail. */
  private renewEveryMs(): number {
    return Math.max(1, Math.floor(this.options.store.limits.leaseMs / 3));
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
