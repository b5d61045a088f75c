import { defineConfig } from 'vitest/config';

// .ci/run asks for a JSON report so it can print one plain "N passed, N failed" line.
const jsonReport = process.env.TOOLWIRE_VITEST_JSON;

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    testTimeout: 60_000,
    reporters: jsonReport ? ['default', ['json', { outputFile: jsonReport }]] : ['default'],
  },
});
