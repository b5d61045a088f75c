import { Hono } from 'hono';
import {
  checkModelServer,
  type ModelServerCheck,
  type ModelServerProbe,
} from '../model-server-probe.ts';
import type { ServerSettings } from '../options.ts';

/**
 * `GET /api/status`: whether a model server answers (asked with the probe the options give),
 * and which recording the page may play instead.
 */
export function statusRoutes(settings: ServerSettings): Hono {
  const { options, limits, playable } = settings;
  const routes = new Hono();

  // One probe at a time: pages opened together share its answer.
  let probing: Promise<ModelServerCheck> | undefined;
  const probeModelServer = (probe: ModelServerProbe) => {
    probing ??= checkModelServer(probe, limits.modelProbeTimeoutMs).finally(() => {
      probing = undefined;
    });
    return probing;
  };

  routes.get('/', async (c) => {
    const recording = playable ? { recording: playable.recording.label } : {};
    if (options.replay) return c.json({ mode: 'replay', modelServer: 'none', ...recording });
    const baseURL = options.baseURL === undefined ? {} : { baseURL: options.baseURL };
    if (!options.probeModelServer)
      return c.json({ mode: 'live', modelServer: 'unchecked', ...baseURL, ...recording });
    const check = await probeModelServer(options.probeModelServer);
    return c.json({
      mode: 'live',
      modelServer: check.answers ? 'answers' : 'no-answer',
      ...baseURL,
      ...(check.answers ? {} : { problem: check.problem }),
      ...recording,
    });
  });
  return routes;
}
