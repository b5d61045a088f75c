/**
 * `createServerApp({ protocol })` given a protocol object rather than a name: runs that ask for
 * none use it (and resume in it), a run that asks for a format by name still gets that format.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolCallProtocol } from '../../src/core/index.ts';
import { protocolByName } from '../../src/protocols/index.ts';
import { createServerApp, serverTools } from '../../src/server/index.ts';
import { serverSettings } from '../../src/server/options.ts';
import { MemoryRunStoreBacking } from '../../src/store/memory/memory-run-store.ts';
import { scriptedModel } from '../agent/scripted-model.ts';
import {
  decodeResponse,
  joined,
  ofType,
  postJson,
  repository,
  startTestServer,
  type TestServer,
} from './helpers.ts';

const ANSWER = 'Login is handled by loginUser.';
const HOUSE_PROMPT = 'HOUSE FORMAT: write calls as below.';

/**
 * A protocol no built-in name gives: hermes's reading and writing under a name of its own, with
 * a prompt of its own, so a test can tell it was the one used.
 */
function houseProtocol(): ToolCallProtocol {
  const hermes = protocolByName('hermes');
  return {
    name: 'house-format',
    formatTools: (tools) => `${HOUSE_PROMPT}\n${hermes.formatTools(tools)}`,
    formatToolCall: (call) => hermes.formatToolCall(call),
    formatToolResponse: (result) => hermes.formatToolResponse(result),
    parseGeneratedText: (text, options) => hermes.parseGeneratedText(text, options),
    createStreamParser: (options) => hermes.createStreamParser(options),
    extractToolCallSegments: (text, options) => hermes.extractToolCallSegments(text, options),
  };
}

const call = (name: string, toolName: string, input: Record<string, unknown>) =>
  protocolByName(name).formatToolCall({ toolName, input });

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(turns: readonly string[]) {
  const scripted = scriptedModel(turns, { modelId: 'qwen3-coder:30b' });
  server = await startTestServer({
    model: scripted.model,
    tools: serverTools(repository()),
    protocol: houseProtocol(),
  });
  return { ...scripted, url: server.url };
}

/** The text of the system message a prompt began with. */
function systemOf(prompt: readonly { role: string; content: unknown }[]): string {
  const system = prompt.find((message) => message.role === 'system');
  return typeof system?.content === 'string' ? system.content : '';
}

describe('createServerApp({ protocol: a ToolCallProtocol })', () => {
  it('runs that ask for no protocol are told and read in it, shown under its name', async () => {
    const { url, prompts } = await start([
      `Let me look.\n${call('hermes', 'search', { query: 'loginUser' })}`,
      ANSWER,
    ]);
    const info = (await (await fetch(`${url}/api/info`)).json()) as { protocol: string };
    expect(info.protocol).toBe('house-format');
    const events = await decodeResponse(await postJson(`${url}/api/runs`, { prompt: 'Where?' }));
    expect(events[0]).toMatchObject({ type: 'meta-init', data: { protocol: 'house-format' } });
    expect(ofType(events, 'tool-result')[0]?.name).toBe('search');
    expect(joined(events, 'text-delta')).toContain(ANSWER);
    expect(systemOf(prompts[0]!)).toContain(HOUSE_PROMPT);
  });

  it('a run that asks for a format by name gets that format, not the object', async () => {
    const { url, prompts } = await start([
      call('qwen3-coder', 'search', { query: 'loginUser' }),
      ANSWER,
    ]);
    const events = await decodeResponse(
      await postJson(`${url}/api/runs`, { prompt: 'Where?', protocol: 'model' }),
    );
    expect(events[0]).toMatchObject({ type: 'meta-init', data: { protocol: 'qwen3-coder' } });
    expect(ofType(events, 'tool-result')[0]?.name).toBe('search');
    expect(systemOf(prompts[0]!)).not.toContain(HOUSE_PROMPT);
  });

  it('a run paused on front-end tools resumes in the object (its name is no built-in)', async () => {
    const { url, prompts } = await start([
      call('hermes', 'ask_user', { question: 'Which file?' }),
      `Found it.\n${call('hermes', 'search', { query: 'loginUser' })}`,
      ANSWER,
    ]);
    const first = await postJson(`${url}/api/runs`, { prompt: 'Where?' });
    const runId = first.headers.get('x-run-id')!;
    const paused = await decodeResponse(first);
    const awaiting = paused.at(-1) as { type: string; tools: { tool_use_id: string }[] };
    expect(awaiting.type).toBe('awaiting-frontend-tools');
    const rest = await decodeResponse(
      await postJson(`${url}/api/runs/${runId}/tool-results`, {
        results: [{ tool_use_id: awaiting.tools[0]!.tool_use_id, content: 'login.js' }],
      }),
    );
    expect(rest[0]).toMatchObject({
      type: 'meta-init',
      data: { protocol: 'house-format', resumed: true },
    });
    // The resumed stream reports the front-end result, then reads the next call in the object.
    expect(ofType(rest, 'tool-result').map((event) => event.name)).toEqual(['ask_user', 'search']);
    expect(joined(rest, 'text-delta')).toContain(ANSWER);
    expect(systemOf(prompts[1]!)).toContain(HOUSE_PROMPT);
  });

  it('only an instance that has the object resumes the run: another sharing the store refuses it (409) and leaves it paused', async () => {
    const backing = new MemoryRunStoreBacking();
    const scripted = scriptedModel(
      [call('hermes', 'ask_user', { question: 'Which file?' }), ANSWER],
      {
        modelId: 'qwen3-coder:30b',
      },
    );
    const tools = serverTools(repository());
    const withObject = await startTestServer({
      model: scripted.model,
      tools,
      protocol: houseProtocol(),
      store: backing.open('A'),
    });
    const withoutObject = await startTestServer({
      model: scripted.model,
      tools,
      store: backing.open('B'),
    });
    try {
      const first = await postJson(`${withObject.url}/api/runs`, { prompt: 'Where?' });
      const runId = first.headers.get('x-run-id')!;
      const awaiting = ofType(await decodeResponse(first), 'awaiting-frontend-tools')[0]!;
      const answer = {
        results: [{ tool_use_id: awaiting.tools[0]!.tool_use_id, content: 'login.js' }],
      };
      const refused = await postJson(`${withoutObject.url}/api/runs/${runId}/tool-results`, answer);
      expect(refused.status).toBe(409);
      expect(((await refused.json()) as { error: string }).error).toContain(
        'protocol object "house-format", which this server does not have',
      );
      expect((await backing.open('C').getRun(runId))?.status).toBe('paused');
      const resumed = await postJson(`${withObject.url}/api/runs/${runId}/tool-results`, answer);
      expect(resumed.status).toBe(200);
      expect(joined(await decodeResponse(resumed), 'text-delta')).toContain(ANSWER);
    } finally {
      await withObject.close();
      await withoutObject.close();
    }
  });

  it('refuses, with a TypeError, an object that is not a protocol', () => {
    const { model } = scriptedModel([]);
    for (const bad of [{}, { name: 'x' }, 3, { ...houseProtocol(), createStreamParser: 1 }])
      expect(() => createServerApp({ model, protocol: bad as never })).toThrow(
        "createServerApp: protocol must be a format's name or alias, auto, model, or a ToolCallProtocol",
      );
  });

  it('serverSettings keeps the object as the default and its name to show', () => {
    const { model } = scriptedModel([]);
    const protocol = houseProtocol();
    const settings = serverSettings({ model, protocol });
    expect(settings.defaultProtocol).toBe(protocol);
    expect(settings.defaultProtocolName).toBe('house-format');
    expect(serverSettings({ model, protocol: 'hermes' })).toMatchObject({
      defaultProtocol: 'hermes',
      defaultProtocolName: 'hermes',
    });
  });
});
