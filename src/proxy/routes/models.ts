/** `GET /v1/models`: the model server's list, passed through as JSON. */
import type { Context, Hono } from 'hono';
import type { ProxyContext } from '../context.ts';
import { callUpstream, readReplyJson } from '../upstream.ts';

export function modelsRoute(app: Hono, proxy: ProxyContext): void {
  // As JSON only: an HTML page or a broken answer is the model server's fault (502).
  app.get('/v1/models', async (c: Context) => {
    const place = proxy.admit(c);
    try {
      const call = await callUpstream(proxy.upstream, '/models', {
        method: 'GET',
        authorization: proxy.upstreamAuthorization(c),
        signal: place.controller.signal,
      });
      return Response.json(await readReplyJson(call, proxy.upstream, place.memory, 'model list'));
    } finally {
      place.done();
    }
  });
}
