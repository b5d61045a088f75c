/**
 * The proxy module loaded after an app already serves with @hono/node-server (whose Response
 * then stands in for the global one), then asked for a streamed reply: prints what came back.
 * Run by late-import.test.ts in a process of its own, so the modules load in this order.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const other = serve({ fetch: new Hono().fetch, port: 0, hostname: '127.0.0.1' });
const model = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = (delta: object, finish: string | null) =>
      `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    response.end(`${chunk({ content: 'late hello' }, null)}${chunk({}, 'stop')}data: [DONE]\n\n`);
  });
});
await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', () => resolve()));
const { createProxyApp, startServer } = await import('../../src/proxy/index.ts');
const upstream = `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`;
const proxy = await startServer(createProxyApp({ upstream, protocol: 'hermes' }), {
  port: 0,
  host: '127.0.0.1',
});
try {
  const response = await fetch(`${proxy.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'Hi' }] }),
  });
  process.stdout.write(`${response.status}\n${await response.text()}`);
} finally {
  await proxy.close();
  model.close();
  other.close();
}
