import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createServerApp, parseRecording } from '../../../src/server/index.ts';

const RECORDING = parseRecording(': replayed\n\n', 'demo.sse');

function appServing(webRoot: string) {
  return createServerApp({ replay: { recording: RECORDING, delayMs: 0 }, webRoot }).app;
}

describe('the page routes', () => {
  it('serve the built page and its files, and 404 for a file it does not have', async () => {
    const root = mkdtempSync(join(tmpdir(), 'toolwire-web-'));
    writeFileSync(join(root, 'index.html'), '<!doctype html><title>page</title>');
    writeFileSync(join(root, 'app.js'), 'console.log(1)');
    const app = appServing(root);
    const page = await app.request('http://127.0.0.1/');
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>page</title>');
    expect(await (await app.request('http://127.0.0.1/app.js')).text()).toBe('console.log(1)');
    const missing = await app.request('http://127.0.0.1/nope.css');
    expect(missing.status).toBe(404);
    expect(await missing.text()).toBe('not found: /nope.css');
  });

  it('say how to build the page (503) when it is not built', async () => {
    const app = appServing('/nonexistent/toolwire-web');
    const page = await app.request('http://127.0.0.1/');
    expect(page.status).toBe(503);
    expect(await page.text()).toContain('npm run build');
  });

  it('leave /api to the API: an unknown API route is a JSON 404, not the page', async () => {
    const app = appServing('/nonexistent/toolwire-web');
    const response = await app.request('http://127.0.0.1/api/nope', { method: 'POST' });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: 'no API route POST /api/nope' });
  });
});
