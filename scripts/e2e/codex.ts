/**
 * The newest Codex CLI (`codex exec`), installed from npm, through `toolwire proxy` in front of
 * the scripted text-only model: a custom model provider at the proxy's /v1 with
 * `wire_api = "responses"` (the only wire API Codex 0.95 and later speak), its shell tool called,
 * run, the result sent back, the answer printed.
 *
 *   npm run build && node scripts/e2e/codex.ts [--protocol hermes|qwen3-coder|all]
 *
 * Codex runs in a temp CODEX_HOME with approvals and its sandbox off
 * (`--dangerously-bypass-approvals-and-sandbox`): the only command is the scripted model's
 * `echo … > marker.txt` in a temp work dir.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ClientContext, type ClientSpec, runE2e } from './harness.ts';

const API_KEY_ENV = 'TOOLWIRE_E2E_API_KEY';

function configToml(context: ClientContext): string {
  return [
    `model = ${JSON.stringify(context.model)}`,
    'model_provider = "toolwire"',
    'approval_policy = "never"',
    'sandbox_mode = "danger-full-access"',
    '',
    '[model_providers.toolwire]',
    'name = "toolwire proxy"',
    `base_url = ${JSON.stringify(context.proxyUrl)}`,
    `env_key = "${API_KEY_ENV}"`,
    'wire_api = "responses"',
    // One attempt each, so a failure shows at once instead of after Codex's retries.
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
  ].join('\n');
}

const lastMessageFile = (context: ClientContext) => join(context.runDir, 'last-message.txt');

const codex: ClientSpec = {
  label: 'codex',
  packageName: '@openai/codex',
  command: (prefix) => join(prefix, 'node_modules/.bin/codex'),
  prepare: (context) => {
    const codexHome = join(context.home, '.codex');
    mkdirSync(codexHome, { recursive: true });
    writeFileSync(join(codexHome, 'config.toml'), configToml(context));
    return {
      args: [
        'exec',
        '--skip-git-repo-check',
        '--dangerously-bypass-approvals-and-sandbox',
        '--ephemeral',
        '--color',
        'never',
        '--output-last-message',
        lastMessageFile(context),
        context.prompt,
      ],
      env: { CODEX_HOME: codexHome, [API_KEY_ENV]: 'toolwire-e2e-unused' },
    };
  },
  finalAnswer: (run, context) => {
    const file = lastMessageFile(context);
    if (existsSync(file)) return readFileSync(file, 'utf8').trim();
    return run.stdout.trim() || undefined;
  },
};

await runE2e(codex, process.argv.slice(2));
