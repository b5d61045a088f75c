import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

// .ci/run asks for a JSON report so it can print one plain "N passed, N failed" line.
const jsonReport = process.env.TOOLWIRE_VITEST_JSON;

/**
 * The groups that mostly wait (on Chromium, on child processes, on a server across a socket),
 * named so they can be run alone (`vitest run --project browser`) and so a slow start is
 * theirs alone to wait for: they run beside the files that compute.
 */
const WAITING = {
  browser: ['test/browser/page.test.ts', 'test/browser/page-reconnect.test.ts'],
  processes: [
    'test/cli/**/*.test.ts',
    'test/server/serve-command.test.ts',
    'test/server/instance-lost-process.test.ts',
    'test/package/**/*.test.ts',
  ],
  clients: ['test/proxy/*-client.test.ts'],
} as const;

/**
 * Node's compile cache for the child processes the tests start (the CLI, the server, the proxy):
 * each loads the same few hundred source files, and with the cache a start costs about 40% less
 * CPU (0.8 s to 0.47 s for `toolwire proxy --help`). Inside node_modules, so a clone's cleanup
 * takes it along.
 */
const NODE_COMPILE_CACHE = fileURLToPath(
  new URL('./node_modules/.cache/toolwire-tests/node-compile-cache', import.meta.url),
);

export default defineConfig({
  test: {
    testTimeout: 60_000,
    env: { NODE_COMPILE_CACHE },
    // Vitest's default on a 2-core machine is one file at a time: the files that wait on a
    // browser or a child process would leave a core idle. Three keep both cores busy.
    maxWorkers: 3,
    reporters: jsonReport ? ['default', ['json', { outputFile: jsonReport }]] : ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts', 'src/**/*.test.ts', 'scripts/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...Object.values(WAITING).flat()],
        },
      },
      { extends: true, test: { name: 'browser', include: [...WAITING.browser] } },
      // A child process starts slowly on a busy machine: its waits are bounded in
      // test/support/child-process.ts, and the test's own bound leaves room for them.
      {
        extends: true,
        test: { name: 'processes', include: [...WAITING.processes], testTimeout: 120_000 },
      },
      { extends: true, test: { name: 'clients', include: [...WAITING.clients] } },
    ],
  },
});
