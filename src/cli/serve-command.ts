import { readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import {
  createServerApp,
  DEFAULT_LIMITS,
  openAICompatibleProbe,
  parseRecording,
  type Recording,
  runStoreLimits,
  type ServerAppOptions,
  type ServerLimits,
  serverSystemPrompt,
  serverTools,
} from '../server/index.ts';
import { parseCommandLine } from './command-line.ts';
import { HELP_OPTION, helpOf } from './help.ts';
import { hostSettings } from './host-settings.ts';
import { closeWithin, listenOrSay, untilStopped } from './server-lifetime.ts';
import { STORE_FLAGS, type StoreSettings, sharedStoreOrSay, storeSetting } from './store-flag.ts';

export { type HostSettings, hostSettings } from './host-settings.ts';

import { commandProtocol } from './format-source.ts';
import { MODEL_FLAGS, modelSetting, rootSetting, wholeNumber } from './model-settings.ts';
import { openAICompatibleModel } from './openai-model.ts';
import { neutraliseControls } from './terminal-text.ts';
import { LEASE_MS_RANGE, SERVE_USAGE } from './usage.ts';
import { UsageError } from './usage-error.ts';

/** The longest `--replay-delay`: a recording is a demo, not a wait. */
export const MAX_REPLAY_DELAY_MS = 60_000;

export { SERVE_USAGE };

export const DEFAULT_PORT = 8787;
export const DEFAULT_HOST = '127.0.0.1';

interface Output {
  write(text: string): void;
}

/**
 * `TOOLWIRE_LEASE_MS`: how long this instance holds a run without renewing it (an instance that
 * dies is found out within it and the next sweep). Advanced: an environment variable, not a flag.
 */
function leaseSetting(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const ms = /^\d{1,7}$/.test(value) ? Number(value) : Number.NaN;
  if (!(ms >= LEASE_MS_RANGE.min && ms <= LEASE_MS_RANGE.max))
    throw new UsageError(
      `TOOLWIRE_LEASE_MS must be a whole number of milliseconds from ${LEASE_MS_RANGE.min} to ${LEASE_MS_RANGE.max}, not "${neutraliseControls(value)}"`,
    );
  return ms;
}

/** `--replay-delay`: whole milliseconds from 0 to `MAX_REPLAY_DELAY_MS`. */
export function replayDelaySetting(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const delay = /^\d{1,6}$/.test(value) ? Number(value) : Number.NaN;
  if (!(delay <= MAX_REPLAY_DELAY_MS))
    throw new UsageError(
      `--replay-delay must be a whole number of milliseconds from 0 to ${MAX_REPLAY_DELAY_MS}, not "${value}"`,
    );
  return delay;
}

async function readRecording(file: string): Promise<Recording> {
  const text = await readFile(file, 'utf8').catch((error: Error) => {
    throw new UsageError(`--replay: cannot read "${file}": ${error.message}`, { cause: error });
  });
  try {
    return parseRecording(text, basename(file));
  } catch (error) {
    throw new UsageError(`--replay: ${(error as Error).message}`, { cause: error });
  }
}

/** The recorded run the project ships, offered on the page when no model server answers. */
const BUNDLED_RECORDING = new URL('../../examples/recorded-run.sse', import.meta.url);

/** The bundled recording, or undefined when this install does not have it. */
async function bundledRecording(): Promise<Recording | undefined> {
  const text = await readFile(BUNDLED_RECORDING, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    return parseRecording(text, basename(BUNDLED_RECORDING.pathname));
  } catch {
    return undefined;
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
  const { values } = parseCommandLine('serve', args, {
    ...HELP_OPTION,
    ...MODEL_FLAGS,
    port: { type: 'string' },
    host: { type: 'string' },
    'allow-host': { type: 'string', multiple: true },
    'max-runs': { type: 'string' },
    replay: { type: 'string' },
    'replay-delay': { type: 'string' },
    'web-dir': { type: 'string' },
    ...STORE_FLAGS,
  });
  if (values.help) {
    out.write(helpOf(SERVE_USAGE));
    return 0;
  }
  const port = wholeNumber(values.port, '--port', 0) ?? DEFAULT_PORT;
  if (port > 65_535) throw new UsageError(`--port must be at most 65535, not ${port}`);
  const host = values.host ?? DEFAULT_HOST;
  const hosts = hostSettings(host, values['allow-host'] ?? []);
  const replayDelayMs = replayDelaySetting(values['replay-delay']);
  if (replayDelayMs !== undefined && values.replay === undefined)
    throw new UsageError('--replay-delay needs --replay <file.sse> (it paces a recording)');
  const maxRuns = wholeNumber(values['max-runs'], '--max-runs', 1);
  const storeSettings = storeSetting(values);
  const leaseMs = leaseSetting(process.env.TOOLWIRE_LEASE_MS);
  const limits: ServerLimits = {
    ...DEFAULT_LIMITS,
    maxConcurrentRuns: maxRuns ?? DEFAULT_LIMITS.maxConcurrentRuns,
    ...(leaseMs === undefined ? {} : { leaseMs }),
  };
  const root = await rootSetting(values.root ?? '.');
  const { baseURL, modelName } = modelSetting(values);
  // Runs that ask for no protocol get this one; a run may still ask for a format by name.
  const { protocol, described } = await commandProtocol(values, modelName);

  const common: ServerAppOptions = {
    protocol,
    // Only the names the user chose may reach the server (no DNS rebinding).
    allowedHostnames: hosts.allowedHostnames,
    allowIpAddressHosts: hosts.allowIpAddressHosts,
    tools: serverTools(root),
    runSettings: { system: serverSystemPrompt(root) },
    limits,
    ...(values['web-dir'] === undefined ? {} : { webRoot: resolve(values['web-dir']) }),
  };
  const options: ServerAppOptions =
    values.replay !== undefined
      ? {
          ...common,
          replay: {
            recording: await readRecording(values.replay),
            ...(replayDelayMs === undefined ? {} : { delayMs: replayDelayMs }),
          },
        }
      : await liveOptions(common, baseURL, modelName);

  const shown: Shown = {
    what: options.replay
      ? `replaying ${options.replay.recording.label} (a recording: no model is asked)`
      : `model ${modelName} at ${baseURL}, protocol ${described}, tools over ${root}`,
    store: storeSettings,
    root,
    loopback: hosts.loopback,
  };
  // Memory: the app's own store, shaped by its limits. Redis: opened here with the same limits,
  // and closed here once the app has closed (the app leaves a given store open).
  const shared = await sharedStoreOrSay(storeSettings, { limits: runStoreLimits(limits) }, err);
  if (shared === undefined) return 1;
  try {
    return await serve({ ...options, ...shared }, { port, host }, shown, { out, err });
  } finally {
    await shared.store?.close();
  }
}

/** What the startup lines say. */
interface Shown {
  readonly what: string;
  readonly store: StoreSettings;
  readonly root: string;
  readonly loopback: boolean;
}

/** How long the runs aborted at shutdown may take to write their ends before the store closes. */
const DRAIN_MS = 10_000;

/** Serves until SIGINT or SIGTERM, then closes and lets the runs it aborted write their ends. */
async function serve(
  options: ServerAppOptions,
  address: { port: number; host: string },
  shown: Shown,
  { out, err }: { out: Output; err: Output },
): Promise<number> {
  const app = createServerApp(options);
  const running = await listenOrSay(app, address, err);
  if (!running) {
    app.close();
    return 1;
  }
  const { store } = shown;
  const prefix = store.prefix === undefined ? '' : ` (key prefix ${store.prefix})`;
  out.write(
    `toolwire serve: listening on ${running.url}\n  ${shown.what}\n  store ${store.shown}${prefix}\n`,
  );
  if (!shown.loopback)
    err.write(
      `toolwire serve: warning: ${address.host} is not a loopback address. The API has no authentication: anyone who can reach ${running.url} can run the agent and read the files under ${shown.root}.\n`,
    );

  await untilStopped();
  await running.close();
  // A run ended by the shutdown says so in its log, for a reader on another instance.
  await closeWithin(app.drained(), DRAIN_MS);
  return 0;
}

/** A live server: the model, the probe the page's status asks, and the recording it offers. */
async function liveOptions(
  common: ServerAppOptions,
  baseURL: string,
  modelName: string,
): Promise<ServerAppOptions> {
  const recording = await bundledRecording();
  const apiKey = process.env.TOOLWIRE_API_KEY;
  return {
    ...common,
    model: openAICompatibleModel({ baseURL, modelName }),
    modelName,
    baseURL,
    probeModelServer: openAICompatibleProbe(baseURL, apiKey ? { apiKey } : {}),
    ...(recording ? { recording: { recording } } : {}),
  };
}
