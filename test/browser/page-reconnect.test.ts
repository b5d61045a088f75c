import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { parseJsonText } from '../../src/core/parse-json.ts';
import { startFakeOpenAIServer } from '../support/fake-openai-server.ts';
import { ask, HAS_CHROMIUM, pageSession, type ServeProcess } from './support.ts';

const { title, cleanups, startServe, ...session } = pageSession(
  'test/browser/page-reconnect.test.ts',
);

/**
 * The test hook, run in the page before its own code: the body of the n-th response of a run
 * (`POST /api/runs`, `GET …/events`, `POST …/tool-results`) breaks, as a dropped connection
 * does, after `window.dropAfter[n]` bytes (none when absent). The page's reader sees what it
 * would see: some bytes, often the start of a message, then a network error; the request to
 * the server is cancelled with it. Every run request is noted (`window.runRequests`). With
 * `holdReloadRead`, a read of a run from its start (what a reload sends) waits to be sent until
 * `window.releaseRead()`; `window.readHeld` says one waits.
 * (A string, not a function: this code runs in the page, which the tests' types do not know.)
 */
function dropHook(dropAfter: readonly (number | null)[], holdReloadRead: boolean): string {
  return `{
    const dropAfter = ${JSON.stringify(dropAfter)};
    const holdReloadRead = ${holdReloadRead};
    const requests = [];
    window.runRequests = requests;
    window.drops = 0;
    window.readHeld = false;
    const released = new Promise((resolve) => { window.releaseRead = resolve; });
    const pageFetch = window.fetch.bind(window);
    window.fetch = async (input, init) => {
      const url = new URL(typeof input === 'string' ? input : input.url, location.href);
      if (holdReloadRead && url.pathname.endsWith('/events') && !new Headers(init?.headers).has('last-event-id')) {
        window.readHeld = true;
        await released;
      }
      const response = await pageFetch(input, init);
      if (!/^\\/api\\/runs(\\/[^/]+\\/(events|tool-results))?$/.test(url.pathname)) return response;
      const headers = new Headers(init?.headers);
      requests.push({ path: url.pathname, after: headers.get('last-event-id'), status: response.status });
      const limit = dropAfter[requests.length - 1];
      if (limit == null || !response.body) return response;
      const reader = response.body.getReader();
      let sent = 0;
      let cut = false;
      const body = new ReadableStream({
        async pull(controller) {
          if (cut) {
            window.drops++;
            controller.error(new TypeError('network error (the test dropped the connection)'));
            return;
          }
          const { done, value } = await reader.read();
          if (done) return controller.close();
          if (sent + value.length >= limit) {
            controller.enqueue(value.subarray(0, limit - sent));
            cut = true;
            void reader.cancel();
            return;
          }
          sent += value.length;
          controller.enqueue(value);
        },
        cancel(reason) {
          return reader.cancel(reason);
        },
      });
      return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
    };
  }`;
}

const openPage = (
  url: string,
  dropAfter: readonly (number | null)[] = [],
  holdReloadRead = false,
) => session.openPage(url, dropHook(dropAfter, holdReloadRead));

const statusOf = (page: Page) => page.getAttribute('#status', 'data-state');

interface RunRequest {
  readonly path: string;
  readonly after: string | null;
  readonly status: number;
}

const runRequests = async (page: Page) =>
  (await page.evaluate('window.runRequests')) as RunRequest[];

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
/** The agent names a call it reads `call_<random>_<n>`. */
const CALL_ID = /call_[0-9a-z]+_[0-9]+/g;

/**
 * The transcripts the page keeps for its turns (every block, as text: what a reload shows),
 * with run and call ids made alike, so two runs of the same script compare equal.
 */
async function transcripts(page: Page): Promise<string[]> {
  const saved = (await page.evaluate(`sessionStorage.getItem('toolwire.conversation')`)) as string;
  const { turns } = parseJsonText(saved) as { turns: { transcript: string }[] };
  return turns.map((turn) => turn.transcript.replace(UUID, 'RUN').replace(CALL_ID, 'CALL'));
}

/** What the model writes: thinking, a search, then the answer once the search's result is back. */
const THINKING = `Find the login code first. ${'Looking through the files, one by one. '.repeat(40)}`;
const ANSWER = 'Login is handled by **loginUser** in `login.js`: é, 😀, 中文, ]]> & <b>.';
function script(body: Record<string, unknown>): string {
  const messages = body.messages as { role: string }[];
  return messages.some((message) => message.role === 'assistant')
    ? `<attempt_completion><result>${ANSWER}</result></attempt_completion>`
    : `<thinking>${THINKING}</thinking>\n<search>\n<query>loginUser</query>\n</search>`;
}

/** A server with the scripted model, and the transcript of one run read without a break. */
async function withReference(
  beforeChunk?: (turn: number, sent: string) => Promise<void> | undefined,
): Promise<{ serve: ServeProcess; reference: string[] }> {
  const fake = await startFakeOpenAIServer({
    turns: script,
    chunkSize: 7,
    chunkDelayMs: 5,
    ...(beforeChunk ? { beforeChunk } : {}),
  });
  cleanups.push(() => fake.close());
  const serve = await startServe(fake);
  const page = await openPage(serve.url);
  await ask(page, 'How does login work?');
  await expect.poll(() => statusOf(page), { timeout: 30_000 }).toBe('done');
  const requests = await runRequests(page);
  expect(requests.map((request) => request.path)).toEqual(['/api/runs']);
  const reference = await transcripts(page);
  expect(reference).toHaveLength(1);
  expect(reference[0]).toContain('loginUser');
  expect(reference[0]).toContain('中文');
  return { serve, reference };
}

/**
 * A server whose model thinks slowly (a run to stop midway), a page on it (`openPage`'s drops
 * and hold), and the abort requests the page sends.
 */
async function slowRun(
  dropAfter: readonly (number | null)[],
  holdReloadRead = false,
): Promise<{ serve: ServeProcess; page: Page; aborts: string[] }> {
  const fake = await startFakeOpenAIServer({
    turns: [`<thinking>${'Thinking slowly. '.repeat(400)}</thinking>`],
    chunkSize: 3,
    chunkDelayMs: 20,
  });
  cleanups.push(() => fake.close());
  const serve = await startServe(fake);
  const page = await openPage(serve.url, dropAfter, holdReloadRead);
  const aborts: string[] = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && request.url().endsWith('/abort')) aborts.push(request.url());
  });
  return { serve, page, aborts };
}

describe.skipIf(!HAS_CHROMIUM)('the page reconnects and resumes (Chromium)', () => {
  it(
    title('reconnects by itself after dropped connections; the transcript is the unbroken one'),
    async () => {
      const { serve, reference } = await withReference();
      // The run's response breaks after 700 bytes, the first reconnect after 500 more.
      const page = await openPage(serve.url, [700, 500]);
      await ask(page, 'How does login work?');
      await expect.poll(() => statusOf(page), { timeout: 30_000 }).toBe('done');
      expect(await page.evaluate('window.drops')).toBe(2);
      const requests = await runRequests(page);
      expect(requests.map((request) => request.path)).toEqual([
        '/api/runs',
        expect.stringMatching(/^\/api\/runs\/[^/]+\/events$/),
        expect.stringMatching(/^\/api\/runs\/[^/]+\/events$/),
      ]);
      // Each reconnect reads after the last event it read whole; the second after a later one.
      const [, first, second] = requests;
      expect(first!.after).toMatch(/^\d+-\d+$/);
      expect(second!.after).toMatch(/^\d+-\d+$/);
      expect(second!.after).not.toBe(first!.after);
      expect(await transcripts(page)).toEqual(reference);
      expect(await page.locator('[data-block="error"]').count()).toBe(0);
      expect(await page.locator('[data-block="meta-final"]').count()).toBe(1);
    },
  );

  it(
    title('a reload mid-run reads the run again from its start and shows it to its end'),
    async () => {
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let holding = false;
      // The reference run (model requests 0 and 1) goes through; the next is held mid-thinking.
      const { serve, reference } = await withReference((turn, sent) => {
        if (turn === 2 && sent.length > 300) {
          holding = true;
          return held;
        }
        return undefined;
      });
      cleanups.push(async () => release());
      const page = await openPage(serve.url);
      await ask(page, 'How does login work?');
      await expect.poll(() => holding, { timeout: 30_000 }).toBe(true);
      await expect
        .poll(() => page.locator('[data-block="thinking"]').textContent(), { timeout: 10_000 })
        .toContain('Find the login code first.');
      expect(await statusOf(page)).toBe('streaming');
      const kept = (await page.evaluate(`sessionStorage.getItem('toolwire.run')`)) as string;
      const { runId } = parseJsonText(kept) as { runId: string };

      await page.reload();
      // The run is read again from the start: the request has no Last-Event-ID.
      await expect
        .poll(() => runRequests(page), { timeout: 10_000 })
        .toEqual([{ path: `/api/runs/${runId}/events`, after: null, status: 200 }]);
      await expect
        .poll(() => page.locator('[data-block="thinking"]').textContent(), { timeout: 10_000 })
        .toContain('Find the login code first.');
      expect(await statusOf(page)).toBe('streaming');
      release();
      await expect.poll(() => statusOf(page), { timeout: 30_000 }).toBe('done');
      expect(await page.locator('section.turn').count()).toBe(1);
      expect(await page.locator('.question').allTextContents()).toEqual(['How does login work?']);
      expect(await page.locator('[data-block="error"]').count()).toBe(0);
      expect(await transcripts(page)).toEqual(reference);
      // Ended: a further reload shows the transcript kept and reads nothing again.
      expect(await page.evaluate(`sessionStorage.getItem('toolwire.run')`)).toBeNull();
      await page.reload();
      await expect.poll(() => page.locator('[data-block="meta-final"]').count()).toBe(1);
      expect(await statusOf(page)).toBe('idle');
      expect(await runRequests(page)).toEqual([]);
    },
  );

  it(
    title(
      'a reload while the run waits for an answer shows its form again; the answer finishes it across a drop',
    ),
    async () => {
      const fake = await startFakeOpenAIServer({
        turns: [
          '<ask_user>\n<question>Should I explain the session handling too?</question>\n</ask_user>',
          `<attempt_completion><result>${ANSWER}</result></attempt_completion>`,
        ],
      });
      cleanups.push(() => fake.close());
      const serve = await startServe(fake);
      // After the reload: the read of the run goes through, the answer's stream drops after 300 bytes.
      const page = await openPage(serve.url, [null, 300]);
      await ask(page, 'How does login work?');
      const form = page.locator('[data-block="awaiting-frontend-tools"]');
      await form.waitFor({ timeout: 20_000 });
      await expect.poll(() => statusOf(page), { timeout: 10_000 }).toBe('waiting');
      const [started] = await runRequests(page);
      expect(started!.path).toBe('/api/runs');

      await page.reload();
      await expect.poll(() => statusOf(page), { timeout: 10_000 }).toBe('waiting');
      const [again] = await runRequests(page);
      expect(again).toMatchObject({ after: null, status: 200 });
      expect(await page.locator('section.turn').count()).toBe(1);
      expect(await form.getAttribute('data-state')).not.toBe('closed');
      expect(await form.locator('label').textContent()).toBe(
        'Should I explain the session handling too?',
      );
      await form.locator('textarea').fill('No, just the login.');
      await form.locator('button[type="submit"].primary').click();
      await expect.poll(() => statusOf(page), { timeout: 30_000 }).toBe('done');
      expect(await page.evaluate('window.drops')).toBe(1);
      const requests = await runRequests(page);
      expect(
        requests.map((request) => request.path.replace(/\/api\/runs\/[^/]+/, '/api/runs/ID')),
      ).toEqual(['/api/runs/ID/events', '/api/runs/ID/tool-results', '/api/runs/ID/events']);
      // The reconnect reads on after an event of the continuation, never the run from its start.
      expect(requests[2]!.after).toMatch(/^\d+-\d+$/);
      expect(await page.locator('[data-block="text"]').last().textContent()).toContain('中文');
      expect(await page.locator('[data-block="error"]').count()).toBe(0);
      expect(await page.locator('[data-block="meta-final"]').count()).toBe(1);
      expect(JSON.stringify(fake.requests[1])).toContain('No, just the login.');
    },
  );

  it(title('Stop after a reconnect stops the run on the server (its abort route)'), async () => {
    const { serve, page, aborts } = await slowRun([400]);
    await ask(page, 'Take your time');
    // Reconnected, and reading events that came after the reconnect.
    await expect.poll(async () => (await runRequests(page)).length, { timeout: 20_000 }).toBe(2);
    expect(await page.evaluate('window.drops')).toBe(1);
    await expect.poll(() => statusOf(page), { timeout: 10_000 }).toBe('streaming');
    const shown = (await page.locator('[data-block="thinking"]').textContent()) ?? '';
    await expect
      .poll(
        async () => ((await page.locator('[data-block="thinking"]').textContent()) ?? '').length,
        {
          timeout: 10_000,
        },
      )
      .toBeGreaterThan(shown.length);

    await page.click('#stop');
    await expect.poll(() => statusOf(page), { timeout: 10_000 }).toBe('stopped');
    const runId = (await runRequests(page))[1]!.path.split('/')[3]!;
    expect(aborts).toEqual([`${serve.url.replace(/\/$/, '')}/api/runs/${runId}/abort`]);
    expect(await page.locator('[data-block="error"]').getAttribute('data-error-type')).toBe(
      'aborted',
    );
    expect(await page.locator('[data-block="meta-final"]').count()).toBe(0);
    // The run itself ended: its log, read again, ends with the abort.
    const log = await (
      await fetch(`${serve.url.replace(/\/$/, '')}/api/runs/${runId}/events`)
    ).text();
    expect(log).toContain('aborted');
    expect(await page.evaluate(`sessionStorage.getItem('toolwire.run')`)).toBeNull();
  });

  it(title('Stop pressed while a reload asks for the run again stops it'), async () => {
    const { page, aborts } = await slowRun([], true);
    await ask(page, 'Take your time');
    await page.locator('[data-block="thinking"]').waitFor({ timeout: 20_000 });
    await page.reload();
    await expect.poll(() => page.evaluate('window.readHeld'), { timeout: 10_000 }).toBe(true);
    expect(await statusOf(page)).toBe('connecting');
    await page.click('#stop');
    await expect.poll(() => aborts.length, { timeout: 10_000 }).toBe(1);
    await page.evaluate('window.releaseRead()');
    await expect.poll(() => statusOf(page), { timeout: 10_000 }).toBe('stopped');
    expect(await page.locator('[data-block="error"]').getAttribute('data-error-type')).toBe(
      'aborted',
    );
    expect(await page.locator('section.turn').count()).toBe(1);
    expect(await page.evaluate(`sessionStorage.getItem('toolwire.run')`)).toBeNull();
  });
});
