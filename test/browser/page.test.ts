import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { parseRecording } from '../../src/server/index.ts';
import { type BlockEvent, encodeBlocks } from '../../src/stream/index.ts';
import { startTestServer, type TestServer } from '../server/helpers.ts';
import { startFakeOpenAIServer } from '../support/fake-openai-server.ts';
import { ask, HAS_CHROMIUM, pageSession, SCREENSHOTS, spawnServe } from './support.ts';

const { title, webDir, cleanups, startServe, ...session } = pageSession(
  'test/browser/page.test.ts',
);

/**
 * Records every text the call card's arguments showed, to see them fill in.
 * (A string, not a function: this code runs in the page, which the tests' types do not know.)
 */
const RECORD_ARGUMENT_TEXTS = `{
  const seen = [];
  window.argumentTexts = seen;
  new MutationObserver(() => {
    for (const args of document.querySelectorAll('[data-block="tool-call"] .tool-args')) {
      const text = args.textContent ?? '';
      if (seen.at(-1) !== text) seen.push(text);
    }
  }).observe(document, { subtree: true, childList: true, characterData: true });
}`;

const openPage = (url: string) => session.openPage(url, RECORD_ARGUMENT_TEXTS);

const statusOf = (page: Page) => page.getAttribute('#status', 'data-state');

describe.skipIf(!HAS_CHROMIUM)('the page in Chromium', () => {
  it(
    title(
      'asks, shows thinking, a streamed call and its result, answers ask_user, shows the answer',
    ),
    async () => {
      let showPartial = () => {};
      const partialShown = new Promise<void>((resolve) => {
        showPartial = resolve;
      });
      const fake = await startFakeOpenAIServer({
        turns: [
          '<thinking>Find the login code first.</thinking>\n<search>\n<query>loginUser</query>\n</search>',
          '<ask_user>\n<question>Should I explain the session handling too?</question>\n</ask_user>',
          '<attempt_completion><result>Login is handled by **loginUser** in `login.js`: it calls `checkPassword`.</result></attempt_completion>',
        ],
        chunkSize: 4,
        chunkDelayMs: 25,
        // The search call is held once its argument is read and before the call closes, until
        // the page has shown the arguments unfinished: no race between the stream and a frame.
        beforeChunk: (turn, sent) =>
          turn === 0 && sent.includes('</query>') && !sent.includes('</search>')
            ? partialShown
            : undefined,
      });
      cleanups.push(async () => {
        showPartial();
        await fake.close();
      });
      const serve = await startServe(fake);
      const page = await openPage(serve.url);
      await expect
        .poll(() => page.textContent('#server'), { timeout: 10_000 })
        .toContain('test-model');

      await ask(page, 'How does login work?');
      await expect
        .poll(
          async () =>
            ((await page.evaluate('window.argumentTexts')) as string[]).some(
              (text) =>
                text.length > 0 && text.length < 21 && '{"query":"loginUser"}'.startsWith(text),
            ),
          { timeout: 20_000 },
        )
        .toBe(true);
      showPartial();
      const form = page.locator('[data-block="awaiting-frontend-tools"]');
      await form.waitFor({ timeout: 20_000 });
      expect(await statusOf(page)).toBe('waiting');

      // Thinking, collapsible, with the model's words.
      const thinking = page.locator('[data-block="thinking"]').first();
      expect(await thinking.evaluate((node) => node.tagName)).toBe('DETAILS');
      expect(await thinking.textContent()).toContain('Find the login code first.');
      // The call, its arguments filled in while they streamed, then its result inside the card.
      const call = page.locator('[data-block="tool-call"][data-tool="search"]');
      expect(await call.getAttribute('data-state')).toBe('done');
      expect(await call.locator('.tool-args').textContent()).toBe(
        JSON.stringify({ query: 'loginUser' }, null, 2),
      );
      const shown = (await page.evaluate('window.argumentTexts')) as string[];
      const partial = shown.filter(
        (text) => text.length > 0 && '{"query":"loginUser"}'.startsWith(text) && text.length < 21,
      );
      expect(partial.length, `argument texts seen: ${JSON.stringify(shown)}`).toBeGreaterThan(0);
      expect(await call.locator('[data-block="tool-result"]').textContent()).toContain('login.js');

      // The front-end tool: its question as a form; the answer resumes the run.
      expect(await form.locator('label').textContent()).toBe(
        'Should I explain the session handling too?',
      );
      await form.locator('textarea').fill('No, just the login.');
      await form.locator('button[type="submit"].primary').click();

      await expect.poll(() => statusOf(page), { timeout: 20_000 }).toBe('done');
      const answer = page.locator('[data-block="text"]').last();
      expect(await answer.textContent()).toBe(
        'Login is handled by loginUser in login.js: it calls checkPassword.',
      );
      expect(await answer.locator('strong').textContent()).toBe('loginUser');
      expect(await answer.locator('code').allTextContents()).toEqual(['login.js', 'checkPassword']);
      expect(await page.locator('[data-block="meta-final"]').textContent()).toContain('3 steps');
      expect(await form.getAttribute('data-state')).toBe('closed');
      // The model read the user's answer.
      expect(JSON.stringify(fake.requests[2])).toContain('No, just the login.');

      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: join(SCREENSHOTS, 'page-run.png'), fullPage: true });
    },
  );

  it(title('says plainly that no model server answers, and how to start one'), async () => {
    const fake = await startFakeOpenAIServer({ turns: [] });
    const deadURL = fake.baseURL;
    await fake.close();
    const serve = await spawnServe(['--base-url', deadURL, '--web-dir', webDir()]);
    cleanups.push(() => serve.stop());
    const page = await openPage(serve.url);
    await ask(page, 'Hello?');
    await expect.poll(() => statusOf(page), { timeout: 20_000 }).toBe('failed');
    const error = page.locator('[data-block="error"]');
    expect(await error.getAttribute('data-error-type')).toBe('model_unreachable');
    expect(await error.textContent()).toContain(`No model server answers at ${deadURL}.`);
    expect(await error.locator('.hint').textContent()).toContain('ollama serve');
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS, 'page-model-down.png'), fullPage: true });
  });

  it(
    title('a follow-up continues the same conversation, and a reload shows it and continues it'),
    async () => {
      const fake = await startFakeOpenAIServer({
        turns: [
          '<attempt_completion><result>Login is handled by loginUser in login.js.</result></attempt_completion>',
          '<attempt_completion><result>Yes: loginUser calls checkPassword.</result></attempt_completion>',
          '<attempt_completion><result>It returns what checkPassword returns.</result></attempt_completion>',
        ],
      });
      cleanups.push(() => fake.close());
      const serve = await startServe(fake);
      const page = await openPage(serve.url);
      await ask(page, 'How does login work?');
      await expect.poll(() => statusOf(page), { timeout: 20_000 }).toBe('done');
      // A model server that answers: no notice.
      expect(await page.isVisible('#model-notice')).toBe(false);

      // The follow-up goes with the first turn: the model reads the question and its answer.
      await ask(page, 'Does it check the password?');
      await expect.poll(() => page.locator('section.turn').count(), { timeout: 5000 }).toBe(2);
      await expect.poll(() => statusOf(page), { timeout: 20_000 }).toBe('done');
      const second = JSON.stringify(fake.requests[1]);
      expect(second).toContain('How does login work?');
      expect(second).toContain('Login is handled by loginUser in login.js.');
      expect(second).toContain('Does it check the password?');

      // A reload shows both turns as they were, and the next question continues from them.
      await page.reload();
      await expect.poll(() => page.locator('section.turn').count(), { timeout: 5000 }).toBe(2);
      expect(await page.locator('.question').allTextContents()).toEqual([
        'How does login work?',
        'Does it check the password?',
      ]);
      expect(await page.locator('[data-block="text"]').allTextContents()).toEqual([
        'Login is handled by loginUser in login.js.',
        'Yes: loginUser calls checkPassword.',
      ]);
      expect(await page.locator('[data-block="meta-final"]').count()).toBe(2);
      expect(await statusOf(page)).toBe('idle');
      expect(await page.textContent('#status')).toContain('Ask a follow-up question');
      await ask(page, 'What does it return?');
      await expect.poll(() => statusOf(page), { timeout: 20_000 }).toBe('done');
      const third = JSON.stringify(fake.requests[2]);
      for (const earlier of [
        'How does login work?',
        'Login is handled by loginUser in login.js.',
        'Does it check the password?',
        'Yes: loginUser calls checkPassword.',
        'What does it return?',
      ])
        expect(third, earlier).toContain(earlier);
      expect(await page.locator('section.turn').count()).toBe(3);
    },
  );

  it(title('empties the box once a question is sent, so Enter does not ask it again'), async () => {
    const fake = await startFakeOpenAIServer({
      turns: ['<attempt_completion><result>Once.</result></attempt_completion>'],
    });
    cleanups.push(() => fake.close());
    const serve = await startServe(fake);
    const page = await openPage(serve.url);
    await ask(page, 'Only once?');
    expect(await page.inputValue('#prompt')).toBe('');
    await expect.poll(() => statusOf(page), { timeout: 20_000 }).toBe('done');
    await page.press('#prompt', 'Enter');
    await page.evaluate('new Promise((resolve) => setTimeout(resolve, 300))');
    expect(await page.locator('section.turn').count()).toBe(1);
    expect(fake.requests).toHaveLength(1);
    expect(await page.locator('.question').allTextContents()).toEqual(['Only once?']);
  });

  it(title('New conversation starts over: nothing shown, nothing sent, nothing kept'), async () => {
    const fake = await startFakeOpenAIServer({
      turns: [
        '<attempt_completion><result>First answer.</result></attempt_completion>',
        '<attempt_completion><result>Fresh answer.</result></attempt_completion>',
      ],
    });
    cleanups.push(() => fake.close());
    const serve = await startServe(fake);
    const page = await openPage(serve.url);
    expect(await page.isDisabled('#new-conversation')).toBe(true);
    await ask(page, 'The first question');
    await expect.poll(() => statusOf(page), { timeout: 20_000 }).toBe('done');
    expect(await page.isDisabled('#new-conversation')).toBe(false);
    await page.click('#new-conversation');
    expect(await page.locator('section.turn').count()).toBe(0);
    expect(await page.evaluate('sessionStorage.length')).toBe(0);
    expect(await page.isDisabled('#new-conversation')).toBe(true);
    await page.reload();
    await expect
      .poll(() => page.textContent('#server'), { timeout: 10_000 })
      .toContain('test-model');
    expect(await page.locator('section.turn').count()).toBe(0);
    await ask(page, 'A new question');
    await expect.poll(() => statusOf(page), { timeout: 20_000 }).toBe('done');
    expect(JSON.stringify(fake.requests[1])).not.toContain('The first question');
    expect(await page.locator('.question').allTextContents()).toEqual(['A new question']);
  });

  it(title('a stored conversation that cannot be read is discarded, saying so'), async () => {
    const fake = await startFakeOpenAIServer({
      turns: ['<attempt_completion><result>Still works.</result></attempt_completion>'],
    });
    cleanups.push(() => fake.close());
    const serve = await startServe(fake);
    const page = await openPage(serve.url);
    for (const stored of [
      '{not json',
      '{"version":99,"history":[],"turns":[]}',
      '{"version":1,"history":[],"turns":[{"question":7}]}',
    ]) {
      await page.evaluate(
        `sessionStorage.setItem('toolwire.conversation', ${JSON.stringify(stored)})`,
      );
      await page.reload();
      await page.locator('[data-block="storage-notice"]').waitFor({ timeout: 5000 });
      expect(await page.textContent('[data-block="storage-notice"]')).toContain(
        'could not be read',
      );
      expect(await page.evaluate('sessionStorage.length')).toBe(0);
    }
    // A stored transcript is read by the stream decoder: markup in it stays text.
    await page.evaluate(
      `sessionStorage.setItem('toolwire.conversation', ${JSON.stringify(
        JSON.stringify({
          version: 1,
          history: [],
          turns: [
            {
              question: '<img src=x onerror="window.hit=1">',
              transcript:
                '<content-block-text><![CDATA[<b>kept as text</b>]]></content-block-text><broken',
              ended: true,
            },
          ],
        }),
      )})`,
    );
    await page.reload();
    await page.locator('section.turn').waitFor({ timeout: 5000 });
    expect(await page.textContent('.question')).toBe('<img src=x onerror="window.hit=1">');
    expect(await page.locator('.question img').count()).toBe(0);
    expect(await page.evaluate('window.hit')).toBeUndefined();
    await ask(page, 'Does it still work?');
    await expect.poll(() => statusOf(page), { timeout: 20_000 }).toBe('done');
  });

  it(
    title(
      'says at once, without a question, that no model server answers, and plays the recording',
    ),
    async () => {
      const fake = await startFakeOpenAIServer({ turns: [] });
      const deadURL = fake.baseURL;
      await fake.close();
      const serve = await spawnServe(['--base-url', deadURL, '--web-dir', webDir()]);
      cleanups.push(() => serve.stop());
      const page = await openPage(serve.url);
      const notice = page.locator('#model-notice');
      await notice.waitFor({ state: 'visible', timeout: 10_000 });
      expect(await notice.textContent()).toContain(
        `No model server answers at ${deadURL}: start one, or watch the recorded run.`,
      );
      expect(await notice.textContent()).toContain('the connection was refused');
      expect(await statusOf(page)).toBe('idle');
      expect(await page.locator('section.turn').count()).toBe(0);

      await page.click('#watch-recording');
      await expect.poll(() => statusOf(page), { timeout: 20_000 }).toBe('done');
      expect(await page.textContent('[data-block="replay-notice"]')).toContain('recorded-run.sse');
      expect(await page.textContent('[data-block="meta-init"]')).toContain(
        'Recorded question: “How does login work in this project?”',
      );
      expect(await page.locator('[data-block="tool-call"][data-tool="search"]').count()).toBe(1);
      expect(await page.locator('.question').count()).toBe(0);
      // The notice offered the recording; once it has played, the notice has said its part.
      expect(await notice.isVisible()).toBe(false);
      // The recording reports no token counts: unknown, never 0.
      const summary = await page.textContent('[data-block="meta-final"]');
      expect(summary).toContain('usage unknown');
      expect(summary).not.toMatch(/\b0 (input|output)/);
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: join(SCREENSHOTS, 'page-no-model.png'), fullPage: true });
      // Nor does it come back with the restored recording after a reload.
      await page.reload();
      await page.locator('[data-block="replay-notice"]').waitFor({ timeout: 5000 });
      await expect
        .poll(() => page.textContent('#server'), { timeout: 10_000 })
        .not.toBe('connecting…');
      await page.evaluate('new Promise((resolve) => setTimeout(resolve, 500))');
      expect(await notice.isVisible()).toBe(false);
    },
  );

  it(title('stops a run with the stop button'), async () => {
    const fake = await startFakeOpenAIServer({
      turns: [`<thinking>${'Thinking slowly. '.repeat(200)}</thinking>`],
      chunkSize: 3,
      chunkDelayMs: 20,
    });
    cleanups.push(() => fake.close());
    const serve = await startServe(fake);
    const page = await openPage(serve.url);
    await ask(page, 'Take your time');
    await page.locator('[data-block="thinking"]').waitFor();
    expect(await statusOf(page)).toBe('streaming');
    await page.click('#stop');
    await expect.poll(() => statusOf(page), { timeout: 10_000 }).toBe('stopped');
    expect(await page.locator('[data-block="error"]').getAttribute('data-error-type')).toBe(
      'aborted',
    );
    expect(await page.locator('[data-block="meta-final"]').count()).toBe(0);
    expect(await page.isDisabled('#stop')).toBe(true);
  });

  it(title('shows a clear state when the stream breaks'), async () => {
    const fake = await startFakeOpenAIServer({
      turns: [`<thinking>${'Still thinking. '.repeat(200)}</thinking>`],
      chunkSize: 3,
      chunkDelayMs: 20,
    });
    cleanups.push(() => fake.close());
    const serve = await startServe(fake);
    const page = await openPage(serve.url);
    await ask(page, 'Go on');
    await page.locator('[data-block="thinking"]').waitFor();
    await serve.stop('SIGKILL');
    await expect.poll(() => statusOf(page), { timeout: 10_000 }).toBe('broken');
    expect(await page.textContent('#status')).toContain('The stream broke before the run finished');
    expect(await page.locator('[data-error-type="stream_broken"]').textContent()).toContain(
      'The connection to the server was lost',
    );
  });

  describe('replay', () => {
    let server: TestServer | undefined;
    afterEach(async () => {
      await server?.close();
      server = undefined;
    });

    it(title('labels a replayed run as a recording'), async () => {
      const { readFile } = await import('node:fs/promises');
      const text = await readFile(
        new URL('../../examples/recorded-run.sse', import.meta.url),
        'utf8',
      );
      server = await startTestServer({
        replay: { recording: parseRecording(text, 'recorded-run.sse'), delayMs: 0 },
        webRoot: webDir(),
      });
      const page = await openPage(server.url);
      await expect.poll(() => page.isVisible('#banner'), { timeout: 10_000 }).toBe(true);
      expect(await page.textContent('#banner')).toContain('replays recorded-run.sse');
      await ask(page, 'Anything');
      await expect.poll(() => statusOf(page), { timeout: 20_000 }).toBe('done');
      expect(await page.textContent('[data-block="replay-notice"]')).toContain('a recorded run');
      expect(await page.textContent('[data-block="meta-init"]')).toContain(
        'Recorded question: “How does login work in this project?”',
      );
      expect(await page.locator('[data-block="text"] a').getAttribute('href')).toMatch(/^https:/);
      // The search result quotes the file in a fenced block: shown as code, not as backticks.
      const result = page.locator(
        '[data-block="tool-call"][data-tool="search"] [data-block="tool-result"]',
      );
      expect(
        await result.locator('pre.result-code code.language-typescript').textContent(),
      ).toContain('export async function loginUser');
      expect(await result.textContent()).toContain('Found 1 matching line');
      expect(await result.textContent()).not.toContain('```');
    });

    it(title('renders every block type'), async () => {
      const png =
        'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
      const events: BlockEvent[] = [
        {
          type: 'meta-init',
          data: { format: 'xml', user_query: 'q', agent_uuid: 'all', model: 'm' },
        },
        { type: 'text-start' },
        { type: 'text-delta', delta: 'Sales by region:' },
        {
          type: 'text-embed',
          name: 'table',
          attributes: { title: 'Regions' },
          content: '[{"region":"north","sales":3}]',
        },
        { type: 'text-end' },
        { type: 'tool-call', kind: 'client', id: 'c1', name: 'lookup', arguments: '{"id":7}' },
        {
          type: 'tool-result',
          kind: 'client',
          id: 'c1',
          name: 'lookup',
          content: '{"name":"Ada","tags":["x","y"]}',
        },
        { type: 'tool-call', kind: 'client', id: 'c2', name: 'draw', arguments: '{}' },
        {
          type: 'tool-result',
          kind: 'client',
          id: 'c2',
          name: 'draw',
          content: [
            { type: 'text', text: 'A dot:' },
            { type: 'image', src: `data:image/png;base64,${png}`, mediaType: 'image/png' },
            { type: 'image', src: 'javascript:alert(1)', mediaType: 'image/png' },
          ],
        },
        {
          type: 'tool-call',
          kind: 'server',
          id: 's1',
          name: 'web_search',
          arguments: '{"query":"ada"}',
        },
        {
          type: 'tool-result',
          kind: 'server',
          id: 's1',
          name: 'web_search_tool_result',
          content: 'one hit',
        },
        {
          type: 'citations',
          citations: [
            {
              type: 'char_location',
              documentIndex: 0,
              documentTitle: 'Doc A',
              startCharIndex: 1,
              endCharIndex: 9,
              citedText: 'chars quote',
            },
            {
              type: 'page_location',
              documentIndex: 1,
              documentTitle: 'Doc B',
              startPageNumber: 2,
              endPageNumber: 4,
              citedText: 'pages quote',
            },
            {
              type: 'web_search_result_location',
              url: 'https://example.com/ada',
              title: 'Ada',
              citedText: 'web quote',
            },
          ],
        },
        {
          type: 'meta-files',
          files: [
            {
              file_id: 'f1',
              filename: 'report.pdf',
              storage_location: 'https://example.com/r.pdf',
            },
          ],
        },
        { type: 'error', error: { type: 'rate_limit', message: 'slow down' } },
        {
          type: 'meta-final',
          data: {
            conversation_history: [],
            stop_reason: 'completed',
            total_steps: 4,
            generated_files: null,
            cost: 0.5,
            cumulative_usage: { input_tokens: 10, output_tokens: 5 },
          },
        },
      ];
      // Unknown markup between blocks is kept and shown as it came.
      const body = encodeBlocks(events).replace(
        'data: <meta_final',
        'data: <unknown-block>kept</unknown-block>\n\ndata: <meta_final',
      );
      server = await startTestServer({
        replay: { recording: parseRecording(body, 'all.sse'), delayMs: 0 },
        webRoot: webDir(),
      });
      const page = await openPage(server.url);
      await ask(page, 'Everything');
      await expect.poll(() => statusOf(page), { timeout: 20_000 }).toBe('done');
      expect(await page.textContent('[data-block="text"] [data-embed="table"] figcaption')).toBe(
        'Regions',
      );
      const lookup = page.locator('[data-block="tool-call"][data-tool="lookup"]');
      expect(await lookup.locator('.result-json').textContent()).toBe(
        JSON.stringify({ name: 'Ada', tags: ['x', 'y'] }, null, 2),
      );
      const draw = page.locator('[data-block="tool-call"][data-tool="draw"]');
      expect(await draw.locator('img').getAttribute('src')).toBe(`data:image/png;base64,${png}`);
      expect(await draw.locator('img').count()).toBe(1);
      expect(await draw.textContent()).toContain('Image not shown (unsupported source)');
      expect(await page.textContent('[data-tool="web_search"] .tool-name')).toBe(
        'web_search (provider)',
      );
      expect(
        await page
          .locator('[data-block="citations"] li')
          .evaluateAll((items) => items.map((item) => item.getAttribute('data-citation'))),
      ).toEqual(['char_location', 'page_location', 'web_search_result_location']);
      expect(await page.textContent('[data-citation="page_location"]')).toContain('pages 2–3');
      expect(await page.getAttribute('[data-citation] a', 'href')).toBe('https://example.com/ada');
      expect(await page.getAttribute('[data-block="meta-files"] a', 'href')).toBe(
        'https://example.com/r.pdf',
      );
      expect(await page.textContent('[data-block="error"]')).toContain('slow down');
      expect(await page.textContent('[data-block="stray-text"]')).toBe(
        '<unknown-block>kept</unknown-block>',
      );
      expect(await page.textContent('[data-block="meta-final"]')).toContain('cost 0.5');
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: join(SCREENSHOTS, 'page-all-blocks.png'), fullPage: true });
    });

    it(
      title(
        'titles an error card by its kind, keeps options whole, and shows fenced results as code',
      ),
      async () => {
        const hint =
          'Start one, for example Ollama: run `ollama serve`, then `ollama pull qwen2.5-coder:7b`. ' +
          'Or point --base-url (TOOLWIRE_BASE_URL) at any OpenAI-compatible server (vLLM, llama.cpp, LM Studio), ' +
          'or run `toolwire serve --replay examples/recorded-run.sse` to see a recorded run without a model.';
        const events: BlockEvent[] = [
          {
            type: 'meta-init',
            data: { format: 'xml', user_query: 'q', agent_uuid: 'errors', model: 'm' },
          },
          { type: 'tool-call', kind: 'client', id: 'c1', name: 'search', arguments: '{}' },
          {
            type: 'tool-result',
            kind: 'client',
            id: 'c1',
            name: 'search',
            content: 'File: a.ts\n```ts\nconst b = "<img src=x onerror=window.hit=1>";\n```\nDone.',
          },
          {
            type: 'error',
            error: {
              type: 'model_unreachable',
              kind: 'model-unreachable',
              message: 'No model server answers at http://127.0.0.1:1/v1.',
              hint,
            },
          },
          // A kind decides the title over an older type; without a hint, the kind's own.
          {
            type: 'error',
            error: { type: 'model_error', kind: 'model-timeout', message: 'No answer in 60 s.' },
          },
        ];
        server = await startTestServer({
          replay: { recording: parseRecording(encodeBlocks(events), 'errors.sse'), delayMs: 0 },
          webRoot: webDir(),
        });
        const page = await openPage(server.url);
        await ask(page, 'Errors please');
        await expect.poll(() => statusOf(page), { timeout: 20_000 }).toBe('failed');

        const result = page.locator('[data-block="tool-result"]');
        expect(await result.locator('pre.result-code code.language-ts').textContent()).toBe(
          'const b = "<img src=x onerror=window.hit=1>";',
        );
        expect(await result.locator('img').count()).toBe(0);
        expect(await page.evaluate('window.hit')).toBeUndefined();
        expect(await result.locator('pre.result-text').allTextContents()).toEqual([
          'File: a.ts',
          'Done.',
        ]);

        const unreachable = page.locator('[data-error-kind="model-unreachable"]');
        expect(await unreachable.locator('strong').first().textContent()).toBe('No model server');
        expect(await unreachable.locator('.hint').textContent()).toBe(hint.replaceAll('`', ''));
        const timeout = page.locator('[data-error-kind="model-timeout"]');
        expect(await timeout.getAttribute('data-error-type')).toBe('model_error');
        expect(await timeout.locator('strong').first().textContent()).toBe(
          'The model server did not answer in time',
        );
        expect(await timeout.locator('.hint').textContent()).toContain('ask again in a moment');

        // At every width, `--base-url` and `--replay` sit on one line each.
        const broken: string[] = [];
        for (let width = 300; width <= 900; width += 6) {
          await page.setViewportSize({ width, height: 900 });
          const lines = (await page.evaluate(`(() => {
            const hint = document.querySelector('[data-error-kind="model-unreachable"] .hint');
            const text = hint.textContent;
            const lines = {};
            for (const option of ['--base-url', '--replay']) {
              const start = text.indexOf(option);
              const range = document.createRange();
              let offset = 0;
              const walker = document.createTreeWalker(hint, NodeFilter.SHOW_TEXT);
              for (let node = walker.nextNode(); node; node = walker.nextNode()) {
                const length = node.data.length;
                if (offset <= start && start < offset + length) range.setStart(node, start - offset);
                const end = start + option.length;
                if (offset < end && end <= offset + length) range.setEnd(node, end - offset);
                offset += length;
              }
              lines[option] = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size;
            }
            return lines;
          })()`)) as Record<string, number>;
          for (const [option, count] of Object.entries(lines))
            if (count !== 1) broken.push(`${option} on ${count} lines at ${width}px`);
        }
        expect(broken).toEqual([]);
      },
    );

    it(title('keeps up with a fast stream of many small deltas'), async () => {
      const words = Array.from({ length: 6000 }, (_, index) => `w${index} `);
      const events: BlockEvent[] = [
        {
          type: 'meta-init',
          data: { format: 'xml', user_query: 'q', agent_uuid: 'fast', model: 'm' },
        },
        { type: 'thinking-start' },
        ...words.map((delta): BlockEvent => ({ type: 'thinking-delta', delta })),
        { type: 'thinking-end' },
        { type: 'text-start' },
        ...words.map((delta): BlockEvent => ({ type: 'text-delta', delta })),
        { type: 'text-end' },
        {
          type: 'meta-final',
          data: {
            conversation_history: [],
            stop_reason: 'completed',
            total_steps: 1,
            generated_files: null,
            cost: null,
            cumulative_usage: null,
          },
        },
      ];
      server = await startTestServer({
        replay: { recording: parseRecording(encodeBlocks(events), 'fast.sse'), delayMs: 0 },
        webRoot: webDir(),
      });
      const page = await openPage(server.url);
      await page.evaluate(`{
        window.longTasks = [];
        new PerformanceObserver((list) => {
          for (const entry of list.getEntries()) window.longTasks.push(entry.duration);
        }).observe({ type: 'longtask', buffered: true });
      }`);
      const started = Date.now();
      await ask(page, 'Fast please');
      await expect.poll(() => statusOf(page), { timeout: 30_000 }).toBe('done');
      const elapsed = Date.now() - started;
      expect(await page.locator('[data-block="text"]').textContent()).toBe(words.join('').trim());
      const longTasks = (await page.evaluate('window.longTasks')) as number[];
      console.info(`fast stream: ${elapsed} ms, long tasks ${JSON.stringify(longTasks)}`);
      // 12 000 deltas: batched per frame, the page never blocks for long.
      expect(Math.max(0, ...longTasks), `long tasks: ${longTasks.join(', ')}`).toBeLessThan(1000);
      expect(elapsed).toBeLessThan(20_000);
    });
  });
});
