import { Hono } from 'hono';
import type { LiveRuns } from '../live-runs.ts';
import type { ServerSettings } from '../options.ts';

/** `GET /api/info`: what the page shows of this server (its mode, model, protocol, limits). */
export function infoRoutes(settings: ServerSettings, live: LiveRuns): Hono {
  const { options } = settings;
  const routes = new Hono();
  routes.get('/', (c) =>
    c.json({
      mode: options.replay ? 'replay' : 'live',
      model: settings.modelName,
      ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
      protocol: settings.defaultProtocolName,
      ...(options.replay ? { recording: options.replay.recording.label } : {}),
      frontendTools: Object.entries(settings.tools)
        .filter(([, tool]) => !tool.execute)
        .map(([name]) => name),
      ...(options.replay ? { replayDelayMs: settings.replayDelayMs } : {}),
      limits: settings.limits,
      activeRuns: live.active,
    }),
  );
  return routes;
}
