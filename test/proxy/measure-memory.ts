/**
 * The proxy's memory under the body and model-server attacks of issue 20 (section 4), one attack
 * per run, so each peak is its own:
 *
 *   node_modules/.bin/node --expose-gc test/proxy/measure-memory.ts ATTACK [COUNT]
 *
 * ATTACK: `body` (COUNT concurrent 16 MiB bodies of `{},`), `body-fit` (COUNT concurrent bodies
 * of 480,000 `{},`, 1.4 MiB each, under the default count of values), `sse-line` (an SSE line that never
 * ends), `sse-event` (an SSE event that never ends), `json` (a whole reply that never ends),
 * `held` (128 MB of prose in small events while `tool_choice: required` holds the reply). The
 * MEMORY_BUDGET_MB sets limits.memoryBudgetBytes. The
 * model server is in this process too; it writes with back-pressure, so it holds little. Prints
 * the proxy's answer, how much the model server wrote before the proxy hung up, and the peaks of
 * RSS and heap (sampled every 10 ms, after a GC at the start) and of the live heap (after a full
 * GC every 250 ms).
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startServer } from '../../src/http/node-server.ts';
import { createProxyApp } from '../../src/proxy/index.ts';

const MiB = 1024 * 1024;
const attack = process.argv[2] ?? 'body';
const count = Number(process.argv[3] ?? 1);
/** How much an endless reply writes at most, so a run ends even when nothing stops it. */
const ENDLESS_BYTES = 80 * MiB;

let written = 0;
let hungUp = false;

/** Writes `total` bytes from `piece()` with back-pressure; stops when the proxy hangs up. */
async function writeFor(response: ServerResponse, total: number, piece: () => string) {
  response.on('close', () => {
    if (!response.writableFinished) hungUp = true;
  });
  while (written < total && !hungUp) {
    const text = piece();
    written += text.length;
    if (!response.write(text))
      await new Promise((resolve) => {
        response.once('drain', resolve);
        response.once('close', resolve);
      });
  }
}

const upstream = createServer(async (request, response) => {
  for await (const _ of request);
  const a = 'a'.repeat(64 * 1024);
  switch (attack) {
    case 'sse-line':
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: {"choices":[{"delta":{"content":"');
      await writeFor(response, ENDLESS_BYTES, () => a);
      break;
    case 'sse-event':
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      await writeFor(response, ENDLESS_BYTES, () => `data: ${a}\n`);
      break;
    case 'json':
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"choices":[{"message":{"role":"assistant","content":"');
      await writeFor(response, ENDLESS_BYTES, () => a);
      break;
    case 'held': {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      // Prose a few words at a time, as a server streaming tokens sends it.
      const event = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'and so on, ' } }] })}\n\n`;
      const events = event.repeat(256);
      await writeFor(response, 128 * 1000 * 1000, () => events);
      break;
    }
    default: {
      // A model takes its time: the request is held while it writes.
      await new Promise((resolve) => setTimeout(resolve, 3000));
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          choices: [
            { index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' },
          ],
        }),
      );
      return;
    }
  }
  response.end();
});
await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
const upstreamURL = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;
const budget = Number(process.env.MEMORY_BUDGET_MB ?? Number.NaN);
const proxy = createProxyApp({
  upstream: upstreamURL,
  protocol: 'hermes',
  ...(Number.isNaN(budget) ? {} : { limits: { memoryBudgetBytes: budget * MiB } }),
});
const running = await startServer(proxy, { port: 0, host: '127.0.0.1' });

function bodyFor(): string {
  const base = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };
  if (attack === 'body' || attack === 'body-fit') {
    const head = JSON.stringify(base).slice(0, -1);
    const objects = attack === 'body' ? Math.floor((16 * MiB - head.length - 20) / 3) : 480_000;
    const filler = '{},'.repeat(objects);
    return `${head},"x":[${filler}{}]}`;
  }
  const tools = [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }];
  return JSON.stringify({
    ...base,
    tools,
    ...(attack === 'json' ? {} : { stream: true }),
    ...(attack === 'held' ? { tool_choice: 'required' } : {}),
  });
}

globalThis.gc?.();
const start = process.memoryUsage();
let peakRss = start.rss;
let peakHeap = start.heapUsed;
const sampler = setInterval(() => {
  const now = process.memoryUsage();
  peakRss = Math.max(peakRss, now.rss);
  peakHeap = Math.max(peakHeap, now.heapUsed);
}, 10);
// What is live, not garbage V8 has not collected yet: a full GC now and then, then the heap.
let peakLive = start.heapUsed;
const liveSampler = setInterval(() => {
  globalThis.gc?.();
  peakLive = Math.max(peakLive, process.memoryUsage().heapUsed);
}, 250);

const began = performance.now();
const body = bodyFor();
const answers = await Promise.all(
  Array.from({ length: attack.startsWith('body') ? count : 1 }, async () => {
    const response = await fetch(`${running.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    const text = await response.text();
    return { status: response.status, text: text.slice(0, 300).replaceAll('\n', '\\n') };
  }),
);
clearInterval(sampler);
clearInterval(liveSampler);
// The model server hears of the hang-up a moment after the client has its answer.
await new Promise((resolve) => setTimeout(resolve, 200));
const mb = (bytes: number) => `${(bytes / MiB).toFixed(0)} MiB`;
console.log(`attack ${attack}${attack.startsWith('body') ? ` x${count}` : ''}`);
for (const status of new Set(answers.map((answer) => answer.status))) {
  const alike = answers.filter((answer) => answer.status === status);
  console.log(`  ${alike.length} answered ${status}: ${alike[0]!.text}`);
}
if (!attack.startsWith('body'))
  console.log(`  model server wrote ${mb(written)}, hung up on: ${hungUp}`);
console.log(
  `  peak RSS ${mb(peakRss)} (start ${mb(start.rss)}), peak heap ${mb(peakHeap)} (start ${mb(start.heapUsed)}), peak live heap ${mb(peakLive)}, ${((performance.now() - began) / 1000).toFixed(1)} s`,
);
await running.close();
upstream.closeAllConnections();
upstream.close();
