/**
 * Where runs live when they must outlive a request, or a process: a run's state (status, the
 * instance that runs it and its lease, the paused conversation), its event log (the stream as
 * sent, one SSE message per entry, each with an id a client can resume after), and the proxy's
 * stored Responses. Two implementations keep this contract: memory (one process, the default)
 * and Redis (any number of instances). The store holds strings and JSON text, never agent or
 * protocol objects, so the server and the proxy share it without knowing each other's types.
 *
 * Every write to a running run is fenced by its lease (`RunLease.token`): an instance that lost
 * its lease (paused past it, or declared lost by another instance's sweep) cannot write after
 * the run was ended for it.
 */

/** A run's life: streaming on some instance, waiting for front-end tool results, or over. */
export type RunStatus = 'running' | 'paused' | 'finished';

/** The wire format a run's event log is written in; a log is read back in the format it was written. */
export type RunWire = 'blocks' | 'ag-ui' | 'ui-message';

/** What starts a run. */
export interface NewRun {
  readonly runId: string;
  readonly wire: RunWire;
  /** The event log's id; default: the run's id. */
  readonly log?: string;
  /** The format's name (a custom protocol object cannot be stored: `customProtocol`). */
  readonly protocol: string;
  /** The run was started with a protocol object of the server's own; only an instance that has it can resume. */
  readonly customProtocol: boolean;
  readonly prompt: string;
  /** Frames that close the stream as it stands when nothing was sent yet (see `append`'s `tail`). */
  readonly tail: readonly string[];
}

/** A run as the store holds it. Times are milliseconds since the epoch. */
export interface StoredRun {
  readonly runId: string;
  readonly status: RunStatus;
  readonly wire: RunWire;
  readonly log: string;
  readonly protocol: string;
  readonly customProtocol: boolean;
  readonly prompt: string;
  /** The instance running it (running only). */
  readonly owner?: string;
  /** When its lease runs out (running only). */
  readonly leaseUntil?: number;
  /** The paused run's state, as JSON text (paused only). */
  readonly state?: string;
  /** How it ended (finished only): `completed`, `aborted`, `instance_lost`, `dropped: …`. */
  readonly outcome?: string;
  /** A stop asked for by any instance, not yet carried out. */
  readonly abort?: string;
  /** The last time any instance served a reader of it. */
  readonly seenAt: number;
  readonly createdAt: number;
  readonly stoppedAt?: number;
}

/** The right to write a running run, held by the instance that runs it. */
export interface RunLease {
  readonly runId: string;
  /** Fencing token: random per claim; a write with another token is refused. */
  readonly token: string;
  readonly log: string;
}

/** One event of a log: its id (`ms-seq`, as Redis Stream ids) and the SSE message text without its `id:` line. */
export interface LogEntry {
  readonly id: string;
  readonly frame: string;
}

/**
 * Why a log's reading ended: the run paused or finished (everything was read), its instance was
 * lost (the tail was written), the entry to resume after was trimmed away, or the log is gone.
 */
export type LogEnd = 'paused' | 'finished' | 'lost' | 'trimmed' | 'gone';

export type LogItem = LogEntry | { readonly end: LogEnd };

/** What a lease renewal learns. */
export interface LeaseNews {
  /** A stop asked for by another instance (or this one), with its reason. */
  readonly abort?: string;
  /** No reader was served for longer than `unreadRunAbortMs`. */
  readonly unread: boolean;
  /** The lease was already lost: the run was ended for this instance; stop writing. */
  readonly lost: boolean;
}

/** What `pause` did: paused the run, or finished it instead (see `RunStore.pause`). */
export type PauseAnswer = 'paused' | 'dropped' | 'aborted';

/** The frames that end a log whose run `pause` finished instead, given its outcome. */
export type PauseClosing = (outcome: string) => readonly string[];

/** What `claimPaused` gives: the lease and the paused state, or why not. */
export type PausedClaim =
  | {
      readonly claimed: true;
      readonly lease: RunLease;
      readonly state: string;
      readonly run: StoredRun;
    }
  | { readonly claimed: false; readonly run: StoredRun | undefined };

/** The proxy's stored Responses (`previous_response_id`), as JSON text by id. */
export interface StoredResponses {
  get(id: string): Promise<string | undefined>;
  /** False when it is larger than the store keeps. */
  put(id: string, json: string): Promise<boolean>;
}

/** The bounds a store keeps, with the defaults of `DEFAULT_RUN_STORE_LIMITS`. */
export interface RunStoreLimits {
  /** Paused and finished runs remembered at most; the oldest finished go first, then paused. */
  readonly maxRememberedRuns: number;
  /** Bytes those runs (their state, outcome and stopped logs) may hold. */
  readonly maxRememberedBytes: number;
  readonly pausedRunTtlMs: number;
  readonly finishedRunTtlMs: number;
  /** How long a lease lasts without renewal; an instance renews it every third of it. */
  readonly leaseMs: number;
  /** A running run nobody reads for this long is aborted. */
  readonly unreadRunAbortMs: number;
  /** Events a log keeps at most (oldest trimmed). */
  readonly maxRunEvents: number;
  /** Age past which a log's events are trimmed. */
  readonly maxLogAgeMs: number;
  readonly maxStoredResponses: number;
  readonly maxStoredResponseBytes: number;
  readonly storedResponseTtlMs: number;
}

export const DEFAULT_RUN_STORE_LIMITS: RunStoreLimits = {
  maxRememberedRuns: 1000,
  maxRememberedBytes: 64 * 1024 * 1024,
  pausedRunTtlMs: 30 * 60_000,
  finishedRunTtlMs: 10 * 60_000,
  leaseMs: 10_000,
  unreadRunAbortMs: 2 * 60_000,
  maxRunEvents: 100_000,
  maxLogAgeMs: 60 * 60_000,
  maxStoredResponses: 1000,
  maxStoredResponseBytes: 64 * 1024 * 1024,
  storedResponseTtlMs: 24 * 60 * 60_000,
};

/** How many of the oldest pointers the cap looks at for one whose run is not live. */
export const POINTER_EVICTION_SCAN = 100;

export interface RunStoreStats {
  readonly running: number;
  readonly paused: number;
  readonly finished: number;
  readonly rememberedBytes: number;
}

export interface RunStore {
  /** This instance's id (random per process unless given). */
  readonly instanceId: string;
  readonly limits: RunStoreLimits;
  /** Starts a run owned by this instance; refuses an id that exists. */
  createRun(run: NewRun, now: number): Promise<RunLease>;
  getRun(runId: string): Promise<StoredRun | undefined>;
  /**
   * Appends frames to the run's log (fenced by the lease) and replaces its `tail`: the frames
   * that close the stream as it stands, written by a sweep if this instance is lost. Returns the
   * new entries' ids. Rejects with a `run-lost` error when the lease was lost.
   */
  append(lease: RunLease, frames: readonly string[], tail: readonly string[]): Promise<string[]>;
  /** Heartbeat: extends the lease; says whether a stop was asked for and whether anyone reads. */
  renew(lease: RunLease, now: number): Promise<LeaseNews>;
  /**
   * The run waits for front-end results: frames appended, then the log ends `paused`. It does
   * not pause, and writes none of `frames` (they ask for answers no one would take), when a stop
   * was asked for it (`aborted`: it finishes `aborted`) or when it is larger than
   * `maxRememberedBytes` would keep (`dropped`: it finishes with a `dropped: …` outcome); then
   * `closing(outcome)` gives the frames that end its log instead (default: none).
   */
  pause(
    lease: RunLease,
    frames: readonly string[],
    state: string,
    now: number,
    closing?: PauseClosing,
  ): Promise<PauseAnswer>;
  /** The run is over: frames appended, then the log ends `finished`. */
  finish(lease: RunLease, frames: readonly string[], outcome: string, now: number): Promise<void>;
  /**
   * Takes a paused run to resume it here; only one instance can, once. `log`: the event log the
   * continuation writes (default: the run's current log); the run's `log` becomes it (an AG-UI
   * run is a stream of its own).
   */
  claimPaused(runId: string, now: number, log?: string): Promise<PausedClaim>;
  /** Asks the run's owner to stop it (any instance); a paused run is finished at once. */
  requestAbort(
    runId: string,
    reason: string,
    now: number,
  ): Promise<'aborting' | 'aborted' | 'finished' | 'unknown'>;
  /** Stops asked for runs this instance owns, as they come; returns the unsubscribe. */
  onAbort(listener: (runId: string, reason: string) => void): () => void;
  /**
   * The log's entries after `after` (exclusive; undefined: from the start), then live ones until
   * the log ends or `signal` aborts. No gap and no duplicate across the catch-up and the live part.
   */
  read(log: string, after: string | undefined, signal: AbortSignal): AsyncIterable<LogItem>;
  /**
   * A small index kept beside the runs: a chat's or a thread's current run and log, found from
   * the id a client sends (the AI SDK's chat id, AG-UI's thread id); undefined when unknown or
   * expired. At most `maxRememberedRuns` are kept (the keys come from clients). The field `run`
   * names the run it points to: past the cap, the oldest pointer whose run is neither running nor
   * paused goes (among the oldest `POINTER_EVICTION_SCAN`; if all of those name live runs, the
   * oldest), so a waiting run stays reachable; and when that run stops (pauses or finishes), the
   * pointer's `ttlMs` counts again from the stop, so a long run does not outlive its pointer.
   */
  pointer(
    kind: 'thread' | 'chat',
    key: string,
  ): Promise<Readonly<Record<string, string>> | undefined>;
  /** Sets it (replacing every field), to expire `ttlMs` after `now`. */
  setPointer(
    kind: 'thread' | 'chat',
    key: string,
    fields: Readonly<Record<string, string>>,
    ttlMs: number,
    now: number,
  ): Promise<void>;
  /** Notes that readers of these runs were served at `now` (for `unreadRunAbortMs`). */
  noteReaders(runIds: readonly string[], now: number): Promise<void>;
  /** Lost leases become `instance_lost` (their tail written); paused and finished runs past their time go. */
  sweep(now: number): Promise<void>;
  readonly responses: StoredResponses;
  stats(): Promise<RunStoreStats>;
  close(): Promise<void>;
}
