/**
 * `maxConcurrentRuns` (`--max-runs`) under concurrent requests (review 25, F8): a request takes
 * its slot before its first store round trip, so requests that arrive while one waits on the
 * store are refused, and the slot comes back however the request or its run ends.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { parseJsonText } from '../../src/core/parse-json.ts';
import { createServerApp, type ServerApp, serverTools } from '../../src/server/index.ts';
import { LiveRuns, RunLimitError } from '../../src/server/live-runs.ts';
import { MemoryRunStore } from '../../src/store/memory/memory-run-store.ts';
import type { NewRun, PausedClaim, RunLease } from '../../src/store/run-store.ts';
import { decodeBlocks } from '../../src/stream/index.ts';
import { scriptedModel } from '../agent/scripted-model.ts';
import { ANSWER_TURN, ASK_TURN, ofType, repository } from './helpers.ts';

/** A promise and what settles it. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

/**
 * A memory store whose `createRun` and `claimPaused` wait at a gate while it is closed (as a
 * Redis round trip keeps a request waiting), and whose next `createRun` can be made to fail.
 */
class GatedStore extends MemoryRunStore {
  private gate: Promise<void> | undefined;
  private openGate: (() => void) | undefined;
  /** Calls that reached the store's start of a run (createRun, claimPaused). */
  startsReached = 0;
  failNextCreate = false;
  onStartReached: () => void = () => {};

  close_(): void {
    const opened = deferred();
    this.gate = opened.promise;
    this.openGate = opened.resolve;
  }

  open(): void {
    this.openGate?.();
    this.gate = undefined;
  }

  override async createRun(run: NewRun, now: number): Promise<RunLease> {
    this.startsReached++;
    this.onStartReached();
    await this.gate;
    if (this.failNextCreate) {
      this.failNextCreate = false;
      throw new Error('the store refused the run');
    }
    return super.createRun(run, now);
  }

  override async claimPaused(runId: string, now: number, log?: string): Promise<PausedClaim> {
    this.startsReached++;
    this.onStartReached();
    await this.gate;
    return super.claimPaused(runId, now, log);
  }
}

const apps: ServerApp[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) {
    app.close();
    await app.drained();
  }
});

function serve(turns: Parameters<typeof scriptedModel>[0]) {
  const store = new GatedStore();
  const app = createServerApp({
    model: scriptedModel(turns).model,
    modelName: 'scripted',
    tools: serverTools(repository()),
    webRoot: '/nonexistent/toolwire-web',
    store,
    limits: { maxConcurrentRuns: 1 },
  });
  apps.push(app);
  return { app, store };
}

const post = async (app: ServerApp, path: string, body: unknown): Promise<Response> =>
  app.app.request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/**
 * Sends the requests at once while the store's gate is closed, and opens it once each request
 * has either reached the store or been answered: no request is still on its way to the check.
 */
async function concurrently(
  store: GatedStore,
  requests: readonly (() => Promise<Response>)[],
): Promise<Response[]> {
  store.close_();
  const allThere = deferred();
  let answeredEarly = 0;
  const check = () => {
    if (store.startsReached + answeredEarly >= requests.length) allThere.resolve();
  };
  store.startsReached = 0;
  store.onStartReached = check;
  const responses = requests.map((send) =>
    send().then((response) => {
      answeredEarly++;
      check();
      return response;
    }),
  );
  await allThere.promise;
  store.open();
  return Promise.all(responses);
}

const statuses = (responses: readonly Response[]) =>
  responses.map((response) => response.status).sort();

describe('--max-runs under concurrent requests (memory store)', () => {
  it('lets exactly one of three concurrent POST /api/runs run with a limit of 1', async () => {
    const { app, store } = serve([ANSWER_TURN, ANSWER_TURN, ANSWER_TURN, ANSWER_TURN]);
    const responses = await concurrently(
      store,
      [1, 2, 3].map((n) => () => post(app, '/api/runs', { prompt: `run ${n}` })),
    );
    expect(statuses(responses)).toEqual([200, 429, 429]);
    const refused = responses.find((response) => response.status === 429)!;
    expect(((await refused.json()) as { error: string }).error).toContain('1 runs are streaming');
    // The run that started ends; its slot is free for the next.
    const started = responses.find((response) => response.status === 200)!;
    expect(decodeBlocks(await started.text()).at(-1)?.type).toBe('meta-final');
    await app.drained();
    expect(app.live.active).toBe(0);
    const next = await post(app, '/api/runs', { prompt: 'after' });
    expect(next.status).toBe(200);
    expect(decodeBlocks(await next.text()).at(-1)?.type).toBe('meta-final');
  });

  it('gives the slot back when the store fails to start the run', async () => {
    const { app, store } = serve([ANSWER_TURN]);
    store.failNextCreate = true;
    const failed = await post(app, '/api/runs', { prompt: 'refused' });
    expect(failed.status).toBe(500);
    await failed.text();
    expect(app.live.active).toBe(0);
    const next = await post(app, '/api/runs', { prompt: 'after' });
    expect(next.status).toBe(200);
    expect(decodeBlocks(await next.text()).at(-1)?.type).toBe('meta-final');
  });

  it('counts a resume and a new run that race for one slot as two', async () => {
    const { app, store } = serve([ASK_TURN, ANSWER_TURN, ANSWER_TURN]);
    const paused = await post(app, '/api/runs', { prompt: 'ask me' });
    const runId = paused.headers.get('x-run-id')!;
    const asked = ofType(decodeBlocks(await paused.text()), 'awaiting-frontend-tools');
    const toolUseId = asked[0]!.tools[0]!.tool_use_id;
    await app.drained();
    const responses = await concurrently(store, [
      () =>
        post(app, `/api/runs/${runId}/tool-results`, {
          results: [{ tool_use_id: toolUseId, content: 'login.js' }],
        }),
      () => post(app, '/api/runs', { prompt: 'another' }),
    ]);
    expect(statuses(responses)).toEqual([200, 429]);
    await Promise.all(responses.map((response) => response.text()));
  });

  it('gives the slot back when a resume is refused after the check', async () => {
    const { app } = serve([ASK_TURN, ANSWER_TURN]);
    const paused = await post(app, '/api/runs', { prompt: 'ask me' });
    const runId = paused.headers.get('x-run-id')!;
    await paused.text();
    await app.drained();
    // An answer to a call the run never made: refused once the paused state is read.
    const mismatched = await post(app, `/api/runs/${runId}/tool-results`, {
      results: [{ tool_use_id: 'no-such-call', content: 'x' }],
    });
    expect(mismatched.status).toBe(422);
    const next = await post(app, '/api/runs', { prompt: 'after' });
    expect(next.status).toBe(200);
    expect(decodeBlocks(await next.text()).at(-1)?.type).toBe('meta-final');
  });
});

describe('LiveRuns slots', () => {
  it('counts a reserved run once when it is owned, and a released slot not at all', () => {
    const live = new LiveRuns(new MemoryRunStore(), 2);
    const first = live.reserve();
    first.assign('run-1');
    const release = live.own({ runId: 'run-1', controller: new AbortController() });
    // The slot became the run's: one more fits.
    const second = live.reserve('run-2');
    expect(() => live.reserve()).toThrow(RunLimitError);
    second.release();
    second.release();
    const third = live.reserve();
    release();
    // A slot the run took is not given back twice.
    first.release();
    live.reserve();
    expect(() => live.reserve()).toThrow(RunLimitError);
    third.release();
  });
});

describe('--max-runs under concurrent requests: the chat and AG-UI routes (memory store)', () => {
  const chatBody = (chatId: string) => ({
    id: chatId,
    trigger: 'submit-message',
    messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Go' }] }],
  });
  const agUiBody = (threadId: string) => ({
    threadId,
    runId: 'r-1',
    messages: [{ id: 'u1', role: 'user', content: 'Go' }],
  });

  it('POST /api/chat: one of three concurrent chats runs with a limit of 1', async () => {
    const { app, store } = serve([ANSWER_TURN, ANSWER_TURN, ANSWER_TURN]);
    const responses = await concurrently(
      store,
      [1, 2, 3].map((n) => () => post(app, '/api/chat', chatBody(`chat-${n}`))),
    );
    expect(statuses(responses)).toEqual([200, 429, 429]);
    await Promise.all(responses.map((response) => response.text()));
  });

  it('POST /api/ag-ui: one of three concurrent threads runs with a limit of 1', async () => {
    const { app, store } = serve([ANSWER_TURN, ANSWER_TURN, ANSWER_TURN]);
    const responses = await concurrently(
      store,
      [1, 2, 3].map((n) => () => post(app, '/api/ag-ui', agUiBody(`thread-${n}`))),
    );
    expect(statuses(responses)).toEqual([200, 429, 429]);
    await Promise.all(responses.map((response) => response.text()));
  });
  it('chat and AG-UI give the slot back when the store fails to start the run', async () => {
    const { app, store } = serve([ANSWER_TURN, ANSWER_TURN]);
    for (const [path, body] of [
      ['/api/chat', chatBody('chat-1')],
      ['/api/ag-ui', agUiBody('thread-1')],
    ] as const) {
      store.failNextCreate = true;
      const failed = await post(app, path, body);
      expect(failed.status).toBe(500);
      await failed.text();
      const next = await post(app, path, { ...body, runId: 'r-2' });
      expect(next.status).toBe(200);
      await next.text();
      await app.drained();
    }
  });
  it('POST /api/chat: a resume holds its slot while it claims the paused run', async () => {
    const { app, store } = serve([ASK_TURN, ANSWER_TURN, ANSWER_TURN]);
    const paused = await post(app, '/api/chat', chatBody('chat-1'));
    const runId = paused.headers.get('x-run-id')!;
    const asked = (await paused.text())
      .split('\n\n')
      .map((frame) => frame.slice(frame.indexOf('data: ') + 'data: '.length))
      .filter((data) => data.startsWith('{'))
      .map((data) => parseJsonText(data) as Record<string, unknown>)
      .find((chunk) => chunk.type === 'tool-input-available')!;
    await app.drained();
    const answer = {
      id: 'chat-1',
      trigger: 'submit-message',
      messages: [
        chatBody('chat-1').messages[0],
        {
          id: runId,
          role: 'assistant',
          parts: [
            {
              type: 'dynamic-tool',
              toolName: asked.toolName,
              toolCallId: asked.toolCallId,
              state: 'output-available',
              input: asked.input,
              output: 'login.js',
            },
          ],
        },
      ],
    };
    // The resume waits on its claim; a new chat meanwhile finds its slot taken.
    store.close_();
    const claiming = deferred();
    store.onStartReached = claiming.resolve;
    const resumed = post(app, '/api/chat', answer);
    await claiming.promise;
    const refused = await post(app, '/api/chat', chatBody('chat-2'));
    expect(refused.status).toBe(429);
    store.open();
    const continued = await resumed;
    expect(continued.status).toBe(200);
    await continued.text();
  });
});
