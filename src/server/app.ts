import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { isErrorOfKind } from '../core/errors.ts';
import { LOOPBACK_HOSTNAMES } from '../http/host-names.ts';
import { HttpError } from '../http/http-error.ts';
import { hostGuard, hostPolicy, sameOriginGuard } from '../http/request-guard.ts';
import { MemoryRunStore } from '../store/memory/memory-run-store.ts';
import type { RunStore, RunStoreLimits } from '../store/run-store.ts';
import { LiveRuns } from './live-runs.ts';
import { type ServerAppOptions, type ServerLimits, serverSettings } from './options.ts';
import { agUiRoutes } from './routes/ag-ui.ts';
import { chatRoutes } from './routes/chat.ts';
import { infoRoutes } from './routes/info.ts';
import { pageRoutes } from './routes/page.ts';
import { runRoutes } from './routes/runs.ts';
import { statusRoutes } from './routes/status.ts';
import { runDriving } from './run-driver.ts';
import { RunHeartbeat } from './run-heartbeat.ts';

export {
  DEFAULT_LIMITS,
  DEFAULT_REPLAY_DELAY_MS,
  type ReplaySettings,
  type RunSettings,
  type ServerAppOptions,
  type ServerLimits,
} from './options.ts';
export { REPLAY_HEADER, RUN_ID_HEADER } from './routes/runs.ts';
/** The names a browser uses for a server on loopback (each admits every loopback spelling). */
export { LOOPBACK_HOSTNAMES };

export interface ServerApp {
  readonly app: Hono;
  /** Where its runs live (given, or a memory store of its own). */
  readonly store: RunStore;
  /** The runs this instance runs and the ones its responses read now. */
  readonly live: LiveRuns;
  /** Lease renewal, reader notes and sweeps; each can be called by hand (tests, with their clock). */
  readonly heartbeat: RunHeartbeat;
  readonly limits: ServerLimits;
  /**
   * Aborts the runs this instance runs (each writes its end to the log) and stops its timers.
   * The store stays open: a given one is its owner's to close (its paused runs survive for other
   * instances); an own memory store goes with the app.
   */
  close(): void;
  /**
   * Settles once every run this instance drives has written its end to the store (after
   * `close`, the runs it aborted): the store may be closed then without losing their ends.
   */
  drained(): Promise<void>;
}

/**
 * The HTTP API and the page, as a Hono app (runs on Node through `@hono/node-server`; see
 * `startServer`). Routes: `POST /api/runs`, `POST /api/runs/:id/tool-results`,
 * `POST /api/runs/:id/abort`, `GET /api/runs/:id/events` (routes/runs.ts); `POST /api/ag-ui`,
 * `GET /api/ag-ui/threads/:threadId/runs/:runId/events`,
 * `POST /api/ag-ui/threads/:threadId/abort` (routes/ag-ui.ts); `POST /api/chat`,
 * `GET /api/chat/:id/stream`, `POST /api/chat/:id/abort` (routes/chat.ts); `GET /api/info`
 * (routes/info.ts), `GET /api/status` (routes/status.ts), and the page at `GET /`
 * (routes/page.ts).
 */
export function createServerApp(options: ServerAppOptions): ServerApp {
  const settings = serverSettings(options);
  const { limits } = settings;
  const now = options.clock ?? Date.now;
  const store = options.store ?? new MemoryRunStore({ clock: now, limits: runStoreLimits(limits) });
  const live = new LiveRuns(store, limits.maxConcurrentRuns);
  const heartbeat = new RunHeartbeat({ store, live, now });
  heartbeat.start();
  const app = new Hono();
  app.onError(errorResponse);

  const allowedHostnames = options.allowedHostnames ?? LOOPBACK_HOSTNAMES;
  if (allowedHostnames !== 'any')
    app.use('*', hostGuard(hostPolicy(allowedHostnames, options.allowIpAddressHosts === true)));
  // A page on another site may send simple POSTs here (no CORS preflight for them), or read
  // through a tag: only this server's own page may use the API.
  app.use('/api/*', sameOriginGuard());

  app.route('/api/info', infoRoutes(settings, live));
  app.route('/api/status', statusRoutes(settings));
  const { drive, drained } = runDriving(store, live, now);
  const context = { store, live, now, drive, generateRunId: options.generateRunId ?? randomUUID };
  app.route('/api/runs', runRoutes(settings, context));
  app.route('/api/ag-ui', agUiRoutes(settings, context));
  app.route('/api/chat', chatRoutes(settings, context));
  app.all('/api/*', (c) => {
    throw new HttpError(404, `no API route ${c.req.method} ${c.req.path}`);
  });
  app.route('/', pageRoutes(settings));

  const close = () => {
    heartbeat.close();
    // The aborted runs write their ends, so their readers see why they stopped. An own memory
    // store is not closed: closing it would end those reads before they reach the end, and it
    // holds nothing but memory.
    live.closeAll('the server is closing');
  };
  return { app, store, live, heartbeat, limits, close, drained };
}

/**
 * The bounds of the server's limits that a run store keeps: what its own memory store is made
 * with, and what a store given to it should be opened with (`createRunStore(spec, { limits })`).
 */
export function runStoreLimits(limits: ServerLimits): Partial<RunStoreLimits> {
  return {
    maxRememberedRuns: limits.maxRememberedRuns,
    maxRememberedBytes: limits.maxRememberedBytes,
    pausedRunTtlMs: limits.pausedRunTtlMs,
    finishedRunTtlMs: limits.finishedRunTtlMs,
    leaseMs: limits.leaseMs,
    unreadRunAbortMs: limits.unreadRunAbortMs,
    maxRunEvents: limits.maxRunEvents,
    maxLogAgeMs: limits.maxLogAgeMs,
  };
}

/**
 * The server's error body, `{error: message, ...extra}`: a refused request with its status, a
 * run beyond the limit with 429, a run store that does not answer with 503, anything else as the server's own failure (500).
 */
function errorResponse(error: Error): Response {
  if (HttpError.isInstance(error))
    return Response.json({ error: error.message, ...error.extra }, { status: error.status });
  if (isErrorOfKind(error, 'run-limit'))
    return Response.json({ error: error.message }, { status: 429 });
  // The run store (Redis) cannot be reached: the request may work again, on this instance too.
  if (isErrorOfKind(error, 'store-unavailable'))
    return Response.json(
      { error: `the run store is unavailable: ${error.message}` },
      { status: 503 },
    );
  return Response.json({ error: `internal server error: ${error.message}` }, { status: 500 });
}
