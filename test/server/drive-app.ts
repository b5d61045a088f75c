/**
 * One set of run routes (the chat's, AG-UI's) mounted alone on a store, wired as
 * `createServerApp` wires them (src/server/app.ts): the run is owned by this instance's
 * `LiveRuns` while a `RunDriver` writes it to the store, and an `HttpError` is answered with its
 * status. For tests that open several instances on one store without the whole app (its
 * heartbeat timers, guards and page), on memory or on a real Redis (`redisStorePairs`).
 */
import { Hono } from 'hono';
import { afterAll, beforeAll } from 'vitest';
import { HttpError } from '../../src/http/http-error.ts';
import { LiveRuns } from '../../src/server/live-runs.ts';
import type { ServerSettings } from '../../src/server/options.ts';
import type { RunRouteContext } from '../../src/server/routes/runs.ts';
import { runDriving } from '../../src/server/run-driver.ts';
import { createRunStore } from '../../src/store/create-run-store.ts';
import type { RunStore } from '../../src/store/run-store.ts';
import { type RedisServer, startRedis } from '../support/redis-server.ts';

/** What the chat's and AG-UI's route sets are made with. */
export type RunRoutes = (settings: ServerSettings, context: RunRouteContext) => Hono;

export interface RoutesInstanceOptions {
  /** The instance's clock (default: `Date.now`). */
  readonly now?: () => number;
  /** Its runs' ids (default: `<instanceId>-run-1`, `-2`, …). */
  readonly generateRunId?: () => string;
  readonly maxConcurrentRuns?: number;
}

export interface RoutesInstance {
  readonly app: Hono;
  readonly live: LiveRuns;
}

/** `routes` mounted at `path` on an instance of its own over `store`. */
export function mountRunRoutes(
  path: string,
  routes: RunRoutes,
  settings: ServerSettings,
  store: RunStore,
  options: RoutesInstanceOptions = {},
): RoutesInstance {
  const now = options.now ?? Date.now;
  const live = new LiveRuns(store, options.maxConcurrentRuns ?? 4);
  let ids = 0;
  const generateRunId = options.generateRunId ?? (() => `${store.instanceId}-run-${++ids}`);
  const app = new Hono();
  app.onError(answerError);
  app.route(
    path,
    routes(settings, {
      store,
      live,
      now,
      generateRunId,
      drive: runDriving(store, live, now).drive,
    }),
  );
  return { app, live };
}

/** As the server app answers: an `HttpError` with its status and fields, anything else a 500. */
function answerError(error: Error): Response {
  return HttpError.isInstance(error)
    ? Response.json({ error: error.message, ...error.extra }, { status: error.status })
    : Response.json({ error: String(error) }, { status: 500 });
}

/**
 * For a `describe` on Redis: starts a redis-server before its tests and stops it after, closing
 * every store opened. Returns what opens two handles, instances `A` and `B`, under `prefix`.
 */
export function redisStorePairs(): (prefix: string) => Promise<[RunStore, RunStore]> {
  let redis: RedisServer | undefined;
  const stores: RunStore[] = [];
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
    await redis?.stop();
  });
  return async (prefix) => {
    if (redis === undefined) throw new Error('redis-server has not started');
    const { url } = redis;
    const opened = await Promise.all(
      ['A', 'B'].map((instanceId) => createRunStore(url, { prefix, instanceId })),
    );
    stores.push(...opened);
    return opened as [RunStore, RunStore];
  };
}
