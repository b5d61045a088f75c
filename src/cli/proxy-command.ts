import {
  createProxyApp,
  DEFAULT_PROXY_LIMITS,
  type ProxyLimits,
  type UpstreamTarget,
  upstreamTarget,
} from '../proxy/index.ts';
import { parseCommandLine } from './command-line.ts';
import { HELP_OPTION, helpOf } from './help.ts';
import { hostSettings } from './host-settings.ts';
import { protocolSetting, wholeNumber } from './model-settings.ts';
import { listenOrSay, untilStopped } from './server-lifetime.ts';
import { PROXY_USAGE } from './usage.ts';
import { UsageError } from './usage-error.ts';

export { PROXY_USAGE };

export const DEFAULT_PROXY_PORT = 8788;

interface Output {
  write(text: string): void;
}

/** The value of the environment variable a flag names; it must be set and not empty. */
function secretFrom(variable: string | undefined, flag: string): string | undefined {
  if (variable === undefined) return undefined;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(variable))
    throw new UsageError(`${flag} takes the name of an environment variable, not "${variable}"`);
  const value = process.env[variable];
  if (value === undefined || value === '')
    throw new UsageError(`${flag} ${variable}: the environment variable ${variable} is not set`);
  return value;
}

/** The upstream URL; its credentials, if any, are kept out of everything printed. */
function upstreamSetting(value: string | undefined): UpstreamTarget {
  if (value === undefined)
    throw new UsageError(
      'proxy needs --upstream <URL>, the base URL of an OpenAI-compatible server (e.g. http://127.0.0.1:11434/v1)',
    );
  try {
    return upstreamTarget(value);
  } catch (error) {
    throw new UsageError(`--${(error as Error).message}`, { cause: error });
  }
}

const MiB = 1024 * 1024;

/** A size flag in `unit` bytes, as a limit in bytes (undefined: the default). */
function bytesSetting(value: string | undefined, flag: string, unit: number): number | undefined {
  const number = wholeNumber(value, flag, 1);
  if (number === undefined) return undefined;
  if (!Number.isSafeInteger(number * unit)) throw new UsageError(`${flag} is too large: ${value}`);
  return number * unit;
}

/** A time flag in seconds, as milliseconds a timer can take (undefined: the default). */
function secondsSetting(value: string | undefined, flag: string): number | undefined {
  const seconds = wholeNumber(value, flag, 1);
  return seconds === undefined ? undefined : Math.min(seconds * 1000, 2 ** 31 - 1);
}

/**
 * `toolwire proxy`: starts the proxy and keeps it up until SIGINT or SIGTERM. Resolves with the
 * exit status once it has closed.
 */
export async function proxyCommand(
  args: string[],
  out: Output = process.stdout,
  err: Output = process.stderr,
): Promise<number> {
  const { values } = parseCommandLine('proxy', args, {
    ...HELP_OPTION,
    upstream: { type: 'string' },
    port: { type: 'string' },
    host: { type: 'string' },
    'allow-host': { type: 'string', multiple: true },
    protocol: { type: 'string' },
    'api-key-env': { type: 'string' },
    'upstream-api-key-env': { type: 'string' },
    'max-requests': { type: 'string' },
    'max-body-mb': { type: 'string' },
    'body-timeout': { type: 'string' },
    'memory-budget-mb': { type: 'string' },
    'upstream-timeout': { type: 'string' },
    'max-upstream-reply-mb': { type: 'string' },
    'max-upstream-event-kb': { type: 'string' },
    'tool-choice-retries': { type: 'string' },
    'max-stored-responses': { type: 'string' },
    'max-stored-response-mb': { type: 'string' },
  });
  if (values.help) {
    out.write(helpOf(PROXY_USAGE));
    return 0;
  }
  const upstream = upstreamSetting(values.upstream);
  const port = wholeNumber(values.port, '--port', 0) ?? DEFAULT_PROXY_PORT;
  if (port > 65_535) throw new UsageError(`--port must be at most 65535, not ${port}`);
  const host = values.host ?? '127.0.0.1';
  const hosts = hostSettings(host, values['allow-host'] ?? []);
  const choice = protocolSetting(values.protocol ?? process.env.TOOLWIRE_PROTOCOL ?? 'model');
  const apiKey = secretFrom(values['api-key-env'], '--api-key-env');
  const upstreamApiKey = secretFrom(values['upstream-api-key-env'], '--upstream-api-key-env');
  if (upstream.authorization !== undefined && upstreamApiKey !== undefined)
    throw new UsageError(
      '--upstream carries credentials (user:password@) and --upstream-api-key-env is set: the model server takes one Authorization, give one of them',
    );
  const given: Partial<Record<keyof ProxyLimits, number | undefined>> = {
    maxConcurrentRequests: wholeNumber(values['max-requests'], '--max-requests', 1),
    maxBodyBytes: bytesSetting(values['max-body-mb'], '--max-body-mb', MiB),
    bodyTimeoutMs: secondsSetting(values['body-timeout'], '--body-timeout'),
    memoryBudgetBytes: bytesSetting(values['memory-budget-mb'], '--memory-budget-mb', MiB),
    upstreamTimeoutMs: secondsSetting(values['upstream-timeout'], '--upstream-timeout'),
    maxUpstreamReplyBytes: bytesSetting(
      values['max-upstream-reply-mb'],
      '--max-upstream-reply-mb',
      MiB,
    ),
    maxUpstreamEventBytes: bytesSetting(
      values['max-upstream-event-kb'],
      '--max-upstream-event-kb',
      1024,
    ),
  };
  const limits: Partial<ProxyLimits> = Object.fromEntries(
    Object.entries(given).filter(([, value]) => value !== undefined),
  );
  const maxStoredResponses = wholeNumber(
    values['max-stored-responses'],
    '--max-stored-responses',
    0,
  );
  const maxStoredResponseBytes = bytesSetting(
    values['max-stored-response-mb'],
    '--max-stored-response-mb',
    MiB,
  );
  const retries = wholeNumber(values['tool-choice-retries'], '--tool-choice-retries', 0);
  if (retries !== undefined && retries > 5)
    throw new UsageError(`--tool-choice-retries must be at most 5, not ${retries}`);

  const proxy = createProxyApp({
    // The URL as given: createProxyApp takes its credentials out for the Authorization header.
    upstream: values.upstream as string,
    protocol: choice,
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(upstreamApiKey === undefined ? {} : { upstreamApiKey }),
    ...(retries === undefined ? {} : { toolChoiceRetries: retries }),
    ...(maxStoredResponses === undefined ? {} : { maxStoredResponses }),
    ...(maxStoredResponseBytes === undefined ? {} : { maxStoredResponseBytes }),
    allowedHostnames: hosts.allowedHostnames,
    allowIpAddressHosts: hosts.allowIpAddressHosts,
    limits: { ...DEFAULT_PROXY_LIMITS, ...limits },
  });
  const running = await listenOrSay(proxy, { port, host }, err);
  if (!running) return 1;
  // The first line ends with the base URL: scripts read it from there.
  out.write(
    `toolwire proxy: listening on ${running.url}/v1\n  upstream ${upstream.baseURL}${upstream.authorization === undefined ? '' : ' (with the credentials of its URL)'}, protocol ${choice}${choice.toLowerCase() === 'model' ? " (each request's model's format)" : ''}${apiKey === undefined ? '' : ', API key required'}\n`,
  );
  if (!hosts.loopback && apiKey === undefined)
    err.write(
      `toolwire proxy: warning: ${host} is not a loopback address and no --api-key-env is set: anyone who can reach ${running.url} can use the model server through it.\n`,
    );
  await untilStopped();
  await running.close();
  return 0;
}
