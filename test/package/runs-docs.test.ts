/**
 * docs/runs.md cannot rot: every route it names is mounted by `createServerApp`, every converter
 * it lists is exported by `toolwire/agent`, the run store by `toolwire/server` and
 * `toolwire/proxy`, every store limit is named, and its two code examples
 * (the AG-UI client, a UI message stream route of one's own) run as the page writes them.
 */
import { readFileSync } from 'node:fs';
import { HttpAgent } from '@ag-ui/client';
import { afterEach, describe, expect, it } from 'vitest';
import * as agentEntry from '../../src/agent/index.ts';
import {
  runAgent,
  toUIMessageSse,
  toUIMessageStream,
  UI_MESSAGE_STREAM_HEADERS,
  uiMessagesToRun,
} from '../../src/agent/index.ts';
import * as proxyEntry from '../../src/proxy/index.ts';
import * as serverEntry from '../../src/server/index.ts';
import { createServerApp, type ServerApp } from '../../src/server/index.ts';
import { DEFAULT_RUN_STORE_LIMITS } from '../../src/store/index.ts';
import { scriptedModel } from '../agent/scripted-model.ts';
import { ROOT } from './loaded-packages.ts';

const DOC = readFileSync(new URL('docs/runs.md', ROOT), 'utf8');

const apps: ServerApp[] = [];
afterEach(() => {
  for (const app of apps.splice(0)) app.close();
});

/** The section of the page under `heading` (to the next heading of its level or higher). */
function section(heading: string): string {
  const start = DOC.indexOf(`\n${heading}\n`);
  if (start === -1) throw new Error(`docs/runs.md has no heading ${heading}`);
  const level = heading.split(' ')[0]!;
  const rest = DOC.slice(start + heading.length + 2);
  const end = rest.search(new RegExp(`\\n#{1,${level.length}} `));
  return end === -1 ? rest : rest.slice(0, end);
}

describe('docs/runs.md', () => {
  it('names routes createServerApp mounts (a route it does not have is "no API route")', async () => {
    const routes = [...new Set(DOC.match(/`(?:GET|POST) \/api\/[^`]*`/g) ?? [])].map((route) =>
      route.slice(1, -1),
    );
    expect(routes.length).toBeGreaterThanOrEqual(8);
    const { model } = scriptedModel([]);
    const server = createServerApp({ model });
    apps.push(server);
    for (const route of routes) {
      const [method, path] = route.split(' ') as [string, string];
      const url = `http://127.0.0.1${path.replaceAll(/:[A-Za-z]+/g, 'x-1')}`;
      const response = await server.app.request(url, {
        method,
        headers: { 'content-type': 'application/json' },
        ...(method === 'POST' ? { body: '{}' } : {}),
      });
      const text = await response.text();
      expect(text, route).not.toContain('no API route');
    }
  });

  it('lists converters toolwire/agent exports', () => {
    const table = section('## From code: the converters');
    const names = [...table.matchAll(/^\| `([A-Za-z_]+)[`(]/gm)].map((match) => match[1]!);
    const more = [...table.matchAll(/^\| `[^`]+`, `([A-Za-z_]+)[`(]/gm)].map((match) => match[1]!);
    expect(names.length).toBeGreaterThanOrEqual(10);
    for (const name of [...names, ...more]) expect(agentEntry, name).toHaveProperty(name);
  });

  it('says toolwire/server and toolwire/proxy export the run store, and they do', () => {
    const names = [
      'createRunStore',
      'DEFAULT_RUN_STORE_LIMITS',
      'MemoryRunStore',
      'MemoryRunStoreBacking',
    ];
    for (const name of [...names, 'runStoreLimits']) expect(DOC).toContain(name);
    for (const name of names) {
      expect(serverEntry, name).toHaveProperty(name);
      expect(proxyEntry, name).toHaveProperty(name);
    }
    expect(serverEntry).toHaveProperty('runStoreLimits');
  });

  it('names every limit of the run store', () => {
    const limits = section('### What it holds, and for how long');
    for (const name of Object.keys(DEFAULT_RUN_STORE_LIMITS))
      expect(limits).toContain(`\`${name}\``);
  });

  it("runs the HttpAgent example: a front-end tool's call, answered in the thread's next run", async () => {
    const { model } = scriptedModel([
      '<tool_call>{"name":"pick_file","arguments":{"hint":"login"}}</tool_call>',
      'It is in src/login.js.',
    ]);
    const server = createServerApp({ model, protocol: 'hermes' });
    apps.push(server);
    const fetch = (url: string, init: RequestInit) => server.app.request(url, init);
    // As docs/runs.md writes it, with the app's fetch.
    const agent = new HttpAgent({ url: 'http://127.0.0.1:8787/api/ag-ui', fetch: fetch as never });
    const pickFile = {
      name: 'pick_file',
      description: 'Ask the user to pick a file',
      parameters: { type: 'object', properties: { hint: { type: 'string' } }, required: ['hint'] },
    };
    agent.addMessage({ id: 'u1', role: 'user', content: 'Explain the login code' });
    await agent.runAgent({ runId: 'r1', tools: [pickFile] });
    const answered = new Set(
      agent.messages.flatMap((m) => (m.role === 'tool' ? [m.toolCallId] : [])),
    );
    for (const message of agent.messages)
      if (message.role === 'assistant')
        for (const call of message.toolCalls ?? [])
          if (!answered.has(call.id))
            agent.addMessage({
              id: `a-${call.id}`,
              role: 'tool',
              toolCallId: call.id,
              content: 'src/login.js',
            });
    await agent.runAgent({ runId: 'r2', tools: [pickFile] });
    expect(agent.messages.at(-1)?.content).toBe('It is in src/login.js.');
    expect(DOC).toContain("await agent.runAgent({ runId: 'r2', tools: [pickFile] });");
  });

  it('runs the UI message stream example: useChat messages in, a UI message stream out', async () => {
    const { model } = scriptedModel(['Hello there.']);
    const body = { messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }] };
    // As docs/runs.md writes it.
    const { prompt, conversation } = uiMessagesToRun(body.messages as never);
    const run = runAgent({ model, tools: {}, protocol: 'hermes', prompt, conversation });
    const sse = toUIMessageSse(toUIMessageStream(run, { messageId: crypto.randomUUID() }));
    const bytes = ReadableStream.from(sse).pipeThrough(new TextEncoderStream());
    const response = new Response(bytes, { headers: UI_MESSAGE_STREAM_HEADERS });
    const text = await response.text();
    expect(text).toContain('"delta":"Hel"');
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(DOC).toContain(
      'const sse = toUIMessageSse(toUIMessageStream(run, { messageId: crypto.randomUUID() }));',
    );
  });
});
