import { readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  createServerApp,
  DEFAULT_LIMITS,
  LOOPBACK_HOSTNAMES,
  parseRecording,
  type Recording,
  type ServerAppOptions,
  serverSystemPrompt,
  serverTools,
  startServer,
} from '../server/index.ts';
import {
  DEFAULT_BASE_URL,
  DEFAULT_MODEL,
  MODEL_ENVIRONMENT,
  MODEL_FLAGS,
  modelSetting,
  openAICompatibleModel,
  protocolSetting,
  rootSetting,
  wholeNumber,
} from './model-settings.ts';
import { UsageError } from './usage-error.ts';

export const SERVE_USAGE = `  toolwire serve [--port 8787] [--host 127.0.0.1] [--root <dir>] [--protocol xml]
                [--base-url URL] [--model NAME] [--max-runs N] [--replay <file.sse>] [--web-dir <dir>]

Serves the page and the API (POST /api/runs streams a run as content blocks). The agent uses
the code tools over --root (default: the current folder) and ask_user, which the page answers.
Model: an OpenAI-compatible server, default ${DEFAULT_BASE_URL} (Ollama), model ${DEFAULT_MODEL}.
--replay plays a recorded stream (e.g. examples/recorded-run.sse) for every question, no model.
${MODEL_ENVIRONMENT}`;

export const DEFAULT_PORT = 8787;
export const DEFAULT_HOST = '127.0.0.1';

interface Output {
  write(text: string): void;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

async function readRecording(file: string): Promise<Recording> {
  const text = await readFile(file, 'utf8').catch((error: Error) => {
    throw new UsageError(`--replay: cannot read "${file}": ${error.message}`);
  });
  try {
    return parseRecording(text, basename(file));
  } catch (error) {
    throw new UsageError(`--replay: ${(error as Error).message}`);
  }
}

/**
 * `toolwire serve`: starts the server and keeps it up until SIGINT or SIGTERM. Resolves with
 * the exit status once it has closed.
 */
export async function serveCommand(
  args: string[],
  out: Output = process.stdout,
  err: Output = process.stderr,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      ...MODEL_FLAGS,
      port: { type: 'string' },
      host: { type: 'string' },
      'max-runs': { type: 'string' },
      replay: { type: 'string' },
      'web-dir': { type: 'string' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length > 0)
    throw new UsageError(`serve takes no arguments besides options (got "${positionals[0]}")`);
  const port = wholeNumber(values.port, '--port', 0) ?? DEFAULT_PORT;
  if (port > 65_535) throw new UsageError(`--port must be at most 65535, not ${port}`);
  const host = values.host ?? DEFAULT_HOST;
  const maxRuns = wholeNumber(values['max-runs'], '--max-runs', 1);
  const protocol = protocolSetting(values.protocol);
  const root = await rootSetting(values.root ?? '.');
  const { baseURL, modelName } = modelSetting(values);

  const common: ServerAppOptions = {
    protocol,
    // On loopback, only loopback names may reach the server (no DNS rebinding).
    ...(isLoopback(host) ? { allowedHostnames: [...LOOPBACK_HOSTNAMES, host] } : {}),
    tools: serverTools(root),
    runSettings: { system: serverSystemPrompt(root) },
    limits: { maxConcurrentRuns: maxRuns ?? DEFAULT_LIMITS.maxConcurrentRuns },
    ...(values['web-dir'] === undefined ? {} : { webRoot: resolve(values['web-dir']) }),
  };
  const options: ServerAppOptions =
    values.replay !== undefined
      ? { ...common, replay: { recording: await readRecording(values.replay) } }
      : {
          ...common,
          model: openAICompatibleModel({ baseURL, modelName }),
          modelName,
          baseURL,
        };

  const app = createServerApp(options);
  let running: Awaited<ReturnType<typeof startServer>>;
  try {
    running = await startServer(app, { port, host });
  } catch (error) {
    const code = (error as { code?: string }).code;
    err.write(
      code === 'EADDRINUSE'
        ? `toolwire: port ${port} on ${host} is in use; pick another with --port\n`
        : `toolwire: cannot listen on ${host}:${port}: ${(error as Error).message}\n`,
    );
    return 1;
  }
  const what = options.replay
    ? `replaying ${options.replay.recording.label} (a recording: no model is asked)`
    : `model ${modelName} at ${baseURL}, protocol ${protocol}, tools over ${root}`;
  out.write(`toolwire serve: listening on ${running.url}\n  ${what}\n`);

  await new Promise<void>((done) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      done();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await running.close();
  return 0;
}
