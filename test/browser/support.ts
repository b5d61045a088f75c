import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { repository } from '../server/helpers.ts';
import { startCli } from '../support/child-process.ts';
import type { FakeServer } from '../support/fake-openai-server.ts';

export const CHROMIUM = '/usr/bin/chromium';
export const HAS_CHROMIUM = existsSync(CHROMIUM);
export const SKIP_REASON = `skipped: ${CHROMIUM} is absent (install Debian's chromium; CI does)`;

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Builds the page with the project's Vite config into a temporary folder (once per file). */
let built: Promise<string> | undefined;
export function buildPage(): Promise<string> {
  built ??= (async () => {
    const { build } = await import('vite');
    const outDir = mkdtempSync(join(tmpdir(), 'toolwire-page-'));
    await build({
      configFile: join(ROOT, 'vite.config.ts'),
      logLevel: 'warn',
      build: { outDir, emptyOutDir: true, sourcemap: false },
    });
    return outDir;
  })();
  return built;
}

export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
}

export interface ServeProcess {
  readonly url: string;
  readonly child: ChildProcess;
  output(): string;
  /** Stops the server (SIGTERM unless told) and resolves once it exited. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Resolves with the server's exit code (null when a signal ended it) once it exited. */
  exited(): Promise<number | null>;
}

/**
 * `toolwire serve` from the sources, on a free port; resolves once it prints where it listens.
 * A server that does not start in time is killed, and every server still running at the end of
 * the test file is too (test/support/child-process.ts).
 */
export async function spawnServe(args: string[]): Promise<ServeProcess> {
  const serve = await startCli(['serve', '--port', '0', ...args], {
    readyWhen: /listening on (http:\/\/[^\s]+)\s/,
  });
  return {
    url: serve.ready[1]!,
    child: serve.child,
    output: serve.output,
    stop: async (signal) => {
      await serve.stop(signal);
    },
    exited: serve.exited,
  };
}

export const SCREENSHOTS = join(ROOT, 'test-results');

export interface PageSession {
  /** `it`'s title, saying why the test is skipped when Chromium is absent. */
  title(name: string): string;
  /** The built page's folder (set once the file's `beforeAll` ran). */
  webDir(): string;
  /** Run after each test, last pushed first. */
  readonly cleanups: (() => Promise<void>)[];
  /**
   * A page at `url` whose own errors fail the test; `initScript` (a string: it runs in the page,
   * which the tests' types do not know) runs before the page's code.
   */
  openPage(url: string, initScript?: string): Promise<Page>;
  /** `toolwire serve` on the fake model, the test repository and the built page. */
  startServe(fake: FakeServer, extra?: string[]): Promise<ServeProcess>;
}

/**
 * The Chromium set-up a page test file shares: builds the page and launches the browser once,
 * closes it at the end, and runs the cleanups after each test. Call it at the file's top level.
 */
export function pageSession(file: string): PageSession {
  if (!HAS_CHROMIUM) console.warn(`${file}: ${SKIP_REASON}`);
  let browser: Browser | undefined;
  let webDir = '';
  const cleanups: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    if (!HAS_CHROMIUM) return;
    [webDir, browser] = await Promise.all([buildPage(), launchChromium()]);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  return {
    title: (name) => (HAS_CHROMIUM ? name : `${name} (${SKIP_REASON})`),
    webDir: () => webDir,
    cleanups,
    async openPage(url, initScript) {
      const page = await browser!.newPage({ viewport: { width: 1100, height: 1300 } });
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      cleanups.push(async () => {
        await page.close();
        expect(errors, 'errors in the page').toEqual([]);
      });
      if (initScript !== undefined) await page.addInitScript(initScript);
      await page.goto(url);
      return page;
    },
    async startServe(fake, extra = []) {
      const serve = await spawnServe([
        '--base-url',
        fake.baseURL,
        '--model',
        'test-model',
        '--root',
        repository(),
        '--web-dir',
        webDir,
        ...extra,
      ]);
      cleanups.push(() => serve.stop());
      return serve;
    },
  };
}

/** Types `question` into the prompt and sends it. */
export async function ask(page: Page, question: string): Promise<void> {
  await page.fill('#prompt', question);
  await page.press('#prompt', 'Enter');
}
