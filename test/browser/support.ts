import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { startCli } from '../support/child-process.ts';

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
