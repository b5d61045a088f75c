import { Hono } from 'hono';
import type { ServerSettings } from '../options.ts';
import { pageNotBuilt, readPageFile } from '../static-page.ts';

/** `GET /` and the page's files from the built page's folder; 503 saying how to build it when none is. */
export function pageRoutes(settings: ServerSettings): Hono {
  const routes = new Hono();
  routes.get('*', async (c) => {
    const file = await readPageFile(settings.webRoot, c.req.path);
    if (file) return c.body(file.body as Uint8Array<ArrayBuffer>, 200, file.headers);
    if (c.req.path === '/' || c.req.path === '/index.html')
      return c.html(pageNotBuilt(settings.webRoot), 503);
    return c.text(`not found: ${c.req.path}`, 404);
  });
  return routes;
}
