/**
 * The newest Claude Code (`claude -p`), installed from npm, through `toolwire proxy` in front of
 * the scripted text-only model: Bash is called, run, its result sent back, the answer printed.
 *
 *   npm run build && node scripts/e2e/claude-code.ts [--protocol hermes|qwen3-coder|all]
 *
 * Runs as root too: `--allowedTools Bash` lets the tool run without a prompt (root is refused
 * `--dangerously-skip-permissions`).
 */
import { join } from 'node:path';
import { type ClientRun, type ClientSpec, runE2e } from './harness.ts';

/** The `result` of `--output-format json`: the last JSON line Claude Code prints. */
function resultText(run: ClientRun): string | undefined {
  const lines = run.stdout.trim().split('\n').reverse();
  for (const line of lines) {
    try {
      const value = JSON.parse(line) as { type?: unknown; result?: unknown };
      if (typeof value.result === 'string') return value.result;
    } catch {
      // Not the JSON line.
    }
  }
  return undefined;
}

const claudeCode: ClientSpec = {
  label: 'claude-code',
  packageName: '@anthropic-ai/claude-code',
  command: (prefix) => join(prefix, 'node_modules/.bin/claude'),
  prepare: (context) => ({
    args: [
      '-p',
      context.prompt,
      '--allowedTools',
      'Bash',
      '--output-format',
      'json',
      '--model',
      context.model,
      '--max-turns',
      '4',
    ],
    env: {
      // Anthropic clients add /v1/messages themselves.
      ANTHROPIC_BASE_URL: context.proxyUrl.replace(/\/v1$/, ''),
      ANTHROPIC_API_KEY: 'toolwire-e2e-unused',
      ANTHROPIC_DEFAULT_HAIKU_MODEL: context.model,
      ANTHROPIC_SMALL_FAST_MODEL: context.model,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_ERROR_REPORTING: '1',
    },
  }),
  finalAnswer: (run) => resultText(run),
};

await runE2e(claudeCode, process.argv.slice(2));
