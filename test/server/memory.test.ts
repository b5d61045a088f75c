import { describe, expect, it } from 'vitest';
import { ASK_USER_TOOL, createServerApp, parseRecording } from '../../src/server/index.ts';
import { decodeBlocks } from '../../src/stream/index.ts';
import { steadyModel } from './steady-model.ts';

const ASK_TURN = '<ask_user>\n<question>Which file?</question>\n</ask_user>';
const ANSWER_TURN = '<attempt_completion><result>Done.</result></attempt_completion>';
const KIB = 1024;
const RECORDING = parseRecording(': replayed\n\n', 'demo.sse');

describe('the server’s memory is bounded', () => {
  it('300 runs with large prompts (half left paused) keep under the byte and count caps', async () => {
    const maxRememberedBytes = 2 * 1024 * KIB;
    const maxRememberedRuns = 100;
    const server = createServerApp({
      // Even calls pause on ask_user (never answered), odd ones complete.
      model: steadyModel((call) => (call % 2 === 0 ? ASK_TURN : ANSWER_TURN)),
      tools: { ask_user: ASK_USER_TOOL },
      webRoot: '/nonexistent/toolwire-web',
      limits: { maxRememberedBytes, maxRememberedRuns },
    });
    const logBytes = async (id: string) => {
      let bytes = 0;
      for await (const item of server.store.read(id, undefined, new AbortController().signal))
        if ('frame' in item) bytes += utf8(item.frame);
      return bytes;
    };
    const ids: string[] = [];
    const sizes = new Map<string, number>();
    let peak = 0;
    for (let index = 0; index < 300; index++) {
      const prompt = `${index}: ${'x'.repeat(225 * KIB)}`;
      const response = await server.app.request('/api/runs', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ prompt }),
      });
      expect(response.status).toBe(200);
      ids.push(response.headers.get('x-run-id')!);
      await response.text();

      // Measured apart from the store's own count: the bytes (UTF-8) of what each kept run
      // holds, its prompt, outcome and paused state, and its stopped log read back whole. A
      // stopped run no longer changes, so each is measured once (measuring all of them after
      // every run made this test quadratic: 300 runs, up to 100 kept each time).
      let held = 0;
      let kept = 0;
      for (const id of ids) {
        const run = await server.store.getRun(id);
        if (run === undefined) continue;
        kept++;
        let size = sizes.get(id);
        if (size === undefined) {
          size =
            utf8(run.prompt) +
            utf8(run.outcome ?? '') +
            utf8(run.state ?? '') +
            (await logBytes(id));
          sizes.set(id, size);
        }
        held += size;
      }
      expect(held).toBeLessThanOrEqual(maxRememberedBytes);
      expect(kept).toBeLessThanOrEqual(maxRememberedRuns);
      peak = Math.max(peak, held);
    }
    const runs = (await Promise.all(ids.map((id) => server.store.getRun(id)))).filter(
      (run) => run !== undefined,
    );
    // The store's own count is under the cap too, and nothing streams any more.
    expect((await server.store.stats()).rememberedBytes).toBeLessThanOrEqual(maxRememberedBytes);
    expect(server.live.active).toBe(0);
    // The cap was reached and paused runs are kept up to it: the newest ones.
    expect(peak).toBeGreaterThan(maxRememberedBytes / 2);
    const pausedIds = runs.filter((run) => run.status === 'paused').map((run) => run.runId);
    expect(pausedIds.length).toBeGreaterThan(0);
    expect(pausedIds.at(-1)).toBe(ids.at(-2));
    // A finished run keeps no prompt.
    for (const run of runs.filter((r) => r.status === 'finished')) expect(run.prompt).toBe('');
    server.close();
  }, 120_000);
});

function utf8(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

describe('server limits', () => {
  it('refuses a limit that is not a whole number in range, naming it', () => {
    const cases: [string, number][] = [
      ['maxRememberedRuns', 0],
      ['maxRememberedBytes', -5],
      ['finishedRunTtlMs', 2 ** 31],
      ['maxConcurrentRuns', 1.5],
      ['maxBodyBytes', Number.NaN],
    ];
    for (const [name, value] of cases)
      expect(
        () => createServerApp({ replay: { recording: RECORDING }, limits: { [name]: value } }),
        name,
      ).toThrow(`createServerApp: limits.${name} must be a whole number from 1 to`);
  });
});

describe('what a late request gets', () => {
  const post = (body: unknown) => ({
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

  it('409 with the outcome for a finished run still remembered, 404 for a forgotten one', async () => {
    const server = createServerApp({
      model: steadyModel((call) => (call === 0 ? ASK_TURN : ANSWER_TURN)),
      tools: { ask_user: ASK_USER_TOOL },
      webRoot: '/nonexistent/toolwire-web',
      limits: { maxRememberedRuns: 2 },
    });
    const run = async () => {
      const response = await server.app.request('/api/runs', post({ prompt: 'hi' }));
      const text = await response.text();
      return { id: response.headers.get('x-run-id')!, text };
    };
    const paused = await run();
    const first = await run();
    const second = await run();
    // Two remembered: the paused run stays, the older finished run is forgotten.
    const forgotten = await server.app.request(`/api/runs/${first.id}/abort`, post({}));
    expect(forgotten.status).toBe(404);
    expect(((await forgotten.json()) as { error: string }).error).toBe(
      `no run has the id "${first.id}": it never existed, or the server has forgotten it (finished runs are kept for 10 minutes; beyond 2 runs or 64 MiB the oldest are forgotten first)`,
    );
    const late = await server.app.request(`/api/runs/${second.id}/abort`, post({}));
    expect(late.status).toBe(409);
    expect(((await late.json()) as { error: string }).error).toContain(
      'has already finished (completed)',
    );
    const awaiting = decodeBlocks(paused.text).find(
      (event) => event.type === 'awaiting-frontend-tools',
    );
    const pendingId = awaiting?.tools[0]?.tool_use_id;
    expect(pendingId).toBeDefined();
    const resumed = await server.app.request(
      `/api/runs/${paused.id}/tool-results`,
      post({ results: [{ tool_use_id: pendingId, content: 'login.js' }] }),
    );
    expect(resumed.status).toBe(200);
    expect(await resumed.text()).toContain('meta_final');
  });
});
