/**
 * The paused state the store gives back is not trusted (review 25, F10): a state that is not
 * JSON, or JSON of the wrong shape, is refused with a 500 that says the stored state is damaged,
 * and the claim is given back: the run is paused again, not left `running` with no owner until
 * a sweep ends it `instance_lost`. For each route that resumes a paused run.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createServerApp, type ServerApp, serverTools } from '../../src/server/index.ts';
import { agUiLog } from '../../src/server/routes/ag-ui.ts';
import { MemoryRunStore } from '../../src/store/memory/memory-run-store.ts';
import type { NewRun } from '../../src/store/run-store.ts';
import { scriptedModel } from '../agent/scripted-model.ts';
import { repository } from './helpers.ts';
import { createBlocksRun } from './run-fixtures.ts';

const apps: ServerApp[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) {
    app.close();
    await app.drained();
  }
});

/** What the store may hold for a paused run: not JSON, and JSON of the wrong shapes. */
const DAMAGED_STATES: readonly [string, string][] = [
  ['not JSON', '{"version":1,"pend'],
  ['not an object', '[1,2,3]'],
  ['pending not an array', '{"version":1,"runId":"x","pending":"c1"}'],
  [
    'a pending call without an id',
    JSON.stringify({
      version: 1,
      runId: 'x',
      protocol: 'xml',
      conversation: [],
      steps: 1,
      usage: { inputTokens: 0, outputTokens: 0 },
      consecutiveFailures: 0,
      batch: [{ toolName: 'ask_user', input: {} }],
      settled: [],
      pending: [{ toolName: 'ask_user', input: {} }],
    }),
  ],
];

/** An app on a memory store holding run `runId` paused with `state`, as `wire` wrote it. */
async function pausedRun(runId: string, state: string, run: Partial<NewRun>) {
  let time = 1_000;
  const store = new MemoryRunStore({ clock: () => time });
  const app = createServerApp({
    model: scriptedModel([]).model,
    modelName: 'scripted',
    tools: serverTools(repository()),
    webRoot: '/nonexistent/toolwire-web',
    store,
    clock: () => time++,
  });
  apps.push(app);
  const lease = await createBlocksRun(store, { runId, prompt: 'ask me', ...run }, time);
  expect(await store.pause(lease, [], state, time)).toBe('paused');
  return { app, store };
}

const post = (app: ServerApp, path: string, body: unknown) =>
  app.app.request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/** The answer is the clear 500, and the run waits again, owned by no one. */
async function expectRefusedAndPaused(response: Response, store: MemoryRunStore, runId: string) {
  expect(response.status).toBe(500);
  const body = (await response.json()) as { error: string };
  expect(body.error).toMatch(
    new RegExp(`^the paused state the store holds for run ${runId} is damaged \\(`),
  );
  const stored = await store.getRun(runId);
  expect(stored?.status).toBe('paused');
}

describe.each(DAMAGED_STATES)('a paused state that is %s', (_, state) => {
  it('POST /api/runs/:id/tool-results answers 500 and gives the run back', async () => {
    const { app, store } = await pausedRun('run-1', state, {});
    const response = await post(app, '/api/runs/run-1/tool-results', {
      results: [{ tool_use_id: 'c1', content: 'login.js' }],
    });
    await expectRefusedAndPaused(response, store, 'run-1');
  });

  it('POST /api/chat answers 500 and gives the run back', async () => {
    const { app, store } = await pausedRun('run-2', state, { wire: 'ui-message' });
    const response = await post(app, '/api/chat', {
      id: 'chat-1',
      trigger: 'submit-message',
      messages: [
        { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'ask me' }] },
        {
          id: 'run-2',
          role: 'assistant',
          parts: [
            {
              type: 'dynamic-tool',
              toolName: 'ask_user',
              toolCallId: 'c1',
              state: 'output-available',
              input: { question: 'Which?' },
              output: 'login.js',
            },
          ],
        },
      ],
    });
    await expectRefusedAndPaused(response, store, 'run-2');
  });

  it('POST /api/ag-ui answers 500 and gives the run back', async () => {
    const { app, store } = await pausedRun('run-3', state, {
      wire: 'ag-ui',
      log: agUiLog('thread-1', 'ag-1'),
    });
    await store.setPointer('thread', 'thread-1', { run: 'run-3' }, 60_000, 1_000);
    const response = await post(app, '/api/ag-ui', {
      threadId: 'thread-1',
      runId: 'ag-2',
      messages: [
        { id: '1', role: 'user', content: 'ask me' },
        {
          id: '2',
          role: 'assistant',
          toolCalls: [
            { id: 'c1', type: 'function', function: { name: 'pick_file', arguments: '{}' } },
          ],
        },
        { id: '3', role: 'tool', toolCallId: 'c1', content: 'login.js' },
      ],
      tools: [{ name: 'pick_file', description: 'Ask the user for a file' }],
      state: {},
      forwardedProps: {},
    });
    await expectRefusedAndPaused(response, store, 'run-3');
  });
});
