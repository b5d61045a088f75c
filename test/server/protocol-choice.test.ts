import { afterEach, describe, expect, it } from 'vitest';
import { HttpError } from '../../src/http/http-error.ts';
import {
  FORMATS,
  formatEntry,
  formatForModel,
  isProtocolChoice,
  PROTOCOL_NAMES,
  protocolByName,
  protocolNameFor,
} from '../../src/protocols/index.ts';
import { createServerApp, serverTools } from '../../src/server/index.ts';
import { parseStartRun } from '../../src/server/requests.ts';
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

/** A model id the registry gives a format other than the server's default (xml). */
const MODEL_ID = 'qwen2.5-coder:7b';
const ANSWER = 'Login is handled by loginUser.';

/** A search, a question to the user, then the answer, in the format of `name`. */
function turnsIn(name: string, { ask = false } = {}): string[] {
  const protocol = protocolByName(name);
  const call = (toolName: string, input: Record<string, unknown>) =>
    protocol.formatToolCall({ toolName, input });
  const ends = formatEntry(name)?.agent.completion ?? 'no-call';
  return [
    `Let me look.\n${call('search', { query: 'loginUser' })}`,
    ...(ask ? [call('ask_user', { question: 'Which file?' })] : []),
    ends === 'tool' ? call('attempt_completion', { result: ANSWER }) : ANSWER,
  ];
}

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(turns: readonly string[], protocol?: string) {
  const scripted = scriptedModel(turns, { modelId: MODEL_ID });
  server = await startTestServer({
    model: scripted.model,
    tools: serverTools(repository()),
    ...(protocol === undefined ? {} : { protocol }),
  });
  return { ...scripted, url: server.url };
}

/** Runs one request to its end; checks the run read the calls and completed. */
async function runAsking(url: string, protocol: string) {
  const events = await decodeResponse(
    await postJson(`${url}/api/runs`, { prompt: 'Where is login?', protocol }),
  );
  expect(ofType(events, 'tool-result')[0]?.name).toBe('search');
  expect(joined(events, 'text-delta')).toContain(ANSWER);
  expect(events.at(-1)).toMatchObject({ type: 'meta-final', data: { stop_reason: 'completed' } });
  return events;
}

describe('POST /api/runs: the protocol a request asks for', () => {
  it('model: the format of the server model id, recorded under its own name', async () => {
    const format = formatForModel(MODEL_ID).name;
    const { url } = await start(turnsIn(format));
    const events = await runAsking(url, 'model');
    expect(events[0]).toMatchObject({ type: 'meta-init', data: { protocol: format } });
  });

  it('an alias in any case runs its format, recorded under the format name', async () => {
    const entry = FORMATS.find((format) => format.aliases.length > 0)!;
    const { url } = await start(turnsIn(entry.name));
    const events = await runAsking(url, entry.aliases[0]!.toUpperCase());
    expect(events[0]).toMatchObject({ type: 'meta-init', data: { protocol: entry.name } });
  });

  it('auto reads the calls of any format', async () => {
    const { url } = await start(turnsIn('hermes'));
    const events = await runAsking(url, 'auto');
    expect(events[0]).toMatchObject({ type: 'meta-init', data: { protocol: 'auto' } });
  });

  it('a run chosen by model resumes in the same format after front-end tools', async () => {
    const format = formatForModel(MODEL_ID).name;
    const { url } = await start(turnsIn(format, { ask: true }));
    const first = await postJson(`${url}/api/runs`, { prompt: 'Where?', protocol: 'model' });
    const runId = first.headers.get('x-run-id')!;
    const paused = await decodeResponse(first);
    const awaiting = paused.at(-1) as { type: string; tools: { tool_use_id: string }[] };
    expect(awaiting.type).toBe('awaiting-frontend-tools');
    const rest = await decodeResponse(
      await postJson(`${url}/api/runs/${runId}/tool-results`, {
        results: [{ tool_use_id: awaiting.tools[0]!.tool_use_id, content: 'login.js' }],
      }),
    );
    expect(rest[0]).toMatchObject({ type: 'meta-init', data: { protocol: format, resumed: true } });
    expect(joined(rest, 'text-delta')).toContain(ANSWER);
  });

  it('refuses a name no format has, listing the names, auto and model', async () => {
    const { url } = await start([]);
    const response = await postJson(`${url}/api/runs`, { prompt: 'hi', protocol: 'yaml' });
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: string };
    expect(error).toContain(`"protocol" must be one of ${[...PROTOCOL_NAMES, 'model'].join(', ')}`);
    expect(error).toContain('(got "yaml")');
  });
});

describe('createServerApp({ protocol })', () => {
  it('model as the default: runs that ask for none use the model format', async () => {
    const format = formatForModel(MODEL_ID).name;
    const { url } = await start(turnsIn(format), 'model');
    const info = (await (await fetch(`${url}/api/info`)).json()) as { protocol: string };
    expect(info.protocol).toBe(format);
    const events = await decodeResponse(await postJson(`${url}/api/runs`, { prompt: 'Where?' }));
    expect(events[0]).toMatchObject({ type: 'meta-init', data: { protocol: format } });
    expect(joined(events, 'text-delta')).toContain(ANSWER);
  });

  it('throws a TypeError for a default no format has', () => {
    const { model } = scriptedModel([]);
    expect(() => createServerApp({ model, protocol: 'yaml' })).toThrow(TypeError);
    expect(() => createServerApp({ model, protocol: 'yaml' })).toThrow(
      `createServerApp: unknown protocol "yaml": expected one of ${[...PROTOCOL_NAMES, 'model'].join(', ')}`,
    );
  });
});

describe('protocol choices', () => {
  it('every name, alias, auto and model is a choice; anything else is not', () => {
    for (const entry of FORMATS) {
      for (const name of [entry.name, ...entry.aliases, entry.name.toUpperCase()]) {
        expect(isProtocolChoice(name), name).toBe(true);
        expect(protocolNameFor(name, 'any'), name).toBe(entry.name);
      }
    }
    expect(protocolNameFor('AUTO', 'any')).toBe('auto');
    expect(protocolNameFor('Model', MODEL_ID)).toBe(formatForModel(MODEL_ID).name);
    for (const bad of ['yaml', '', 'models', 'auto ']) {
      expect(isProtocolChoice(bad), bad).toBe(false);
      expect(() => protocolNameFor(bad, 'any')).toThrow(TypeError);
    }
  });

  it('parseStartRun keeps the choice as asked and refuses a non-string', () => {
    expect(parseStartRun({ prompt: 'hi', protocol: 'model' })).toEqual({
      prompt: 'hi',
      protocol: 'model',
    });
    expect(() => parseStartRun({ prompt: 'hi', protocol: 3 })).toThrow(HttpError);
  });
});
